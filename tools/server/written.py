"""Lists already written as JSON, for answers of thousands of records.

search_text can write its match records as JSON straight from ripgrep's lines, far faster than building a
dict per record and serialising those. Such a list travels in its result model as a `WrittenList`: Python
code that reads it (analyses built on search_text, tests) gets the records, decoded on first read; a model
written with `dump_json` gets the JSON as it was written, spliced in, never decoded. A field that may hold
one is annotated with `WRITTEN`, which leaves its JSON schema as declared.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, cast, overload

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, WrapSerializer
from pydantic_core import from_json, to_json

T = TypeVar("T")

_CONTEXT_KEY = "code_intel_written"


_CONTROL_BYTES = bytes(range(0x20))


def json_string_body(answer: bytes) -> bytes:
    """UTF-8 JSON text as the inside of a JSON string (no quotes), the bytes `json.dumps(text,
    ensure_ascii=False)` writes between its quotes. Compact JSON from a serialiser holds no raw control
    character, so escaping each backslash and quote is enough; text that does hold one takes json.dumps.
    Every character is escaped on its own, so the body of a concatenation is the concatenation of the bodies
    (when no piece splits a character)."""
    if len(answer.translate(None, _CONTROL_BYTES)) != len(answer):  # one pass over the answer
        return json.dumps(answer.decode("utf-8", errors="replace"), ensure_ascii=False)[1:-1].encode("utf-8")
    if b"\\" in answer:
        answer = answer.replace(b"\\", b"\\\\")
    return answer.replace(b'"', b'\\"')


class WrittenList(Sequence[T], Generic[T]):
    """A list held as the JSON of its items: `parts` are runs of comma-separated JSON values (no brackets),
    `length` how many values they hold in all. `bodies`, when given, holds each part as the inside of a JSON
    string (json_string_body), made ahead where that costs nothing (search_text makes them while rg still
    runs), for the answer's text copy; a part without one (None) is escaped when written. Read-only: the
    records read from it are decoded once and shared, and a change made to them would not reach the JSON that
    is written."""

    __slots__ = ("_items", "bodies", "length", "parts")

    def __init__(self, parts: list[bytes], length: int, bodies: list[bytes | None] | None = None) -> None:
        kept = [index for index, part in enumerate(parts) if part]
        self.parts = [parts[index] for index in kept]
        self.bodies = [bodies[index] for index in kept] if bodies is not None else [None] * len(kept)
        self.length = length
        self._items: list[T] | None = None

    def json(self) -> bytes:
        return b"[" + b",".join(self.parts) + b"]"

    def items(self) -> list[T]:
        if self._items is None:
            items = from_json(self.json())
            if len(items) != self.length:
                raise ValueError(f"a written list holds {len(items)} values where {self.length} were written")
            self._items = items
        return self._items

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self.items()[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WrittenList):
            return self.items() == other.items()
        if isinstance(other, list):
            return self.items() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like a list

    def __repr__(self) -> str:
        return f"WrittenList({self.length} items, {sum(map(len, self.parts))} bytes)"


# no return annotation on purpose: pydantic would take it for the field's serialised type, and the JSON schema
# of a field annotated with WRITTEN would say "anything" instead of what the field declares
def _serialise(value: Any, handler: SerializerFunctionWrapHandler, info: SerializationInfo):
    if not isinstance(value, WrittenList):
        return handler(value)
    context = info.context
    if isinstance(context, dict) and _CONTEXT_KEY in context:  # dump_json: a placeholder, replaced afterwards
        token, lists = context[_CONTEXT_KEY]
        lists.append(value)
        return f"{token}{len(lists) - 1}"
    return handler(value.items())


# the annotation for a list field that may hold a WrittenList (its schema stays the declared list's)
WRITTEN = WrapSerializer(_serialise)


def _pieces(model: Any, options: dict[str, Any]) -> list[bytes | WrittenList[Any]]:
    """`to_json(model, **options)` in pieces: runs of its JSON, and each WrittenList inside where it stands.
    Each list is first written as a placeholder string with a random token, then found again: a string of the
    answer equal to a placeholder would have to guess the token, and inside a JSON string every quote is
    escaped, so the quoted placeholder is found only where it stands as a value."""
    lists: list[WrittenList[Any]] = []
    token = "code-intel-written:" + secrets.token_hex(12) + ":"
    encoded = to_json(model, context={_CONTEXT_KEY: (token, lists)}, **options)
    pieces: list[bytes | WrittenList[Any]] = []
    start = 0
    for index, written in enumerate(lists):  # the placeholders come in the order the lists were written
        placeholder = b'"' + f"{token}{index}".encode() + b'"'
        at = encoded.find(placeholder, start)
        if at < 0:
            raise ValueError("a written list's placeholder is missing from the JSON")
        pieces += [encoded[start:at], written]
        start = at + len(placeholder)
    pieces.append(encoded[start:])
    return pieces


def dump_json(model: Any, **options: Any) -> bytes:
    """`to_json(model, **options)`, with each WrittenList inside written as it is held rather than decoded."""
    pieces = _pieces(model, options)
    return cast(bytes, pieces[0]) if len(pieces) == 1 else _joined(pieces)


def _joined(pieces: list[bytes | WrittenList[Any]]) -> bytes:
    plain: list[bytes] = []
    for piece in pieces:
        plain += [b"[", b",".join(piece.parts), b"]"] if isinstance(piece, WrittenList) else [piece]
    return b"".join(plain)


def dump_json_with_body(model: Any, **options: Any) -> tuple[bytes, bytes]:
    """dump_json's bytes, and the same as the inside of a JSON string (json_string_body of them), for an answer
    whose text copy is that string: a written list's bodies made ahead are used as they are."""
    pieces = _pieces(model, options)
    body: list[bytes] = []
    for piece in pieces:
        if isinstance(piece, WrittenList):  # `[` and `,` need no escaping
            body += [b"[", b",".join(made if made is not None else json_string_body(part)
                                     for part, made in zip(piece.parts, piece.bodies, strict=True)), b"]"]
        else:
            body.append(json_string_body(piece))
    return _joined(pieces), b"".join(body)
