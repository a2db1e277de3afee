"""May the agent write this file now? The rules behind `check_write_target` and the Edit/Write hook.

Writes happen only in READY, only inside the project (symlinks resolved) and never into `.git/` or
`.code-intel/`. Inside READY a file may be written when it was explored, when it is new and sits
beside explored files, when it is pure markup (exploration is relaxed for HTML/CSS/Markdown), or
when the user chose to skip exploration (--fast / --quick).

The client hook (`code-intel hook pre-tool-use`) imports this module on every Edit/Write/Bash call,
so it stays free of pydantic, dataclasses and every heavy library: the decision is a NamedTuple.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from code_intel.core.errors import PathOutsideProject
from code_intel.core.project import ProjectRoot
from code_intel.languages.table import MARKUP_SUFFIXES, is_markup

# folders no tool of the agent may write: git's, code-intel's state and settings, the clients' settings and hooks
PROTECTED_DIRS = {".git": "git", ".code-intel": "code-intel", ".claude": "Claude Code's settings and hooks",
                  ".codex": "Codex's settings and hooks"}


class WriteDecision(NamedTuple):
    allowed: bool
    reason: str
    file: str


def _normalise(root: ProjectRoot, path: str) -> str:
    """An explored entry as a project-relative POSIX path ('./src/a.py', '/abs/root/src/a.py' -> 'src/a.py')."""
    text = path.strip().replace("\\", "/")
    if os.path.isabs(text):
        real = Path(os.path.realpath(text))
        return root.relative(real) if root.contains(real) else text
    return PurePosixPath(os.path.normpath(text)).as_posix()


def _explored_folders(explored: set[str]) -> set[str]:
    return {PurePosixPath(p).parent.as_posix() for p in explored}


def _nearest_existing_folder(root: ProjectRoot, target: Path) -> str:
    """The file's folder, or for a file in folders not created yet, the closest one that exists."""
    folder = target.parent
    while folder != root.path and not folder.exists():
        folder = folder.parent
    return root.relative(folder) if folder != root.path else "."


def evaluate_write(root: ProjectRoot, file_path: str, *, in_ready: bool, explored: set[str], relaxed: bool) -> WriteDecision:
    """Decide whether `file_path` may be written now; the reason always says why and what to do next."""
    try:
        target = root.resolve(file_path, kind="file_path")
    except PathOutsideProject as err:
        return WriteDecision(allowed=False, reason=f"{err.message}: code-intel only writes inside the project", file=str(file_path))
    rel = root.relative(target)

    def deny(reason: str) -> WriteDecision:
        return WriteDecision(allowed=False, reason=reason, file=rel)

    def allow(reason: str) -> WriteDecision:
        return WriteDecision(allowed=True, reason=reason, file=rel)

    protected = next((part for part in PurePosixPath(rel).parts if part in PROTECTED_DIRS), None)
    if protected is not None:
        return deny(f"{rel} is inside {protected}/, which belongs to {PROTECTED_DIRS[protected]}; edit project files only")
    if rel == "." or target.is_dir():
        return deny(f"{rel} is a folder; send the path of the file you want to write")
    if not in_ready:
        return deny(
            "files can be written only in the READY phase (implementation); finish the current phase with "
            "submit_phase first, and plan the change as a task"
        )
    if relaxed:
        return allow(f"{rel}: exploration was skipped for this session (--fast/--quick), so any project file may be written")
    known = {_normalise(root, p) for p in explored}
    if rel in known:
        return allow(f"{rel} was explored in this session")
    if is_markup(rel):
        return allow(f"{rel} is pure markup ({', '.join(sorted(MARKUP_SUFFIXES))}): exploration is relaxed for these files")
    if not target.exists():
        folder = _nearest_existing_folder(root, target)
        if folder in _explored_folders(known):
            return allow(f"{rel} is a new file in {folder}/, where files were explored")
        return deny(
            f"{rel} is a new file, but no file in {folder}/ was explored; read a neighbouring file first and "
            f"record it with add_explored_files([...]), or create the file next to files you explored"
        )
    return deny(f"{rel} was not explored; explore it first: read it, then call add_explored_files([{rel!r}])")
