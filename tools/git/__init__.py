"""Git branch isolation: task branches, stale-branch handling, review, commit gate, merge."""
