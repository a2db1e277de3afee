from __future__ import annotations

import pytest

from code_intel.workflow.empty_body import Declarations
from code_intel.workflow.evidence import is_empty_body

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


def test_blank_lines_are_empty_whatever_the_language() -> None:
    assert is_empty_body(["", "   "], None)


# Issue #13 follow-up: expression bodies, tail expressions and the per-language stand-ins. Each
# language gets its placeholders (EMPTY_MORE) and real one-line implementations that must stay
# accepted (NOT_EMPTY_MORE), including ones that sit beside a TODO comment but do real work.
EMPTY_MORE = [
    # Kotlin: expression bodies
    ("kotlin", "fun f() = TODO()"),
    ("kotlin", "fun total(items: List<Int>): Int = TODO(\"sum them\")"),
    ("kotlin", "override fun size(x: Int = 0): Int =\n    TODO()"),
    ("kotlin", "private suspend fun load(): String = kotlin.TODO(\"later\")"),
    ("kotlin", "fun f(): Nothing = throw UnsupportedOperationException()"),
    ("kotlin", "fun count(): Int = 0 // TODO"),
    ("kotlin", "fun names(): List<String> = emptyList() // FIXME real lookup"),
    # Scala: ??? and expression bodies
    ("scala", "def area(r: Double): Double = ???"),
    ("scala", "def name: String = ???"),
    # Rust: macros, tail constants beside a TODO, Err("not implemented")
    ("rust", "fn run() -> Result<()> {\n    todo!()\n}"),
    ("rust", "fn run() -> Result<()> {\n    unimplemented!()\n}"),
    ("rust", "fn run(&self) -> Result<(), Error> {\n    // TODO: wire the client\n    Ok(())\n}"),
    ("rust", "fn config() -> Config {\n    Default::default() // FIXME\n}"),
    ("rust", "fn find(&self, id: u32) -> Option<User> {\n    None // TODO look it up\n}"),
    ("rust", "fn items() -> Vec<Item> {\n    // TODO\n    Vec::new()\n}"),
    ("rust", "fn build() -> Self {\n    Self::default() // TODO\n}"),
    ("rust", "fn run() -> Result<u8, String> {\n    Err(\"not implemented\".to_string())\n}"),
    ("rust", "fn run() -> Result<(), Error> { Ok(()) } // TODO"),
    # Go
    ("go", "func (s *Store) Get(id string) (*User, error) {\n\tpanic(\"not implemented\")\n}"),
    ("go", "func (s *Store) Get(id string) *User {\n\treturn nil // TODO\n}"),
    ("go", "func (s *Store) Get(id string) (*User, error) {\n\treturn nil, nil // TODO\n}"),
    ("go", "func (s *Store) Get(id string) (*User, error) {\n\treturn nil, errors.New(\"not implemented\")\n}"),
    ("go", "func (s *Store) Count() (int, error) {\n\treturn 0, fmt.Errorf(\"not implemented: %s\", \"count\")\n}"),
    ("go", "func f() {\n\tpanic(errors.New(\"not implemented\"))\n}"),
    # C# / .NET
    ("csharp", "public int Add(int a, int b)\n{\n    throw new NotImplementedException();\n}"),
    ("csharp", "public int Add(int a, int b) => throw new NotImplementedException();"),
    ("csharp", "public string Name => throw new NotImplementedException(\"later\");"),
    ("csharp", "public Task<User> GetAsync(int id)\n{\n    return null; // TODO\n}"),
    # JavaScript / TypeScript
    ("javascript", "function load() {\n  throw new Error(\"not implemented\");\n}"),
    ("javascript", "const load = () => { throw new Error('Not implemented'); };"),
    ("javascript", "function load() {\n  throw 'not implemented';\n}"),
    ("typescript", "export function load(id: string): User | null {\n  return null; // TODO\n}"),
    ("typescript", "export const load = (id: string): User[] => []; // TODO"),
    ("typescript", "async load(id: string): Promise<User> {\n  throw new Error(`not implemented: ${id}`);\n}"),
    # PHP, Swift, Bash
    ("php", "function load() {\n  throw new Exception('not implemented');\n}"),
    ("php", "public function load(): ?User\n{\n    // TODO\n    return null;\n}"),
    ("swift", "func load() -> Int {\n  fatalError(\"not implemented\")\n}"),
    ("bash", "deploy() {\n  # TODO\n}"),
    ("zig", "pub fn f() void {}"),
    ("zig", "pub fn f() !void {\n    @panic(\"not implemented\");\n}"),
    ("dart", "void f() {}"),
    ("dart", "int f(int a) {\n  throw UnimplementedError(\"not implemented\");\n}"),
    ("dart", "class A {\n  void f() {\n    // TODO\n  }\n}"),
]

NOT_EMPTY_MORE = [
    # Kotlin
    ("kotlin", "fun add(a: Int, b: Int) = a + b"),
    ("kotlin", "fun scaled(x: Int = 0): Int = x * factor"),
    ("kotlin", "override fun toString(): String = \"Point($x, $y)\""),
    ("kotlin", "fun isEmpty(): Boolean = size == 0"),
    ("kotlin", "fun count(): Int = 0"),  # a constant without a TODO is an implementation
    ("kotlin", "fun todoCount(): Int = todos.size"),
    # Scala
    ("scala", "def area(r: Double): Double = math.Pi * r * r"),
    # Rust
    ("rust", "fn add(a: i32, b: i32) -> i32 { a + b }"),
    ("rust", "fn run(&self) -> Result<(), Error> {\n    Ok(())\n}"),  # no TODO: a real no-op
    ("rust", "fn find(&self) -> Option<u8> {\n    None\n}"),
    ("rust", "fn config() -> Config {\n    Default::default()\n}"),
    ("rust", "fn run(&self) -> Result<(), Error> {\n    // TODO: retry on timeout\n    self.client.send()?;\n    Ok(())\n}"),
    ("rust", "fn total(&self) -> u64 {\n    self.items.iter().sum() // TODO overflow\n}"),
    # Go
    ("go", "func add(a, b int) int { return a + b }"),
    ("go", "func (s *Store) Close() error {\n\treturn nil\n}"),
    ("go", "func (s *Store) Get(id string) (*User, error) {\n\treturn s.users[id], nil // TODO copy\n}"),
    ("go", "func (s *Store) Get(id string) (*User, error) {\n\treturn nil, errors.New(\"user not found\")\n}"),
    # C#
    ("csharp", "public int Add(int a, int b) => a + b;"),
    ("csharp", "public override string ToString() => Name;"),
    ("csharp", "public int Add(int a, int b) { return a + b; }"),
    ("csharp", "public void Guard(int a)\n{\n    if (a < 0) throw new ArgumentException(\"negative\");\n    Apply(a);\n}"),
    # JavaScript / TypeScript
    ("javascript", "function load() {\n  return cache.get(key);\n}"),
    ("javascript", "const double = (x) => x * 2;"),
    ("javascript", "function check(x) {\n  if (!x) throw new Error('missing x');\n  return x;\n}"),
    ("typescript", "export const ids = (users: User[]): string[] => users.map(u => u.id);"),
    ("typescript", "export function none(): User | null {\n  return null;\n}"),
    ("tsx", "export const Title = () => <h1>{name}</h1>;"),
    ("php", "<?php\nfunction load() {\n  return $this->users->find(1);\n}"),
    ("swift", "func area() -> Double {\n  return width * height\n}"),
    ("bash", "deploy() {\n  rsync -a build/ host:/srv\n}"),
    ("lua", "function f() end"),  # no query for Lua: any content counts
    # Zig and Dart (Dart's body is the signature's next sibling in its grammar)
    ("zig", "pub fn f(a: u32) u32 {\n    return a + 1;\n}"),
    ("zig", "test \"f adds one\" {\n    try std.testing.expect(f(1) == 2);\n}"),
    ("dart", "int f(int a) {\n  return a + 1;\n}"),
    ("dart", "class A {\n  int f(int a) => a + 1;\n}"),
    ("dart", "abstract class A {\n  void f();\n}"),
]


@pytest.mark.parametrize(("language", "source"), EMPTY + EMPTY_MORE)
def test_placeholder_bodies_are_empty(language: str, source: str) -> None:
    assert is_empty_body(source.split("\n"), language)


@pytest.mark.parametrize(("language", "source"), NOT_EMPTY + NOT_EMPTY_MORE)
def test_real_code_is_not_empty(language: str, source: str) -> None:
    assert not is_empty_body(source.split("\n"), language)


# A Python signature whose `...` body is intended: type stubs, overloads, abstract methods, Protocol members.
# They are declarations, like an empty exception class; a plain def with the same body is still a stub.
DECLARATIONS = [
    "@overload\ndef parse(x: int) -> int: ...",
    "@typing.overload\ndef parse(x: str) -> str:\n    ...",
    "@abstractmethod\ndef area(self) -> float:\n    \"\"\"The area.\"\"\"\n    raise NotImplementedError",
    "@property\n@abc.abstractmethod\ndef name(self) -> str: ...",
    "class Sized(Protocol):\n    def __len__(self) -> int: ...",
    "class Reader(typing.Protocol[T]):\n    def read(self, n: int = -1) -> T:\n        ...",
    "class SupportsClose(Protocol, Generic[T]):\n    def close(self) -> None: ...",
]


@pytest.mark.parametrize("source", DECLARATIONS)
def test_python_declarations_are_not_empty(source: str) -> None:
    assert not is_empty_body(source.split("\n"), "python")


@pytest.mark.parametrize("source", [
    "def ilen(iterable: Iterable[_T]) -> int: ...",
    "def ilen(\n    iterable: Iterable[_T], pred: Callable[[_T], object] | None = None\n) -> int: ...",
    "class Box(Generic[_T]):\n    def get(self) -> _T: ...",
])
def test_a_stub_file_declares_its_signatures(source: str) -> None:
    assert is_empty_body(source.split("\n"), "python")  # in an ordinary module: a placeholder
    assert not is_empty_body(source.split("\n"), "python", declarations=Declarations(everything=True))  # in a .pyi


@pytest.mark.parametrize("source", [
    "@overload\ndef parse(x: int) -> int: ...\n\ndef other(x):\n    pass",  # the second def is still a stub
    "@staticmethod\ndef make(x):\n    ...",  # not a declaring decorator
    "class NotAProtocol(Base):\n    def f(self) -> int: ...",
    "class Protocolish(ProtocolBase):\n    def f(self) -> int: ...",
    "@overload\n# nothing follows",
])
def test_declarations_do_not_excuse_other_stubs(source: str) -> None:
    assert is_empty_body(source.split("\n"), "python")


@pytest.mark.parametrize(("language", "source"), [
    ("java", "interface Sized {\n  int size();\n}"),
    ("java", "abstract int size();"),
    ("typescript", "declare function f(x: number): string;"),
    ("typescript", "interface A {\n  f(x: number): string;\n}"),
    ("rust", "trait T {\n    fn f(&self) -> u8;\n}"),
    ("c", "int f(int x);"),
    ("go", "type R interface {\n\tRead(p []byte) (int, error)\n}"),
])
def test_brace_language_declarations_are_not_empty(language: str, source: str) -> None:
    assert not is_empty_body(source.split("\n"), language)


def test_every_code_language_but_lua_has_an_empty_body_query() -> None:
    from code_intel.languages.table import CODE_LANGUAGES
    from code_intel.workflow.empty_body import judged

    assert {language for language in CODE_LANGUAGES if not judged(language)} == {"lua"}
