"""`code-intel check` from the shell, and what `code-intel init` writes and says about verify.commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tools.cli import main
from tools.context.installer import format_report, install


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
    assert config["verify"] == {"commands": []}
    assert "no test command found" in format_report(report)
