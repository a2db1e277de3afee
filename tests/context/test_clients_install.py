"""What init installs for Claude Code and Codex: skill files, hooks, permission rule, Codex MCP table, removal."""

from __future__ import annotations

import json
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from code_intel.context import skill
from code_intel.context.clients import CODEX_STARTUP_TIMEOUT_SEC, CODEX_TOOL_TIMEOUT_SEC, PERMISSION_RULE
from code_intel.context.installer import MANIFEST, InstallOptions, install
from code_intel.core.errors import ConfigError
from code_intel.workflow.seal import key_dir


@pytest.fixture(autouse=True)
def _codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Codex home of the test's own: the user's ~/.codex is never read."""
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _trust(home: Path, project: Path) -> None:
    (home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8")


def test_claude_skill_is_the_repository_source(project_dir: Path) -> None:
    install(project_dir)
    installed = project_dir / ".claude" / "commands" / "code.md"
    assert installed.read_bytes() == skill.SOURCE.read_bytes()
    text = installed.read_text(encoding="utf-8")
    assert text.startswith("---\ndescription: ") and "$ARGUMENTS" in text
    for must in ("submit_phase", "get_session_status", "READY", "ToolSearch", "select:mcp__code-intel__start_session",
                 "--resume", "--clean", "--rebuild", "IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION", "compaction_count"):
        assert must in text, must
    assert not (project_dir / ".agents").exists() and not (project_dir / ".codex").exists()


def test_codex_skill_has_name_and_description(project_dir: Path) -> None:
    install(project_dir, options=InstallOptions(codex=True))
    text = (project_dir / ".agents" / "skills" / "code" / "SKILL.md").read_text(encoding="utf-8")
    fields, body = skill.split_front_matter(text)
    assert fields["name"] == "code" and fields["description"] == skill.description()
    assert "$ARGUMENTS" not in body and "`$code`" in body and "mcp__code_intel__" in body


def test_prompt_text_puts_the_request_in() -> None:
    text = skill.prompt_text("  add a subtract function  ")
    assert text.startswith("# code-intel session") and "Request: add a subtract function (if this looks cut short" in text
    assert "ask the user for the request" in skill.prompt_text("")


def test_hooks_and_permission_in_claude_settings(project_dir: Path) -> None:
    install(project_dir)
    settings = _json(project_dir / ".claude" / "settings.json")
    pre, = settings["hooks"]["PreToolUse"]
    post, = settings["hooks"]["PostToolUse"]
    start, = settings["hooks"]["SessionStart"]
    assert pre["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Read|Bash|apply_patch"
    assert post["matcher"] == "Read|Bash"
    assert start["matcher"] == "compact|resume"
    for group, event in ((pre, "pre-tool-use"), (post, "post-tool-use"), (start, "session-start")):
        command = shlex.split(group["hooks"][0]["command"])
        assert Path(command[0]).is_absolute() and Path(command[0]).is_file()
        assert command[1:] == ["hook", event, "--project", str(project_dir)]
    assert settings["permissions"]["allow"] == [PERMISSION_RULE]
    assert ".claude/settings.local.json" in (project_dir / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_installed_hook_command_runs_and_answers(project_dir: Path) -> None:
    install(project_dir)
    command = _json(project_dir / ".claude" / "settings.json")["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/"}
    result = subprocess.run(command, shell=True, input=json.dumps(event), capture_output=True, text=True, timeout=60,
                            cwd="/")
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_user_settings_are_kept_and_reinstall_is_idempotent(project_dir: Path) -> None:
    settings_file = project_dir / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    users_hook = {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    settings_file.write_text(json.dumps({"hooks": {"PostToolUse": [users_hook], "PreToolUse": [users_hook]},
                                         "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]},
                                         "model": "opus"}), encoding="utf-8")
    install(project_dir)
    first = settings_file.read_bytes()
    merged = json.loads(first)
    assert merged["hooks"]["PostToolUse"][0] == users_hook and merged["hooks"]["PreToolUse"][0] == users_hook
    assert merged["permissions"] == {"allow": ["Bash(npm test)", PERMISSION_RULE],
                                     "deny": ["Read(.env)", f"Read(//{str(key_dir()).lstrip('/')}/**)"]}
    assert merged["model"] == "opus" and len(merged["hooks"]["PreToolUse"]) == 2
    report = install(project_dir)
    assert settings_file.read_bytes() == first
    assert {a.status for a in report.actions if a.path.startswith(".claude/")} == {"unchanged"}


def test_no_allow_and_no_hooks(project_dir: Path) -> None:
    install(project_dir, options=InstallOptions(allow=False, sandbox=False))
    settings = _json(project_dir / ".claude" / "settings.json")
    assert "permissions" not in settings and set(settings["hooks"]) == {"PreToolUse", "PostToolUse", "SessionStart"}
    other = project_dir / "other"
    other.mkdir()
    install(other, options=InstallOptions(hooks=False, sandbox=False))
    assert _json(other / ".claude" / "settings.json") == {"permissions": {"allow": [PERMISSION_RULE]}}


def test_remove_hooks_takes_out_only_ours(project_dir: Path) -> None:
    settings_file = project_dir / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    users_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}
    settings_file.write_text(json.dumps({"hooks": {"PreToolUse": [users_hook]}}), encoding="utf-8")
    install(project_dir, options=InstallOptions(codex=True, sandbox=False))
    manifest_before = _json(project_dir / MANIFEST)["files"]
    assert any("hooks.PreToolUse" in key for key in manifest_before)

    report = install(project_dir, options=InstallOptions(remove_hooks=True))
    assert sorted(a.status for a in report.actions) == ["removed"] * 6
    assert _json(settings_file) == {"hooks": {"PreToolUse": [users_hook]}, "permissions": {"allow": [PERMISSION_RULE]}}
    assert _json(project_dir / ".codex" / "hooks.json") == {}
    assert not any("hooks." in key for key in _json(project_dir / MANIFEST)["files"])
    assert (project_dir / ".claude" / "commands" / "code.md").is_file()  # nothing else is touched

    again = install(project_dir, options=InstallOptions(remove_hooks=True))
    assert {a.status for a in again.actions} == {"absent"} and not again.changed
    install(project_dir)
    assert len(_json(settings_file)["hooks"]["PreToolUse"]) == 2


def test_remove_hooks_on_a_project_without_settings_writes_nothing(project_dir: Path) -> None:
    report = install(project_dir, options=InstallOptions(remove_hooks=True))
    assert {a.status for a in report.actions} == {"absent"}
    assert list(project_dir.iterdir()) == []


def test_codex_hooks_file(project_dir: Path) -> None:
    install(project_dir, options=InstallOptions(codex=True))
    claude = _json(project_dir / ".claude" / "settings.json")["hooks"]
    assert _json(project_dir / ".codex" / "hooks.json") == {"hooks": claude}


def test_untrusted_codex_project_gets_the_exact_command(project_dir: Path, _codex_home: Path) -> None:
    report = install(project_dir, options=InstallOptions(codex=True))
    assert not (project_dir / ".codex" / "config.toml").exists()
    note, = [n for n in report.notes if "codex mcp add" in n]
    add_line = next(line.strip() for line in note.splitlines() if line.strip().startswith("codex mcp add"))
    argv = shlex.split(add_line)
    assert argv[:5] == ["codex", "mcp", "add", "code-intel", "--"]
    assert Path(argv[5]).is_absolute() and argv[-2:] == ["--project", str(project_dir)]
    assert f"startup_timeout_sec = {CODEX_STARTUP_TIMEOUT_SEC}" in note and f"tool_timeout_sec = {CODEX_TOOL_TIMEOUT_SEC}" in note
    assert "  required = true" in note
    assert str(_codex_home / "config.toml") in note and "trust_level" in note


def test_trusted_codex_project_gets_config_toml_merged(project_dir: Path, _codex_home: Path) -> None:
    _trust(_codex_home, project_dir)
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\n', encoding="utf-8")
    install(project_dir, options=InstallOptions(codex=True))
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    ours = parsed["mcp_servers"]["code-intel"]
    assert parsed["model"] == "o3" and parsed["mcp_servers"]["other"] == {"command": "npx"}
    assert ours["args"][-2:] == ["--project", str(project_dir)] and Path(ours["command"]).is_absolute()
    assert ours["startup_timeout_sec"] == CODEX_STARTUP_TIMEOUT_SEC and ours["tool_timeout_sec"] == CODEX_TOOL_TIMEOUT_SEC
    assert ours["required"] is True  # Codex waits for the server before a thread's first model request
    before = config.read_bytes()
    assert {a.status for a in install(project_dir, options=InstallOptions(codex=True)).actions
            if a.path.startswith(".codex/config")} == {"unchanged"}
    assert config.read_bytes() == before

    edited = before.decode().replace("tool_timeout_sec = 600", "tool_timeout_sec = 900")
    config.write_text(edited + "\n[other]\nx = 1\n", encoding="utf-8")
    statuses = {a.path: a.status for a in install(project_dir, options=InstallOptions(codex=True)).actions}
    assert statuses[".codex/config.toml (mcp_servers.code-intel)"] == "kept"
    install(project_dir, options=InstallOptions(codex=True, force=True))
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert parsed["mcp_servers"]["code-intel"]["tool_timeout_sec"] == 600 and parsed["other"] == {"x": 1}


def test_bad_codex_config_is_refused_before_anything_is_written(project_dir: Path, _codex_home: Path) -> None:
    _trust(_codex_home, project_dir)
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("[mcp_servers\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        install(project_dir, options=InstallOptions(codex=True))
    assert not (project_dir / ".code-intel").exists()


def test_cli_flags(project_dir: Path) -> None:
    from code_intel.cli.main import main

    assert main(["init", str(project_dir), "--codex", "--no-allow", "--no-sandbox"]) == 0
    assert "permissions" not in _json(project_dir / ".claude" / "settings.json")
    assert (project_dir / ".codex" / "hooks.json").is_file()
    assert main(["init", str(project_dir), "--remove-hooks"]) == 0
    assert _json(project_dir / ".claude" / "settings.json") == {}


def test_claude_code_sandbox_keeps_git_and_code_intel_read_only(project_dir: Path) -> None:
    install(project_dir)
    sandbox = _json(project_dir / ".claude" / "settings.json")["sandbox"]
    absolute = "//" + str(project_dir).lstrip("/")  # `//` is Claude Code's absolute form (`/` is the settings folder)
    assert sandbox["enabled"] is True
    assert sandbox["filesystem"]["denyWrite"] == [f"{absolute}/.git", f"{absolute}/.code-intel"]
    assert sandbox["filesystem"]["denyRead"] == ["//" + str(key_dir()).lstrip("/")]
    report = install(project_dir)  # idempotent, and a user's own sandbox entries stay
    assert {a.status for a in report.actions if a.path.startswith(".claude/settings.json")} == {"unchanged"}


def test_no_sandbox_leaves_the_settings_alone(project_dir: Path) -> None:
    install(project_dir, options=InstallOptions(sandbox=False))
    assert "sandbox" not in _json(project_dir / ".claude" / "settings.json")


def test_codex_gets_workspace_write_unless_the_user_chose(project_dir: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "trusting-codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    (home / "config.toml").write_text(f'[projects."{project_dir.resolve()}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    install(project_dir, options=InstallOptions(codex=True))
    config = tomllib.loads((project_dir / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert config["sandbox_mode"] == "workspace-write" and "code-intel" in config["mcp_servers"]
    assert not install(project_dir, options=InstallOptions(codex=True)).changed
    mine = project_dir / ".codex" / "config.toml"
    mine.write_text(mine.read_text(encoding="utf-8").replace("workspace-write", "read-only"), encoding="utf-8")
    report = install(project_dir, options=InstallOptions(codex=True))
    assert tomllib.loads(mine.read_text(encoding="utf-8"))["sandbox_mode"] == "read-only"
    assert any("left yours as it is" in note for note in report.notes)
