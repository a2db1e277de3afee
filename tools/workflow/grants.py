"""The user's grants: files changed before READY that the user, not the agent, chose to keep.

Writing is not allowed before READY, so a file changed then is flagged, and PRE_COMMIT keeps it only
with the user's consent. The consent is recorded here, never taken from the payload: either the user
answered the server's elicitation (submit_phase asks, when the client supports it), or ran
`code-intel allow FILE...` in their own terminal (the client hook denies that command to the agent).

`.code-intel/sessions/<session_id>.grants.jsonl`, one sealed object per line (code_intel/workflow/seal.py):

    {"time": "2026-11-27T22:41:07Z", "session_id": "...", "by": "terminal", "files": {"src/app.py": "<sha256>"},
     "mac": "..."}

A grant names the content it was given for: a file changed again after the grant is not granted. A line
whose seal fails is ignored (never permission). The file goes with the session's other files.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from code_intel.workflow import seal

GRANTS_SUFFIX = ".grants.jsonl"
MAX_GRANTS_BYTES = 2_000_000
ABSENT = "deleted"  # the id of a file that was deleted (keeping a deletion is a grant too)


def grants_file(sessions_dir: Path, session_id: str) -> Path:
    return sessions_dir / f"{session_id}{GRANTS_SUFFIX}"


def content_hash(path: Path) -> str:
    """The id the outcome check gives this content (core/outcome_types.content_id): the sha256 of a file's bytes,
    sha256 of b"link:" + target for a symlink, ABSENT for a missing file."""
    try:
        if path.is_symlink():
            return hashlib.sha256(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape")).hexdigest()
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except FileNotFoundError:
        return ABSENT


def record(root: Path, sessions_dir: Path, session_id: str, files: list[str], by: str) -> dict[str, str]:
    """Grant `files` (project-relative) as they are now; returns each file's recorded hash."""
    hashes = {rel: content_hash(root / rel) for rel in files}
    entry = seal.seal({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "session_id": session_id,
                       "by": by, "files": hashes}, root)
    data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(grants_file(sessions_dir, session_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return hashes


def granted(root: Path, sessions_dir: Path, session_id: str) -> dict[str, set[str]]:
    """Each granted file and the contents (hashes) it was granted with; lines failing their seal are void."""
    file = grants_file(sessions_dir, session_id)
    try:
        if file.stat().st_size > MAX_GRANTS_BYTES:
            return {}
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not seal.verified(entry, root) or entry.get("session_id") != session_id:
            continue
        files = entry.get("files")
        if isinstance(files, dict):
            for rel, digest in files.items():
                if isinstance(rel, str) and isinstance(digest, str):
                    out.setdefault(rel, set()).add(digest)
    return out


def ungranted(root: Path, sessions_dir: Path, session_id: str, files: list[str]) -> list[str]:
    """The files among `files` whose current content no grant covers."""
    grants = granted(root, sessions_dir, session_id)
    return [rel for rel in files if content_hash(root / rel) not in grants.get(rel, set())]


def remove(sessions_dir: Path, session_id: str) -> None:
    grants_file(sessions_dir, session_id).unlink(missing_ok=True)
