"""The real clients, installed once with npm into a git-ignored cache folder, and a sample project for them.

Versions are pinned to the ones ../shared/CLIENTS.md describes. The first run installs them into
`.cache/clients/` at the repository root (a couple of minutes, several hundred MB); later runs reuse
that folder. The tests skip, saying why, only when node or npm is missing; a failed install fails.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from code_intel.context.installer import InstallOptions, install

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "clients"
PACKAGES = {
    "@anthropic-ai/claude-code": "2.1.330",
    "@openai/codex": "0.169.0",
    "@modelcontextprotocol/inspector": "0.15.0",
}
APP_CODE = "def add(a, b):\n    return a + b\n"
# the query frame and the exploration report of the sessions the clients' short runs play (REQUEST "make add return
# an int"): README.md is listed as explored, so the model must have read it
FRAME = {"action_type": "modify", "target_symbols": ["add"], "scope": "src/app.py", "desired_action": "return an int",
         "constraints": "", "quotes": {"desired_action": "return an int"}, "tools_used": [],
         "summary": "add should return an int", "compaction_count": 0}
EXPLORED = {"explored_files": ["src/app.py", "README.md"], "findings": ["add is in src/app.py"],
            "tools_used": ["search_text", "get_symbols", "Read"], "summary": "add in src/app.py", "compaction_count": 0}


def _installed_version(package: str) -> str | None:
    try:
        return str(json.loads((CACHE / "node_modules" / package / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="session")
def npm_clients() -> Path:
    """The cache folder with every pinned client installed (node_modules/.bin holds their commands)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the Claude Code, Codex and MCP Inspector tests need them")
    CACHE.mkdir(parents=True, exist_ok=True)
    # One installer at a time: pytest-xdist workers would otherwise run npm into the same folder at once;
    # a worker that waited finds the packages installed and skips npm.
    with open(CACHE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_missing()
    return CACHE


def _install_missing() -> None:
    missing = [f"{name}@{version}" for name, version in PACKAGES.items() if _installed_version(name) != version]
    if missing:
        result = subprocess.run(["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
                                 *[f"{name}@{version}" for name, version in PACKAGES.items()]],
                                capture_output=True, text=True, timeout=1200)
        assert result.returncode == 0, f"npm install failed:\n{result.stdout}\n{result.stderr}"
        still = [name for name, version in PACKAGES.items() if _installed_version(name) != version]
        assert not still, f"npm did not install {still}"


@pytest.fixture(scope="session")
def claude_bin(npm_clients: Path) -> list[str]:
    """The Claude Code command: its native binary, or the package's own launcher when npm skipped the postinstall."""
    binary = npm_clients / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    if binary.is_file() and binary.read_bytes()[:4] == b"\x7fELF":
        return [str(binary)]
    return ["node", str(npm_clients / "node_modules" / "@anthropic-ai" / "claude-code" / "cli-wrapper.cjs")]


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own Codex home (never the user's ~/.codex); sample_repo marks the project trusted in it."""
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


@pytest.fixture
def sample_repo(tmp_path: Path, codex_home: Path) -> Path:
    """A git repository with src/app.py, trusted by Codex and initialised by `code-intel init --codex`."""
    repo = tmp_path / "sample"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
    (repo / "README.md").write_text("# sample\n", encoding="utf-8")
    git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial"], cwd=repo, check=True)
    repo = repo.resolve()
    (codex_home / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    install(repo, options=InstallOptions(codex=True))
    assert (repo / ".codex" / "config.toml").is_file()
    return repo


@pytest.fixture
def calc_repo(tmp_path: Path, codex_home: Path) -> Path:
    """The demo's calculator project (unittest as its verify command), set up for Claude Code and Codex and
    committed, so that a whole session can run on it: from the request to the merge."""
    from code_intel.cli.demo import create_sample

    repo = tmp_path / "calc"
    create_sample(repo)  # init for Claude Code, config.json's verify command, the first commit
    repo = repo.resolve()
    (codex_home / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    install(repo, options=InstallOptions(codex=True))  # trusted first, so init writes .codex/config.toml too
    assert (repo / ".codex" / "config.toml").is_file()
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "code-intel for Codex"], cwd=repo, check=True)
    return repo


def client_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: the test's own HOME, and a PATH without code-intel's venv, as a user's would be
    (the commands init writes are absolute, so they must work without it)."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin)
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
    env.update(extra)
    return env


def client_key_dir(home: Path) -> str:
    """Where code-intel's seal key lies for processes the client starts with `home` as HOME (the server, the hooks):
    a test reading their sealed logs points CODE_INTEL_KEY_DIR there."""
    return str(home / ".local" / "state" / "code-intel" / "keys")
