"""`code-intel check` from the shell, and what `code-intel init` writes and says about verify.commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from code_intel.cli.main import main
from code_intel.context.installer import format_report, install


def _configure(root: Path, commands: list[dict[str, object]]) -> None:
    state = root / ".code-intel"
    state.mkdir(parents=True, exist_ok=True)
    (state / "config.json").write_text(json.dumps({"verify": {"commands": commands}}), encoding="utf-8")


def test_check_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _configure(tmp_path, [{"name": "ok", "run": [sys.executable, "-c", "pass"]}])
    assert main(["check", "--project", str(tmp_path)]) == 0
    assert "all checks passed" in capsys.readouterr().out
    _configure(tmp_path, [{"name": "ok", "run": [sys.executable, "-c", "pass"]},
                          {"name": "broken", "run": "echo 'FAILED t.py::test_x - no'; exit 1"}])
    assert main(["check", "--project", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  broken failed (exit 1): t.py::test_x" in out and "1 of 2 check(s) failed" in out
    assert main(["check", "--project", str(tmp_path), "--changed", "docs/x.md", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["passed"] is False


def test_check_without_commands_and_with_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--project", str(tmp_path)]) == 0
    assert "no verify.commands" in capsys.readouterr().out
    _configure(tmp_path, [{"name": "x", "run": []}])
    assert main(["check", "--project", str(tmp_path)]) == 2
    assert "verify.commands" in capsys.readouterr().err


def test_init_writes_detected_commands_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    report = install(tmp_path)
    config = json.loads((tmp_path / ".code-intel" / "config.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in config["verify"]["commands"]] == ["pytest"]
    assert "verify.commands: pytest" in format_report(report) and "pytest.ini" in format_report(report)
    # a test suite added later: rerunning init refreshes the file it wrote
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}), encoding="utf-8")
    install(tmp_path)
    config = json.loads((tmp_path / ".code-intel" / "config.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in config["verify"]["commands"]] == ["pytest", "npm test"]


def test_init_with_nothing_to_run_writes_an_empty_list_and_a_note(tmp_path: Path) -> None:
    report = install(tmp_path)
    config = json.loads((tmp_path / ".code-intel" / "config.json").read_text(encoding="utf-8"))
    assert config["verify"] == {"commands": [], "run_before_change": True}
    assert "no test command found" in format_report(report)


# ------------------------------------------------------------------ which commands `code-intel check` runs
def _by_language(root: Path) -> None:
    """Three commands: one always relevant, one for Python files, one for the web/ folder."""
    _configure(root, [
        {"name": "always", "run": [sys.executable, "-c", "print('always')"]},
        {"name": "py", "run": [sys.executable, "-c", "print('py')"], "when": ["**/*.py"]},
        {"name": "js", "run": [sys.executable, "-c", "print('js')"], "when": ["web/**"]},
    ])


def _check_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--project", str(root), "--json", *args])
    return code, json.loads(out.getvalue())


def _ran(report: dict[str, Any]) -> list[str]:
    return [c["name"] for c in report["commands"]]


def test_check_in_a_repository_judges_the_working_tree_against_head(git_project: Path, run_git) -> None:
    _by_language(git_project)
    (git_project / "web").mkdir()
    (git_project / "web" / "app.js").write_text("export const x = 1;\n", encoding="utf-8")
    (git_project / "app.py").write_text("X = 1\n", encoding="utf-8")
    (git_project / ".gitignore").write_text(".code-intel/\n*.log\n", encoding="utf-8")
    run_git(git_project, "add", "-A")
    run_git(git_project, "commit", "-q", "-m", "layout")

    code, clean = _check_json(git_project)
    assert code == 0 and _ran(clean) == ["always"] and clean["changed_files"] == []
    assert "working tree against HEAD" in clean["relevance"]
    assert {s["name"] for s in clean["skipped"]} == {"py", "js"}

    (git_project / "app.py").write_text("X = 2\n", encoding="utf-8")  # unstaged
    (git_project / "debug.log").write_text("ignored\n", encoding="utf-8")  # ignored: never a change
    code, edited = _check_json(git_project)
    assert _ran(edited) == ["always", "py"] and edited["changed_files"] == ["app.py"]

    (git_project / "web" / "new.js").write_text("1;\n", encoding="utf-8")  # untracked counts
    run_git(git_project, "add", "app.py")  # staged counts too
    assert _ran(_check_json(git_project)[1]) == ["always", "py", "js"]

    code, everything = _check_json(git_project, "--all")
    assert _ran(everything) == ["always", "py", "js"] and everything["changed_files"] is None
    assert everything["relevance"] == "every command (--all)"
    assert _ran(_check_json(git_project, "--changed", "web/app.js")[1]) == ["always", "js"]


def test_check_in_a_plain_folder_without_a_session_runs_every_command(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _by_language(tmp_path)
    assert main(["check", "--project", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "relevance: every command: not a git repository and no session" in out
    assert out.count("PASS") == 3


def test_check_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _by_language(tmp_path)
    assert main(["check", "--project", str(tmp_path), "--changed", "../outside.py"]) == 2
    assert "outside" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--project", str(tmp_path), "--all", "--changed", "a.py"])
    assert exit_.value.code == 2


def test_check_during_a_session_runs_what_run_checks_runs(git_project: Path, run_git) -> None:
    from code_intel.core.config import ContextSettings, load_config
    from code_intel.core.project import ProjectRoot
    from code_intel.git.service import GitService
    from code_intel.verify.service import CheckService
    from code_intel.workflow.engine import WorkflowEngine
    from tests.workflow.conftest import APP_CODE, Driver

    (git_project / "src").mkdir()
    (git_project / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
    (git_project / "web").mkdir()
    (git_project / "web" / "app.js").write_text("export const x = 1;\n", encoding="utf-8")
    run_git(git_project, "add", "-A")
    run_git(git_project, "commit", "-q", "-m", "layout")
    _by_language(git_project)
    (git_project / "web" / "app.js").write_text("export const x = 2;  // the user's own edit\n", encoding="utf-8")

    root = ProjectRoot.from_args(git_project)
    engine = WorkflowEngine(root, git=GitService(root), context=lambda: ContextSettings(),
                            config=lambda: load_config(root.state_dir),
                            checks=CheckService(root, lambda: load_config(root.state_dir).verify))
    try:
        driver = Driver(engine, engine.git, root)  # type: ignore[arg-type]
        resp = driver.run(driver.start(flags=["--no-quality"]), until="POST_IMPL_VERIFY")
        assert resp["phase"] == "POST_IMPL_VERIFY", resp
        server = engine.run_checks()
        code, shell = _check_json(git_project)
        assert code == 0 and _ran(shell) == _ran(server) == ["always", "py"]  # the user's web/ edit is not the session's
        assert shell["changed_files"] == server["changed_files"] == ["src/app.py"]
        assert "since session" in shell["relevance"] and "since the session started" in server["relevance"]
        assert [s["name"] for s in shell["skipped"]] == [s["name"] for s in server["skipped"]] == ["js"]
    finally:
        engine.close()
