"""Glob patterns with `**`, `{a,b}` and character classes, matched against project-relative POSIX paths.

A pattern without a slash matches a file's name in any folder (as in .gitignore); a pattern with a
slash matches the whole relative path, where `**` stands for any number of folders, including none.

Matching never backtracks: a glob becomes a small non-deterministic automaton that is run over the
path one character at a time, with the sets of states it reaches cached as deterministic states.
The cost is linear in the path's length whatever the pattern: `*a*a*a*a*b` against a long name of
`a`s answers as fast as `*.py` (a backtracking regex takes minutes on it while holding the GIL).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass

from code_intel.core.errors import InvalidArgument

MAX_GLOB_CHARS = 1000
MAX_STATES = 4000  # automaton size: bounds memory and time of one glob, whatever it holds
_DFA_CACHE_LIMIT = 20_000  # cached deterministic states per glob; the cache restarts when full

CharTest = Callable[[str], bool]


# ---------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class _Char:
    test: CharTest
    literal: str | None = None  # the one character it accepts, when it is a plain character


@dataclass(frozen=True)
class _Loop:
    """Any run of characters passing `test` (the empty run included)."""

    test: CharTest


@dataclass(frozen=True)
class _FolderStar:
    """`**/` at the start of a segment: nothing, or any folders ending with a slash."""


@dataclass(frozen=True)
class _Group:
    choices: tuple[tuple[object, ...], ...]


def _not_slash(ch: str) -> bool:
    return ch != "/"


def _any(ch: str) -> bool:
    return True


def _literal(expected: str) -> CharTest:
    return lambda ch: ch == expected


def _char_class(glob: str, start: int) -> tuple[CharTest, int]:
    """Parse `[...]` starting at `start`; returns the test and the index after the closing `]`."""
    i = start + 1
    negated = i < len(glob) and glob[i] in "!^"
    if negated:
        i += 1
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    first = True
    while True:
        if i >= len(glob):
            raise InvalidArgument(f"glob {glob!r} has an unclosed '['", hint="close the character class or escape it as [[]")
        ch = glob[i]
        if ch == "]" and not first:
            i += 1
            break
        first = False
        if ch == "\\" and i + 1 < len(glob):
            i += 1
            ch = glob[i]
        if i + 2 < len(glob) and glob[i + 1] == "-" and glob[i + 2] != "]":
            high = glob[i + 2]
            if high == "\\" and i + 3 < len(glob):
                high = glob[i + 3]
                i += 1
            if high < ch:
                raise InvalidArgument(f"glob {glob!r} has a reversed range {ch}-{high}", hint=f"write it as {high}-{ch}")
            ranges.append((ch, high))
            i += 3
            continue
        singles.add(ch)
        i += 1
    frozen_singles = frozenset(singles)
    frozen_ranges = tuple(ranges)

    def test(c: str) -> bool:
        if c == "/":
            return False  # a class never matches a folder separator
        inside = c in frozen_singles or any(low <= c <= high for low, high in frozen_ranges)
        return inside != negated

    return test, i


def _parse(glob: str) -> tuple[object, ...]:
    """The glob as a sequence of _Char, _Loop, _FolderStar and _Group items."""
    stack: list[list[list[object]]] = [[[]]]  # per open `{`: its choices so far

    def emit(item: object) -> None:
        stack[-1][-1].append(item)

    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**", i):
            at_segment_start = i == 0 or glob[i - 1] in "/{,"
            if at_segment_start and glob.startswith("**/", i):
                emit(_FolderStar())
                i += 3
            else:
                emit(_Loop(_any))
                i += 2
                while glob.startswith("*", i):  # `***` is `**`
                    i += 1
        elif c == "*":
            emit(_Loop(_not_slash))
            i += 1
        elif c == "?":
            emit(_Char(_not_slash))
            i += 1
        elif c == "[":
            test, i = _char_class(glob, i)
            emit(_Char(test))
        elif c == "{":
            stack.append([[]])
            i += 1
        elif c == "," and len(stack) > 1:
            stack[-1].append([])
            i += 1
        elif c == "}" and len(stack) > 1:
            choices = stack.pop()
            emit(_Group(tuple(tuple(choice) for choice in choices)))
            i += 1
        elif c == "\\" and i + 1 < n:
            emit(_Char(_literal(glob[i + 1]), glob[i + 1]))
            i += 2
        else:
            emit(_Char(_literal(c), c))
            i += 1
    if len(stack) > 1:
        raise InvalidArgument(f"glob {glob!r} has an unclosed '{{'", hint="close the group, e.g. '*.{py,pyi}'")
    return tuple(stack[0][0])


# ---------------------------------------------------------------------- automaton
class _Builder:
    """Thompson construction: states are ints; each has at most one character edge and any epsilon edges."""

    def __init__(self, glob: str) -> None:
        self.glob = glob
        self.tests: list[CharTest | None] = []
        self.next_on_char: list[int] = []
        self.epsilon: list[list[int]] = []

    def state(self, test: CharTest | None = None) -> int:
        if len(self.tests) >= MAX_STATES:
            raise InvalidArgument(f"glob {self.glob[:80]!r} is too complex to match",
                                  hint="use fewer alternatives and wildcards, or split it into several searches")
        self.tests.append(test)
        self.next_on_char.append(-1)
        self.epsilon.append([])
        return len(self.tests) - 1

    def sequence(self, items: tuple[object, ...], start: int) -> int:
        """Add states matching `items` after `start`; returns the state reached at their end."""
        current = start
        for item in items:
            current = self.item(item, current)
        return current

    def item(self, item: object, start: int) -> int:
        if isinstance(item, _Char):
            step = self.state(item.test)
            self.epsilon[start].append(step)
            end = self.state()
            self.next_on_char[step] = end
            return end
        if isinstance(item, _Loop):
            hub = self.state()
            self.epsilon[start].append(hub)
            step = self.state(item.test)
            self.epsilon[hub].append(step)
            self.next_on_char[step] = hub
            return hub
        if isinstance(item, _FolderStar):
            end = self.state()
            self.epsilon[start].append(end)  # no folder at all
            hub = self.item(_Loop(_any), start)
            return self._slash_into(hub, end)
        if isinstance(item, _Group):
            end = self.state()
            for choice in item.choices:
                branch = self.state()
                self.epsilon[start].append(branch)
                self.epsilon[self.sequence(choice, branch)].append(end)
            return end
        raise TypeError(item)  # pragma: no cover - _parse makes only the kinds above

    def _slash_into(self, hub: int, end: int) -> int:
        step = self.state(_literal("/"))
        self.epsilon[hub].append(step)
        self.next_on_char[step] = end
        return end


@dataclass
class _Cache:
    """Deterministic states met so far: each is a set of automaton states, with its moves by character."""

    ids: dict[frozenset[int], int]
    sets: list[frozenset[int]]
    accepting: list[bool]
    moves: list[dict[str, int]]


class GlobMatcher:
    """A compiled glob. `match(text)` is True when the glob matches the whole text. Thread-safe."""

    def __init__(self, glob: str, items: tuple[object, ...]) -> None:
        builder = _Builder(glob)
        start = builder.state()
        self._accept = builder.sequence(items, start)
        self._tests = builder.tests
        self._next = builder.next_on_char
        self._epsilon = builder.epsilon
        self._start_set = self._closure({start})
        self._lock = threading.Lock()
        self._cache = self._new_cache()
        # a fixed ending ('.py' in '**/*.py') rejects most paths before the automaton runs
        suffix: list[str] = []
        for item in reversed(items):
            if not isinstance(item, _Char) or item.literal is None:
                break
            suffix.append(item.literal)
        self._suffix = "".join(reversed(suffix))

    def _new_cache(self) -> _Cache:
        cache = _Cache({}, [], [], [])
        self._intern(cache, self._start_set)  # the start is deterministic state 0
        return cache

    def _closure(self, states: set[int]) -> frozenset[int]:
        seen = set(states)
        todo = list(states)
        while todo:
            for nxt in self._epsilon[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        # only states that consume a character, or accept, matter from here on
        return frozenset(s for s in seen if self._tests[s] is not None or s == self._accept)

    def _intern(self, cache: _Cache, states: frozenset[int]) -> int:
        known = cache.ids.get(states)
        if known is not None:
            return known
        cache.ids[states] = len(cache.sets)
        cache.sets.append(states)
        cache.accepting.append(self._accept in states)
        cache.moves.append({})
        return len(cache.sets) - 1

    def _step(self, cache: _Cache, current: int, ch: str) -> int:
        with self._lock:
            reached: set[int] = set()
            for s in cache.sets[current]:
                test = self._tests[s]
                if test is not None and test(ch):
                    reached.add(self._next[s])
            nxt = self._intern(cache, self._closure(reached))
            cache.moves[current][ch] = nxt
            return nxt

    def match(self, text: str) -> bool:
        if not text.endswith(self._suffix):
            return False
        cache = self._cache
        if len(cache.sets) > _DFA_CACHE_LIMIT:
            cache = self._cache = self._new_cache()
        state = 0
        moves, sets = cache.moves, cache.sets
        for ch in text:
            nxt = moves[state].get(ch)
            if nxt is None:
                nxt = self._step(cache, state, ch)
            state = nxt
            if not sets[state]:
                return False  # dead: no state left that could still match
        return cache.accepting[state]


def refuse_parent_parts(glob: str) -> None:
    """Refuse a glob with a `..` part: it would match nothing and read as "no such files", since paths are matched
    inside the project."""
    if ".." in glob.strip().lstrip("!").split("/"):
        raise InvalidArgument(f"the glob {glob!r} has a '..' part, which no path inside the project has",
                              hint="globs are matched against paths inside the project (or inside `path`); "
                                   "send a pattern without '..', e.g. 'src/**/*.py'")


@functools.lru_cache(maxsize=256)
def compile_glob(glob: str) -> tuple[GlobMatcher, bool]:
    """The matcher for a glob and whether it applies to the whole path (True) or the file name only."""
    if not isinstance(glob, str):
        raise InvalidArgument(f"the glob must be a string, got {type(glob).__name__}", hint="send e.g. '**/*.py'")
    text = glob.strip()
    if not text:
        raise InvalidArgument("the glob pattern is empty", hint="send e.g. '**/*.py' or 'test_*.py'")
    if len(text) > MAX_GLOB_CHARS:
        raise InvalidArgument(f"the glob is {len(text)} characters long; at most {MAX_GLOB_CHARS} are accepted",
                              hint="send a shorter pattern")
    if text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/")
    whole_path = "/" in text
    if text.endswith("/"):
        text += "**"  # a folder pattern means everything inside it
    return GlobMatcher(glob, _parse(text)), whole_path


def glob_matches(glob: str, relative_path: str, base: str | None = None) -> bool:
    """True when the glob matches the path (or, with `base`, the path relative to that folder)."""
    matcher, whole_path = compile_glob(glob)
    if not whole_path:
        return matcher.match(relative_path.rsplit("/", 1)[-1])
    if matcher.match(relative_path):
        return True
    if base and base not in (".", "") and relative_path.startswith(base.rstrip("/") + "/"):
        return matcher.match(relative_path[len(base.rstrip("/")) + 1 :])
    return False
