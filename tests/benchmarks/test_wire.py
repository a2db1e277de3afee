"""benchmarks/wire.py's pure parts: reading an answer line, the answer and validation checks, the floor-adjusted view."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


def session(structured: object, utf8: int, checked: bool = True, refused: str | None = "no\nmore") -> wire.Session:
    return {"ping": 1.0, "wrong_schema": refused, "row": {"e2e": 2.0, "structured": structured, "utf8": utf8, "checked": checked}}


def test_check_lines_confirm_validated_identical_answers() -> None:
    ours = session(ANSWER, 50)
    lines = wire.check_lines("TS", {"row": session(ANSWER, 50)}, ours, validates=True, against="ours")
    assert lines == ["  TS: every answer validated against its tool's outputSchema, a wrong schema refused (no); "
                     "every answer identical to ours (same structured content, same text size)"]


@pytest.mark.parametrize("theirs, said", [
    (session({**ANSWER, "matches": []}, 50), "row: 50 against 50 bytes of text, 0 against 1 matches"),
    (session(ANSWER, 49), "row: 49 against 50 bytes of text, 1 against 1 matches"),
])
def test_check_lines_name_an_answer_that_is_not_ours(theirs: wire.Session, said: str) -> None:
    lines = wire.check_lines("canned", {"row": theirs}, session(ANSWER, 50), validates=False, against="ours")
    assert lines == [f"  WARNING canned, {said}: not the answer the Python client got from our server"]


@pytest.mark.parametrize("theirs", [session(ANSWER, 50, checked=False), session(ANSWER, 50, refused=None)])
def test_check_lines_warn_when_validation_did_not_run(theirs: wire.Session) -> None:
    lines = wire.check_lines("TS", {"row": theirs}, session(ANSWER, 50), validates=True, against="ours")
    assert lines[0].startswith("  TS: WARNING: structured content NOT validated")


def test_floor_view_splits_the_ratio_into_what_the_answer_costs_and_what_the_server_adds() -> None:
    counted, best, net = wire.floor_view(10.0, 25.0, 5.0)
    assert (counted, best, net) == (2.5, 1.5, 2.0)
    assert counted - 1 == pytest.approx((best - 1) + (net - 1))
