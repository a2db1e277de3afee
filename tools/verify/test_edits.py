"""Tests the session removed, skipped, focused or rewrote: the edits that make a suite pass without the code
passing it.

A run that passes says nothing about a test that no longer runs. An agent sent back from POST_IMPL_VERIFY can
"fix" a failing test by deleting it, by marking it skipped (`@pytest.mark.skip`, `it.skip`, `t.Skip()`,
`#[ignore]`, `@Disabled`, GoogleTest's `DISABLED_`, ExUnit's `@tag :skip`), by focusing another one (`it.only`, which stops the rest of
the file running) or by making it expect what the code now does. This module compares each changed file as the
session found it with what it is now, by what is written in it:

- a test definition (a `test_*` function, a Go `TestX`, a `#[test] fn`, a JUnit `@Test` method, a jest or mocha
  `it('title')`, a GoogleTest `TEST(Suite, Name)`, a Unity `RUN_TEST(name)`, an ExUnit `test "title"`) that was there and is not any
  more, in this file or in any other changed file (a test moved to another file is not removed); a deleted
  file's tests are all removed;
- a skip or focus marker written more times than before, with the test (or group) it sits on: the definition
  within a few lines after it (a decorator, an attribute, an annotation, `it.skip('title')` itself), else the
  one it is inside;
- a test that was there at the start and still is, with lines of it changed or gone (an expectation changed to
  fit the code); lines only added (a case added to a table) strengthen it and are not told, and a body a
  formatter laid out anew (code_intel.verify.layout) or a skip taken out again is the same test. A test's decorators,
  and a table of cases at the top of the file that it names, are part of it (_bodies).

Renaming a test reads as removing it. What is found is reported, not judged: QUALITY_REVIEW judges it and
SESSION_COMPLETE tells the user; POST_IMPL_VERIFY refuses a pass only when a test that failed in the session's
own run after the change was then skipped or focused away (code_intel.workflow.handlers).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Any, Literal

from code_intel.core.file_roles import is_test_file
from code_intel.languages.table import compiled_query, get_parser, language_for
from code_intel.verify.concerned import go_test, leaf_name, name_parts, named_paths, names_file
from code_intel.verify.layout import shape

Kind = Literal["removed", "skipped", "focused", "rewritten"]
MAX_BYTES = 2_000_000  # a larger file is not read
MAX_EDITS = 50  # edits reported in one go
ATTACHED_LINES = 6  # a marker this many lines or fewer above a definition is that definition's (decorators)

_M = re.MULTILINE


@dataclass(frozen=True)
class TestEdit:
    __test__ = False  # not a pytest test class

    file: str
    test: str  # the test's name or title; for a marker, the test or group it sits on ("" when none was found)
    kind: Kind
    how: str  # what was done: "deleted with its file", "@pytest.mark.skip", "it.only"
    line: int | None = None  # the marker's line in the file now; None for a removal

    def text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        test = f" {self.test!r}" if " " in self.test else f" {self.test}" if self.test else ""
        if self.kind == "removed":
            return f"{where}{test}: removed ({self.how})"
        if self.kind == "focused":
            return f"{where}{test}: focused ({self.how}: the file's other tests stop running)"
        if self.kind == "rewritten":
            return f"{where}{test}: rewritten ({self.how})"
        return f"{where}{test}: skipped ({self.how})"


@dataclass(frozen=True)
class _Syntax:
    """What a language's tests need beside its syntax tree (queries/<language>/tests.scm finds the tests, what a
    marker sits on, the markers and the tables of cases): rules over the text of a body's lines, which are compared
    as text (patterns, not a grammar: a line cut from a body is no file to parse)."""

    # (pattern, replacement) taking a skip or focus marker off a line of a body, so that taking a skip out again
    # does not read as a rewrite; replacement None drops the line, and a line left empty is dropped too
    unmark: tuple[tuple[re.Pattern[str], str | None], ...] = ()
    everywhere: bool = False  # its tests are recognisable outside test files too (Rust's #[test], TEST(...))
    unmark_words: tuple[str, ...] = ()  # a word each of `unmark`'s patterns needs: only lines holding one are tried


def _unmark(*rules: tuple[str, str | None]) -> tuple[tuple[re.Pattern[str], str | None], ...]:
    return tuple((re.compile(pattern, _M), replacement) for pattern, replacement in rules)


def _dropped(*patterns: str) -> tuple[tuple[re.Pattern[str], str | None], ...]:
    """Rules dropping a whole line holding one of `patterns` (a skip called inside a test)."""
    return _unmark(*((pattern, None) for pattern in patterns))


_PY = _Syntax(
    unmark=_dropped(r"^[ \t]*@pytest\.mark\.(?:skip|skipif|xfail)\b",
                    r"^[ \t]*@(?:unittest\.)?(?:skip|skipIf|skipUnless|expectedFailure)\b",
                    r"\bpytest\.(?:skip|xfail)\s*\(", r"\bself\.skipTest\s*\("),
    unmark_words=("skip", "xfail", "expectedFailure"),
)
_JS = _Syntax(
    unmark=(*_unmark((r"(?<![\w.$])[xf](it|test|describe|context)\b", r"\1"),
                     (r"(?<![\w.$])(it|test|describe)\.skipIf\s*\((?:[^()]|\([^()]*\))*\)", r"\1"),
                     (r"(?<![\w.$])(it|test|describe|context|suite)\.(?:skip|only|todo)\b", r"\1")),
            *_dropped(r"\b(?:this|ctx|context)\.skip\s*\(\s*\)")),
    unmark_words=(".skip", ".only", ".todo", "xit", "fit", "xtest", "ftest", "xdescribe", "fdescribe", "xcontext",
                  "fcontext"),
)
_GO = _Syntax(
    unmark=_dropped(r"\b\w+\.Skip(?:f|Now)?\s*\("),
    unmark_words=(".Skip",),
)
_RS = _Syntax(
    unmark=_unmark((r"#\[ignore\b[^\]]*\]", "")),
    unmark_words=("#[ignore",),
    everywhere=True,
)
_JVM = _Syntax(
    unmark=_unmark((r"@(?:Disabled|Ignore)\b(?:\s*\([^)]*\))?", "")),
    unmark_words=("@Disabled", "@Ignore"),
)
_C = _Syntax(
    unmark=(*_unmark(("DISABLED_", "")), *_dropped(r"\bGTEST_SKIP\s*\(", r"\bTEST_IGNORE(?:_MESSAGE)?\s*\(")),
    unmark_words=("DISABLED_", "GTEST_SKIP", "TEST_IGNORE"),
    everywhere=True,
)
_EX = _Syntax(
    unmark=_dropped(r"^[ \t]*@(?:tag|describetag|moduletag)\s+:skip\b"),
    unmark_words=(":skip",),
)
_BY_SUFFIX = {
    ".py": _PY,
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), _JS),
    ".go": _GO,
    ".rs": _RS,
    **dict.fromkeys((".java", ".kt", ".kts"), _JVM),
    **dict.fromkeys((".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"), _C),
    ".exs": _EX,
}
_DISABLED = "DISABLED_"


def may_hold_tests(path: str) -> bool:
    """Whether the file at `path` is read for test edits (a test file of a known language, or a Rust or C/C++
    source, whose tests can sit beside the code)."""
    return _syntax(path) is not None


def _syntax(path: str) -> _Syntax | None:
    syntax = _BY_SUFFIX.get(PurePosixPath(path).suffix.lower())
    if syntax is None or not (syntax.everywhere or is_test_file(path)):
        return None
    if syntax is _GO and not path.endswith("_test.go"):
        return None
    return syntax


class _Lines:
    """Line numbers of offsets in one text, by bisecting the offsets of its newlines (a large test file has
    thousands of tests)."""

    def __init__(self, text: str) -> None:
        self.ends = [match.start() for match in re.finditer("\n", text)]

    def of(self, offset: int) -> int:
        return bisect.bisect_left(self.ends, offset) + 1


@dataclass(frozen=True)
class _Definition:
    name: str  # a GoogleTest's `Suite.Name`, as written (a DISABLED_ prefix kept)
    top: int  # 0-based line where the definition starts (its `#[test]`, `@Test`, `it(`)
    first: int  # 0-based line its name ends on: where its body starts
    runs: bool = False  # a Unity RUN_TEST line: the test is the function it runs
    suite: bool = False  # a GoogleTest TEST(Suite, Name)


_LANGUAGE_OF = {".h": "cpp"}  # a header may hold C++ tests: read with the C++ grammar


def _language(path: str) -> str | None:
    return _LANGUAGE_OF.get(PurePosixPath(path).suffix.lower()) or language_for(path)


def _query(language: str) -> Any:
    return compiled_query(language, "tests.scm")


@dataclass(frozen=True)
class _Read:
    """What one text of a file holds for tests, from its syntax tree."""

    definitions: tuple[_Definition, ...] = ()  # in text order
    owners: tuple[tuple[int, str], ...] = ()  # (1-based line, name) of what a marker can sit on, in line order
    markers: tuple[tuple[Kind, bool, str, int], ...] = ()  # (kind, attached, as written, 1-based line)
    functions: tuple[tuple[str, int, int], ...] = ()  # (name, top, first) of C functions: a Unity test's body
    tables: tuple[tuple[str, int, int], ...] = ()  # (name, first, last 0-based line) of each table of cases


_NO_TESTS = _Read()


def _read_tests(language: str, text: str, syntax: _Syntax | None = None) -> _Read:
    """The tests `text` defines, what a marker can sit on and the skip and focus markers, from its syntax tree
    (queries/<language>/tests.scm: @test where a test starts and @name (@suite) its name; @group what a marker can
    sit on; @skipped / @focused a marker on what follows it, `.inside` one on the test it is in, told as written up
    to the end of @how when there is one). Nothing in a comment or a string counts."""
    from tree_sitter import QueryCursor

    query = _query(language)
    # a source file of a language whose tests sit beside the code (Rust, C) is parsed only when it may hold one:
    # every such test is written with `test` in some case (#[test], TEST(...), RUN_TEST)
    if query is None or not text or (syntax is not None and syntax.everywhere and "test" not in text.lower()):
        return _NO_TESTS
    source = text.encode("utf-8", errors="surrogateescape")
    tree = get_parser(language).parse(source)

    def text_of(node: Any, end: Any = None) -> str:
        return source[node.start_byte:(end or node).end_byte].decode("utf-8", errors="replace")

    def name_of(node: Any, suite: list[Any] | None) -> str:
        name = text_of(node)
        if node.type in ("string", "template_string") or name[:1] == "`":
            name = name[1:-1]
        return f"{text_of(suite[0])}.{name}" if suite else name

    definitions, owners, markers, functions, tables = [], [], [], [], []
    for index, captures in QueryCursor(query).matches(tree.root_node):
        if "table" in captures:
            whole = captures["table_definition"][0]
            tables.append((text_of(captures["table"][0]), whole.start_point[0], whole.end_point[0]))
        elif "test" in captures:
            start, name, suite = captures["test"][0], captures["name"][0], captures.get("suite")
            definitions.append((start.start_byte, _Definition(
                name_of(name, suite), start.start_point[0], name.end_point[0],
                runs=suite is None and language in ("c", "cpp"), suite=suite is not None)))
        elif "group" in captures:
            name = captures["group"][0]
            owners.append((name.start_point[0] + 1, name_of(name, captures.get("group_suite"))))
            if "group_definition" in captures:
                functions.append((text_of(name), captures["group_definition"][0].start_point[0], name.end_point[0]))
        else:
            capture = next(c for c in captures if c.split(".")[0] in ("skipped", "focused"))
            node, how = captures[capture][0], captures.get("how")
            written = " ".join(text_of(node, how[0] if how else None).split()).rstrip("( ")
            kind: Kind = "focused" if capture.startswith("focused") else "skipped"
            markers.append(((index, node.start_byte), (kind, not capture.endswith(".inside"), written,
                                                      node.start_point[0] + 1)))
    return _Read(tuple(d for _, d in sorted(definitions, key=lambda item: item[0])), tuple(sorted(owners)),
                 tuple(m for _, m in sorted(markers, key=lambda item: item[0])), tuple(functions), tuple(tables))


def _tests(definitions: tuple[_Definition, ...]) -> Counter[str]:
    """Each test defined, by name (GoogleTest's `DISABLED_` taken off, so a disabled test is still there)."""
    return Counter(d.name.replace(_DISABLED, "") for d in definitions)


_CLOSING = re.compile(r"^[ \t]*}")  # a body's own closing brace (`}`, JS's `});`)
_SIGNATURE_END = re.compile(r"^[ \t]*(?:[)\]]|\{[ \t]*$)")  # a signature's end on its own line: `) {`, `):`, a lone `{`


def _bodies(syntax: _Syntax, read: _Read, text: str,
            tables_kept: set[str] | frozenset[str] = frozenset()) -> dict[str, list[list[str]]]:
    """The lines of each test's body, by name (one list per definition: namesakes in several classes), each without
    its indentation, blank lines and skip or focus markers left out (skips are read apart, _markers; taking one out
    again rewrites nothing). A body is what the definition's match spans (attributes and annotations after
    `#[test]` or `@Test`, a `test.each` table) and the lines after the line the name is on that are indented deeper
    (the end of a signature split over lines at its own depth included), then a closing brace at its own depth (Go,
    Rust, Java, C, JS; none in Python). A Python test's decorators above it (a `parametrize` table) are part of it;
    a Unity test's body is the function its `RUN_TEST` runs, when this file defines it; and the values of
    `tables_kept` defined at the top of the file that it names (_tables) are part of it."""
    lines = text.splitlines()
    stripped = [line.strip() for line in lines]
    indents = [len(line) - len(line.lstrip()) for line in lines]
    where = _Lines(text)
    marked = _lines_holding(text, where, syntax.unmark_words)
    bodies: dict[str, list[list[str]]] = {}
    functions = {name: (top, first) for name, top, first in read.functions}
    tables = _tables(read, tables_kept)
    for definition in read.definitions:
        # Unity: the test is the function RUN_TEST runs, when this file defines it
        top, first = (functions.get(definition.name) if definition.runs else None) or (definition.top, definition.first)
        body = [*_decorators(syntax, stripped, indents, marked, top), *range(top, min(first + 1, len(lines))),
                *_block(lines, indents, first, brace_ends=True)]
        if tables:
            named = {found.group(0) for found in tables.pattern.finditer("\n".join(stripped[at] for at in body))}
            have = set(body)
            body += [at for name in sorted(named) for at in tables.lines[name] if at not in have]
        texts = (_unmarked(syntax, stripped[at]) if at in marked else stripped[at] for at in body)
        bodies.setdefault(definition.name.replace(_DISABLED, ""), []).append([line for line in texts if line])
    return bodies


def _block(lines: list[str], indents: list[int], first: int, *, brace_ends: bool) -> list[int]:
    """The lines after line `first` that belong to what it opens: those indented deeper, and at its own depth the
    end of a signature split over lines (`) {`, `):`, a lone `{`) and a closing bracket (`}`, `});`, `];`). With
    `brace_ends`, its closing brace ends it (a function's body, not its block's); else more may follow one (Go's
    `}{` between a table's type and its values)."""
    depth = indents[first] if first < len(lines) else 0
    found: list[int] = []
    for at in range(first + 1, len(lines)):
        if not lines[at].strip():
            continue
        if indents[at] > depth:
            found.append(at)
        elif indents[at] < depth:
            break
        elif _SIGNATURE_END.match(lines[at]):
            found.append(at)
        elif _CLOSING.match(lines[at]):
            found.append(at)
            if brace_ends:
                break
        else:
            break
    return found


@dataclass(frozen=True)
class _Tables:
    pattern: re.Pattern[str]  # any of their names, as a word
    lines: dict[str, list[int]]  # each one's lines, by name


def _tables(read: _Read, kept: set[str] | frozenset[str]) -> _Tables | None:
    """The values named in `kept` defined at the top of a file (`CASES = [...]`, `const cases = [...]`, Go's `var`,
    Rust's `const`, a JUnit `@MethodSource`'s static method), each with the lines of its definition. A test naming
    one reads it, so a case changed in it changes the test."""
    found: dict[str, list[int]] = {}
    for name, first, last in read.tables:
        if name in kept:
            found.setdefault(name, []).extend(range(first, last + 1))
    if not found:
        return None
    return _Tables(re.compile(r"(?<![\w$])(?:" + "|".join(map(re.escape, found)) + r")(?![\w$])"), found)


def _lines_holding(text: str, where: _Lines, words: tuple[str, ...]) -> set[int]:
    """The (0-based) lines of `text` holding one of `words`, found by plain search (a regex over the whole of a large
    test file costs more than the rest of the reading)."""
    found = set()
    for word in words:
        at = text.find(word)
        while at >= 0:
            found.add(where.of(at) - 1)
            at = text.find(word, at + len(word))
    return found


def _unmarked(syntax: _Syntax, line: str) -> str:
    """`line` without its skip or focus marker, stripped ("" for a line that was only that)."""
    line = line.strip()
    for pattern, replacement in syntax.unmark:
        if replacement is None:
            if pattern.search(line):
                return ""
        else:
            line = pattern.sub(replacement, line)
    return line.strip()


def _decorators(syntax: _Syntax, stripped: list[str], indents: list[int], marked: set[int], at: int) -> list[int]:
    """The lines of a Python definition's decorators: those above line `at` from the first `@` at its depth down (a
    decorator split over lines included), a decorator that is a skip marker left out whole."""
    if syntax is not _PY or at >= len(stripped):
        return []
    depth, start = indents[at], at
    while start > 0:
        line, indent = stripped[start - 1], indents[start - 1]
        if line and indent <= depth and not (indent == depth and line[0] in "@)]}"):
            break
        start -= 1
    heads = [i for i in range(start, at) if indents[i] == depth and stripped[i].startswith("@")]
    kept: list[int] = []
    for head, end in pairwise([*heads, at]):
        if head not in marked or _unmarked(syntax, stripped[head]):  # not a skip marker
            kept.extend(i for i in range(head, end) if stripped[i])
    return kept


def _disabled(definitions: tuple[_Definition, ...]) -> Counter[str]:
    """GoogleTest's tests disabled by name: `TEST(Suite, DISABLED_Name)` or a `DISABLED_Suite`."""
    return Counter(d.name.replace(_DISABLED, "") for d in definitions if _DISABLED in d.name and d.suite)


def _markers(read: _Read) -> list[tuple[str, Kind, str, int]]:
    """(owner, kind, marker as written, line) for each skip or focus marker: the owner a marker written on a
    definition sits on is the first within ATTACHED_LINES after it (a decorator), else the one it is in."""
    at_lines = [at for at, _name in read.owners]
    found: list[tuple[str, Kind, str, int]] = []
    for kind, attached, written, line in read.markers:
        following = bisect.bisect_left(at_lines, line)  # the first owner on this line or after it
        enclosing = bisect.bisect_right(at_lines, line) - 1  # the last owner on this line or before it
        if attached and following < len(read.owners) and read.owners[following][0] <= line + ATTACHED_LINES:
            owner = read.owners[following][1]
        else:
            owner = read.owners[enclosing][1] if enclosing >= 0 else ""
        found.append((owner, kind, written, line))
    return found


def _read(text: str | None) -> str | None:
    return None if text is None or len(text) > MAX_BYTES else text


def find_test_edits(files: Iterable[tuple[str, str | None, str | None]]) -> list[TestEdit]:
    """The tests removed, skipped, focused or rewritten across one change: `files` holds (path, text at the start or
    None when the file is new, text now or None when it was deleted) for each changed file."""
    read = []  # each file read for tests: its syntax, its texts and the tests defined in each, counted once
    added: Counter[str] = Counter()  # tests defined anew anywhere in the change: a removal elsewhere is a move
    for path, old_text, new_text in files:
        if (syntax := _syntax(path)) is None or (language := _language(path)) is None:
            continue
        old, new = _read(old_text), _read(new_text)
        defined = _read_tests(language, old or "", syntax), _read_tests(language, new or "", syntax)
        before, after = _tests(defined[0].definitions), _tests(defined[1].definitions)
        read.append((path, syntax, defined, old, new, before, after))
        added += after - before
    edits: list[TestEdit] = []
    for path, syntax, (defined_then, defined_now), old, new, before, after in read:
        for name, count in (before - after).items():
            moved = min(count, added[name])
            added[name] -= moved
            how = "deleted with its file" if new is None else "its definition is gone"
            edits.extend(TestEdit(path, name, "removed", how) for _ in range(count - moved))
        if new is None:
            continue
        for name in (_disabled(defined_now.definitions) - _disabled(defined_then.definitions)).elements():
            edits.append(TestEdit(path, name, "skipped", "DISABLED_ prefix"))
        earlier = Counter((owner, kind, how) for owner, kind, how, _line in _markers(defined_then))
        for owner, kind, how, line in _markers(defined_now):
            if earlier[(owner, kind, how)] > 0:
                earlier[(owner, kind, how)] -= 1
            else:
                edits.append(TestEdit(path, owner, kind, how, line))
        if old is not None:  # a test that was there before and is there now, with another body (a skip aside)
            # a table defined in both (one moved away or turned into a class is no case changed)
            kept = {name for name, *_ in defined_then.tables} & {name for name, *_ in defined_now.tables}
            then, now = _bodies(syntax, defined_then, old, kept), _bodies(syntax, defined_now, new, kept)
            told = {edit.test for edit in edits if edit.file == path}
            # a line of it changed or gone; only lines added (a case added to a table) strengthen it, and a body
            # laid out anew (a formatter's run) is the same test. A name whose definitions were removed is told
            # as removed.
            edits.extend(TestEdit(path, name, "rewritten", "lines it had are changed or gone")
                         for name in sorted(then.keys() & now.keys() - told)
                         if after[name] >= before[name] and _rewritten(then[name], now[name]))
    return edits[:MAX_EDITS]


def _rewritten(then: list[list[str]], now: list[list[str]]) -> bool:
    """Whether a test's definitions lost or changed a line between `then` and `now`, beyond layout."""
    lost = Counter(line for body in then for line in body) - Counter(line for body in now for line in body)
    return bool(lost) and sorted(map(shape, then)) != sorted(map(shape, now))


def names_edited_test(failing: str, edit: TestEdit) -> bool:
    """Whether the failing test (as a runner names it) is the test `edit` removed or skipped, or sits in the group
    it skipped: its name holds the edited test's name as one of its parts (`tests/test_calc.py::TestX::test_m` for
    `TestX` or `test_m`, jest's `src/a.test.ts › calc › adds` for 'adds'; a Go subtest by its top test), and a
    file written in the name is the edited file. A marker on no test (`pytestmark = pytest.mark.skip` at the top
    of a module) skips the whole file: it names every test whose name says that file."""
    go = go_test(failing)
    own = go[1].split("/")[0] if go else failing
    in_file = names_file(own, edit.file)
    if not edit.test:
        return in_file
    if named_paths(own) and not in_file:
        return False
    wanted = leaf_name(edit.test).casefold()
    parts = [leaf_name(part).casefold() for part in name_parts(own)]
    return wanted in parts
