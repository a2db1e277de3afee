from __future__ import annotations

import pytest

from tools.workflow.evidence import is_empty_body

EMPTY = [
    ("python", "def f(x):\n    pass"),
    ("python", "def f(x):\n    '''Doc.'''\n    ..."),
    ("python", "def f(x):\n    # TODO: later\n    raise NotImplementedError('x')"),
    ("python", "def f(x):\n    raise NotImplementedError(\n        'later'\n    )"),
    ("python", "def f(x): pass"),
    ("python", "async def f(\n    x: int,\n) -> None:\n    # FIXME\n    ..."),
    ("python", "class A:\n    def f(self):\n        pass"),
    ("python", "    # TODO"),
    ("python", ""),
    ("javascript", "function f() {\n  throw new Error(\"not implemented\");\n}"),
    ("javascript", "function f() {\n  // TODO\n}"),
    ("javascript", "const f = () => {};"),
    ("typescript", "foo(x: number = 1): void {\n}"),
    ("typescript", "class Foo {\n  bar(): void {\n    throw new Error('Not implemented yet');\n  }\n}"),
    ("go", "func (s *S) Foo() error {\n\tpanic(\"not implemented\")\n}"),
    ("rust", "fn foo<'a>(x: &'a str) -> &'a str {\n    todo!()\n}"),
    ("rust", "fn foo<'a>(x: &'a str) -> &'a str {\n    unimplemented!(\"later\")\n}"),
    ("rust", "fn foo() {\n    panic!(\"not implemented\")\n}"),
    ("java", "@Override\npublic void run()\n    throws IOException\n{\n    throw new UnsupportedOperationException(\"Not supported yet.\");\n}"),
    ("c", "int main(void)\n{\n}"),
    ("java", "public void remove() {\n    throw new UnsupportedOperationException();\n}"),
    ("kotlin", "fun remove(): Int {\n    throw UnsupportedOperationException(\"no\")\n}"),
    ("kotlin", "fun later(): Int {\n    TODO(\"write it\")\n}"),
    ("python", "def f(x):\n    return None  # TODO implement"),
    ("java", "public String name() {\n    return null; // TODO\n}"),
    ("javascript", "function f(a) {\n  // FIXME: real logic\n  return 0;\n}"),
    ("go", "func f() error {\n\t// TODO\n\treturn nil\n}"),
    ("python", "def __add__(self, other):\n    return NotImplemented"),
    ("python", "def f(x):\n    \"\"\"Compute f.\n\n    More (text).\n    \"\"\"\n    raise NotImplementedError(\"later (soon)\")"),
    ("python", "    def area(self):\n        r\"\"\"Area.\"\"\"\n        raise NotImplementedError"),
    ("cpp", "void Foo::bar() {\n  /* TODO */\n}"),
    ("csharp", "public int X() { throw new NotImplementedException(); }"),
    ("ruby", "def foo\n  raise NotImplementedError\nend"),
]

NOT_EMPTY = [
    ("python", "def f(x): return x + 1"),
    ("python", "@app.route('/')\ndef f(\n    x: int = 1,\n) -> dict[str, int]:\n    \"\"\"Doc:\n    more.\"\"\"\n    return {'a': x}"),
    ("python", "class InvalidToken(AuthError):\n    pass"),  # a declaration, not a stub
    ("python", "x = 1"),
    ("python", "    return total"),
    ("python", "def f():\n    s = '# not a comment'\n"),
    ("javascript", "function f() {\n  return 1;\n}"),
    ("javascript", "const cfg = {};"),
    ("javascript", "if (a) {\n  doIt('x; {');\n}"),
    ("go", "func (s *S) Foo() error {\n\treturn nil\n}"),
    ("go", "m := map[string]int{}"),
    ("go", "type Empty struct{}"),
    ("rust", "fn foo<'a>(x: &'a str) -> &'a str {\n    x\n}"),
    ("java", "int remove(int a) {\n    if (a < 0) throw new UnsupportedOperationException(\"negative\");\n    return a;\n}"),
    ("python", "def f(x): return x + 1"),
    ("python", "def f():\n    return None"),
    ("java", "int zero() {\n    return 0;\n}"),
    ("python", "def __eq__(self, other):\n    if not isinstance(other, P):\n        return NotImplemented\n    return self.x == other.x"),
    ("python", "def f(x):\n    # TODO: cache this\n    return compute(x) + 1"),
    ("javascript", "const add = (a, b) => a + b;"),
    ("java", "int add(int a, int b) { return a + b; }"),
    ("c", "int main(void)\n{\n  return 0;\n}"),
    ("markdown", "# Title"),
    ("yaml", "key: value"),
]


@pytest.mark.parametrize(("language", "source"), EMPTY)
def test_placeholder_bodies_are_empty(language: str, source: str) -> None:
    assert is_empty_body(source.split("\n"), language)


@pytest.mark.parametrize(("language", "source"), NOT_EMPTY)
def test_real_code_is_not_empty(language: str, source: str) -> None:
    assert not is_empty_body(source.split("\n"), language)


def test_blank_lines_are_empty_whatever_the_language() -> None:
    assert is_empty_body(["", "   "], None)
