"""Locate external binaries: beside our own interpreter first (setup.sh puts rg there), then PATH.

Clients start the server with the user's PATH, where the venv's bin/ usually is not.
"""

from __future__ import annotations

import functools
import shutil
import sys
from pathlib import Path

from code_intel.core.errors import ToolUnavailable

INSTALL_HINTS = {
    "rg": "run ./setup.sh (it installs the ripgrep wheel into .venv), or `pip install ripgrep==14.1.0`",
    "ctags": "install Universal Ctags: `sudo apt-get install universal-ctags` (macOS: `brew install universal-ctags`)",
    "git": "install git: `sudo apt-get install git` (macOS: `xcode-select --install`)",
}


@functools.cache
def find_binary(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    return shutil.which(name)


def require_binary(name: str) -> str:
    found = find_binary(name)
    if found is None:
        raise ToolUnavailable(f"'{name}' was not found beside {sys.executable} or on PATH", hint=INSTALL_HINTS.get(name))
    return found
