"""`code-intel check`: run the project's verify.commands from the shell, as the server does.

Like run_checks, it runs the commands relevant to what changed (a command whose `when` globs match
a changed file, or whose `when` is empty). What "changed" means, first match wins:

1. `--all`: nothing is judged, every command runs;
2. `--changed FILE...`: the files named;
3. a session is active in the project (its checkpoint exists): the files changed since it started,
   exactly the set run_checks and POST_IMPL_VERIFY use;
4. a git repository: the working tree's changes against HEAD (staged, unstaged, untracked; not
   ignored files), what `git status` lists;
5. otherwise (a plain folder with no session) there is nothing to compare against: every command.

Exit 0 only when every command that ran passed; 1 when one failed; 2 when the configuration or an
argument is unusable. With no command configured it says so and exits 0. `--json` prints the same
fields run_checks answers (CheckRun).
"""

from __future__ import annotations

import argparse
import json
import sys

from code_intel.core.config import load_config
from code_intel.core.errors import CodeIntelError, InvalidArgument
from code_intel.core.project import STATE_DIR, ProjectRoot
from code_intel.git.service import GitService
from code_intel.verify.models import CheckReport, not_configured_view
from code_intel.verify.service import CheckService

NOT_CONFIGURED = ("no verify.commands in .code-intel/config.json; nothing to run "
                  "(code-intel init detects pytest, npm test, go test, cargo test, make, mvn and gradle)")


def format_report(report: CheckReport) -> str:
    lines = [f"relevance: {report.relevance}"] if report.relevance else []
    for outcome in report.commands:
        lines.append(f"{'PASS' if outcome.passed else 'FAIL'}  {outcome.headline()}  [{outcome.command}, {outcome.duration_s:.1f}s]")
        if not outcome.passed:
            shown = outcome.tail.splitlines()[-20:]
            lines += ["      " + line for line in shown]
    for skipped in report.skipped:
        lines.append(f"SKIP  {skipped.name}: {skipped.reason}")
    if not report.commands:
        lines.append("no command is relevant to these changes (--all runs every command)")
    else:
        lines.append("all checks passed" if report.passed else f"{len(report.failed)} of {len(report.commands)} check(s) failed")
    return "\n".join(lines)


def _session_changes(root: ProjectRoot, git: GitService) -> tuple[list[str], str] | None:
    """The active session's changed files, as run_checks sees them; None when no session can say."""
    from code_intel.workflow.checkpoint import CheckpointStore
    from code_intel.workflow.lock import ProjectLock

    if not (root.path / STATE_DIR / "sessions").is_dir():
        return None
    store = CheckpointStore(root)
    file = store.active_file(ProjectLock(root).owner())
    if file is None:
        return None
    try:
        state, _ = store.load(file)
        if not state.tracks_changes:
            return None
        changed = git.changed_since_snapshot(state.git)
    except CodeIntelError as err:
        print(f"code-intel check: the session's checkpoint cannot be used ({err.message}); "
              "judging against the working tree instead", file=sys.stderr)
        return None
    return changed, f"{len(changed)} file(s) changed since session {state.session_id} started (as run_checks sees them)"


def changed_files(root: ProjectRoot, args: argparse.Namespace) -> tuple[list[str] | None, str]:
    """What the `when` globs are matched against (None: every command runs), and where it came from."""
    if getattr(args, "all", False):
        return None, "every command (--all)"
    named = getattr(args, "changed", None)
    if named:
        return [root.relative(root.resolve(f, kind="changed file")) for f in named], "the files named with --changed"
    git = GitService(root)
    session = _session_changes(root, git)
    if session is not None:
        return session
    working = git.working_changes()
    if working is not None:
        return working, f"{len(working)} file(s) changed in the working tree against HEAD (git status)"
    return None, "every command: not a git repository and no session to compare against"


def run_check(args: argparse.Namespace) -> int:
    root = ProjectRoot.from_args(getattr(args, "project", None))
    config = load_config(root.state_dir)
    as_json = getattr(args, "json", False)
    if not config.verify.commands:
        print(json.dumps(not_configured_view(NOT_CONFIGURED), indent=1) if as_json else f"code-intel check: {NOT_CONFIGURED}")
        return 0
    try:
        changed, relevance = changed_files(root, args)
    except InvalidArgument as err:
        print(f"code-intel check: {err.message}" + (f"\n  hint: {err.hint}" if err.hint else ""), file=sys.stderr)
        return 2
    service = CheckService(root, lambda: config.verify)

    def progress(elapsed: float, message: str) -> None:
        if elapsed > 0:
            print(f"  ... {message}", file=sys.stderr, flush=True)

    report = service.run(changed, progress=progress)
    report.relevance = relevance
    print(json.dumps(report.view(), indent=1) if as_json else format_report(report))
    return 0 if report.passed else 1
