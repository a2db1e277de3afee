"""Seals for what the server persists: an HMAC over a JSON object, with a key kept outside the project.

The checkpoint, the write and read logs, the ledger journal and the outcome record lie in
`.code-intel/sessions/`, where the agent's shell can reach them. A sealed object carries `"mac"`:
HMAC-SHA256 over its canonical JSON (keys sorted, no spaces) without the mac itself. A file or
line whose seal fails is void: never read as permission (the session says so and stops safely).

The key is one per project, 32 random bytes in `<key dir>/<sha256(project path)[:24]>.key` (mode
0600), made on first use. The key dir is `$CODE_INTEL_KEY_DIR`, else `~/.local/state/code-intel/keys`:
outside the work tree, so no glob over the project finds it, and a place the clients' sandboxes can deny. A seal only holds against an agent whose tools cannot read
that folder; without a sandbox it still defeats a forged line written by a command that does not
know of the key.

Standard library only: the client hooks import this on every tool call.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

ENV_KEY_DIR = "CODE_INTEL_KEY_DIR"
MAC = "mac"
KEY_BYTES = 32
_keys: dict[str, bytes] = {}  # project path -> key, read once per process


def key_dir() -> Path:
    """Where the projects' keys live (see the module docstring)."""
    explicit = os.environ.get(ENV_KEY_DIR)
    if explicit:
        return Path(explicit).expanduser()
    # HOME only, not XDG_STATE_HOME: Codex starts the MCP server with a reduced environment and its hooks with
    # the full one, and the two must find the same key
    return Path.home() / ".local" / "state" / "code-intel" / "keys"


def key_file(root: Path) -> Path:
    name = hashlib.sha256(str(Path(root).resolve()).encode("utf-8", errors="surrogateescape")).hexdigest()[:24]
    return key_dir() / f"{name}.key"


def key(root: Path) -> bytes:
    """The project's key, made on first use; OSError when the key folder cannot be written."""
    file = key_file(root)
    cache_key = f"{file}"
    cached = _keys.get(cache_key)
    if cached is not None:
        return cached
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            data = file.read_bytes()
        else:
            data = secrets.token_bytes(KEY_BYTES)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
    if len(data) < KEY_BYTES:
        raise OSError(f"the code-intel key {file} is shorter than {KEY_BYTES} bytes")
    _keys[cache_key] = data
    return data


def canonical(obj: dict[str, Any]) -> bytes:
    body = {k: v for k, v in obj.items() if k != MAC}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def mac_of(obj: dict[str, Any], root: Path) -> str:
    return hmac.new(key(root), canonical(obj), hashlib.sha256).hexdigest()


def seal(obj: dict[str, Any], root: Path) -> dict[str, Any]:
    """A copy of `obj` carrying its mac."""
    out = {k: v for k, v in obj.items() if k != MAC}
    out[MAC] = mac_of(out, root)
    return out


def verified(obj: object, root: Path) -> bool:
    """Whether `obj` is a dict whose mac matches its content under this project's key."""
    if not isinstance(obj, dict):
        return False
    mac = obj.get(MAC)
    if not isinstance(mac, str):
        return False
    try:
        expected = mac_of(obj, root)
    except (OSError, TypeError, ValueError):
        return False
    return hmac.compare_digest(mac, expected)
