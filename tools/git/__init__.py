"""Git branch isolation on GitPython: task branches, stale-branch handling, review, commit gate, merge."""
