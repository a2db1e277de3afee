"""Project root resolution and path confinement: the one place that decides what is inside the project."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from code_intel.core.errors import FileNotFound, InvalidArgument, PathOutsideProject, StateUnwritable
from code_intel.core.pathnames import from_client

ENV_PROJECT = "CODE_INTEL_PROJECT"
_PACKAGE = Path(__file__).resolve().parents[1]  # code_intel/ when installed, tools/ in a checkout


def _shipped(installed: str, checkout: str) -> Path:
    """A file init writes: inside the installed package (pyproject maps templates/ to code_intel/templates and
    .claude/commands/ to code_intel/skill), or beside tools/ in a checkout, where it is edited."""
    inside = _PACKAGE / installed
    return inside if inside.exists() else _PACKAGE.parent / checkout


# Everything init writes into a user's project; also the built-in defaults (phase_contract.yml).
TEMPLATES_DIR = _shipped("templates", "templates")
# The /code skill's source, which init renders for each client.
SKILL_SOURCE = _shipped("skill/code.md", ".claude/commands/code.md")
REINSTALL_HINT = ("reinstall code-intel (`pipx reinstall code-intel` or `uv tool install --reinstall code-intel`; "
                  "in a clone, `git checkout -- templates .claude`)")
STATE_DIR = ".code-intel"
# Runtime folders hold machine-local state; each gets a self-ignoring .gitignore.
RUNTIME_DIRS = ("chroma", "logs", "sessions", "cache")
# errno values that mean "this folder cannot be written" (EPERM, EACCES, ENOSPC, EROFS, EDQUOT), as
# opposed to a bug; numbers, so the client hooks that import this module need not import errno
UNWRITABLE_ERRNOS = frozenset({1, 13, 28, 30, 122})
_DISK_FULL = frozenset({28, 122})


def resolve_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--project` first, then $CODE_INTEL_PROJECT, then the working directory."""
    candidate = explicit or os.environ.get(ENV_PROJECT) or os.getcwd()
    root = Path(candidate).expanduser().resolve()
    if not root.is_dir():
        raise InvalidArgument(
            f"project root {str(root)!r} is not a directory",
            hint="pass --project DIR or set CODE_INTEL_PROJECT to an existing folder",
        )
    return root


class ProjectRoot:
    """The project the server works on. Every path a tool receives goes through `resolve`.

    Immutable. A plain class rather than a dataclass: the client hooks import this on every tool call,
    and `dataclasses` pulls in `inspect` and `ast` (about a quarter of the hook's import time)."""

    __slots__ = ("path",)
    path: Path

    def __init__(self, path: Path) -> None:
        object.__setattr__(self, "path", path)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ProjectRoot is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProjectRoot) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __repr__(self) -> str:
        return f"ProjectRoot(path={self.path!r})"

    @classmethod
    def from_args(cls, explicit: str | os.PathLike[str] | None = None) -> ProjectRoot:
        return cls(resolve_root(explicit))

    @property
    def state_dir(self) -> Path:
        return self.path / STATE_DIR

    def runtime_dir(self, name: str) -> Path:
        """`.code-intel/<name>/`, created on demand and ignored by git whatever the user's .gitignore says.

        On a read-only project the folder is returned as it is (perhaps missing): reading works, and a
        write fails where it happens; `writable_dir` is the check for calls that must save state."""
        folder = self.state_dir / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            marker = folder / ".gitignore"
            if not marker.exists():
                marker.write_text("# created by code-intel: machine-local state\n*\n", encoding="utf-8")
        except OSError:
            pass  # read-only or full: the caller's own write reports it
        return folder

    def writable_dir(self, name: str, action: str = "this call") -> Path:
        """`runtime_dir(name)`, proven writable by creating a file in it; else a refusal naming the fix."""
        import tempfile

        folder = self.runtime_dir(name)
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe.", suffix=".tmp"):
                pass
        except OSError as err:
            raise self.unwritable(folder, err, action) from None
        return folder

    def unwritable(self, folder: Path, err: OSError, action: str = "this call") -> StateUnwritable:
        """The refusal for a write into the state folder that failed (read-only, permissions, disk full)."""
        where = self.relative(folder) if self.contains(folder) else str(folder)
        why = err.strerror or type(err).__name__
        if err.errno in _DISK_FULL:
            fix = "free disk space"
        else:
            fix = f"make it writable (e.g. `chmod -R u+w {folder}`, or give it to the user running the server)"
        return StateUnwritable(
            f"{where} cannot be written ({why}), so {action} cannot save its state there",
            hint=f"{fix}, then try again; the exploration tools keep working meanwhile",
        )

    def unwritable_state(self, err: BaseException, action: str = "this call") -> StateUnwritable | None:
        """The refusal for an OSError raised while writing under `.code-intel/`, or None for any other error."""
        if not isinstance(err, OSError) or err.errno not in UNWRITABLE_ERRNOS or not err.filename:
            return None
        target = Path(os.fsdecode(err.filename))
        if not target.is_absolute() or not (target == self.state_dir or self.state_dir in target.parents):
            return None
        folder = target if target.is_dir() else target.parent
        return self.unwritable(folder, err, action)

    def resolve(self, user_path: str | os.PathLike[str], *, must_exist: bool = False, kind: str = "path") -> Path:
        """Absolute, symlink-resolved path inside the root; refuses anything that escapes it."""
        text = os.fspath(user_path) if isinstance(user_path, (str, os.PathLike)) else user_path
        if not isinstance(text, str):
            raise InvalidArgument(f"{kind} must be a string, got {type(user_path).__name__}", hint="send a path relative to the project root")
        if not text.strip():
            raise InvalidArgument(f"{kind} is empty", hint="send a path relative to the project root, e.g. 'src/app.py'")
        if "\x00" in text:
            raise InvalidArgument(f"{kind} contains a NUL byte", hint="send a plain relative path")
        try:
            resolved = self._real(text)
            if not os.path.lexists(resolved) and "\\x" in text:
                # a name that is not UTF-8, in the escaped form results give it (see tools/core/pathnames.py); an
                # escaped NUL names no file
                real_name = from_client(text)
                unescaped = None if "\x00" in real_name else self._real(real_name)
                if unescaped is not None and os.path.lexists(unescaped):
                    resolved = unescaped
            if not self.contains(resolved):
                raise PathOutsideProject(
                    f"{kind} {text!r} resolves to {str(resolved)!r}, outside the project root {str(self.path)!r}",
                    hint="send a path inside the project, relative to its root",
                )
            try:  # asked even when the file need not exist: this is where a name too long for the system shows up
                missing = not resolved.exists()
            except OSError as err:
                if err.errno == errno.ENAMETOOLONG or must_exist:
                    raise
                missing = False  # e.g. a folder that cannot be read: whoever opens the file reports it
        except OSError as err:
            if err.errno != errno.ENAMETOOLONG:
                raise
            raise InvalidArgument(f"{kind} is too long to be a file name ({len(text)} characters: {text[:60]!r}...)",
                                  hint="send a path relative to the project root, e.g. 'src/app.py'") from None
        if must_exist and missing:
            raise FileNotFound(
                f"{kind} {text!r} does not exist in the project",
                hint="use search_files to find the right path",
            )
        return resolved

    def resolve_entry(self, user_path: str | os.PathLike[str], *, kind: str = "path") -> Path:
        """Like `resolve`, except that a symlink at the end of the path is the entry itself, never its target: for
        the files a session commits or discards, where a link the agent made must be handled as a link."""
        text = os.fspath(user_path) if isinstance(user_path, (str, os.PathLike)) else user_path
        if not isinstance(text, str) or not text.strip() or "\x00" in text:
            return self.resolve(user_path, kind=kind)  # refused there, with the reason
        raw = Path(text).expanduser()
        absolute = raw if raw.is_absolute() else self.path / raw
        if absolute.name in ("", ".", "..") or not absolute.is_symlink():
            return self.resolve(user_path, kind=kind)
        folder = self.resolve(str(absolute.parent), kind=kind)
        return folder / absolute.name

    def _real(self, text: str) -> Path:
        raw = Path(text).expanduser()
        return Path(os.path.realpath(raw if raw.is_absolute() else self.path / raw))

    def contains(self, absolute: Path) -> bool:
        real = Path(os.path.realpath(absolute))
        return real == self.path or self.path in real.parents

    def relative(self, absolute: str | os.PathLike[str]) -> str:
        """Project-relative POSIX path of a path already inside the root."""
        p = Path(absolute)
        if not p.is_absolute():
            return p.as_posix()
        try:
            return p.relative_to(self.path).as_posix()
        except ValueError:
            return Path(os.path.realpath(p)).relative_to(self.path).as_posix()
