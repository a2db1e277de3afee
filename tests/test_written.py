"""Lists held as their JSON (tools/server/written.py): read as records in Python, written as they are held."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import BaseModel
from pydantic_core import to_json
from typing_extensions import TypedDict

from code_intel.server.written import WRITTEN, WrittenList, dump_json


class Item(TypedDict):
    file: str
    line: int


class Group(BaseModel):
    name: str
    items: Annotated[list[Item], WRITTEN]
    note: str | None = None


class Groups(BaseModel):
    groups: list[Group]
    total: int


class Plain(BaseModel):  # the same fields with no WRITTEN annotation
    name: str
    items: list[Item]
    note: str | None = None


def written(*items: Item) -> WrittenList[Item]:
    halves = [items[: len(items) // 2], items[len(items) // 2:]]
    return WrittenList([to_json(list(half))[1:-1] for half in halves], len(items))


A: Item = {"file": "a.py", "line": 1}
B: Item = {"file": 'q"uote\\.py', "line": 2}
C: Item = {"file": "é.py", "line": 30}


def test_a_written_list_reads_as_its_records() -> None:
    held = written(A, B, C)
    assert len(held) == 3 and held[0] == A and held[-1] == C and held[1:] == [B, C]
    assert list(held) == [A, B, C] and held == [A, B, C] and [A, B, C] == held and held == written(A, B, C)
    assert held != [A, B] and B in held
    assert WrittenList([], 0) == [] and WrittenList([b"", b""], 0).json() == b"[]"
    assert "3 items" in repr(held)


def test_a_written_list_that_does_not_hold_what_it_says_fails_when_read() -> None:
    with pytest.raises(ValueError, match="holds 2 values where 3 were written"):
        list(WrittenList([to_json([A, B])[1:-1]], 3))


def test_dump_json_splices_written_lists_and_matches_the_decoded_dump() -> None:
    model = Groups(groups=[Group.model_construct(name="one", items=written(A, B)),
                           Group(name="two", items=[C], note="n"),
                           Group.model_construct(name="three", items=written()),
                           Group.model_construct(name="four", items=written(C, A, B))], total=6)
    expected = to_json(Groups.model_validate(model.model_dump()), exclude_none=True)
    assert dump_json(model, exclude_none=True) == expected
    assert model.model_dump()["groups"][0]["items"] == [A, B]  # Python dumps decode
    assert model.model_dump_json(exclude_none=True).encode() == expected


def test_a_string_that_looks_like_a_placeholder_is_left_alone() -> None:
    for fake in ["code-intel-written:0", "code-intel-written:" + "0" * 24 + ":0", '"code-intel-written:"']:
        model = Group.model_construct(name=fake, items=written(A), note=fake)
        assert dump_json(model) == to_json(Group(name=fake, items=[A], note=fake))


def test_written_leaves_the_schema_as_declared() -> None:
    for mode in ("validation", "serialization"):
        written_schema = Group.model_json_schema(mode=mode)  # type: ignore[arg-type]
        plain_schema = Plain.model_json_schema(mode=mode)  # type: ignore[arg-type]
        written_schema["title"] = plain_schema["title"]
        assert written_schema == plain_schema


def test_dump_json_with_body_gives_the_text_copy_from_bodies_made_ahead_or_escaped_then() -> None:
    from code_intel.server.written import dump_json_with_body, json_string_body

    items = [A, B, C]
    parts = [to_json([item])[1:-1] for item in items]
    ahead = WrittenList(parts, 3, [json_string_body(parts[0]), None, json_string_body(parts[2])])
    for held in (ahead, written(A, B, C), WrittenList([b"", *parts], 3, [None, None, None, None])):
        model = Groups(groups=[Group.model_construct(name='one "quoted" \\ é\n', items=held, note="tab\t")], total=3)
        plain, body = dump_json_with_body(model, exclude_none=True)
        assert plain == dump_json(model, exclude_none=True)
        assert body == json_string_body(plain)
        assert json.loads(b'"' + body + b'"') == plain.decode()


def test_a_body_made_ahead_is_the_one_written() -> None:
    from code_intel.server.written import dump_json_with_body

    part = to_json([A])[1:-1]
    model = Group.model_construct(name="n", items=WrittenList([part], 1, [b"MADE-AHEAD"]))
    assert b"MADE-AHEAD" in dump_json_with_body(model)[1]  # not escaped again when the answer is sent
