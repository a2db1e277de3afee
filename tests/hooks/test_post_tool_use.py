"""The read log comes from what a tool answered (PostToolUse), never from what it asked: reads shown, not claimed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.hooks.post_tool_use import file_shown, record_reads, response_text, shown_lines
from code_intel.workflow import write_log
from code_intel.workflow.phases import Phase
from tests.enforcement.conftest import SESSION_ID, make_project, start_session

APP_LINES = "def add(a, b):\n    total = a + b\n    return total\n"


@pytest.fixture
def project(tmp_path: Path) -> ProjectRoot:
    root = make_project(tmp_path / "project")
    (root.path / "src" / "empty.py").write_text("", encoding="utf-8")
    start_session(root, Phase.EXPLORATION)
    return root


def post(root: ProjectRoot, tool: str, tool_input: dict[str, Any], response: Any) -> tuple[str, ...]:
    event = {"session_id": "c1", "hook_event_name": "PostToolUse", "cwd": str(root.path), "tool_name": tool,
             "tool_input": tool_input, "tool_response": response}
    return record_reads(event, root)


def logged(root: ProjectRoot) -> set[str]:
    return write_log.files_read(write_log.reads_file(root.state_dir / "sessions", SESSION_ID))


def read_response(root: ProjectRoot, content: str, start: int = 1) -> dict[str, Any]:  # Claude Code 2.1.330's shape
    return {"type": "text", "file": {"filePath": str(root.path / "src/app.py"), "content": content,
                                     "numLines": content.count("\n"), "startLine": start, "totalLines": 3}}


def shell(stdout: str, stderr: str = "") -> dict[str, Any]:
    return {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False, "noOutputExpected": False}


@pytest.mark.parametrize(("tool", "tool_input", "response"), [
    ("Read", {"file_path": "src/app.py"}, "whole"),
    ("Read", {"file_path": "src/app.py", "offset": 2, "limit": 1}, "part"),
    ("Bash", {"command": "cat src/app.py"}, shell(APP_LINES.rstrip("\n"))),
    ("Bash", {"command": "cat -n src/app.py"}, shell("     1\tdef add(a, b):\n     2\t    total = a + b")),
    ("Bash", {"command": "sed -n 2p src/app.py"}, shell("    total = a + b")),
    ("Bash", {"command": "grep -rn total src"}, shell("src/app.py:2:    total = a + b\nsrc/app.py:3:    return total")),
    ("Bash", {"command": "head -3 src/app.py lib/other.py"}, shell("==> src/app.py <==\n" + APP_LINES)),
    ("Bash", {"command": "rg -n 'a \\+ b'"}, shell("src/app.py\n2:    total = a + b")),
    ("Bash", {"command": "cat src/app.py"}, '{"stdout": "def add(a, b):\\n    total = a + b"}'),  # JSON text
])
def test_content_that_came_back_counts(project: ProjectRoot, tool: str, tool_input: dict[str, Any], response: Any) -> None:
    if response == "whole":
        response = read_response(project, APP_LINES)
    elif response == "part":
        response = read_response(project, "    total = a + b\n", start=2)
    assert post(project, tool, tool_input, response) == ("src/app.py",)
    assert logged(project) == {"src/app.py"}


@pytest.mark.parametrize(("tool", "tool_input", "response"), [
    ("Read", {"file_path": "src/app.py", "offset": 50}, "past-the-end"),
    ("Bash", {"command": "cat src/app.py > /dev/null"}, shell("")),
    ("Bash", {"command": "head -c 0 src/app.py"}, shell("")),
    ("Bash", {"command": "grep -l total src/app.py"}, shell("src/app.py")),
    ("Bash", {"command": "true || cat src/app.py"}, shell("")),
    ("Bash", {"command": "wc -l src/app.py"}, shell("3 src/app.py")),
    ("Bash", {"command": "ls -la src/app.py"}, shell("-rw-r--r-- 1 u u 48 Nov 27 22:00 src/app.py")),
    ("Bash", {"command": "echo '    total = a + b'; ls src/app.py"}, shell("    total = a + b\nsrc/app.py")),
    ("Bash", {"command": "cat src/app.py | md5sum"}, shell("3b5d5c3712955042212316173ccf37be  -")),
    ("Bash", {"command": "cat lib/other.py"}, shell("x = 1")),  # another file's content, not this one's
])
def test_output_that_shows_nothing_proves_nothing(project: ProjectRoot, tool: str, tool_input: dict[str, Any],
                                                   response: Any) -> None:
    if response == "past-the-end":
        response = read_response(project, "", start=50)
    shown = post(project, tool, tool_input, response)
    assert "src/app.py" not in shown and "src/app.py" not in logged(project)


def test_an_empty_file_counts_when_the_call_named_it(project: ProjectRoot) -> None:
    assert post(project, "Read", {"file_path": "src/empty.py"}, {"type": "text", "file": {"content": ""}}) == ("src/empty.py",)


def test_no_session_logs_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path / "bare")
    assert post(root, "Read", {"file_path": "src/app.py"}, read_response(root, APP_LINES)) == ()
    assert not (root.state_dir / "sessions").exists()


def test_files_outside_the_project_and_other_tools_are_ignored(project: ProjectRoot, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("secret_value = 42\n", encoding="utf-8")
    assert post(project, "Bash", {"command": f"cat {outside}"}, shell("secret_value = 42")) == ()
    assert post(project, "Edit", {"file_path": "src/app.py"}, {"content": APP_LINES}) == ()


def test_response_text_skips_what_echoes_the_call() -> None:
    text = response_text({"filePath": "def add(a, b):", "command": "echo x", "file": {"content": "real"}})
    assert text == "real"
    assert "return total" in shown_lines("3:    return total") and "return total" in shown_lines("src/a.py:3:return total")


def test_a_short_file_needs_its_longest_line(tmp_path: Path) -> None:
    short = tmp_path / "short.py"
    short.write_text("x = 1\n}\n", encoding="utf-8")
    assert file_shown(short, {"x = 1"}) and not file_shown(short, {"}"})
