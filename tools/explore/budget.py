"""Time budgets: every exploration call stops at its deadline and says its answer is partial.

A call opens a budget (`search_timeout_seconds` from config.json); calls made inside it, such as
the searches analyze_impact or query run, share the same deadline instead of each starting a new
one. Engines take `remaining()` as their own timeout (rg and ctags are killed when it runs out),
and Python loops check `expired()`. Whatever stopped early is recorded with `note_partial`, and
the caller turns the notes into `partial: true` and `partial_reason` on its result.

The deadline lives in a context variable; work handed to a thread pool keeps it through `carry`.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")
MIN_SLICE = 0.05  # an engine started with less than this would only report a timeout


@dataclass
class Deadline:
    seconds: float
    started: float = field(default_factory=time.monotonic)
    reasons: list[str] = field(default_factory=list)

    @property
    def at(self) -> float:
        return self.started + self.seconds

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def note(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("code_intel_deadline", default=None)


@contextmanager
def budget(seconds: float) -> Iterator[Deadline]:
    """Open a budget of `seconds`, or join the one already open (nested calls share the outer deadline)."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    deadline = Deadline(seconds)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current() -> Deadline | None:
    return _current.get()


def remaining(default: float) -> float:
    """Time an engine may take now: its own limit, cut to what the open budget has left."""
    deadline = _current.get()
    if deadline is None:
        return default
    return min(default, max(MIN_SLICE, deadline.remaining()))


def expired() -> bool:
    deadline = _current.get()
    return deadline is not None and deadline.expired()


def note_partial(reason: str) -> None:
    """Record that part of the answer is missing and why (no-op outside a budget)."""
    deadline = _current.get()
    if deadline is not None:
        deadline.note(reason)


def carry(fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` bound to the caller's context, for thread pools: each call runs in its own copy of it."""
    context = contextvars.copy_context()

    def run(*args: Any, **kwargs: Any) -> T:
        return context.copy().run(fn, *args, **kwargs)

    return run


def partial_fields(deadline: Deadline) -> dict[str, Any]:
    """`partial` and `partial_reason` for a result, when anything stopped early."""
    if not deadline.reasons:
        return {}
    return {"partial": True, "partial_reason": "; ".join(deadline.reasons)}
