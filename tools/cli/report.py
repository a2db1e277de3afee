"""`code-intel report [SESSION_ID] [--project DIR] [-o FILE]`: one session as a self-contained HTML page.

The default session is the latest one the project has a record of (history, checkpoint or decision log). The
page goes to `-o FILE`, else to `.code-intel/reports/<session_id>.html`; the path written is printed.
"""

from __future__ import annotations

import argparse
import sys

from code_intel.core.project import ProjectRoot
from code_intel.report.output import write_report


def run_report(args: argparse.Namespace) -> int:
    root = ProjectRoot.from_args(getattr(args, "project", None))
    try:
        path = write_report(root, getattr(args, "session_id", None), getattr(args, "output", None))
    except OSError as err:
        print(f"code-intel report: the page could not be written: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0
