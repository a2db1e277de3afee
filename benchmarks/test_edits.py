"""What "tests the change removed, skipped, focused or rewrote" finds in real commits, and what it costs.

At every POST_IMPL_VERIFY submit the server reads each changed test file as it was at the session's start and as
it is now (tools/verify/test_edits.py) and tells what it finds to the reviewers and the user. This script takes a
repository's own commits as sessions and prints, over the last `--commits` commits before COMMIT that change a file
the reader looks at: how many commits have an edit of each kind (a user reading SESSION_COMPLETE would be told),
the edits per kind, and the time the reading took beside the baseline, a plain line diff (difflib, as the evidence
check runs it) of the same files.

    .venv/bin/python benchmarks/test_edits.py GITDIR@COMMIT [--commits 300]
    .venv/bin/python benchmarks/test_edits.py /work/.mirror/jhy+jsoup/repo@58a78b9c0792

GITDIR is a git directory (a clone, or one brought by the search tool's fetch). Files are read with `git show`, not
checked out; merges are left out.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.verify.test_edits import find_test_edits, may_hold_tests


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "-C", gitdir, *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def show(gitdir: str, rev: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", gitdir, "show", f"{rev}:{path}"], capture_output=True, text=True,
                          errors="replace")
    return done.stdout if done.returncode == 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", help="GITDIR@COMMIT")
    parser.add_argument("--commits", type=int, default=300)
    args = parser.parse_args()
    gitdir, _, commit = args.repo.partition("@")
    commits = git(gitdir, "rev-list", "--no-merges", f"-{args.commits}", commit or "HEAD").split()
    told = collections.Counter()  # kind -> commits with at least one
    edits = collections.Counter()  # kind -> edits
    reading, baseline = [], []
    sessions = silent = 0
    for rev in commits:
        paths = [p for p in git(gitdir, "diff-tree", "--no-commit-id", "--name-only", "-r", rev).split()
                 if may_hold_tests(p)]
        if not paths:
            continue
        sessions += 1
        files = [(p, show(gitdir, rev + "^", p), show(gitdir, rev, p)) for p in paths]
        started = time.perf_counter()
        found = find_test_edits(files)
        reading.append(time.perf_counter() - started)
        started = time.perf_counter()
        for _path, old, new in files:
            difflib.SequenceMatcher(None, (old or "").splitlines(), (new or "").splitlines(), autojunk=False).get_opcodes()
        baseline.append(time.perf_counter() - started)
        silent += not found
        kinds = collections.Counter(e.kind for e in found)
        edits.update(kinds)
        told.update(kinds.keys())
    print(f"{gitdir}@{commit or 'HEAD'}: {len(commits)} commits, {sessions} change a file read for tests")
    for kind in ("removed", "skipped", "focused", "rewritten"):
        print(f"  {kind:9} in {told[kind]:3} commits ({100 * told[kind] / max(sessions, 1):4.1f}%), {edits[kind]} edits")
    print(f"  nothing told in {silent} of {sessions} commits")
    if reading:
        print(f"  reading:   median {1000 * statistics.median(reading):.1f} ms, max {1000 * max(reading):.1f} ms per commit")
        print(f"  baseline:  median {1000 * statistics.median(baseline):.1f} ms, max {1000 * max(baseline):.1f} ms "
              "(difflib line diff of the same files)")


if __name__ == "__main__":
    main()
