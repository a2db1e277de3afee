"""The server's `tools/list` answer, kept on disk so a new server can answer it before building its tool table.

Building the table (importing every tool's result models and generating the input and output JSON schemas)
takes about a quarter of a second, most of it pure Python, and a client asks `tools/list` right after
`initialize`. The listing depends only on the server's own code and the versions of the libraries that
generate schemas, so it is saved under a fingerprint of exactly those: the bytes of `code_intel_server.py` and
of every module of the `tools` package, and the versions of Python, mcp and pydantic. A listing whose
fingerprint differs, or that cannot be read, is ignored and replaced by the next build; the cache is never
trusted past a change of the code. `code-intel init` saves it too, so that even the first server started in a
project answers from it.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from code_intel.core.filecache import load_cache, save_cache

FILE_NAME = "tool-table.json"
# the server whose listing is saved: the one beside this package (as the installer's .mcp.json entry starts it)
SERVER_FILE = Path(__file__).resolve().parents[2] / "code_intel_server.py"


def fingerprint(server_file: Path, versions: tuple[str, ...]) -> str:
    """A digest of the server file, every module of the tools package (names and bytes) and `versions`."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=20)
    digest.update("|".join((sys.version, *versions)).encode())
    digest.update(b"\0" + server_file.name.encode() + b"\0" + server_file.read_bytes())
    for path in sorted(package.rglob("*.py")):
        digest.update(f"\0tools/{path.relative_to(package).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()


def current_key() -> str:
    """The fingerprint of the code this process runs, with the versions of the libraries that make the schemas.
    Cheap: neither mcp nor the schema machinery of pydantic is imported for it."""
    from importlib.metadata import version

    from pydantic.version import VERSION

    return fingerprint(SERVER_FILE, (version("mcp"), VERSION))


def listing_path(state_dir: Path) -> Path:
    """Where a project's saved listing lives, given its `.code-intel/` folder."""
    return state_dir / "cache" / FILE_NAME


def _tools(data: dict[str, Any]) -> list[dict[str, Any]]:
    tools = data["tools"]
    if not isinstance(tools, list) or not tools or not all(
            isinstance(tool, dict) and isinstance(tool.get("name"), str) for tool in tools):
        raise ValueError("no list of named tools")
    return tools


def load(path: Path, key: str) -> list[dict[str, Any]] | None:
    """The listing saved under `key`, or None (no file, another fingerprint, anything unreadable)."""
    return load_cache(path, key, _tools, "tool listing")


def save(path: Path, key: str, tools: list[dict[str, Any]]) -> None:
    """Keep the listing for the next server; a failure (a read-only project, a full disk) only costs speed."""
    save_cache(path, key, {"tools": tools}, "tool listing")
