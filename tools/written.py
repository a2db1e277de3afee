"""Lists already written as JSON, for answers of thousands of records.

search_text can write its match records as JSON straight from ripgrep's lines, far faster than building a
dict per record and serialising those. Such a list travels in its result model as a `WrittenList`: Python
code that reads it (analyses built on search_text, tests) gets the records, decoded on first read; a model
written with `dump_json` gets the JSON as it was written, spliced in, never decoded. A field that may hold
one is annotated with `WRITTEN`, which leaves its JSON schema as declared.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, WrapSerializer
from pydantic_core import from_json, to_json

T = TypeVar("T")

_CONTEXT_KEY = "code_intel_written"


class WrittenList(Sequence[T], Generic[T]):
    """A list held as the JSON of its items: `parts` are runs of comma-separated JSON values (no brackets),
    `length` how many values they hold in all. Read-only: the records read from it are decoded once and
    shared, and a change made to them would not reach the JSON that is written."""

    __slots__ = ("_items", "length", "parts")

    def __init__(self, parts: list[bytes], length: int) -> None:
        self.parts = [part for part in parts if part]
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


def dump_json(model: Any, **options: Any) -> bytes:
    """`to_json(model, **options)`, with each WrittenList inside written as it is held rather than decoded.
    Each is first written as a placeholder string with a random token, then replaced by its JSON: a string of
    the answer equal to a placeholder would have to guess the token, and inside a JSON string every quote is
    escaped, so the quoted placeholder is found only where it stands as a value."""
    lists: list[WrittenList[Any]] = []
    token = "code-intel-written:" + secrets.token_hex(12) + ":"
    encoded = to_json(model, context={_CONTEXT_KEY: (token, lists)}, **options)
    if not lists:
        return encoded
    pieces: list[bytes] = []
    start = 0
    for index, written in enumerate(lists):  # the placeholders come in the order the lists were written
        placeholder = b'"' + f"{token}{index}".encode() + b'"'
        at = encoded.find(placeholder, start)
        if at < 0:
            raise ValueError("a written list's placeholder is missing from the JSON")
        pieces += [encoded[start:at], b"[", b",".join(written.parts), b"]"]
        start = at + len(placeholder)
    pieces.append(encoded[start:])
    return b"".join(pieces)
