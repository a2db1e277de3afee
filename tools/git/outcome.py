"""OutcomeService: fingerprints of one project, stored copies of content, and putting changes back.

Implements tools.workflow.outcome.OutcomePort. Copies of content go into the repository's object
database (`git hash-object -w`, no filters), or, outside git, into the content store of
tools.git.baseline (`.code-intel/sessions/<name>.baseline/`, content-addressed). A restore never
follows a symlink: a path is put back as the kind of entry it was (file with its mode, or link).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from code_intel.core.errors import CodeIntelError
from code_intel.core.outcome_types import ABSENT, KEY_FLAG, KEY_HEAD, KEY_REF, Change, content_id
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import GitSessionInfo
from code_intel.git.fingerprint import CacheMatcher, Fingerprinter, GitPlaces
from code_intel.git.runner import GitRunner
from code_intel.git.snapshot import entry, snapshot_tree

log = logging.getLogger(__name__)
COPIES = "outcome-copies"  # outside git: the content store kept for restores


class OutcomeService:
    def __init__(self, root: ProjectRoot, git: GitRunner | None, prefix: str = "") -> None:
        self.root = root
        self.git = git
        self.prefix = prefix  # the project's folder inside the repository ("" at its top)
        self._lock = threading.Lock()
        self._fingerprinter: Fingerprinter | None = None

    def _text(self, args: Sequence[str]) -> bytes:
        assert self.git is not None
        return self.git.run(list(args))[1]

    def _walker(self, ignore: Sequence[str]) -> Fingerprinter:
        current = self._fingerprinter
        if current is not None and current.caches.patterns == tuple(ignore):
            return current
        places = None
        if self.git is not None:
            git_dir = Path(self.git.text("rev-parse", "--absolute-git-dir"))
            common = Path(self.git.text("rev-parse", "--git-common-dir"))
            places = GitPlaces(git_dir, common if common.is_absolute() else (self.git.toplevel / common).resolve())
        walker = Fingerprinter(self.root.path, CacheMatcher(ignore), self._text if self.git else None, places)
        if current is not None:  # new patterns: the stat cache still holds
            walker._cache = current._cache
        self._fingerprinter = walker
        return walker

    def take(self, ignore: Sequence[str], *, tree: bool = True) -> dict[str, str]:
        with self._lock:
            return self._walker(ignore).take(tree=tree)

    def describe(self, ignore: Sequence[str], paths: Sequence[str]) -> dict[str, str | None]:
        with self._lock:
            return self._walker(ignore).describe(paths)

    @property
    def last_hashed(self) -> int:
        return self._fingerprinter.hashed if self._fingerprinter else 0

    # copies -----------------------------------------------------------------------
    def keep(self, paths: list[str]) -> dict[str, str]:
        files = [p for p in paths if (self.root.path / p).is_file() and not (self.root.path / p).is_symlink()]
        if not files:
            return {}
        if self.git is not None:
            out = self.git.run(["hash-object", "-w", "--no-filters", "--", *[str(self.root.path / p) for p in files]])[1]
            return dict(zip(files, out.decode().split(), strict=True))
        store = self.root.runtime_dir("sessions") / COPIES
        store.mkdir(parents=True, exist_ok=True)
        copies = {}
        for path in files:
            data = (self.root.path / path).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            (store / digest).write_bytes(data)
            copies[path] = digest
        return copies

    def _copy_bytes(self, copy: str) -> bytes | None:
        try:
            if self.git is not None:
                return self.git.blob_bytes(copy)
            return (self.root.runtime_dir("sessions") / COPIES / copy).read_bytes()
        except (CodeIntelError, OSError):
            return None

    def _start_bytes(self, info: GitSessionInfo, path: str) -> bytes | None:
        """The file's content in the session-start snapshot, when the snapshot holds it."""
        if self.git is None or not info.snapshot:
            return None
        try:
            found = entry(self.git, snapshot_tree(self.git, info.snapshot), self.prefix + path)
            return self.git.blob_bytes(found.oid) if found is not None and found.kind == "blob" else None
        except CodeIntelError:
            return None

    # the commit gate ---------------------------------------------------------------
    def committed_content(self, commit: str, paths: list[str]) -> dict[str, str]:
        """The content id (code_intel.core.outcome_types.content_id) each path has in `commit`'s tree."""
        assert self.git is not None
        tree = self.git.text("rev-parse", f"{commit}^{{tree}}")
        out: dict[str, str] = {}
        for path in paths:
            found = entry(self.git, tree, self.prefix + path)
            if found is None or found.kind != "blob":
                out[path] = ABSENT
                continue
            data = self.git.blob_bytes(found.oid)
            if found.mode == "120000":
                out[path] = content_id("link " + data.decode("utf-8", "surrogateescape"))
            else:
                out[path] = hashlib.sha256(data).hexdigest()
        return out

    def undo_commit(self, commit: str) -> bool:
        """Move HEAD back to `commit`'s parent when HEAD is still `commit` (the work tree is left as it is)."""
        assert self.git is not None
        parent = self.git.rev(f"{commit}^")
        if parent is None:
            return False
        return self.git.ok("update-ref", "-m", "code-intel: commit withdrawn by the outcome check", "HEAD", parent, commit)

    # restore ----------------------------------------------------------------------
    def restore(self, info: GitSessionInfo, changes: list[Change], copies: dict[str, str]) -> list[str]:
        problems = []
        for change in changes:
            try:
                problem = self._restore_one(info, change, copies)
            except (OSError, CodeIntelError) as err:
                problem = f"{change.key}: could not be put back ({getattr(err, 'message', err)})"
            if problem:
                problems.append(problem)
        return problems

    def _restore_one(self, info: GitSessionInfo, change: Change, copies: dict[str, str]) -> str | None:
        """Put one change back; what the server could not put back, said for the agent, or None."""
        key, before = change.key, change.before
        if key.startswith((KEY_REF, KEY_FLAG)):
            self._restore_git(key, before)
            return None
        if key == KEY_HEAD:
            branch = (before or "").removeprefix("ref: ").removeprefix("refs/heads/")
            return f"HEAD: not put back by the server (check out {branch or 'the branch the session was on'} yourself)"
        target = self.root.path / key if not key.startswith("/") else Path(key)
        if before is None:  # created: remove it (never following a link)
            if target.is_symlink() or target.is_file():
                target.unlink()
            return None
        if before.startswith("link "):
            if target.is_symlink() or target.is_file():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(before[5:], target)
            return None
        if not before.startswith("file "):
            return f"{key}: a special file, not put back by the server"
        return self._restore_file(info, key, before, target, copies)

    def _restore_git(self, key: str, before: str | None) -> None:
        """A ref, or an index entry's skip-worktree / assume-unchanged flag, as it was."""
        assert self.git is not None
        if key.startswith(KEY_REF):
            ref = key[len(KEY_REF):]
            if before is None:
                self.git.run(["update-ref", "-d", ref])
            else:
                self.git.run(["update-ref", "-m", "code-intel: restored by the outcome check", ref, before])
        else:
            path = key[len(KEY_FLAG):]
            flags = ["--no-skip-worktree", "--no-assume-unchanged"]
            if before == "skip-worktree":
                flags = ["--skip-worktree"]
            elif before == "assume-unchanged":
                flags = ["--assume-unchanged"]
            self.git.run(["update-index", *flags, "--", path])

    def _restore_file(self, info: GitSessionInfo, key: str, before: str, target: Path,
                      copies: dict[str, str]) -> str | None:
        """A file's earlier content (`file <mode> <sha256>`), from the copy kept of it or the session's snapshot."""
        _, mode, digest = before.split(" ")
        copy = copies.get(key)
        data = self._copy_bytes(copy) if copy else None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            data = self._start_bytes(info, key)
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            return (f"{key}: no copy of its earlier content is kept (git ignores it, or it is outside the snapshot); put "
                    "it back yourself, or ask the user to allow the change with `code-intel allow`")
        if target.is_symlink() or target.exists() and not target.is_file():
            if target.is_dir() and not target.is_symlink():
                return f"{key}: a folder stands where the file was; remove it first"
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.code-intel-restore")
        temporary.write_bytes(data)
        os.chmod(temporary, int(mode, 8))
        os.replace(temporary, target)
        return None
