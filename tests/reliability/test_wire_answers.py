"""How answers go out on stdio: the server keeps each tool answer's JSON aside (tools/server/stdio.py, WireAnswers),
hands the SDK markers, and the writer (WireWriter) puts the answer in their place as the line leaves: as a JSON
string in the text content and as itself in the structured content."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_intel.server.stdio import ANSWER_KEY, WireAnswers, WireWriter
from code_intel.server.written import json_string_body

# text that looks like our markers, as it could sit in a searched file or a pattern
MARKER_LIKE = f'{{"{ANSWER_KEY}":"code-intel-answer-0123456789abcdef-1"}}'

TRICKY_LINES = [
    'say("needle \\"quoted\\" and \\\\ backslash")',
    "needle\tafter a tab, then a bell \x07 and é, ü, 日本, 🙂",
    f"needle = '{MARKER_LIKE}'",  # the marker's shape, as text in a searched file
    "needle code-intel-answer-",
    "needle " + "x" * 700,  # longer than the 500 characters an answer keeps
]

TRICKY_STRINGS = [
    "",
    "plain",
    'quotes " and "" and \\" escaped',
    "backslashes \\ \\\\ \\n \\u0041 at the end \\",
    "tab\there, CR\r, LF\n, CRLF\r\n, NUL \x00, bell \x07, escape \x1b, unit \x1f",
    "DEL \x7f, non-ASCII é ü 日本 🙂, line and paragraph separators \u2028 \u2029",
    MARKER_LIKE,
    json.dumps({"nested": 'a "quoted" \\ value', "list": [1, "two"]}, separators=(",", ":"), ensure_ascii=False),
]


@pytest.mark.parametrize("text", TRICKY_STRINGS)
def test_the_escaped_answer_is_the_json_string_json_dumps_writes(text: str) -> None:
    body = json_string_body(text.encode("utf-8"))
    assert b'"' + body + b'"' == json.dumps(text, ensure_ascii=False).encode("utf-8")
    assert json.loads(b'"' + body + b'"') == text


def sdk_line(answers: WireAnswers, request_id: int | str, answer: dict[str, Any], *, is_error: bool = False) -> str:
    """The line the SDK's stdio transport writes for a tool result from WireAnswers.result()."""
    from mcp_types import JSONRPCResponse

    result = answers.result(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
                            is_error=is_error)
    response = JSONRPCResponse(jsonrpc="2.0", id=request_id,
                               result=result.model_dump(by_alias=True, mode="json", exclude_none=True))
    return response.model_dump_json(by_alias=True, exclude_unset=True) + "\n"


def written(answers: WireAnswers, *lines: str, tag_in_answers: bool = False) -> list[dict[str, Any]]:
    sink = io.BytesIO()
    writer = WireWriter(sink, answers)
    for line in lines:
        writer._send(line)
    data = sink.getvalue()
    assert tag_in_answers or answers.tag.encode() not in data  # no marker ever reaches the client
    assert data.endswith(b"\n") and data.count(b"\n") == len(data.splitlines())
    return [json.loads(raw) for raw in data.splitlines()]


def assert_both_copies(message: dict[str, Any], answer: dict[str, Any]) -> None:
    (content,) = message["result"]["content"]
    assert content["type"] == "text" and json.loads(content["text"]) == answer
    assert message["result"]["structuredContent"] == answer


def test_the_writer_puts_the_answer_in_place_of_both_markers() -> None:
    answers = WireAnswers()
    tricky = {"success": True, "matches": [{"file": "é/日本.py", "text": text} for text in TRICKY_STRINGS]}
    refusal = {"success": False, "error": "file_not_found", "message": 'no "such" file \\ here'}
    lines = [sdk_line(answers, 1, tricky), sdk_line(answers, "é-id", refusal, is_error=True)]
    assert all(len(line) < 300 for line in lines) and len(answers) == 2  # the SDK's lines stay small
    first, second = written(answers, *lines)
    assert first["id"] == 1 and first["result"]["isError"] is False
    assert_both_copies(first, tricky)
    assert second["id"] == "é-id" and second["result"]["isError"] is True
    assert_both_copies(second, refusal)
    assert len(answers) == 0  # each answer leaves the table when its line is written


def test_a_text_copy_made_ahead_is_written_as_given_and_counted_in_the_table() -> None:
    from mcp_types import JSONRPCResponse

    answers = WireAnswers()
    answer = {"success": True, "matches": [{"file": "a.py", "text": text} for text in TRICKY_STRINGS]}
    encoded = json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    result = answers.result(encoded, is_error=False, body=json_string_body(encoded))
    assert answers._bytes == len(encoded) + len(json_string_body(encoded))  # both copies count against the cap
    line = JSONRPCResponse(jsonrpc="2.0", id=7, result=result.model_dump(by_alias=True, mode="json",
                                                                         exclude_none=True))
    (message,) = written(answers, line.model_dump_json(by_alias=True, exclude_unset=True) + "\n")
    assert_both_copies(message, answer)
    assert answers._bytes == 0 and len(answers) == 0

    marked = WireAnswers()  # the body is taken as given, not escaped again from the answer
    token = marked.keep(b'{"success":true}', b'{\\"success\\":true,\\"made\\":\\"ahead\\"}')
    line = ('{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"' + token
            + f'"}}],"structuredContent":{{"{ANSWER_KEY}":"{token}"}},"isError":false}}}}\n')
    (message,) = written(marked, line)
    assert json.loads(message["result"]["content"][0]["text"]) == {"success": True, "made": "ahead"}


def test_an_answer_holding_its_own_marker_is_written_as_it_is() -> None:
    answers = WireAnswers()
    own = f"{answers.tag}1"  # the token the next answer gets
    answer = {"success": True, "text": own, "quoted": f'"{own}"', "marker": {ANSWER_KEY: own}}
    (message,) = written(answers, sdk_line(answers, 3, answer), tag_in_answers=True)
    assert_both_copies(message, answer)


def test_lines_without_markers_are_written_unchanged() -> None:
    answers = WireAnswers()
    plain = '{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"' + MARKER_LIKE.replace('"', '\\"') + '"}]}}\n'
    sink = io.BytesIO()
    WireWriter(sink, answers)._send(plain)
    assert sink.getvalue() == plain.encode()


def assert_lost(message: dict[str, Any], request_id: int) -> None:
    assert message["id"] == request_id and message["result"]["isError"] is True
    structured = message["result"]["structuredContent"]
    assert structured["success"] is False and structured["error"] == "internal_error" and structured["hint"]
    assert json.loads(message["result"]["content"][0]["text"]) == structured


def test_the_table_keeps_a_bounded_number_of_answers(caplog: pytest.LogCaptureFixture) -> None:
    answers = WireAnswers(max_answers=2)
    with caplog.at_level(logging.WARNING, logger="code_intel.server.stdio"):
        lines = [sdk_line(answers, n, {"success": True, "n": n}) for n in range(1, 4)]
    assert len(answers) == 2
    assert any("dropped an answer" in record.getMessage() for record in caplog.records)
    with caplog.at_level(logging.ERROR, logger="code_intel.server.stdio"):
        first, second, third = written(answers, *lines)
    assert_lost(first, 1)  # the oldest was dropped: its line becomes a refusal for its request
    assert any("no longer kept" in record.getMessage() for record in caplog.records)
    assert_both_copies(second, {"success": True, "n": 2})
    assert_both_copies(third, {"success": True, "n": 3})
    assert len(answers) == 0


def test_the_table_keeps_a_bounded_number_of_bytes() -> None:
    answers = WireAnswers(max_bytes=100)
    big = {"success": True, "text": "x" * 60}
    lines = [sdk_line(answers, n, big) for n in (1, 2)]
    assert len(answers) == 1
    first, second = written(answers, *lines)
    assert_lost(first, 1)
    assert_both_copies(second, big)
    alone = WireAnswers(max_bytes=10)  # the newest answer is kept even when it alone is over the limit
    (only,) = written(alone, sdk_line(alone, 5, big))
    assert_both_copies(only, big)


def test_an_answer_waiting_too_long_goes_when_the_next_is_kept() -> None:
    """A cancelled call's line never comes: its answer leaves once it is older than max_seconds."""
    clock = [1000.0]
    answers = WireAnswers(max_seconds=60, clock=lambda: clock[0])
    cancelled = sdk_line(answers, 1, {"success": True, "n": 1})
    clock[0] += 59
    kept = sdk_line(answers, 2, {"success": True, "n": 2})
    assert len(answers) == 2  # not yet too old
    clock[0] += 2
    newest = sdk_line(answers, 3, {"success": True, "n": 3})
    assert len(answers) == 2  # the first is 61 s old: gone; the second is 2 s old
    first, second, third = written(answers, cancelled, kept, newest)
    assert_lost(first, 1)
    assert_both_copies(second, {"success": True, "n": 2})
    assert_both_copies(third, {"success": True, "n": 3})
    assert len(answers) == 0


def test_a_line_naming_an_unknown_answer_becomes_a_refusal_for_its_request(caplog: pytest.LogCaptureFixture) -> None:
    answers = WireAnswers()
    unknown = f"{answers.tag}999"
    line = ('{"jsonrpc":"2.0","id":41,"result":{"content":[{"type":"text","text":"' + unknown +
            f'"}}],"structuredContent":{{"{ANSWER_KEY}":"{unknown}"}},"isError":false}}}}\n')
    kept = sdk_line(answers, 42, {"success": True})
    twice = kept.replace('"isError"', f'"extra":"{answers.tag}1","isError"')  # its text marker twice
    two_tokens = sdk_line(answers, 43, {"success": True}).replace('"isError"', f'"extra":"{unknown}","isError"')
    no_structured = sdk_line(answers, 44, {"success": True}).replace(f'"structuredContent":{{"{ANSWER_KEY}"', '"other":{"x"')
    notification = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + unknown + '"}}\n'
    with caplog.at_level(logging.ERROR, logger="code_intel.server.stdio"):
        messages = written(answers, line, twice, two_tokens, no_structured, notification)
    assert [m["id"] for m in messages] == [41, 42, 43, 44]  # the notification has no request to answer
    for message in messages:
        assert_lost(message, message["id"])
    assert len(caplog.records) == 5 and len(answers) == 0


def test_a_fault_while_putting_an_answer_in_place_still_answers_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = WireAnswers()
    line = sdk_line(answers, 7, {"success": True})

    def fault(*_: Any) -> None:
        raise MemoryError("no room for the answer")

    monkeypatch.setattr("code_intel.server.stdio._splice", fault)
    (message,) = written(answers, line)
    assert_lost(message, 7)


def test_a_lost_answer_s_refusal_carries_the_phase_fields(caplog: pytest.LogCaptureFixture) -> None:
    def annotate(data: dict[str, Any]) -> None:
        data.setdefault("current_phase", "EXPLORATION")
        data.setdefault("step", 5)
        data.setdefault("call", "submit_phase")

    answers = WireAnswers(max_answers=1, annotate=annotate)
    cancelled = sdk_line(answers, 1, {"success": True})
    kept = sdk_line(answers, 2, {"success": True})  # the first answer is dropped
    with caplog.at_level(logging.WARNING, logger="code_intel.server.stdio"):
        lost, second = written(answers, cancelled, kept)
    assert_lost(lost, 1)
    structured = lost["result"]["structuredContent"]
    assert (structured["current_phase"], structured["step"], structured["call"]) == ("EXPLORATION", 5, "submit_phase")
    assert structured["error"] == "internal_error"  # the annotation adds, never overrides
    assert_both_copies(second, {"success": True})

    def broken(data: dict[str, Any]) -> None:
        raise RuntimeError("the session is gone")

    faulty = WireAnswers(max_answers=1, annotate=broken)
    cancelled = sdk_line(faulty, 3, {"success": True})
    sdk_line(faulty, 4, {"success": True})
    with caplog.at_level(logging.ERROR, logger="code_intel.server.stdio"):
        (message,) = written(faulty, cancelled)
    assert_lost(message, 3)  # still answered, without the phase fields
    assert "current_phase" not in message["result"]["structuredContent"]
    assert any("phase fields" in record.getMessage() for record in caplog.records)

    odd = WireAnswers(max_answers=1, annotate=lambda data: data.setdefault("resources", Path("a/b")))
    cancelled = sdk_line(odd, 5, {"success": True})
    sdk_line(odd, 6, {"success": True})
    (message,) = written(odd, cancelled)  # a value JSON has no form for is written as text, never a failure
    assert_lost(message, 5)
    assert message["result"]["structuredContent"]["resources"] == "a/b"


# ------------------------------------------------------------------ through the real server


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
        ("search_text", {"pattern": TRICKY_LINES[2], "fixed_strings": True}, True),  # the marker's shape in a pattern
        ("search_text", {"pattern": "code-intel-answer-[0-9a-f]+-1"}, True),
        ("get_outcome_stats", {}, True),
        ("get_symbols", {"path": "no/such.py"}, False),  # a refusal
        ("get_symbols", {"path": MARKER_LIKE}, False),  # a refusal quoting the marker's shape
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
    """While our transport serves, fd 1 points at stderr: a print or a child process writing to stdout
    cannot corrupt the protocol stream."""
    script = tmp_path / "stray.py"
    script.write_text(textwrap.dedent("""
        import os, subprocess, anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCNotification
        from code_intel.server.stdio import guarded_stdio

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
