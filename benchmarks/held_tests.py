"""How far "a failing test that calls a function the session changed is the session's" reaches.

At POST_IMPL_VERIFY a test that failed the same way before the change is excused, unless the session is about
it; one way it is, is that its source calls a function the session changed (tools/verify/exercised.py). An
unrelated test that was already broken is then held against the change when it happens to call such a
function. This script takes a repository's own commits as sessions and prints, for each, the share of the
project's tests (those the commit did not change itself) whose source calls a function the commit changed: the
chance that an already broken test would be held against that change.

    .venv/bin/python benchmarks/held_tests.py GITDIR@COMMIT --src more_itertools --tests tests --style python
    .venv/bin/python benchmarks/held_tests.py /work/.mirror/jhy+jsoup/repo@58a78b9c0792 \\
        --src src/main/java --tests src/test/java --style java --commits 30

GITDIR is a git directory (a clone, or one brought by the search tool's fetch); the commits read are the last
`--commits` commits before COMMIT (not merges) that change a source file under `--src`. Each is checked out in
a temporary worktree. Tests are found by their source under `--tests`: `--style python` functions named
test*, `java` methods annotated @Test, `rust` every function (Rust's integration tests).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.core.project import ProjectRoot
from code_intel.explore.outline import flatten, outline
from code_intel.explore.ripgrep import RgFilters
from code_intel.explore.syntax import ParseCache
from code_intel.languages.grammar import FUNCTION_KINDS
from code_intel.verify import exercised
from code_intel.verify.models import FileChange
from code_intel.workflow.changes import line_changes

EXTENSIONS = {"python": ".py", "java": ".java", "rust": ".rs"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_names(tree: Path, tests: str, style: str) -> list[str]:
    """The tests under `tests`, named as their runner names them (near enough for finding them again)."""
    parses = ParseCache()
    names: list[str] = []
    for file in sorted((tree / tests).rglob("*" + EXTENSIONS[style])):
        try:
            parsed = parses.get(file, store=False)
        except Exception:  # noqa: BLE001 - a file the parser refuses has no tests for this count
            continue
        rel = file.relative_to(tree).as_posix()
        for symbol in flatten(outline(parsed)):
            if symbol.kind not in FUNCTION_KINDS:
                continue
            if style == "python" and symbol.name.startswith("test"):
                names.append(f"{rel}::{symbol.name}")
            elif style == "java" and "@Test" in parsed.text(symbol.full_node)[:200]:
                names.append(f"{file.stem}.{symbol.name}")
            elif style == "rust":
                names.append(f"{file.stem}::{symbol.name}")
    return names


def changes_of(gitdir: Path, tree: Path, commit: str, src: str, ext: str) -> list[FileChange]:
    """What the commit changed in the source files under `src`, as the server measures a session's change."""
    out: list[FileChange] = []
    for path in git(gitdir, "diff", "--name-only", f"{commit}^", commit, "--", src).split():
        if not path.endswith(ext) or not (tree / path).is_file():
            continue
        try:
            old: str | None = git(gitdir, "show", f"{commit}^:{path}")
        except subprocess.CalledProcessError:
            old = None  # a new file
        ranges, gaps = line_changes(old, (tree / path).read_text(encoding="utf-8", errors="replace").splitlines())
        out.append(FileChange(path, tuple(ranges), tuple(gaps)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="GITDIR@COMMIT")
    parser.add_argument("--src", required=True, help="the folder of the code under test")
    parser.add_argument("--tests", required=True, help="the folder of the tests")
    parser.add_argument("--style", required=True, choices=sorted(EXTENSIONS))
    parser.add_argument("--commits", type=int, default=40)
    args = parser.parse_args()
    gitdir_text, _, head = args.source.rpartition("@")
    gitdir = Path(gitdir_text or args.source)
    head = head if gitdir_text else "HEAD"
    exercised.MAX_TESTS = exercised.MAX_FILES = 10**6  # every test of the project, not a failing handful
    ext = EXTENSIONS[args.style]
    candidates = git(gitdir, "log", "--no-merges", "--format=%H", "-n", str(args.commits * 4), head, "--", args.src).split()
    shares: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        git(gitdir, "worktree", "add", "--detach", str(tree), head)
        try:
            for commit in candidates:
                git(tree, "checkout", "-q", "--detach", commit)
                changes = changes_of(gitdir, tree, commit, args.src, ext)
                reader = exercised.Exercise(ProjectRoot.from_args(tree), RgFilters(), changes)
                changed = reader.changed_functions()
                tests = test_names(tree, args.tests, args.style) if changed else []
                if not tests:
                    continue  # a commit that changed no function, or a tree with no tests yet
                started = time.perf_counter()
                held = [t for t, why in reader.tests(tests).items() if why != "the session changed its lines"]
                took = time.perf_counter() - started
                shares.append(len(held) / len(tests))
                print(f"{commit[:10]}  changed {len(changed):3} functions ({', '.join(sorted(changed)[:3])}"
                      f"{', ...' if len(changed) > 3 else ''})  tests {len(tests):5}  held {len(held):4} "
                      f"({shares[-1]:.1%})  {took * 1000:.0f} ms", flush=True)
                if len(shares) >= args.commits:
                    break
        finally:
            git(gitdir, "worktree", "remove", "--force", str(tree))
    if not shares:
        print("no commit changed a function under --src")
        return 1
    print(f"\n{len(shares)} commits: held share median {statistics.median(shares):.2%}, "
          f"mean {statistics.mean(shares):.2%}, max {max(shares):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
