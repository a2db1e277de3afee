"""Writing a session's report page: where it goes, and the command that writes it."""

from __future__ import annotations

from pathlib import Path

from code_intel.core.errors import InvalidArgument
from code_intel.core.fsutil import write_atomic
from code_intel.core.project import ProjectRoot
from code_intel.report.facts import gather, session_ids
from code_intel.report.page import render

REPORTS_DIR = "reports"  # under .code-intel/


def write_report(root: ProjectRoot, session_id: str | None = None, output: str | None = None) -> Path:
    """Render the session's page (the latest session's without an id) and write it; returns the file written."""
    known = session_ids(root)
    if session_id is None:
        if not known:
            raise InvalidArgument(f"no session has been recorded in {root.path}",
                                  hint="run a /code session first; its history goes to .code-intel/logs/history/")
        session_id = known[0]
    elif session_id not in known:
        shown = ", ".join(known[:5]) or "none"
        raise InvalidArgument(f"no record of session {session_id!r} in {root.path}",
                              hint=f"name a recorded session (newest first: {shown}), or leave the id out for the latest")
    page = render(gather(root, session_id))
    if output:
        target = Path(output).expanduser().resolve()
    else:
        target = root.runtime_dir(REPORTS_DIR) / f"{session_id}.html"
    write_atomic(target, page.encode("utf-8"))
    return target


def report_at_end(root: ProjectRoot, session_id: str) -> str:
    """The server's reporter: the finished session's page, as a project-relative path."""
    return root.relative(write_report(root, session_id))
