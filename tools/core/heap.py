"""The C heap of the server process (glibc's malloc; every call here is a no-op where it is missing).

Each thread that allocates (Chroma's writers, the tokenizer's, the transport's) takes a glibc heap (arena) of its own,
up to eight a core, and memory one heap frees no other thread reuses: a first index of a large project peaked tens of
megabytes higher that way. The server lets its threads share HEAPS heaps, set before it starts any (share_heaps), and
hands freed pages back after the big frees of an index build (trim_heap).
"""

from __future__ import annotations

HEAPS = 2  # abseil-cpp's first index (18,618 chunks) peaked 27 MB lower in process with 2 (1 gave the same), same CPU
M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


def share_heaps() -> None:
    """Let the process's threads share HEAPS heaps: call before the threads start (later ones keep theirs)."""
    _glibc("mallopt", M_ARENA_MAX, HEAPS)


def trim_heap() -> None:
    """Hand the C heap's free pages back to the system (malloc_trim)."""
    _glibc("malloc_trim", 0)


def _glibc(name: str, *args: int) -> None:
    import ctypes

    try:
        function = getattr(ctypes.CDLL(None), name, None)
    except (OSError, TypeError):  # no C library handle on this platform
        return
    if function is not None:
        function(*args)
