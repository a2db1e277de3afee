"""`code-intel allow FILE...`: the user keeps files the agent changed before READY.

Writing is not allowed before READY; a file changed then is flagged, and the session's PRE_COMMIT keeps
it only with the user's consent (code_intel/workflow/grants.py). This command is how a user gives it
from their own terminal when the client cannot ask (no MCP elicitation): it shows the active session's
files as they are now, asks for a yes on the terminal, and records a grant for exactly that content.
It refuses to run without a terminal, and the client hook refuses it to the agent's shell.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ENV_PROJECT, ProjectRoot
from code_intel.hooks.session import find_session
from code_intel.workflow import grants

if TYPE_CHECKING:
    import argparse


def _terminal_answer(question: str) -> bool:
    answer = input(question)
    return answer.strip().lower() in ("y", "yes")


def run_allow(args: argparse.Namespace, confirm: Callable[[str], bool] | None = None) -> int:
    """CLI entry: `code-intel allow FILE... [--project DIR]`; `confirm` replaces the terminal question in tests."""
    if confirm is None:
        if not sys.stdin.isatty():
            print("code-intel allow: run this in your own terminal: it asks you to confirm, and reads the answer "
                  "from the terminal (an agent's shell has none)", file=sys.stderr)
            return 2
        confirm = _terminal_answer
    root = ProjectRoot(Path(args.project or os.environ.get(ENV_PROJECT) or os.getcwd()).expanduser().resolve())
    try:
        session = find_session(root)
    except CheckpointCorrupt as err:
        print(f"code-intel allow: {err.message} ({err.hint})", file=sys.stderr)
        return 1
    if session is None:
        print(f"code-intel allow: no code-intel session is active in {root}", file=sys.stderr)
        return 1
    files: list[str] = []
    for name in args.files:
        path = Path(name).expanduser()
        path = path if path.is_absolute() else root.path / path  # as the session names them: project-relative
        if not root.contains(path):
            print(f"code-intel allow: {name} is outside the project {root}", file=sys.stderr)
            return 1
        files.append(root.relative(Path(os.path.abspath(path))))
    print(f"Session {session.session_id} ({session.phase}). The agent changed these files before READY, while "
          "writing was not allowed:")
    for rel in files:
        state = "deleted" if not (root.path / rel).exists() and not (root.path / rel).is_symlink() else "as it is now"
        print(f"  {rel} ({state})")
    if not confirm(f"Keep {'this file' if len(files) == 1 else f'these {len(files)} files'} in the commit? [y/N] "):
        print("Nothing granted.")
        return 1
    grants.record(root.path, session.file.parent, session.session_id, files, by="terminal")
    print("Granted. The agent may now list them in PRE_COMMIT's reallowed_files; changing them again voids the grant.")
    return 0
