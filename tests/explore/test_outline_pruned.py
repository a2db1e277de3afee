"""The pruned outline walk (grammars listing `opaque` kinds) gives exactly the outline the query-guided walk gives.

The pruned walk skips subtrees by kind, and inside a function every subtree without a parse error that holds
neither `def` nor `class` (Grammar.keywords); a kind wrongly listed as opaque, or a symbol found without its
keyword, would silently lose symbols, so both ways are compared on tricky constructs and on a spread of real
files from Python's standard library.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path
from typing import Any

import pytest

from code_intel.explore import outline as outline_module
from code_intel.explore.outline import SymbolNode, outline
from code_intel.explore.syntax import ParsedFile
from code_intel.languages.grammar import GRAMMARS
from code_intel.languages.table import get_parser

TRICKY = '''
import os
X, Y = 1, 2
Z: int = 3
A = B = 4
if os.name == "nt":
    def win(): pass
    W = 1
else:
    try:
        import pwd
        def posix(): pass
    except ImportError:
        P = None
    finally:
        Q = 2
with open(__file__) as fh:
    WITH = fh.read()
for _i in range(3):
    LOOP = _i
while False:
    def never(): pass
match X:
    case 1:
        def one(): pass
        M1 = 1
    case _:
        class Other: pass

@decorator(lambda: 1)
class Outer(Base, metaclass=Meta):
    attr = 1
    other: str = "x"

    @property
    def value(self) -> int:
        local = 2
        def inner():
            class InFunction:
                field = 3
            return InFunction
        async def ainner(): pass
        return local

    class Nested:
        def method(self): pass
        if True:
            def conditional(self): pass

async def top(*args, key=lambda v: v, **kw):
    async with ctx() as c:
        def in_with(): pass
    try:
        pass
    except* ValueError:
        def in_except_star(): pass
    return [x for x in args if (y := x)]

def continued():
    async \\
        def across_lines(): pass
    return across_lines

def tabbed():
    accent = "\u00e9"
    def\tafter_tab(): pass

def keywords_only_in_names_and_text(classic, defaults):
    """def and class in a docstring"""
    \u00e4def = undefined = subclass = classic or defaults
    return "class" if \u00e4def else undefined  # def

def error_inside():
    value = (1,
    def after_error(): pass

def broken(:
    pass
GLOBAL_AFTER_ERROR = 1
'''.encode()


def _shape(symbols: list[SymbolNode]) -> list[Any]:
    return [(s.name, s.kind, s.line, s.end_line, s.scope, _shape(s.children)) for s in symbols]


def _both(path: Path, source: bytes) -> tuple[list[Any], list[Any]]:
    parsed = ParsedFile(path, "python", source, get_parser("python").parse(source))
    return _shape(outline(parsed)), _shape(outline(parsed, query=True))


def test_python_lists_opaque_kinds() -> None:
    assert GRAMMARS["python"].opaque  # otherwise the pruned walk is not what this file tests


def test_tricky_python_gives_the_same_outline_both_ways() -> None:
    pruned, queried = _both(Path("tricky.py"), TRICKY)
    assert pruned == queried
    flat = str(pruned)
    for name in ("win", "posix", "P", "Q", "WITH", "LOOP", "never", "one", "M1", "Other", "Outer", "attr", "other",
                 "value", "inner", "InFunction", "ainner", "Nested", "method", "conditional", "top",
                 "in_with", "in_except_star", "GLOBAL_AFTER_ERROR"):
        assert f"'{name}'" in flat, name
    assert "'local'" not in flat  # a function's local variable is not part of the outline
    for name in ("across_lines", "after_tab"):
        assert f"'{name}'" in flat, name


def test_the_walk_enters_a_function_only_where_a_symbol_can_be(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a function only nested definitions are reported, and each holds `def` or `class` as a token: a
    subtree free of parse errors without either word is not entered; one that has either, or a parse error, is."""
    source = b'''
def plain(items):
    for item in items:
        if item:
            found = item
    return found

def nested(items):
    for item in items:
        def inner(): pass
    with open(items) as handle:
        data = handle.read()
    return inner

def mentions():
    return "def"

def broken():
    x = 1 +
'''
    entered: list[tuple[str, int]] = []
    real = outline_module._children_to_visit

    def spy(parsed: ParsedFile, grammar: Any, *, query: bool = False) -> Any:
        children = real(parsed, grammar, query=query)

        def listed(node: Any) -> Any:
            entered.append((node.type, node.start_point[0] + 1))
            return children(node)
        return listed

    monkeypatch.setattr(outline_module, "_children_to_visit", spy)
    parsed = ParsedFile(Path("walk.py"), "python", source, get_parser("python").parse(source))
    symbols = outline(parsed)
    assert [(s.name, [c.name for c in s.children]) for s in symbols] == [
        ("plain", []), ("nested", ["inner"]), ("mentions", []), ("broken", [])]
    assert ("function_definition", 2) not in entered  # plain: no keyword, no error
    assert not [line for _, line in entered if 3 <= line <= 6]
    assert ("for_statement", 9) in entered and ("block", 10) in entered  # nested: on the way to inner
    assert ("function_definition", 10) not in entered  # inner itself holds no keyword
    assert not [line for _, line in entered if 11 <= line <= 12]  # nested's with statement: no keyword
    assert ("function_definition", 15) in entered  # the word in a string: entered, finds nothing
    assert ("function_definition", 18) in entered  # a parse error: entered whatever the words


def _stdlib_files(count: int) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and p.stat().st_size < 400_000)
    step = max(1, len(files) // count)
    return files[::step][:count]


@pytest.mark.parametrize("chunk", range(4))
def test_standard_library_files_give_the_same_outline_both_ways(chunk: int) -> None:
    files = _stdlib_files(160)[chunk::4]
    assert len(files) >= 30
    for path in files:
        pruned, queried = _both(path, path.read_bytes())
        assert pruned == queried, path
