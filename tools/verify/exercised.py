"""Which failing tests exercise code the session changed.

A test that failed before the change and fails the same way after it is not held against the change
(code_intel.verify.models.failed_the_same_way), unless the session concerns it. Names alone
(code_intel.verify.concerned) miss the commonest case of all: a bug fix in `IncMinor` whose test `TestInc` calls it,
where neither the request nor the changed file's name says `TestInc` (go test prints no file). So the test's own
source is read. It is found by its name: a function or method of that name (`TestInc`, `test_parse`, a JUnit
method), a function whose header holds the name (GoogleTest's `TEST(Suite, Name)`), or else a call whose string
argument is the title (jest's and mocha's `it('removes only a registered handler', ...)`). The test concerns the
session when its body names a function or method the session changed, or when the session changed the test's own
lines. A change outside every function (a type, a constant, an import) names nothing: a type or a module used by
most tests would otherwise hold every broken test against any change to it.

What is read is what is written, not what runs: a test reaching the changed function through a function of its
own file is found (one level), and through a function of another test file that the test files define once (a
conftest.py fixture, a helpers module); through code outside the test files, or two levels down, it is not. Nor
are types: `x.html()` may be any class's `html`. So a name that more than MAX_NAMESAKES types or modules define
(`get`, `toString`, `html`, `__eq__`, Go's `String`) says nothing about which one a test calls, and a change to
one of them holds no test; a name defined in a few places (`Element.hasClass` and `Elements.hasClass`) counts
for all of them.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from code_intel.core.errors import CodeIntelError
from code_intel.core.file_roles import file_role
from code_intel.core.project import ProjectRoot
from code_intel.explore.ctags import run_ctags
from code_intel.explore.outline import SymbolNode, flatten, outline
from code_intel.explore.ripgrep import RgFilters, RgLine, list_files, run_rg_json
from code_intel.explore.syntax import Node, ParseCache, ParsedFile
from code_intel.languages.grammar import FUNCTION_KINDS, node_category
from code_intel.languages.table import language_for
from code_intel.verify.concerned import MIN_NAME, go_test, leaf_name, named_paths, names_file
from code_intel.verify.models import FileChange

MIN_FUNCTION = 3  # a shorter changed function's name (`f`, `go`) matches too much to say anything
MAX_TESTS = 200  # failing tests looked up in one go
MAX_FILES = 100  # files with a hit parsed in one go: test files first (_test_files_first)
MAX_BYTES = 2_000_000  # a larger file is not parsed
MAX_NAMESAKES = 3  # places (file and scope) that may define a changed function's name for a call to it to count
MAX_NAMESAKE_FILES = 500  # files read for the definitions of the names tests call
MAX_HELPER_NAMES = 300  # names the failing tests write, looked up as helpers in other test files
SEARCH_S = 5.0
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_TEST_PATH = re.compile(r"(?i)test|spec")
_SEPARATED = re.compile(r"::|›| > ")  # a name whose parts pytest, jest or vitest separated
_ESCAPE = re.compile(r"\\(.)")
_QUOTED = re.compile(r"[A-Za-z]*(['\"`]+)(.*)\1", re.DOTALL)
_GO_MODULE = re.compile(r"^module\s+\"?([^\s\"]+)", re.MULTILINE)
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "constructor", "initialize"})


@dataclass(frozen=True)
class _Body:
    path: str
    start: int  # 1-based lines
    end: int
    names: frozenset[str]  # identifiers written in code (not in comments or strings)
    helpers: tuple[tuple[str, frozenset[str]], ...] = ()  # functions of the same file it calls, and their names


class Exercise:
    """Reads the project's sources for one question: which of some failing tests exercise the session's change."""

    def __init__(self, root: ProjectRoot, filters: RgFilters, changes: Iterable[FileChange]) -> None:
        self.root, self.filters = root, filters
        self.changes = {c.path: c for c in changes if c.ranges or c.gaps}
        self._parses = ParseCache(max_bytes=32 * 1024 * 1024)
        self._go = _GoPackages(root)

    def tests(self, names: Iterable[str]) -> dict[str, str]:
        """Those of `names` (failing tests as runners name them) whose source names a function or method the session
        changed, or whose own lines it changed, each with why."""
        if not self.changes:
            return {}
        changed = self.changed_functions()
        bodies = self._bodies(list(dict.fromkeys(names))[:MAX_TESTS])
        elsewhere = self._elsewhere(bodies, changed)
        calls = {n for found in bodies.values() for body in found
                 for written in (body.names, *(helper for _, helper in body.helpers)) for n in written & changed}
        calls |= {n for _path, written in elsewhere.values() for n in written & changed}
        changed -= self.common(calls)
        found: dict[str, str] = {}
        for name, places in bodies.items():
            leaf = leaf_name(name)
            for body in places:
                change = self.changes.get(body.path)
                if change is not None and change.touches(body.start, body.end):
                    found[name] = "the session changed its lines"
                    break
                if called := sorted((body.names - {leaf}) & changed):
                    found[name] = f"it calls {' and '.join(called[:3])}, which the session changed"
                    break
                through = [(helper, sorted(names & changed)) for helper, names in body.helpers if names & changed]
                if through:
                    helper, reached = through[0]
                    found[name] = (f"it calls {helper}, which calls {' and '.join(reached[:3])}, which the session "
                                   "changed")
                    break
                far = [(helper, path, sorted(written & changed)) for helper, (path, written) in sorted(elsewhere.items())
                       if helper in body.names and written & changed]
                if far:
                    helper, path, reached = far[0]
                    found[name] = (f"it calls {helper} ({path}), which calls {' and '.join(reached[:3])}, which the "
                                   "session changed")
                    break
        return found

    def _elsewhere(self, bodies: dict[str, list[_Body]], changed: set[str]) -> dict[str, tuple[str, frozenset[str]]]:
        """The functions of the project's other test files that the tests name (conftest.py's fixtures, a tests/
        helpers module, a Go helper in another _test.go file), each with its file and the names it calls: one
        level, as in a test's own file, and only names that the test files define once, since a name defined in
        two of them says nothing about which one runs."""
        local = {helper for found in bodies.values() for body in found for helper, _ in body.helpers}
        wanted = sorted({n for found in bodies.values() for body in found for n in body.names
                         if len(n) >= MIN_FUNCTION and n not in changed and n not in local})[:MAX_HELPER_NAMES]
        if not wanted:
            return {}
        try:
            hits = run_rg_json(self.root.path, wanted, self.filters, flags=["--fixed-strings", "--word-regexp"],
                               timeout=SEARCH_S).lines
            listed = set(list_files(self.root.path, self.filters, timeout=SEARCH_S)[0])  # roles read them (file_role)
            files = sorted({hit.file for hit in hits if file_role(hit.file, listed) == "test"})[:MAX_FILES]
            tags = [tag for tag in run_ctags(self.root.path, files, timeout=SEARCH_S)
                    if tag.name in set(wanted) and tag.kind in FUNCTION_KINDS]
        except (CodeIntelError, OSError, subprocess.SubprocessError):
            return {}
        counts = Counter(tag.name for tag in tags)
        found: dict[str, tuple[str, frozenset[str]]] = {}
        for tag in tags:
            parsed = self._parse(tag.file) if counts[tag.name] == 1 else None
            if parsed is None:
                continue
            symbol = next((s for s in _functions(parsed) if s.name == tag.name and s.line <= tag.line <= s.end_line), None)
            if symbol is not None:
                found[tag.name] = (tag.file, _read(parsed, tag.file, symbol.full_node).names - {tag.name})
        return found

    def common(self, names: set[str]) -> set[str]:
        """Those of the function names that more than MAX_NAMESAKES places (a file and a scope: a class, a module)
        define in the project: overloads in one class are one place."""
        if not names:
            return set()
        try:
            hits = run_rg_json(self.root.path, sorted(names), self.filters, flags=["--fixed-strings", "--word-regexp"],
                               timeout=SEARCH_S).lines
            files = sorted({hit.file for hit in hits})[:MAX_NAMESAKE_FILES]
            places = {(tag.name, tag.file, tag.scope) for tag in run_ctags(self.root.path, files, timeout=SEARCH_S)
                      if tag.name in names and tag.kind in FUNCTION_KINDS}
        except (CodeIntelError, OSError, subprocess.SubprocessError):
            return set()  # no telling: every name counts
        counts = Counter(name for name, _file, _scope in places)
        return {name for name, count in counts.items() if count > MAX_NAMESAKES}

    # ------------------------------------------------------------ the change
    def changed_functions(self) -> set[str]:
        """The names of the innermost functions and methods that hold a line the session changed, or the lines on
        both sides of lines it removed, and of the functions around them that call them."""
        names: set[str] = set()
        for change in self.changes.values():
            parsed = self._parse(change.path)
            if parsed is None:
                continue
            functions = _functions(parsed)
            for start, end in change.ranges:
                names.update(_called_as(s) for s in _changed_by(parsed, functions, start, end, inside=False))
            for gap in change.gaps:
                names.update(_called_as(s) for s in _changed_by(parsed, functions, gap, gap + 1, inside=True))
        return {n for n in names if len(n) >= MIN_FUNCTION}

    # ------------------------------------------------------------- the tests
    def _bodies(self, names: list[str]) -> dict[str, list[_Body]]:
        """Where each failing test is written: the bodies its name leads to."""
        wanted: dict[str, list[str]] = {}  # the text searched for -> the test names it stands for
        for name in names:
            for text in _written_as(name):
                wanted.setdefault(text, []).append(name)
        if not wanted:
            return {}
        try:
            hits = run_rg_json(self.root.path, list(wanted), self.filters, flags=["--fixed-strings", "--word-regexp"],
                               timeout=SEARCH_S).lines
        except CodeIntelError:
            return {}
        by_file: dict[str, list[RgLine]] = {}
        for hit in hits:
            by_file.setdefault(hit.file, []).append(hit)
        found: dict[str, list[tuple[int, _Body]]] = {}
        for path in sorted(by_file, key=_test_files_first)[:MAX_FILES]:
            parsed = self._parse(path)
            if parsed is None:
                continue
            functions = _functions(parsed)
            helpers = _Helpers(parsed, path, functions)
            for hit in by_file[path]:
                raw = hit.text.encode("utf-8", errors="replace")
                for leaf, tests in wanted.items():
                    for column in _occurrences(raw, leaf.encode()):
                        body = _body_at(parsed, path, functions, hit.line, column, leaf)
                        if body is None:
                            continue
                        body = helpers.called_by(body)
                        for test in tests:
                            if _in_named_file(test, path) and self._go.holds(test, path):
                                found.setdefault(test, []).append((len(leaf), body))
        # the longest text found says most: a mocha title's shorter endings may be other tests' whole titles
        return {test: _in_named_class(test, [body for size, body in bodies if size == max(s for s, _ in bodies)])
                for test, bodies in found.items()}

    def _parse(self, path: str) -> ParsedFile | None:
        file = self.root.path / path
        if language_for(file) is None:
            return None
        try:
            if file.stat().st_size > MAX_BYTES:
                return None
            return self._parses.get(file)
        except (OSError, CodeIntelError):
            return None


def _called_as(function: SymbolNode) -> str:
    """The name a test calls the function by: a constructor by its class (`Parser(...)`, `new Parser(...)`)."""
    if function.name in _CONSTRUCTORS and function.scope:
        return re.split(r"[.:]+", function.scope)[-1]
    return function.name


def _written_as(name: str) -> list[str]:
    """What a failing test's name may be written as in its source: the last part of its name; for a name that is
    titles joined by spaces (mocha's `Array #indexOf() returns -1`), also each ending of two words or more, one of
    which is the test's own title."""
    leaf = leaf_name(name)
    texts = [leaf] if len(leaf) >= MIN_NAME else []
    words = name.split()
    if len(words) > 2 and not _SEPARATED.search(name):
        texts += [" ".join(words[i:]) for i in range(1, len(words) - 1)]
    # a title holding a quote may be written with it escaped: it('doesn\'t throw', ...)
    return texts + [escaped for text in texts for quote in "'\"" if quote in text
                    for escaped in [text.replace(quote, "\\" + quote)]]


def _test_files_first(path: str) -> tuple[bool, str]:
    """Files whose path says they hold tests (`tests/`, `_test.go`, `ElementTest.java`, `x.spec.ts`) come first."""
    return (_TEST_PATH.search(path) is None, path)


def _functions(parsed: ParsedFile) -> list[SymbolNode]:
    return [s for s in flatten(outline(parsed)) if s.kind in FUNCTION_KINDS]


def _changed_by(parsed: ParsedFile, functions: list[SymbolNode], start: int, end: int, *, inside: bool) -> list[SymbolNode]:
    """The innermost functions overlapping lines start..end (holding all of them, with `inside`), and around each
    the functions that call it: `chunked` changes when its inner `ret()` does, since it calls it and tests call
    `chunked`. A nested function that its outer one only hands out (a factory's `{ on, off }`) leaves it out, or
    every test of the factory would count."""
    hit = [s for s in functions
           if (s.line <= start and end <= s.end_line) or (not inside and s.line <= end and start <= s.end_line)]
    out: list[SymbolNode] = []
    for inner in hit:
        if any(o is not inner and inner.line <= o.line and o.end_line <= inner.end_line for o in hit):
            continue  # not the innermost
        out.append(inner)
        around = sorted((o for o in functions if o.line <= inner.line and inner.end_line <= o.end_line and o is not inner),
                        key=lambda o: o.end_line - o.line)
        for outer in around:
            if not _calls(parsed, outer, out[-1]):
                break
            out.append(outer)
    return out


def _calls(parsed: ParsedFile, outer: SymbolNode, inner: SymbolNode) -> bool:
    """Whether `outer`'s own code (not `inner`'s) calls `inner` by its name."""
    node, nested = outer.full_node, inner.full_node
    code = parsed.source[node.start_byte:nested.start_byte] + parsed.source[nested.end_byte:node.end_byte]
    return re.search(rb"(?<![\w.$])" + re.escape(inner.name.encode()) + rb"\s*\(", code) is not None


def _occurrences(raw: bytes, needle: bytes) -> Iterator[int]:
    """The byte columns where `needle` occurs in the line as a whole word (at an end that is a word character)."""
    start = raw.find(needle)
    while start != -1:
        end = start + len(needle)
        if not (_word(needle[:1]) and start > 0 and _word(raw[start - 1:start])) and \
                not (_word(needle[-1:]) and end < len(raw) and _word(raw[end:end + 1])):
            yield start
        start = raw.find(needle, start + 1)


def _word(byte: bytes) -> bool:
    return byte.isalnum() or byte == b"_" or byte >= b"\x80"


def _body_at(parsed: ParsedFile, path: str, functions: list[SymbolNode], line: int, column: int,
             text: str) -> _Body | None:
    """The test declared by `text` written at (1-based line, byte column): the function whose header holds it
    (`func TestInc(`, `TEST(Suite, Name) {`), or the call whose first argument is a string that is all of it (a
    title)."""
    point = (line - 1, column)
    for symbol in functions:
        body = symbol.node.child_by_field_name("body")
        header_end = tuple(body.start_point) if body is not None else (symbol.line, 0)
        if tuple(symbol.node.start_point) <= point < header_end:
            return _read(parsed, path, symbol.full_node)
    node = parsed.root.descendant_for_point_range(point, (line - 1, column + len(text.encode())))
    while node is not None and node_category(node.type) != "string":
        node = node.parent
    while node is not None and node.parent is not None and node_category(node.parent.type) == "string":
        node = node.parent  # the whole literal, not a fragment of it
    if node is None or parsed.grammar is None or _unescaped(_unquoted(parsed.text(node))) != _unescaped(text):
        return None
    call = node.parent
    while call is not None and call.type not in parsed.grammar.calls:
        call = call.parent
    arguments = call.child_by_field_name("arguments") if call is not None else None
    first = arguments.named_children[0] if arguments is not None and arguments.named_child_count else None
    if first is None or not (first.start_byte <= node.start_byte and node.end_byte <= first.end_byte):
        return None
    return _read(parsed, path, call)


def _unquoted(literal: str) -> str | None:
    """A string literal's text without its prefix and quotes (`'a b'`, `"a b"`, `` `a b` ``, Python's `r"a b"`)."""
    match = _QUOTED.fullmatch(literal.strip())
    return match[2] if match else None


def _unescaped(text: str | None) -> str | None:
    """A title as the runner prints it: `doesn\'t` is `doesn't`."""
    return _ESCAPE.sub(r"\1", text) if text is not None else None


class _Helpers:
    """The functions of one file that a test in it may call (`check_words()`, a fixture named as a parameter), each
    read once: one level, since a helper is often how a test reaches the code. Only names the file defines once
    (GoogleTest's tests are all functions named TEST)."""

    def __init__(self, parsed: ParsedFile, path: str, functions: list[SymbolNode]) -> None:
        self.parsed, self.path = parsed, path
        counts = Counter(s.name for s in functions)
        self.functions = [s for s in functions if counts[s.name] == 1]
        self._names: dict[int, frozenset[str]] = {}  # a helper's first line -> the names it calls

    def called_by(self, body: _Body) -> _Body:
        """The body with the helpers it calls, and what they call."""
        helpers = []
        for symbol in self.functions:
            if symbol.name not in body.names or symbol.line <= body.end and body.start <= symbol.end_line:
                continue  # not called, or the test itself, a function inside it or one around it
            if symbol.line not in self._names:
                self._names[symbol.line] = _read(self.parsed, self.path, symbol.full_node).names - {symbol.name}
            helpers.append((symbol.name, self._names[symbol.line]))
        return dataclasses.replace(body, helpers=tuple(helpers)) if helpers else body


def _read(parsed: ParsedFile, path: str, node: Node) -> _Body:
    """The body's lines and the identifiers written in its code."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if node_category(current.type) is not None:
            continue  # comments and strings say nothing about what runs
        if current.child_count:
            stack.extend(current.children)
        elif _IDENTIFIER.fullmatch(text := parsed.text(current)):
            names.add(text)
    return _Body(path, int(node.start_point[0]) + 1, int(node.end_point[0]) + 1, frozenset(names))


def _in_named_file(test: str, path: str) -> bool:
    """A test whose name holds a path (pytest's `tests/test_app.py::test_add`, jest's) is written in that file."""
    return not named_paths(test) or names_file(test, path)


def _in_named_class(test: str, bodies: list[_Body]) -> list[_Body]:
    """The bodies in files named by a part of the test's name (Java's `org.x.ElementTest.parses` in
    ElementTest.java, Rust's `semver::parse::tests::x` in parse.rs), when there are any; else all of them. A go
    test's package is no such part: its folder was matched already (_GoPackages)."""
    go = go_test(test)
    parts = set(_IDENTIFIER.findall(go[1] if go else test))
    named = [b for b in bodies if PurePosixPath(b.path).stem in parts]
    return named or bodies


class _GoPackages:
    """Which package a Go file is in, to tell the go test `example.com/calc/sub::TestNew` from `example.com/calc::TestNew`:
    its module's path (from the nearest go.mod above it) and the folders below that."""

    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._modules: dict[str, str | None] = {}  # folder -> the path of the module whose go.mod is in it

    def holds(self, test: str, path: str) -> bool:
        """Whether `path` may hold `test`: any file for any other runner's test; for a go test, a Go file of its
        package (or any Go file when no go.mod says which package that is)."""
        go = go_test(test)
        if go is None:
            return True
        if PurePosixPath(path).suffix != ".go":
            return False
        package = self.package(path)
        return package is None or package == go[0]

    def package(self, path: str) -> str | None:
        folders = PurePosixPath(path).parent.parts
        for depth in range(len(folders), -1, -1):
            module = self._module("/".join(folders[:depth]))
            if module is not None:
                return "/".join((module, *folders[depth:]))
        return None

    def _module(self, folder: str) -> str | None:
        if folder not in self._modules:
            try:
                match = _GO_MODULE.search((self.root.path / folder / "go.mod").read_text(errors="replace"))
            except OSError:
                match = None
            self._modules[folder] = match[1] if match else None
        return self._modules[folder]
