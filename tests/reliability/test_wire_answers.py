"""How answers go out on stdio: the text content and the structured content carry the same JSON, and the
structured copy is written from the text as the line leaves the server (tools/stdio.py, WireWriter)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tools.stdio import STRUCTURED_AS_TEXT, structured_from_text

pytestmark = pytest.mark.slow

MARKER_TEXT = json.dumps(STRUCTURED_AS_TEXT, separators=(",", ":"))

TRICKY_LINES = [
    'say("needle \\"quoted\\" and \\\\ backslash")',
    "needle\tafter a tab, then a bell \x07 and é, ü, 日本",
    f"needle = '{MARKER_TEXT}'",  # the marker itself, as text in a searched file
    "needle " + "x" * 700,  # longer than the 500 characters an answer keeps
]


@pytest.fixture
def server(tmp_path: Path, spawn: Callable[..., Any]) -> Any:
    project = tmp_path / "project"
    project.mkdir()
    (project / "tricky.py").write_text("\n".join(TRICKY_LINES) + "\n", encoding="utf-8")
    (project / "crlf.py").write_bytes(b"needle with a carriage return\r\nneedle again\r\n")
    (project / "many.py").write_text("".join(f"needle_{i} = {i}\n" for i in range(3000)), encoding="utf-8")
    return spawn(project)


def _call(server: Any, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    answer = server.answer(server.request("tools/call", {"name": tool, "arguments": arguments}))
    result = answer["result"]
    (content,) = result["content"]
    return result, content["text"]


def test_structured_content_is_the_text_content_on_the_wire(server: Any) -> None:
    result, text = _call(server, "search_text", {"pattern": "needle", "max_results": 5000})
    structured = result["structuredContent"]
    assert structured != STRUCTURED_AS_TEXT and structured == json.loads(text)
    assert result["isError"] is False
    assert structured["total_matches"] == len(TRICKY_LINES) + 2 + 3000 and not structured["truncated"]
    by_file: dict[str, list[dict[str, Any]]] = {}
    for match in structured["matches"]:
        assert list(match) == ["file", "line", "column", "text"]  # the schema's order, no nulls
        by_file.setdefault(match["file"], []).append(match)
    assert [m["text"] for m in by_file["crlf.py"]] == ["needle with a carriage return", "needle again"]
    assert [m["text"] for m in by_file["tricky.py"]] == [line[:500] for line in TRICKY_LINES]
    assert [m["column"] for m in by_file["tricky.py"]] == [line.index("needle") + 1 for line in TRICKY_LINES]
    assert [m["line"] for m in by_file["many.py"]] == list(range(1, 3001))
    server._check_schema("search_text", structured)


def test_every_kind_of_answer_carries_both_copies(server: Any) -> None:
    for tool, arguments, success in [
        ("get_symbols", {"path": "tricky.py"}, True),
        ("search_text", {"pattern": ["needle", "again"], "context_lines": 1}, True),
        ("get_outcome_stats", {}, True),
        ("get_symbols", {"path": "no/such.py"}, False),  # a refusal
        ("search_text", {"pattern": "("}, False),  # a refusal from ripgrep
        ("search_text", {"max_results": 0}, False),  # arguments outside the schema
    ]:
        result, text = _call(server, tool, arguments)
        assert result["structuredContent"] == json.loads(text), tool
        assert result["structuredContent"]["success"] is success and result["isError"] is not success, (tool, text)


def test_the_marker_is_put_in_place_only_where_it_is_the_structured_content() -> None:
    answer = {"success": True, "matches": [{"text": MARKER_TEXT}]}
    text = json.dumps(answer, separators=(",", ":"))
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}],
                                                              "structuredContent": STRUCTURED_AS_TEXT, "isError": False}},
                      separators=(",", ":"))
    sent = json.loads(structured_from_text(line))
    assert sent["result"]["structuredContent"] == answer and sent["result"]["content"][0]["text"] == text
    # a line without the marker as its structured content is written as it is
    plain = json.dumps({"jsonrpc": "2.0", "id": 8, "result": {"content": [{"type": "text", "text": MARKER_TEXT}]}})
    assert structured_from_text(plain) == plain


def test_stray_output_while_serving_goes_to_stderr(tmp_path: Path) -> None:
    """While our transport serves, fd 1 points at stderr: a print or a child process writing to stdout
    cannot corrupt the protocol stream."""
    script = tmp_path / "stray.py"
    script.write_text(textwrap.dedent("""
        import os, subprocess, anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCNotification
        from tools.stdio import guarded_stdio

        async def main():
            async with guarded_stdio() as (read_stream, write_stream):
                print("stray print", flush=True)
                subprocess.run(["echo", "stray child"], check=True)
                await write_stream.send(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/x")))
                await write_stream.aclose()  # the server's end of serving
            print("after serving", flush=True)

        anyio.run(main)
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], input=b"", capture_output=True, timeout=60, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == ['{"jsonrpc":"2.0","method":"notifications/x"}', "after serving"]
    assert "stray print" in done.stderr.decode() and "stray child" in done.stderr.decode()
