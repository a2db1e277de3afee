from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.context.installer import MANIFEST, install
from code_intel.core.config import Config, ContextSettings, load_config, load_context
from code_intel.core.errors import ConfigError, InvalidArgument
from code_intel.core.project import TEMPLATES_DIR

REPO = TEMPLATES_DIR.parent
REQUIRED = [
    "config.json", "context.yml", "task_planning.md", "user_escalation.md",
    "verifiers/backend.md", "verifiers/html_css.md", "verifiers/generic.md", "doc_research/default.md",
    "review_prompts/garbage_detection.md", "review_prompts/quality_review.md",
]


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file() and ".git/" not in p.as_posix() + "/"}


def _init_script(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REPO / "init-project.sh"), str(project), *extra],
                          capture_output=True, text=True, check=True, timeout=60)


@pytest.mark.slow  # runs init-project.sh twice
def test_script_twice_changes_nothing_and_keeps_user_edits(git_project: Path, run_git: Callable[..., str]) -> None:
    first = _init_script(git_project)
    assert "created     .code-intel/config.json" in first.stdout
    planning = git_project / ".code-intel" / "task_planning.md"
    planning.write_text("# our own planning rules\n", encoding="utf-8")
    before = _snapshot(git_project)

    second = _init_script(git_project)

    assert _snapshot(git_project) == before
    assert "nothing written" in second.stdout
    assert "kept        .code-intel/task_planning.md" in second.stdout
    assert planning.read_text(encoding="utf-8") == "# our own planning rules\n"
    third = _init_script(git_project)
    assert _snapshot(git_project) == before
    assert third.stdout.count("kept") == 1

    forced = _init_script(git_project, "--force")
    assert "overwritten .code-intel/task_planning.md" in forced.stdout
    assert planning.read_bytes() == (TEMPLATES_DIR / "code-intel" / "task_planning.md").read_bytes()
    assert "nothing written" in _init_script(git_project).stdout


def test_writes_every_template_and_the_runtime_folders(project_dir: Path) -> None:
    report = install(project_dir)
    state = project_dir / ".code-intel"
    templates = TEMPLATES_DIR / "code-intel"
    for name in REQUIRED:
        assert (state / name).is_file(), name
    for source in templates.rglob("*"):
        if source.is_file():  # phase_contract.yml too, once its template exists
            assert (state / source.relative_to(templates)).read_bytes() == source.read_bytes()
    interventions = sorted((state / "interventions").glob("*.md"))
    assert len(interventions) >= 3
    assert len({p.read_text(encoding="utf-8") for p in interventions}) == len(interventions)
    for name in ("agreements", "logs", "sessions", "chroma"):
        assert (state / name).is_dir() and not any((state / name).iterdir())
    assert {a.status for a in report.actions} == {"created"}
    assert (project_dir / MANIFEST).is_file()


def test_config_and_context_templates_hold_the_defaults(project_dir: Path) -> None:
    install(project_dir)
    state = project_dir / ".code-intel"
    assert load_config(state) == Config()
    raw = json.loads((state / "config.json").read_text(encoding="utf-8"))
    assert set(raw) == set(Config.model_fields)  # every key is written, so users see what they can set
    assert load_context(state) == ContextSettings()


def test_mcp_json_entry_uses_absolute_paths(project_dir: Path) -> None:
    install(project_dir)
    entry = json.loads((project_dir / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["code-intel"]
    assert entry["type"] == "stdio"
    # the installed console script, as pip recorded it: the venv's bin/, not a path inside site-packages
    assert entry["command"] == str(REPO / ".venv" / "bin" / "code-intel") and Path(entry["command"]).is_file()
    assert entry["args"] == ["serve", "--project", str(project_dir)]


def test_mcp_json_merge_keeps_other_servers(project_dir: Path) -> None:
    other = {"command": "npx", "args": ["-y", "some-server"]}
    (project_dir / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": other}, "extra": 1}), encoding="utf-8")
    report = install(project_dir)
    merged = json.loads((project_dir / ".mcp.json").read_text(encoding="utf-8"))
    assert merged["mcpServers"]["other"] == other and merged["extra"] == 1
    assert "code-intel" in merged["mcpServers"]
    assert any(a.path.startswith(".mcp.json") and a.status == "created" for a in report.actions)


def test_user_changed_mcp_entry_is_kept_unless_forced(project_dir: Path) -> None:
    install(project_dir)
    file = project_dir / ".mcp.json"
    data = json.loads(file.read_text(encoding="utf-8"))
    data["mcpServers"]["code-intel"]["env"] = {"CODE_INTEL_LOG": "debug"}
    file.write_text(json.dumps(data), encoding="utf-8")

    report = install(project_dir)
    assert json.loads(file.read_text(encoding="utf-8")) == data
    assert [a.status for a in report.actions if a.path.startswith(".mcp.json")] == ["kept"]

    install(project_dir, force=True)
    assert json.loads(file.read_text(encoding="utf-8"))["mcpServers"]["code-intel"]["env"] == {}


@pytest.mark.parametrize("content", ['{"mcpServers": {', "[1, 2]"])
def test_bad_mcp_json_is_refused_before_anything_is_written(project_dir: Path, content: str) -> None:
    (project_dir / ".mcp.json").write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        install(project_dir, force=True)
    assert ".mcp.json" in caught.value.message and "nothing was written" in caught.value.message
    assert (project_dir / ".mcp.json").read_text(encoding="utf-8") == content
    assert not (project_dir / ".code-intel").exists() and not (project_dir / ".gitignore").exists()


def test_template_we_wrote_is_refreshed_when_the_template_changes(project_dir: Path) -> None:
    install(project_dir)
    target = project_dir / ".code-intel" / "user_escalation.md"
    # Pretend an older code-intel wrote a different version of this file.
    old = b"# old template text\n"
    target.write_bytes(old)
    manifest_file = project_dir / MANIFEST
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest["files"][".code-intel/user_escalation.md"] = hashlib.sha256(old).hexdigest()
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")

    report = install(project_dir)
    assert target.read_bytes() == (TEMPLATES_DIR / "code-intel" / "user_escalation.md").read_bytes()
    assert [a.status for a in report.actions if a.path == ".code-intel/user_escalation.md"] == ["updated"]


def test_gitignore_is_appended_once_and_runtime_state_is_ignored(git_project: Path, run_git: Callable[..., str]) -> None:
    (git_project / ".gitignore").write_text("node_modules/", encoding="utf-8")  # no trailing newline
    install(git_project)
    install(git_project)
    lines = (git_project / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "node_modules/"
    assert lines.count(".code-intel/logs/") == 1
    for name in ("logs", "sessions", "chroma"):
        (git_project / ".code-intel" / name / "state.bin").write_text("x", encoding="utf-8")
    status = run_git(git_project, "status", "--porcelain", "--untracked-files=all")
    assert "state.bin" not in status
    assert ".code-intel/config.json" in status  # the project's own settings stay trackable


def test_gitignore_with_equivalent_entries_is_left_alone(project_dir: Path) -> None:
    (project_dir / ".gitignore").write_text("/.code-intel/\n.claude/settings.local.json\n", encoding="utf-8")
    install(project_dir)
    assert (project_dir / ".gitignore").read_text(encoding="utf-8") == "/.code-intel/\n.claude/settings.local.json\n"


def test_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="not a folder"):
        install(tmp_path / "nope")


def test_cli_init_reports_and_exits_zero(project_dir: Path) -> None:
    result = subprocess.run([str(REPO / ".venv" / "bin" / "code-intel"), "init", str(project_dir)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "created     .mcp.json (mcpServers.code-intel)" in result.stdout


def test_script_without_arguments_prints_usage() -> None:
    result = subprocess.run([str(REPO / "init-project.sh")], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "usage:" in result.stderr


def test_list_entries_merge_beside_the_users_own_items(project_dir: Path) -> None:
    """One item of a list in .claude/settings.json is ours (the PreToolUse hook group); the user's stay."""
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    users = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [users]}, "model": "x"}), encoding="utf-8")

    install(project_dir)
    merged = json.loads(settings.read_text(encoding="utf-8"))
    ours = json.loads(json.dumps(merged["hooks"]["PreToolUse"][1]))
    assert merged["hooks"]["PreToolUse"][0] == users and merged["model"] == "x"
    assert " hook pre-tool-use --project " in ours["hooks"][0]["command"]
    assert {a.status for a in install(project_dir).actions if a.path.startswith(".claude/settings")} == {"unchanged"}

    merged["hooks"]["PreToolUse"][1]["matcher"] = "Edit"  # the user narrows our hook
    settings.write_text(json.dumps(merged), encoding="utf-8")
    statuses = {a.path: a.status for a in install(project_dir).actions}
    assert statuses[".claude/settings.json (hooks.PreToolUse[code-intel])"] == "kept"
    install(project_dir, force=True)
    assert json.loads(settings.read_text(encoding="utf-8"))["hooks"]["PreToolUse"] == [users, ours]


def test_unwritable_layout_is_reported_not_a_traceback(project_dir: Path) -> None:
    (project_dir / ".code-intel").write_text("a file where the folder should be", encoding="utf-8")
    result = subprocess.run([str(REPO / ".venv" / "bin" / "code-intel"), "init", str(project_dir)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "cannot write into" in result.stderr and "Traceback" not in result.stderr


def test_the_planning_guide_keeps_verification_out_of_the_tasks() -> None:
    """v1.11's default guidance: every change target becomes a task, and running checks is not one
    (POST_IMPL_VERIFY does that); the READY planning answer points the agent at this file."""
    text = " ".join((TEMPLATES_DIR / "code-intel" / "task_planning.md").read_text(encoding="utf-8").split())
    assert "Every change target found there belongs to some task" in text
    assert "Do not plan running the tests" in text and "POST_IMPL_VERIFY" in text


def test_init_after_an_upgrade_refreshes_what_it_wrote_and_says_what_changed(
        project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older code-intel, started from another path, wrote the project; this one refreshes its entries and
    templates (the user's own edits stay), names the old and new command, and records its version."""
    from code_intel import __version__
    from code_intel.context import installer
    from code_intel.context.installer import format_report

    old_launcher = ["/opt/old-install/bin/code-intel"]
    monkeypatch.setattr(installer, "entry_point", lambda: old_launcher)
    install(project_dir)
    manifest_file = project_dir / MANIFEST
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    assert manifest["code_intel"] == __version__
    manifest["code_intel"] = "0.0.9"
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    planning = project_dir / ".code-intel" / "task_planning.md"
    old_template = b"the older template\n"
    planning.write_bytes(old_template)  # as the older release wrote it: the manifest holds its hash
    manifest["files"][".code-intel/task_planning.md"] = installer._sha(old_template)
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")

    monkeypatch.undo()
    report = install(project_dir)
    text = format_report(report)
    assert "upgrade: these files were written by code-intel 0.0.9" in text
    actions = {a.path: a for a in report.actions}
    server = actions[".mcp.json (mcpServers.code-intel)"]
    assert server.status == "updated" and '"/opt/old-install/bin/code-intel" -> ' in server.detail
    assert actions[".code-intel/task_planning.md"].status == "updated"
    assert all(actions[label].status == "updated" for label in actions if "hooks.PreToolUse" in label)
    entry = json.loads((project_dir / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["code-intel"]
    assert entry["command"] == str(REPO / ".venv" / "bin" / "code-intel")
    assert json.loads(manifest_file.read_text(encoding="utf-8"))["code_intel"] == __version__
    assert "upgrade:" not in format_report(install(project_dir))  # the next run has nothing to refresh


def test_init_names_the_ctags_install_command_when_ctags_is_missing(project_dir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from code_intel.context.installer import format_report
    from code_intel.core import binaries

    monkeypatch.setattr(binaries, "find_binary", lambda name: None)
    text = format_report(install(project_dir))
    assert "Universal Ctags was not found" in text and "find_definitions" in text
    assert binaries.install_command("ctags") in text


@pytest.mark.parametrize("inside", [True, False])
def test_init_run_from_uvx_warns_that_uvs_cache_may_be_cleaned(project_dir: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, inside: bool) -> None:
    """uvx sets UV and runs code-intel from an environment in uv's cache; `uv tool install` does not."""
    import sys

    from code_intel.context.installer import format_report

    cache = Path(sys.prefix).parent if inside else tmp_path / "uv-cache"
    uv = tmp_path / "uv"
    uv.write_text(f"#!/bin/sh\n[ \"$1 $2\" = 'cache dir' ] && echo '{cache}'\n", encoding="utf-8")
    uv.chmod(0o755)
    monkeypatch.setenv("UV", str(uv))
    text = format_report(install(project_dir))
    assert ("code-intel runs from uvx here" in text) is inside
    assert ("uv tool install code-intel" in text) is inside
