"""Size bounds for what the server stores and answers, and the notes that say where something was cut.

Three tools, from gentle to blunt:
- `cut_text` shortens one string and says by how much;
- `bound_value` caps every string and list in a JSON-like value (a request, a payload) and lists
  each cut by its path;
- `fit_json` makes any JSON-like value fit a byte budget (a checkpoint, a response), cutting the
  longest strings and lists first, halving the caps until it fits.
Every cut leaves a marker in the text (`... [cut: N of M characters kept]`) or, for lists and keys
dropped whole, an entry in the returned notes, so an agent always learns that it sees less.
"""

from __future__ import annotations

import json
from typing import Any

CUT_MARK = " ... [cut: {kept:,} of {total:,} characters kept]"

# What one session keeps of what an agent sends, and what one answer may weigh.
MAX_QUERY_CHARS = 20_000  # the user's request
MAX_SUMMARY_CHARS = 4_000  # one phase summary
MAX_TEXT_CHARS = 8_000  # any other text in a payload (findings, evidence, details, commit message)
MAX_LIST_ITEMS = 500  # any list in a payload
MAX_EXPLORED_FILES = 5_000  # the session's explored set
MAX_RESPONSE_BYTES = 1_000_000  # one tool answer on the wire


def encoded_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", errors="replace"))


MAX_SHOWN = 10  # names listed in an instruction or a hint; the rest are counted


def first_of(texts: list[str], sep: str = ", ", rest: str = " and {} more") -> str:
    """The first MAX_SHOWN texts joined by `sep`, then `rest` with the count of the others, if any."""
    more = len(texts) - MAX_SHOWN
    return sep.join(texts[:MAX_SHOWN]) + (rest.format(more) if more > 0 else "")


def cut_text(text: str, limit: int) -> tuple[str, str | None]:
    """`text` shortened to about `limit` characters with a marker, and a note; unchanged texts give no note."""
    if len(text) <= limit:
        return text, None
    kept = max(0, limit)
    return text[:kept] + CUT_MARK.format(kept=kept, total=len(text)), f"{len(text):,} characters, first {kept:,} kept"


def bound_value(value: Any, *, max_text: int, max_items: int, path: str = "",
                text_limits: dict[str, int] | None = None) -> tuple[Any, list[str]]:
    """A copy with every string cut to `max_text` (or its key's entry in `text_limits`) and every list
    to `max_items`; returns it with one note per cut, naming the path."""
    notes: list[str] = []
    limits = text_limits or {}

    def walk(item: Any, where: str, key: str | None) -> Any:
        if isinstance(item, str):
            limit = limits.get(key or "", max_text)
            cut, note = cut_text(item, limit)
            if note:
                notes.append(f"{where or 'value'}: {note}")
            return cut
        if isinstance(item, dict):
            return {k: walk(v, f"{where}.{k}" if where else str(k), str(k)) for k, v in item.items()}
        if isinstance(item, list):
            if len(item) > max_items:
                notes.append(f"{where or 'value'}: {len(item):,} items, first {max_items:,} kept")
                item = item[:max_items]
            return [walk(v, f"{where}[{i}]", key) for i, v in enumerate(item)]
        return item

    return walk(value, path, None), notes


def fit_json(value: Any, max_bytes: int, *, floor_text: int = 200, floor_items: int = 10,
             protected: frozenset[str] = frozenset(), drop: bool = True) -> tuple[Any, list[str]]:
    """`value` cut until its JSON encoding is at most `max_bytes`; returns it and what was cut.

    Strings and lists are capped at ever smaller sizes (halving from the largest found) down to
    `floor_text` characters and `floor_items` items; keys named in `protected` are never cut. When
    that is still too much and `drop` is set, the largest remaining members are dropped whole,
    biggest first (answers keep every member, so their schema still holds).
    """
    if encoded_size(value) <= max_bytes:
        return value, []
    text_cap, item_cap = _largest(value)
    current: Any = value
    notes: list[str] = []
    while text_cap > floor_text or item_cap > floor_items:
        text_cap = max(floor_text, text_cap // 2)
        item_cap = max(floor_items, item_cap // 2)
        current, notes = _capped(value, text_cap, item_cap, protected)
        if encoded_size(current) <= max_bytes:
            return current, notes
    if not drop:
        return current, notes
    return _drop_largest(current, max_bytes, protected, notes)


def _largest(value: Any) -> tuple[int, int]:
    text, items = 0, 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            text = max(text, len(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            items = max(items, len(item))
            stack.extend(item)
    return text, items


def _capped(value: Any, text_cap: int, item_cap: int, protected: frozenset[str]) -> tuple[Any, list[str]]:
    notes: list[str] = []

    def walk(item: Any, where: str) -> Any:
        if isinstance(item, str):
            cut, note = cut_text(item, text_cap)
            if note:
                notes.append(f"{where}: {note}")
            return cut
        if isinstance(item, dict):
            return {k: (v if k in protected else walk(v, f"{where}.{k}" if where else str(k))) for k, v in item.items()}
        if isinstance(item, list):
            kept = item
            if len(item) > item_cap:
                notes.append(f"{where}: {len(item):,} items, first {item_cap:,} kept")
                kept = item[:item_cap]
            return [walk(v, f"{where}[{i}]") for i, v in enumerate(kept)]
        return item

    return walk(value, ""), notes


def _drop_largest(value: Any, max_bytes: int, protected: frozenset[str], notes: list[str]) -> tuple[Any, list[str]]:
    if not isinstance(value, dict):
        return value, notes
    current = dict(value)
    while encoded_size(current) > max_bytes:
        candidates = [k for k in current if k not in protected]
        if not candidates:
            break
        biggest = max(candidates, key=lambda k: encoded_size(current[k]))
        nested = current[biggest]
        if isinstance(nested, dict) and len(nested) > 1:
            # shrink inside the member first: its small fields (ids, phase) are worth keeping
            room = max_bytes - (encoded_size(current) - encoded_size(nested))
            inner, inner_notes = _drop_largest(nested, max(room, 2), protected, [])
            if inner != nested:
                current[biggest] = inner
                notes += [f"{biggest}.{n}" for n in inner_notes]
                continue
        del current[biggest]
        notes.append(f"{biggest}: dropped whole ({encoded_size(nested):,} bytes) to stay under {max_bytes:,} bytes")
    return current, notes


_ANSWER_KEYS = frozenset({"success", "error", "message", "hint", "session_id", "phase", "current_phase", "step",
                          "call", "compaction_count", "expected_payload", "file", "line", "end_line"})


def bound_answer(data: dict[str, Any], max_bytes: int = MAX_RESPONSE_BYTES) -> dict[str, Any]:
    """A tool answer cut to `max_bytes` (longest texts and lists first), with `cut` saying what went.
    Identity fields (success, error, phase, step, call, file, line ...) are never touched."""
    if encoded_size(data) <= max_bytes:
        return data
    cut, notes = fit_json(data, max_bytes - 16_384, protected=_ANSWER_KEYS, drop=False)
    shown = [note[:200] for note in notes[:20]] + ([f"... {len(notes) - 20} more"] if len(notes) > 20 else [])
    cut["cut"] = [*(data.get("cut") or []), f"the answer was over {max_bytes:,} bytes and was shortened", *shown]
    return dict(cut)
