"""The clients' sandboxes, as `code-intel init` turns them on, through the real binaries: a program the agent's
shell starts cannot write `.git/` (nor, under Claude Code, `.code-intel/`), and can write the project's own files
(docs/enforcement.md, "What each client protects"). Codex's workspace-write sandbox (Landlock) needs nothing
installed; it leaves `.code-intel/` writable, which the server's sealed state covers.

The program is one the PreToolUse hook cannot read (`python3 probe.py`), so only the sandbox stands in its way. On
Linux Claude Code sandboxes with bubblewrap and socat. bubblewrap is taken from PATH, else from the folder
CODE_INTEL_TEST_BWRAP_DIR names, else Debian's package is unpacked once into `.cache/clients/bubblewrap/` (beside
the npm clients) and put on PATH for Claude Code alone: installed system-wide it makes Codex 0.169 use it, and
Codex's own sandbox then fails for a CODEX_HOME under /tmp, which the Codex client tests use. The test skips,
saying why, when neither socat nor a way to get bubblewrap is there.
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

from tests.clients.conftest import CACHE, client_env
from tests.clients.provider import MessagesProvider, ResponsesProvider, function_call, message, text, tool
from tests.clients.test_claude_code import claude
from tests.clients.test_codex import codex_exec, use_provider

pytestmark = pytest.mark.slow

PROBE = """from pathlib import Path
for target in (".git/sandbox-probe", ".code-intel/sandbox-probe", "src/sandbox-probe"):
    try:
        Path(target).write_text("written by the agent's shell\\n")
        print(target, "written")
    except OSError as err:
        print(target, "refused:", err.strerror)
"""


def _bwrap_dir() -> str | None:
    """A folder holding a working bwrap, or None."""
    chosen = os.environ.get("CODE_INTEL_TEST_BWRAP_DIR")
    if chosen and os.access(os.path.join(chosen, "bwrap"), os.X_OK):
        return chosen
    found = shutil.which("bwrap")
    if found:
        return os.path.dirname(found)
    return _private_bwrap()


def _private_bwrap() -> str | None:
    """Debian's bubblewrap unpacked into the clients' cache (not installed), when apt-get and dpkg can get it."""
    folder = CACHE / "bubblewrap"
    binary = folder / "usr" / "bin" / "bwrap"
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.is_file():
            fetched = subprocess.run(["apt-get", "download", "bubblewrap"], cwd=folder, capture_output=True, timeout=300)
            packages = sorted(folder.glob("bubblewrap_*.deb"))
            if fetched.returncode != 0 or not packages:
                return None
            subprocess.run(["dpkg-deb", "-x", str(packages[-1]), str(folder)], check=True, timeout=120)
    works = subprocess.run([str(binary), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"],
                           capture_output=True, timeout=60)
    return str(binary.parent) if works.returncode == 0 else None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bubblewrap sandbox is Claude Code's on Linux")
def test_the_sandbox_init_turns_on_denies_git_and_code_intel_writes(claude_bin: list[str], sample_repo: Path,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap = _bwrap_dir()
    if bwrap is None or shutil.which("socat") is None:
        pytest.skip("bubblewrap or socat is missing and bubblewrap could not be unpacked here: Claude Code would run the "
                    "shell unsandboxed (apt-get install socat; bubblewrap on PATH or in CODE_INTEL_TEST_BWRAP_DIR)")
    monkeypatch.setenv("PATH", f"{bwrap}{os.pathsep}{os.environ.get('PATH', '')}")
    settings = json.loads((sample_repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["sandbox"]["enabled"] is True, settings.get("sandbox")
    settings["permissions"]["allow"].append("Bash")  # the user lets the agent run shell commands without asking
    (sample_repo / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    (sample_repo / "probe.py").write_text(PROBE, encoding="utf-8")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(sample_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    turns = [tool("toolu_01", "Bash", command="python3 probe.py", description="run the probe"), text("Done.")]
    with MessagesProvider(turns) as provider:
        claude(claude_bin, sample_repo, home, provider, "run the probe")
        shown = provider.result_text("toolu_01")
    assert "src/sandbox-probe written" in shown, shown  # the shell ran, and the project's files stay writable
    assert not (sample_repo / ".git" / "sandbox-probe").exists(), shown
    assert not (sample_repo / ".code-intel" / "sandbox-probe").exists(), shown
    assert ".git/sandbox-probe refused" in shown and ".code-intel/sandbox-probe refused" in shown, shown


def test_codex_workspace_write_denies_git_writes(npm_clients: Path, sample_repo: Path, codex_home: Path,
                                                 tmp_path: Path) -> None:
    config = (sample_repo / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert 'sandbox_mode = "workspace-write"' in config, config
    (sample_repo / "probe.py").write_text(PROBE, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = client_env(home, CODEX_HOME=str(codex_home), CODE_INTEL_TEST_KEY="sk-test-not-a-key")
    turns = [function_call("call_01", "exec_command", cmd="python3 probe.py"), message("Done.")]
    with ResponsesProvider(turns) as provider:
        use_provider(codex_home, provider)
        codex_exec(npm_clients / "node_modules" / ".bin" / "codex", sample_repo, env, "run the probe")
        shown = provider.output("call_01")
    assert "src/sandbox-probe written" in shown, shown
    assert not (sample_repo / ".git" / "sandbox-probe").exists(), shown
    assert ".git/sandbox-probe refused" in shown, shown
