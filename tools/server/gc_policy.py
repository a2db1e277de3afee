"""Short full garbage collections for the long-running server.

Once a project has been served for a few calls the server holds about 125,000 long-lived objects (the
tool table with its models, the definition cache, the lexical maps). CPython's cycle collector walks all
of them in each full collection, and it starts one whenever the objects promoted to its oldest
generation since the last one outnumber a quarter of those that survived it. A call that builds a few
thousand result objects promotes many of them before they die, so a full collection came every twenty
calls or so and stopped the server for 100-170 ms (benchmarks/gc_pauses.py, docs/benchmarks.md).

`install()` adds a collector callback: after each full collection the survivors are frozen (moved to the
permanent generation, which collections skip), so the next full collection walks only what was allocated
since. Frozen objects are still freed by reference counting when their last reference goes; what the
collector no longer sees is a reference cycle among them that becomes garbage later (an old session's
state, a replaced cache). So every RECHECK-th full collection unfreezes everything first and walks the
whole heap once: such a cycle is found within RECHECK full collections, and one long walk in RECHECK is
what that costs. Only the server process installs it (code_intel_server.main); tests and the CLI keep
the interpreter's default.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

RECHECK = 10  # every RECHECK-th full collection runs over the whole heap, frozen objects included
OLDEST = len(gc.get_threshold()) - 1  # a collection of this generation is a full one


class _FreezeAfterFullCollections:
    def __init__(self, recheck: int) -> None:
        self.recheck = recheck
        self.full_collections = 0
        self.lock = threading.Lock()

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != OLDEST:
            return
        with self.lock:
            self.full_collections += 1
            whole_heap_next = self.full_collections % self.recheck == self.recheck - 1
        if whole_heap_next:
            gc.unfreeze()  # into the oldest generation: the next full collection walks everything
        else:
            gc.freeze()


_installed: _FreezeAfterFullCollections | None = None


def install(recheck: int = RECHECK) -> None:
    """Freeze the survivors of each full collection from now on (idempotent)."""
    global _installed
    if _installed is None:
        _installed = _FreezeAfterFullCollections(max(1, recheck))
        gc.callbacks.append(_installed)


def uninstall() -> None:
    """Back to the interpreter's default: the callback removed and every frozen object collectable again."""
    global _installed
    if _installed is not None:
        gc.callbacks.remove(_installed)
        _installed = None
        gc.unfreeze()
