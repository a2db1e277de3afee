"""Locate external binaries: beside our own interpreter first (the ripgrep wheel puts rg there), then PATH.

Clients start the server with the user's PATH, where the package's bin/ usually is not. Universal Ctags is
the one program the package cannot bring: it is looked for under each name distributions give it, and a
`ctags` that is not Universal Ctags with JSON output (macOS's own, Exuberant Ctags) is passed over for the
next one on PATH.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

from code_intel.core import processes
from code_intel.core.errors import ToolUnavailable

CTAGS_NAMES = ("ctags", "universal-ctags", "ctags-universal", "uctags")
# The package that installs each program, by package manager. Every ctags here is Universal Ctags; Homebrew's
# `ctags` formula is Exuberant Ctags, hence `universal-ctags` there.
PACKAGES: dict[str, dict[str, str]] = {
    "ctags": {"apt-get": "sudo apt-get install universal-ctags", "dnf": "sudo dnf install ctags",
              "pacman": "sudo pacman -S ctags", "apk": "sudo apk add ctags", "brew": "brew install universal-ctags",
              "winget": "winget install UniversalCtags.Ctags", "choco": "choco install universal-ctags",
              "scoop": "scoop install universal-ctags"},
    "git": {"apt-get": "sudo apt-get install git", "dnf": "sudo dnf install git", "pacman": "sudo pacman -S git",
            "apk": "sudo apk add git", "brew": "brew install git", "winget": "winget install Git.Git",
            "choco": "choco install git", "scoop": "scoop install git"},
}
# /etc/os-release ID or ID_LIKE -> the package manager of that family
_DISTRIBUTIONS = {"debian": "apt-get", "ubuntu": "apt-get", "fedora": "dnf", "rhel": "dnf", "centos": "dnf",
                  "arch": "pacman", "alpine": "apk"}
REINSTALL_RG = ("rg comes with code-intel (the ripgrep wheel): reinstall it (`pipx reinstall code-intel`, "
                "`uv tool install --reinstall code-intel`; in a clone, ./setup.sh)")


def _managers(platform: str) -> list[str]:
    """Package managers to suggest on this platform, the usual one first."""
    if platform == "darwin":
        return ["brew"]
    if platform == "win32":
        return ["winget", "choco", "scoop"]
    try:
        release = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        release = ""
    fields = dict(line.split("=", 1) for line in release.splitlines() if "=" in line)
    ids = [word for key in ("ID", "ID_LIKE") for word in fields.get(key, "").strip('"').split()]
    ordered = [_DISTRIBUTIONS[word] for word in ids if word in _DISTRIBUTIONS]
    return list(dict.fromkeys([*ordered, *_DISTRIBUTIONS.values()]))


def install_command(program: str, platform: str | None = None) -> str:
    """The command that installs `program` here: the platform's package manager that is on PATH, else its usual one."""
    managers = _managers(platform or sys.platform)
    chosen = next((m for m in managers if shutil.which(m)), managers[0])
    return PACKAGES[program][chosen]


def install_hint(name: str) -> str:
    if name == "rg":
        return REINSTALL_RG
    if name == "ctags":
        return f"install Universal Ctags: `{install_command('ctags')}`"
    return f"install {name}: `{install_command(name)}`" if name in PACKAGES else f"install {name}"


def _locations(name: str) -> list[str]:
    """Every executable `name` beside our interpreter, then in each folder of PATH, in that order."""
    folders = [str(Path(sys.executable).parent), *os.environ.get("PATH", os.defpath).split(os.pathsep)]
    found: list[str] = []
    for folder in folders:
        path = shutil.which(name, path=folder) if folder else None
        if path and path not in found:
            found.append(path)
    return found


class CtagsProbe(NamedTuple):
    path: str
    version: str  # the first line of `--version`
    problem: str | None  # None: Universal Ctags that writes JSON


def probe_ctags(path: str) -> CtagsProbe:
    try:
        version = processes.run([path, "--version"], timeout=30)
        first = (version.out or version.err).strip().splitlines()[:1]
        line = first[0] if first else ""
        if "Universal Ctags" not in line:
            return CtagsProbe(path, line, "not Universal Ctags (Exuberant and BSD ctags cannot write JSON)")
        features = processes.run([path, "--list-features"], timeout=30)
    except (OSError, ValueError) as err:
        return CtagsProbe(path, "", f"cannot be run: {err}")
    if not any(row.split()[:1] == ["json"] for row in features.out.splitlines()):
        return CtagsProbe(path, line, "built without JSON output (a build with libjansson is needed)")
    return CtagsProbe(path, line, None)


@functools.cache
def ctags_probes() -> tuple[CtagsProbe, ...]:
    """Each ctags found, in the order it is looked for, up to and including the first usable one."""
    probes: list[CtagsProbe] = []
    for name in CTAGS_NAMES:
        for path in _locations(name):
            probes.append(probe_ctags(path))
            if probes[-1].problem is None:
                return tuple(probes)
    return tuple(probes)


@functools.cache
def find_binary(name: str) -> str | None:
    if name == "ctags":
        usable = [p.path for p in ctags_probes() if p.problem is None]
        return usable[0] if usable else None
    found = _locations(name)
    return found[0] if found else None


def require_binary(name: str) -> str:
    found = find_binary(name)
    if found is None:
        raise ToolUnavailable(f"'{name}' was not found beside {sys.executable} or on PATH", hint=install_hint(name))
    return found
