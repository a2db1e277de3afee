from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pytest

from code_intel.cli import doctor
from code_intel.cli.doctor import CheckResult, check_ctags, check_project, format_results, run_checks
from code_intel.cli.main import main as cli_main
from code_intel.index.embedder import Embedder


def _fake_binary(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def test_doctor_is_all_green_on_this_machine(embedding_model: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI entry point, in this process: the embedding check reuses the session's loaded model."""
    assert cli_main(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name in ("python", "rg", "ctags", "git", "tree-sitter", "embedding model", "chroma"):
        assert any(line.startswith("ok") and f" {name} " in line for line in lines), name
    assert lines[-1] == "all checks passed"


def test_fast_checks_pass_in_process() -> None:
    results = run_checks(["python", "rg", "ctags", "git", "tree-sitter"])
    assert [r.name for r in results] == ["python", "rg", "ctags", "git", "tree-sitter"]
    assert all(r.ok for r in results), format_results(results)


@pytest.fixture
def only_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of one empty folder, with the binary lookups forgotten before and after."""
    from code_intel.core import binaries

    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    binaries.ctags_probes.cache_clear()
    binaries.find_binary.cache_clear()
    yield folder
    binaries.ctags_probes.cache_clear()
    binaries.find_binary.cache_clear()


def test_missing_ctags_is_optional_and_named_with_its_fix(only_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = check_ctags()
    assert not result.ok and result.optional and result.fix and "ctags" in result.fix
    assert "find_definitions" in result.detail  # says what works without it
    report = format_results([result])
    assert report.startswith("warn ctags") and "optional, missing: ctags" in report
    assert report.endswith("all required checks passed")


def test_exuberant_ctags_is_passed_over_for_universal_ctags_later_on_path(only_path: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from code_intel.core import binaries

    _fake_binary(only_path, "ctags", 'echo "Exuberant Ctags 5.8, Copyright (C) 1996-2009 Darren Hiebert"\n')
    result = check_ctags()
    assert not result.ok and "not Universal Ctags" in result.detail
    real = shutil.which("ctags", path="/usr/bin:/usr/local/bin")
    if real is None:
        pytest.skip("no Universal Ctags on this machine")
    later = tmp_path / "later"
    later.mkdir()
    (later / "ctags").symlink_to(real)
    monkeypatch.setenv("PATH", f"{only_path}:{later}")  # macOS: /usr/bin/ctags (BSD) before Homebrew's
    binaries.ctags_probes.cache_clear()
    binaries.find_binary.cache_clear()
    assert binaries.find_binary("ctags") == str(later / "ctags")
    assert check_ctags().ok


def test_universal_ctags_without_json_is_refused(only_path: Path) -> None:
    script = ('case "$1" in --version) echo "Universal Ctags 5.9.0, Copyright";; '
              '--list-features) printf "#NAME DESCRIPTION\\nwildcards  can use glob\\nregex  can use regex\\n";; esac\n')
    _fake_binary(only_path, "ctags", script)
    result = check_ctags()
    assert not result.ok and "without JSON" in result.detail


def test_install_commands_follow_the_platform() -> None:
    from code_intel.core.binaries import install_command

    assert install_command("ctags", "darwin") == "brew install universal-ctags"
    assert install_command("ctags", "win32").split()[:2] in (["winget", "install"], ["choco", "install"],
                                                             ["scoop", "install"])
    assert "ctags" in install_command("ctags", "linux")


def test_failed_check_makes_exit_code_non_zero_and_names_the_fix(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> CheckResult:
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor, "CHECKS", {
        "git": doctor.check_git,
        "chroma": lambda: CheckResult(name="chroma", ok=False, detail="ImportError", fix="pip install chromadb==1.5.9"),
        "grammar": broken,
    })
    code = doctor.run_doctor(argparse.Namespace(project=None))
    out = capsys.readouterr().out
    assert code == 1
    assert "missing: chroma, grammar" in out
    assert "  chroma: pip install chromadb==1.5.9" in out
    assert "check crashed: RuntimeError: boom" in out


def test_project_check_names_the_bad_key(project_dir: Path) -> None:
    (project_dir / ".code-intel").mkdir()
    (project_dir / ".code-intel" / "config.json").write_text('{"chunk_max_tokens": "big"}', encoding="utf-8")
    result = check_project(project_dir)
    assert not result.ok and "chunk_max_tokens" in result.detail


def test_verify_commands_that_cannot_start_are_named(project_dir: Path) -> None:
    """Each verify command is looked at without running it: its program on PATH or in the project, and for
    `python -m module` whether that interpreter has the module. A command that cannot start fails the same way
    before and after any change, so the server's checks would judge nothing."""
    config = project_dir / ".code-intel" / "config.json"
    config.parent.mkdir()
    assert doctor.check_verify_commands(project_dir).ok  # no commands: self-reported, nothing to fix
    commands = [
        {"name": "tests", "run": [sys.executable, "-m", "pytest", "-q"]},
        {"name": "shell", "run": "FOO=1 python3 -c 'print(1)' && cd build && ctest"},
        {"name": "no module", "run": [sys.executable, "-m", "no_such_module_here"]},
        {"name": "no program", "run": "no-such-linter --check ."},
        {"name": "no venv", "run": [".venv/bin/python", "-m", "unittest"]},
        {"name": "shell module", "run": "PYTHONPATH=src python3 -m no_such_module_here --opt=1"},
    ]
    config.write_text(json.dumps({"verify": {"commands": commands}}), encoding="utf-8")
    result = doctor.check_verify_commands(project_dir)
    assert not result.ok
    assert result.detail == (f"no module: {sys.executable} has no module no_such_module_here; "
                             "no program: no-such-linter not found on PATH; no venv: .venv/bin/python not found; "
                             "shell module: python3 has no module no_such_module_here")
    config.write_text(json.dumps({"verify": {"commands": commands[:2]}}), encoding="utf-8")
    assert doctor.check_verify_commands(project_dir).detail == "verify.commands can start: tests, shell"
    if shutil.which("npm"):  # a JS project before `npm install`: its test runner is not there yet
        (project_dir / "package.json").write_text('{"scripts": {"test": "jest"}}', encoding="utf-8")
        config.write_text(json.dumps({"verify": {"commands": [{"name": "npm test", "run": ["npm", "test"]}]}}))
        assert doctor.check_verify_commands(project_dir).detail == "npm test: node_modules/ is missing (run npm install)"
        (project_dir / "node_modules").mkdir()
        assert doctor.check_verify_commands(project_dir).ok


def test_client_files_check_reports_missing_current_outdated_and_edited(project_dir: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from code_intel.cli.doctor import check_client_files
    from code_intel.context.installer import InstallOptions, install

    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    skill_result, hooks_result, server_result, templates_result = check_client_files(project_dir)
    assert not server_result.ok and "missing" in server_result.detail
    assert not templates_result.ok and ".code-intel/task_planning.md: missing" in templates_result.detail
    assert not skill_result.ok and "missing" in skill_result.detail
    assert not hooks_result.ok and hooks_result.fix == f"code-intel init {project_dir}"

    install(project_dir, options=InstallOptions(codex=True))
    assert all(r.ok for r in check_client_files(project_dir)), check_client_files(project_dir)
    (project_dir / ".code-intel" / "context.yml").write_text("# my rules\n", encoding="utf-8")
    assert check_client_files(project_dir)[3].ok  # settings edited by the user are theirs, not a fault
    assert ".agents/skills/code/SKILL.md" in check_client_files(project_dir)[0].detail

    settings = project_dir / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = "/old/venv/bin/code-intel hook pre-tool-use --project x"
    settings.write_text(json.dumps(data), encoding="utf-8")
    hooks_result = check_client_files(project_dir)[1]
    assert not hooks_result.ok and "hooks.PreToolUse[code-intel]): changed by hand" in hooks_result.detail
    assert hooks_result.fix and "--force" in hooks_result.fix and "--codex" in hooks_result.fix

    install(project_dir, options=InstallOptions(remove_hooks=True))
    hooks_result = check_client_files(project_dir)[1]
    assert not hooks_result.ok and hooks_result.detail.count("missing") == 6  # 3 events x 2 clients


def test_sandbox_check_says_when_the_sandbox_cannot_run(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from code_intel.cli.doctor import check_sandbox
    from code_intel.context.installer import InstallOptions, install

    install(project_dir, options=InstallOptions(sandbox=False))
    off = check_sandbox(project_dir)
    assert off.ok and "sandbox is off" in off.detail
    install(project_dir)
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "bwrap" else f"/usr/bin/{name}")
    missing = check_sandbox(project_dir, platform="linux")
    assert not missing.ok and "bwrap cannot be found" in missing.detail and "bubblewrap socat" in (missing.fix or "")
    assert check_sandbox(project_dir, platform="darwin").ok
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    assert check_sandbox(project_dir, platform="linux").ok
