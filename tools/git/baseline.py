"""Content snapshot for projects that are not git repositories: what a file held before the session wrote it.

A repository's working-tree snapshot (snapshot.py) already records every file at session start. A
plain folder has no such thing, and copying the whole project at start would be slow and large.
So the session records a file the first time it could matter: when it is explored or when
check_write_target is asked about it, both of which come before the session may write it. The
copies live in `.code-intel/sessions/<session_id>.baseline/` (content-addressed, one index file)
and are deleted when the session ends.

The same store keeps a second snapshot in any project, git or not: when the session first reaches
READY, the files that changed before it (while writing was forbidden) are copied to
`<session_id>.ready.baseline/`, so that lines written during READY can be told from the early ones.
"""

from __future__ import annotations

import hashlib
import json
import shutil

from code_intel.core.fsutil import write_atomic
from code_intel.core.project import ProjectRoot

MAX_BASELINE_FILE_BYTES = 5_000_000
INDEX = "index.json"


READY = "ready"  # the snapshot taken when the session reaches READY


class ContentBaseline:
    def __init__(self, root: ProjectRoot, session_id: str, point: str | None = None) -> None:
        self.root = root
        name = f"{session_id}.{point}" if point else session_id
        self.folder = root.runtime_dir("sessions") / f"{name}.baseline"

    def _index(self) -> dict[str, str | None]:
        try:
            data = json.loads((self.folder / INDEX).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return {}
        return {str(k): (str(v) if v else None) for k, v in data.items()} if isinstance(data, dict) else {}

    def remember(self, paths: list[str], *, afresh: bool = False) -> list[str]:
        """Record each path not yet recorded (its content, or that it did not exist); returns those recorded now.

        `afresh` starts a new record with only `paths` (the READY snapshot is taken whole, each time)."""
        index: dict[str, str | None] = {} if afresh else self._index()
        added: list[str] = []
        for rel in paths:
            if rel in index:
                continue
            file = self.root.path / rel
            digest: str | None = None
            if file.is_file():
                if file.stat().st_size > MAX_BASELINE_FILE_BYTES:
                    continue  # too large to copy: left unknown, so evidence in it is refused with a reason
                data = file.read_bytes()
                digest = hashlib.sha256(data).hexdigest()
                blob = self.folder / digest
                if not blob.exists():
                    write_atomic(blob, data)
            elif file.exists():
                continue  # a folder or a special file: nothing to record
            index[rel] = digest
            added.append(rel)
        if added or afresh:
            write_atomic(self.folder / INDEX, json.dumps(index, indent=0, sort_keys=True).encode("utf-8"))
        return added

    def content(self, rel: str) -> tuple[bool, bytes | None]:
        """(known, bytes at start or None when the file did not exist)."""
        index = self._index()
        if rel not in index:
            return False, None
        digest = index[rel]
        if digest is None:
            return True, None
        try:
            return True, (self.folder / digest).read_bytes()
        except OSError:
            return False, None

    def changed(self) -> list[str]:
        """Recorded files whose content differs now (deleted and created ones included)."""
        out: list[str] = []
        for rel, digest in sorted(self._index().items()):
            file = self.root.path / rel
            try:
                now = hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else None
            except OSError:
                now = None
            if now != digest:
                out.append(rel)
        return out

    def drop(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def drop_all(root: ProjectRoot) -> int:
    """Delete every session's content snapshot (cleanup)."""
    count = 0
    folder = root.state_dir / "sessions"
    if folder.is_dir():
        for path in folder.glob("*.baseline"):
            shutil.rmtree(path, ignore_errors=True)
            count += 1
    return count
