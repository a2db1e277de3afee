"""Tool answers as they go out on stdio through the SDK's transport: the structured content and the text content
are the same object, whatever the searched text holds; answers in flight together each get their own; and
nothing but protocol reaches stdout while the server serves."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

JSON_LIKE = '{"code_intel_answer":"code-intel-answer-0123456789abcdef-1"}'

TRICKY_LINES = [
    'say("needle \\"quoted\\" and \\\\ backslash")',
    "needle\tafter a tab, then a bell \x07 and é, ü, 日本, 🙂",
    f"needle = '{JSON_LIKE}'",  # JSON as text in a searched file
    "needle code-intel-answer-",
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


@pytest.mark.slow
def test_structured_content_is_the_text_content_on_the_wire(server: Any) -> None:
    result, text = _call(server, "search_text", {"pattern": "needle", "max_results": 5000})
    structured = result["structuredContent"]
    assert structured == json.loads(text)
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


@pytest.mark.slow
def test_every_kind_of_answer_carries_both_copies(server: Any) -> None:
    for tool, arguments, success in [
        ("get_symbols", {"path": "tricky.py"}, True),
        ("search_text", {"pattern": ["needle", "again"], "context_lines": 1}, True),
        ("search_text", {"pattern": TRICKY_LINES[2], "fixed_strings": True}, True),  # JSON-looking text in a pattern
        ("get_outcome_stats", {}, True),
        ("get_symbols", {"path": "no/such.py"}, False),  # a refusal
        ("get_symbols", {"path": JSON_LIKE}, False),  # a refusal quoting JSON-looking text
        ("search_text", {"pattern": "("}, False),  # a refusal from ripgrep
        ("search_text", {"max_results": 0}, False),  # arguments outside the schema
    ]:
        result, text = _call(server, tool, arguments)
        assert result["structuredContent"] == json.loads(text), tool
        assert result["structuredContent"]["success"] is success and result["isError"] is not success, (tool, text)
        server._check_schema(tool, result["structuredContent"])
    # (a pattern that is JSON text on its own would reach the tool parsed: the SDK parses JSON in string arguments)
    found, _ = _call(server, "search_text", {"pattern": TRICKY_LINES[2], "fixed_strings": True})
    assert [m["text"] for m in found["structuredContent"]["matches"]] == [TRICKY_LINES[2]]
    assert found["structuredContent"]["pattern"] == TRICKY_LINES[2]


@pytest.mark.slow
def test_answers_in_flight_together_each_get_their_own(server: Any) -> None:
    asked = {}
    for n in range(12):  # sent at once, answered in whatever order they finish
        arguments = {"pattern": f"needle_{n}\\b" if n % 3 else "needle", "max_results": 5000}
        asked[server.request("tools/call", {"name": "search_text", "arguments": arguments})] = n
    asked[server.request("tools/call", {"name": "get_symbols", "arguments": {"path": "no/such.py"}})] = -1
    for request_id, n in asked.items():
        result = server.answer(request_id)["result"]
        structured = result["structuredContent"]
        assert structured == json.loads(result["content"][0]["text"])
        if n < 0:
            assert result["isError"] is True and structured["error"] == "invalid_argument"
        elif n % 3:
            assert [m["text"] for m in structured["matches"]] == [f"needle_{n} = {n}"]
        else:
            assert structured["total_matches"] == len(TRICKY_LINES) + 2 + 3000


@pytest.mark.slow
def test_stray_output_while_serving_goes_to_stderr(tmp_path: Path) -> None:
    """While the server serves, fd 1 points at stderr (the SDK's transport claims it) and fd 0 at /dev/null: a
    print or a child process writing to stdout cannot corrupt the protocol stream, nor read protocol bytes."""
    script = tmp_path / "stray.py"
    script.write_text(textwrap.dedent("""
        import os, subprocess, anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCNotification
        from code_intel.server.stdio import serve_stdio

        async def serve(read_stream, write_stream):
            print("stray print", flush=True)
            subprocess.run(["echo", "stray child"], check=True)
            child = subprocess.run(["cat"], capture_output=True, check=True)
            print(f"the child read {child.stdout!r}", flush=True)
            await write_stream.send(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/x")))
            await write_stream.aclose()  # the server's end of serving

        anyio.run(serve_stdio, serve)
        print("after serving", flush=True)
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], input=b"", capture_output=True, timeout=60, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == ['{"jsonrpc":"2.0","method":"notifications/x"}', "after serving"]
    assert "stray print" in done.stderr.decode() and "stray child" in done.stderr.decode()
    assert "the child read b''" in done.stderr.decode()
