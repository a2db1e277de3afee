"""benchmarks/wire.py's parts: reading an answer line, the answer and validation checks, the floor-adjusted view, and
the canned server (benchmarks/wire_canned.py) through the Python SDK's client as the benchmark drives it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from code_intel.server.app import CodeIntelApp
from code_intel_server import build_server

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import wire  # noqa: E402

ANSWER = {"pattern": "é", "matches": [{"file": "a.py", "line": 1, "text": "é"}], "total_matches": 1}


def answer_line(structured: object, text: str) -> bytes:
    result = {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False}
    return (json.dumps({"jsonrpc": "2.0", "id": 7, "result": result}, ensure_ascii=True) + "\n").encode()


def test_read_answer_gives_the_structured_content_and_the_text_in_utf8_bytes() -> None:
    text = json.dumps(ANSWER, ensure_ascii=False)
    structured, utf8 = wire.read_answer(answer_line(ANSWER, text))
    assert structured == ANSWER
    assert utf8 == len(text.encode()) == len(text) + 2  # "é" twice, two bytes each


REFUSED = "Invalid structured content returned by tool wrong_schema: 'not_in_any_answer' is a required property\n\nmore"


def session(structured: object, utf8: int, checked: bool = True, refused: str | None = REFUSED) -> wire.Session:
    return {"ping": 1.0, "wrong_schema": refused, "row": {"e2e": 2.0, "structured": structured, "utf8": utf8, "checked": checked}}


def test_check_lines_confirm_validated_identical_answers() -> None:
    ours = session(ANSWER, 50)
    lines = wire.check_lines("TS", {"row": session(ANSWER, 50)}, ours, validates=True, against="ours", wrong_schema=True)
    assert lines == ["  TS: every answer validated against its tool's outputSchema from the server's tools/list; the same "
                     "answer for wrong_schema refused in every session (Invalid structured content returned by tool "
                     "wrong_schema: 'not_in_any_answer' is a required property); every answer identical to ours (same "
                     "structured content, same text size)"]


def test_check_lines_for_our_server_rest_on_the_listed_schema_and_point_to_the_canned_refusal() -> None:
    ours = {"ping": 1.0, "row": {"e2e": 2.0, "structured": ANSWER, "utf8": 50, "checked": True}}  # no wrong-schema call
    lines = wire.check_lines("Python", {"row": ours}, ours, validates=True, against="")
    assert lines == ["  Python: every answer validated against its tool's outputSchema from our server's tools/list "
                     "(that this client refuses an answer its schema does not allow: canned, below)"]


@pytest.mark.parametrize("theirs, said", [
    (session({**ANSWER, "matches": []}, 50), "row: 50 against 50 bytes of text, 0 against 1 matches"),
    (session(ANSWER, 49), "row: 49 against 50 bytes of text, 1 against 1 matches"),
])
def test_check_lines_name_an_answer_that_is_not_ours(theirs: wire.Session, said: str) -> None:
    lines = wire.check_lines("canned", {"row": theirs}, session(ANSWER, 50), validates=False, against="ours")
    assert lines == [f"  WARNING canned, {said}: not the answer the Python client got from our server"]


@pytest.mark.parametrize("theirs", [
    session(ANSWER, 50, checked=False),  # the listing gave the tool no outputSchema
    session(ANSWER, 50, refused=None),  # the client took the answer against a schema it does not meet
    session(ANSWER, 50, refused="MCP error -32001: Request timed out"),  # an error, but not the schema's
    {"ping": 1.0, "row": session(ANSWER, 50)["row"]},  # the wrong-schema call never made
])
def test_check_lines_warn_when_validation_did_not_run(theirs: wire.Session) -> None:
    lines = wire.check_lines("TS", {"row": theirs}, session(ANSWER, 50), validates=True, against="ours", wrong_schema=True)
    assert lines[0].startswith("  TS: WARNING: structured content NOT validated")


def project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    (root / ".code-intel").mkdir()
    (root / ".code-intel" / "config.json").write_text('{"sync_on_start": false}')
    return root


async def our_listing_and_answer(root: Path, args: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Our server's tools/list (as JSON) and its search_text answer for args, through the in-memory client."""
    app = CodeIntelApp.for_path(root)
    try:
        async with Client(build_server(app)) as client:
            listing = wire.listed(await client.list_tools())
            answer = (await client.call_tool("search_text", args)).structured_content
    finally:
        app.close()
    assert answer is not None and len(answer["matches"]) == 2
    return listing, answer


@pytest.mark.slow  # spawns the canned server
async def test_the_canned_server_lists_our_tools_and_answers_the_recorded_answer_which_the_client_validates(
        tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    label, args = "search_text def", {"pattern": "def"}
    listing, answer = await our_listing_and_answer(root, args)
    plan: wire.Plan = {label: (args, None)}
    argv = wire.canned_servers(root, plan, {label: answer}, listing)[label]

    figures, served = await wire.python_session(root, argv, plan, 1, wrong_schema=True)

    search_text = next(tool for tool in listing if tool["name"] == "search_text")
    assert search_text["outputSchema"]["type"] == "object"
    # tools/list: our server's listing as given, then the row's tool again under the wrong-schema name
    assert wire.listed(served) == [*listing, {**search_text, "name": wire.WRONG_SCHEMA_TOOL,
                                             "outputSchema": wire.IMPOSSIBLE_SCHEMA}]
    row = figures[label]
    assert row["structured"] == answer and row["checked"]
    assert row["utf8"] == len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
    assert "'not_in_any_answer' is a required property" in figures["wrong_schema"]
    assert wire.check_lines("Python", {label: figures}, {label: dict(row)}, validates=True, against="ours",
                            wrong_schema=True)[0].startswith("  Python: every answer validated")


@pytest.mark.slow  # spawns the canned server
async def test_the_canned_server_refuses_a_tool_it_has_no_answer_for(tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    listing, answer = await our_listing_and_answer(root, {"pattern": "def"})
    argv = wire.canned_servers(root, {"search_text def": ({"pattern": "def"}, None)}, {"search_text def": answer},
                               listing)["search_text def"]
    from mcp.client.stdio import StdioServerParameters

    async with Client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(root)), read_timeout_seconds=60) as client:
        result = await client.call_tool("get_symbols", {"path": "src/app.py"})
    assert result.is_error
    assert json.loads(result.content[0].text) == {"error": "no answer recorded for tool 'get_symbols'"}  # type: ignore[union-attr]


def test_floor_view_splits_the_ratio_into_what_the_answer_costs_and_what_the_server_adds() -> None:
    counted, best, net = wire.floor_view(10.0, 25.0, 5.0)
    assert (counted, best, net) == (2.5, 1.5, 2.0)
    assert counted - 1 == pytest.approx((best - 1) + (net - 1))


def test_the_target_is_judged_on_the_bare_pipe_and_on_each_client_net_of_its_floor() -> None:
    worst = {"Python SDK client": 2.4, "TS SDK client": 1.9, "bare pipe": 1.45}
    worst_net = {"Python SDK client": 1.3, "TS SDK client": 1.44, "bare pipe": 1.2}
    assert wire.judged_ratios(worst, worst_net) == {
        "net through the Python SDK client": 1.3, "net through the TS SDK client": 1.44, "bare pipe": 1.45}


def test_the_engine_spy_leaves_out_the_server_s_upkeep_threads() -> None:
    """The lexical maps rebuilt after a corpus change run on an upkeep thread while the recorded call runs: their
    parses are not the call's engine work (they once made search_text's raw engine 17 parses)."""
    import subprocess
    import threading

    from code_intel.explore import syntax

    def work(tag: str) -> None:
        subprocess.run(["true", tag], check=True)
        syntax.get_parser("python").parse(f"x = '{tag}'".encode())

    spy = wire.EngineSpy()
    with spy.recording():
        work("call")
        for name in ("code-intel-lexical-warmup", "code-intel-definitions", "lookup-pool_0"):
            thread = threading.Thread(target=work, args=(name,), name=name)
            thread.start()
            thread.join()
    assert spy.commands == [["true", "call"], ["true", "lookup-pool_0"]]
    assert spy.parses == [("python", b"x = 'call'"), ("python", b"x = 'lookup-pool_0'")]


def test_the_smaller_shapes_carry_the_same_matches_and_meet_their_schemas() -> None:
    """benchmarks/wire_shapes.py times the same matches in other shapes: they must hold exactly the matches of the
    answer, and meet the schema the canned server lists for them (or the client refuses them)."""
    import jsonschema
    import wire_shapes

    matches = [{"file": f, "line": n, "column": c, "text": t}
               for f, n, c, t in [("a.py", 1, 5, 'x = "é"'), ("a.py", 9, 1, "x"), ("b/c.py", 2, 3, "\\t")]]
    answer = {"pattern": "x", "matches": matches, "total_matches": 3, "truncated": False, "success": True}
    found = wire_shapes.shapes(answer, {"type": "object"})
    assert list(found) == ["as it is", "grouped", "grouped rows"]
    grouped, grouped_schema = found["grouped"]
    rows, rows_schema = found["grouped rows"]
    assert [{"file": g["file"], **m} for g in grouped["files"] for m in g["matches"]] == matches
    assert [{"file": g["file"], "line": r[0], "column": r[1], "text": r[2]} for g in rows["files"] for r in g["lines"]] == matches
    assert grouped["total_matches"] == rows["total_matches"] == 3 and "matches" not in grouped
    jsonschema.validate(grouped, grouped_schema)
    jsonschema.validate(rows, rows_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(rows, grouped_schema)
