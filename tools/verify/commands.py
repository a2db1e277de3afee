"""`code-intel check`: run the project's verify.commands from the shell, as the server does.

Every configured command runs (from the shell there is no session to say which files changed),
unless `--changed FILE...` names the changed files, in which case the `when` globs pick the
relevant ones like run_checks does. Exit 0 only when every command that ran passed; 1 when one
failed; 2 when the configuration is unusable. With no command configured it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys

from tools.config import load_config
from tools.project import ProjectRoot
from tools.verify.models import CheckReport
from tools.verify.service import CheckService


def format_report(report: CheckReport) -> str:
    if not report.configured:
        return ("code-intel check: no verify.commands in .code-intel/config.json; nothing to run "
                "(code-intel init detects pytest, npm test, go test, cargo test, make, mvn and gradle)")
    lines = []
    for outcome in report.commands:
        lines.append(f"{'PASS' if outcome.passed else 'FAIL'}  {outcome.headline()}  [{outcome.command}, {outcome.duration_s:.1f}s]")
        if not outcome.passed:
            shown = outcome.tail.splitlines()[-20:]
            lines += ["      " + line for line in shown]
    for skipped in report.skipped:
        lines.append(f"SKIP  {skipped.name}: {skipped.reason}")
    lines.append("all checks passed" if report.passed else f"{len(report.failed)} of {len(report.commands)} check(s) failed")
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> int:
    root = ProjectRoot.from_args(getattr(args, "project", None))
    config = load_config(root.state_dir)
    service = CheckService(root, lambda: config.verify)
    changed = list(args.changed) if getattr(args, "changed", None) else None

    def progress(elapsed: float, message: str) -> None:
        if elapsed > 0:
            print(f"  ... {message}", file=sys.stderr, flush=True)

    report = service.run(changed, progress=progress)
    if getattr(args, "json", False):
        print(json.dumps(report.model_dump(mode="json"), indent=1))
    else:
        print(format_report(report))
    return 0 if report.passed else 1
