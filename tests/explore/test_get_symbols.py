from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import FileNotFound, InvalidArgument, PathOutsideProject
from code_intel.explore.models import OutlineSymbol
from code_intel.explore.service import Explorer


def _tree(symbols: list[OutlineSymbol]) -> list[tuple[str, str, int, list[object]]]:
    return [(s.kind, s.name, s.line, _tree(s.children)) for s in symbols]


def test_python_outline_nests_methods_and_lists_module_variables(explorer: Explorer) -> None:
    result = explorer.get_symbols("src/app/greeter.py")
    assert result.file == "src/app/greeter.py" and result.language == "python"
    assert _tree(result.symbols) == [
        ("variable", "GREETING", 5, []),
        ("variable", "counter", 6, []),
        ("variable", "total", 6, []),
        ("class", "Greeter", 9, [
            ("variable", "prefix", 10, []),
            ("method", "greet", 12, []),
            ("method", "make", 18, [("function", "inner", 19, [])]),
        ]),
        ("function", "helper", 24, []),
    ]
    greeter = result.symbols[3]
    assert (greeter.line, greeter.end_line) == (9, 21)


# (file, expected (kind, name) pairs in document order, flattened)
OUTLINES = [
    ("web/greeter.js", [("class", "Greeter"), ("method", "greet"), ("function", "makeGreeter"), ("function", "arrow")]),
    ("web/util.ts", [("interface", "Named"), ("class", "Greeter"), ("field", "name"), ("method", "greet"),
                     ("function", "helper"), ("type", "Alias"), ("enum", "Color")]),
    ("web/view.tsx", [("function", "Card"), ("function", "helper")]),
    ("go/greeter.go", [("constant", "Greeting"), ("struct", "Greeter"), ("interface", "Named"), ("method", "Greet"),
                       ("function", "helper")]),
    ("rust/lib.rs", [("struct", "Greeter"), ("trait", "Named"), ("method", "name"), ("impl", "Greeter"),
                     ("method", "greet"), ("function", "helper"), ("constant", "LIMIT")]),
    ("java/Greeter.java", [("class", "Greeter"), ("field", "LIMIT"), ("constructor", "Greeter"), ("method", "greet"),
                           ("method", "helper"), ("interface", "Named"), ("method", "name")]),
    ("c/greeter.c", [("struct", "greeter"), ("variable", "limit"), ("function", "helper"), ("function", "greet")]),
    ("cpp/greeter.cpp", [("namespace", "demo"), ("class", "Greeter"), ("method", "greet"), ("function", "helper"),
                         ("function", "Greeter::count")]),
    ("cs/Greeter.cs", [("namespace", "Demo"), ("class", "Greeter"), ("property", "Count"), ("field", "limit"),
                       ("constructor", "Greeter"), ("method", "Greet"), ("method", "Helper"), ("interface", "INamed"),
                       ("method", "Name")]),
    ("ruby/greeter.rb", [("module", "Demo"), ("constant", "LIMIT"), ("class", "Greeter"), ("method", "greet"),
                         ("method", "make"), ("method", "helper")]),
    ("php/Greeter.php", [("namespace", "Demo"), ("class", "Greeter"), ("constant", "LIMIT"), ("method", "greet"),
                         ("function", "helper")]),
    ("kotlin/Greeter.kt", [("class", "Greeter"), ("variable", "limit"), ("method", "greet"), ("object", "Registry"),
                           ("method", "make"), ("function", "helper")]),
]


def _flat(symbols: list[OutlineSymbol]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for s in symbols:
        out.append((s.kind, s.name))
        out.extend(_flat(s.children))
    return out


@pytest.mark.parametrize(("path", "expected"), OUTLINES, ids=[p for p, _ in OUTLINES])
def test_outline_in_every_language(explorer: Explorer, path: str, expected: list[tuple[str, str]]) -> None:
    symbols = explorer.get_symbols(path).symbols
    assert _flat(symbols) == expected
    assert all(s.line <= s.end_line for s in symbols)


def test_methods_nest_under_their_type(explorer: Explorer) -> None:
    (cls,) = [s for s in explorer.get_symbols("java/Greeter.java").symbols if s.name == "Greeter"]
    assert [c.name for c in cls.children] == ["LIMIT", "Greeter", "greet", "helper"]
    assert (cls.line, cls.end_line) == (5, 15)


def test_function_at_line_is_the_innermost(explorer: Explorer) -> None:
    inner = explorer.get_function_at_line("src/app/greeter.py", 20)
    assert (inner.name, inner.kind, inner.line, inner.end_line, inner.scope) == ("inner", "function", 19, 20, "Greeter.make")
    assert inner.code == 'def inner():\n            return helper("x")'
    method = explorer.get_function_at_line("go/greeter.go", 15)
    assert (method.name, method.kind, method.line, method.end_line) == ("Greet", "method", 14, 16)
    decorated = explorer.get_function_at_line("src/app/greeter.py", 17)  # the @staticmethod line
    assert (decorated.name, decorated.line) == ("make", 18)
    assert decorated.code.startswith("@staticmethod\n    def make():")
    kotlin = explorer.get_function_at_line("kotlin/Greeter.kt", 9)
    assert (kotlin.name, kotlin.scope) == ("greet", "Greeter")


def test_function_at_line_refuses_module_level_and_out_of_range(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument, match="no function or method encloses line 5"):
        explorer.get_function_at_line("src/app/greeter.py", 5)
    with pytest.raises(InvalidArgument, match="outside"):
        explorer.get_function_at_line("src/app/greeter.py", 999)


def test_analyze_structure_python(explorer: Explorer) -> None:
    result = explorer.analyze_structure("src/app/greeter.py")
    assert [(i.module, i.names, i.line) for i in result.imports] == [("os", ["os"], 2), ("typing", ["Optional as Opt"], 3)]
    assert [(c.name, c.bases, c.methods) for c in result.classes] == [("Greeter", ["Base"], ["greet", "make"])]
    calls = {f.name: [c.name for c in f.calls] for f in result.functions}
    assert calls == {"greet": ["helper"], "make": [], "inner": ["helper"], "helper": ["join"]}


@pytest.mark.parametrize(
    ("path", "imports", "cls", "bases", "caller", "callee"),
    [
        ("web/util.ts", ["fs"], "Greeter", ["Named"], "greet", "helper"),
        ("go/greeter.go", ["fmt", "strings"], "Greeter", [], "Greet", "helper"),
        ("java/Greeter.java", ["java.util.List"], "Greeter", ["Base", "Named"], "greet", "helper"),
        ("cpp/greeter.cpp", ["string"], "Greeter", ["Base"], "greet", "helper"),
        ("cs/Greeter.cs", ["System"], "Greeter", ["Base"], "Greet", "Helper"),
        ("ruby/greeter.rb", ["json"], "Greeter", ["Base"], "greet", "helper"),
        ("php/Greeter.php", ["Other\\Base"], "Greeter", ["Base"], "greet", "helper"),
        ("kotlin/Greeter.kt", ["kotlin.math.max"], "Greeter", ["Base"], "greet", "helper"),
        ("rust/lib.rs", ["std::fmt"], "Named", [], "greet", "helper"),
    ],
)
def test_analyze_structure_other_languages(explorer: Explorer, path: str, imports: list[str], cls: str,
                                           bases: list[str], caller: str, callee: str) -> None:
    result = explorer.analyze_structure(path)
    assert sorted(i.module for i in result.imports) == imports
    (found,) = [c for c in result.classes if c.name == cls]
    assert found.bases == bases
    (fn,) = [f for f in result.functions if f.name == caller]
    assert callee in [c.name for c in fn.calls]


def test_single_file_refusals(explorer: Explorer, project_dir: Path, tmp_path: Path,
                              make_explorer: Callable[..., Explorer]) -> None:
    with pytest.raises(FileNotFound):
        explorer.get_symbols("src/missing.py")
    with pytest.raises(InvalidArgument, match="folder"):
        explorer.get_symbols("src")
    with pytest.raises(PathOutsideProject):
        explorer.get_symbols("../outside.py")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def x(): pass\n", encoding="utf-8")
    (project_dir / "sneaky.py").symlink_to(outside)
    with pytest.raises(PathOutsideProject):
        explorer.analyze_structure("sneaky.py")
    (project_dir / "data.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(InvalidArgument, match="no parser"):
        explorer.get_symbols("data.bin")
    (project_dir / "blob.py").write_bytes(b"x = 1\x00\x00")
    with pytest.raises(InvalidArgument, match="binary"):
        explorer.get_symbols("blob.py")
    (project_dir / "big.py").write_text("x = 1\n" * 400, encoding="utf-8")
    with pytest.raises(InvalidArgument, match="max_file_bytes"):
        make_explorer(project_dir, max_file_bytes=1024).get_symbols("big.py")


def test_non_utf8_source_still_parses(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "latin.py").write_bytes("# caf\xe9\ndef f():\n    return 1\n".encode("latin-1"))
    symbols = make_explorer(project_dir).get_symbols("latin.py").symbols
    assert [(s.name, s.line) for s in symbols] == [("f", 2)]


def test_edits_are_seen_on_the_next_call(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    target = project_dir / "m.py"
    target.write_text("def a(): pass\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    assert [s.name for s in explorer.get_symbols("m.py").symbols] == ["a"]
    target.write_text("def a(): pass\ndef b(): pass\n", encoding="utf-8")
    assert [s.name for s in explorer.get_symbols("m.py").symbols] == ["a", "b"]


def test_c_header_lists_prototypes_but_not_type_mentions(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "api.h").write_text(
        "#ifndef API_H\n#define API_H\nstruct handle;\n"
        "typedef struct point { int x; int y; } point_t;\n"
        "int open_handle(struct handle *h, const char *name);\n"
        "extern int verbosity;\n#endif\n",
        encoding="utf-8",
    )
    symbols = make_explorer(project_dir).get_symbols("api.h").symbols
    assert [(s.kind, s.name, s.line) for s in symbols] == [
        ("type", "point_t", 4), ("prototype", "open_handle", 5), ("variable", "verbosity", 6),
    ]


def test_c_function_like_macros_are_listed_and_a_function_wrapped_in_a_macro_keeps_its_name(
        project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    # redis's adlist.h is mostly macros its callers use as functions; libuv defines helpers inside `UV_UNUSED(...)`,
    # which the grammar reads as a function named UV_UNUSED
    (project_dir / "list.h").write_text(
        "#ifndef LIST_H\n#define LIST_H\n#define LIST_MAX 64\n"
        "#define listLength(l) ((l)->len)\n"
        "UV_UNUSED(static int list_empty(const struct list* l)) {\n  return l->len == 0;\n}\n#endif\n",
        encoding="utf-8",
    )
    symbols = make_explorer(project_dir).get_symbols("list.h").symbols
    assert [(s.kind, s.name, s.line) for s in symbols] == [("macro", "listLength", 4), ("function", "list_empty", 5)]


def test_a_cpp_header_with_c_suffix_is_outlined_by_cpp_grammar(project_dir: Path,
                                                                make_explorer: Callable[..., Explorer]) -> None:
    # fmt and abseil name their C++ headers `.h`: read with C's grammar, the class below was a function and a variable
    (project_dir / "shapes.h").write_text(
        "#ifndef SHAPES_H_\n#define SHAPES_H_\nnamespace shapes {\n"
        "class canvas {\n public:\n  void draw(int x);\n};\n"
        "void canvas::draw(int x) { (void)x; }\n}  // namespace shapes\n#endif\n",
        encoding="utf-8",
    )
    result = make_explorer(project_dir).get_symbols("shapes.h")
    assert result.language == "cpp"
    [namespace] = result.symbols
    assert (namespace.kind, namespace.name) == ("namespace", "shapes")
    assert [(s.kind, s.name) for s in namespace.children if s.kind in ("class", "function")] == [
        ("class", "canvas"), ("function", "canvas::draw")]


def test_a_csharp_directive_before_a_base_list_does_not_name_the_class(
        project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    # newtonsoft's JsonWriter.Async.cs: the outline listed a class `HAVE_ASYNC_DISPOSABLE` holding JsonWriter's methods
    (project_dir / "JsonWriter.Async.cs").write_text(
        "namespace Demo\n{\n    public abstract partial class JsonWriter\n#if HAVE_ASYNC_DISPOSABLE\n"
        "        : IAsyncDisposable\n#endif\n    {\n        public void Flush() { }\n    }\n}\n", encoding="utf-8")
    symbols = make_explorer(project_dir).get_symbols("JsonWriter.Async.cs").symbols
    assert _flat(symbols) == [("namespace", "Demo"), ("class", "JsonWriter"), ("method", "Flush")]


def test_a_rust_trait_impl_names_its_trait(tmp_path: Path) -> None:
    """Five `impl ... for Version` blocks look alike by name; `implements` says which trait each one is."""
    from tests.explore.conftest import explorer_over

    source = ("pub struct Version;\n\nimpl Version {\n    pub fn new() -> Self {\n        Version\n    }\n}\n\n"
              "impl std::str::FromStr for Version {\n    type Err = ();\n\n"
              "    fn from_str(_: &str) -> Result<Self, ()> {\n        Ok(Version)\n    }\n}\n")
    symbols = explorer_over(tmp_path, {"src/lib.rs": source}).get_symbols("src/lib.rs").symbols
    assert [(s.kind, s.name, s.implements) for s in symbols] == [
        ("struct", "Version", None), ("impl", "Version", None), ("impl", "Version", "std::str::FromStr")]


def test_rust_structure_gives_impl_traits_and_supertraits_as_bases(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    source = ("pub trait Shape: Clone + fmt::Debug + ?Sized + 'static {}\n"
              "impl<T> std::fmt::Display for Wrapper<T> {}\nimpl From<u8> for Wrapper<u8> {}\nimpl Wrapper<u8> {}\n")
    classes = explorer_over(tmp_path, {"src/lib.rs": source}).analyze_structure("src/lib.rs").classes
    assert [(c.name, c.bases) for c in classes] == [
        ("Shape", ["Clone", "fmt::Debug"]), ("Wrapper", ["std::fmt::Display"]), ("Wrapper", ["From<u8>"]),
        ("Wrapper", [])]


def test_swift_dart_and_zig_files_have_outlines_and_definitions_though_ctags_reads_none(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {
        "Source/Core/Session.swift": (
            "import Foundation\n\n/// Sends requests.\nopen class Session {\n    public init() {}\n\n"
            "    public func request(_ url: String) -> Int {\n        return 1\n    }\n}\n\n"
            "extension Session: CustomStringConvertible {\n    public var description: String { \"s\" }\n}\n\n"
            "public protocol RequestInterceptor {\n    func adapt(_ url: String) -> String\n}\n\n"
            "public typealias Parameters = [String: Any]\n\nstruct Pending {\n    func go() {}\n}\n\n"
            "enum State {\n    case idle\n}\n\nactor Queue {}\n"),
        "lib/src/dio.dart": (
            "import 'dart:io';\n\n/// Makes a client.\nDio createDio() => Dio();\n\nclass Dio {\n  Dio();\n\n"
            "  Future<String> get(String path) async {\n    return path;\n  }\n}\n\nmixin Retry on Dio {}\n"),
        "src/args.zig": (
            "const std = @import(\"std\");\n\n/// Parses arguments.\npub const Parser = struct {\n    count: u32,\n\n"
            "    pub fn next(self: *Parser) !void {\n        self.count += 1;\n    }\n};\n\n"
            "pub fn parse(args: []const u8) Parser {\n    _ = args;\n    return .{ .count = 0 };\n}\n\n"
            "test \"parse starts at zero\" {\n    try std.testing.expect(parse(\"\").count == 0);\n}\n"),
    })
    assert _flat(explorer.get_symbols("Source/Core/Session.swift").symbols) == [
        ("class", "Session"), ("constructor", "init"), ("method", "request"), ("extension", "Session"),
        ("property", "description"), ("protocol", "RequestInterceptor"), ("method", "adapt"), ("type", "Parameters"), ("struct", "Pending"),
        ("method", "go"), ("enum", "State"), ("actor", "Queue")]
    assert _flat(explorer.get_symbols("lib/src/dio.dart").symbols) == [
        ("function", "createDio"), ("class", "Dio"), ("constructor", "Dio"), ("method", "get"), ("class", "Retry")]
    dio = next(s for s in explorer.get_symbols("lib/src/dio.dart").symbols if s.name == "Dio")
    get = next(c for c in dio.children if c.name == "get")
    assert (get.line, get.end_line) == (9, 11)  # to the end of the body, the signature's next sibling in Dart
    assert explorer.get_function_at_line("lib/src/dio.dart", 10).code == (  # its code too, not the signature alone
        "Future<String> get(String path) async {\n    return path;\n  }")
    zig = explorer.get_symbols("src/args.zig").symbols  # a plain constant and a test block are no definitions
    assert [(s.kind, s.name, s.line, s.end_line) for s in zig] == [("struct", "Parser", 4, 10), ("function", "parse", 12, 15)]
    assert [(c.kind, c.name) for c in zig[0].children] == [("method", "next")]
    found = explorer.find_definitions("RequestInterceptor", max_results=10).definitions
    assert [(d.file, d.line) for d in found] == [("Source/Core/Session.swift", 16)]
    assert [(d.file, d.line) for d in explorer.find_definitions("createDio", max_results=10).definitions] == [
        ("lib/src/dio.dart", 4)]


def test_swift_properties_and_scala_3_givens_and_extensions_are_in_outlines_and_definitions(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {
        "Sources/Vapor/Sessions/Request+Session.swift": (
            "/// The shared hasher.\npublic var Bcrypt: BCryptDigest {\n    return .init()\n}\n\n"
            "public let defaultCost = 12\n\nextension Request {\n    public var session: Session {\n"
            "        self.cache.session\n    }\n\n    var flag: Bool = false\n\n    func reset() {\n"
            "        let local = 1\n    }\n}\n"),
        "Sources/Vapor/Routing/RoutesBuilder.swift": (
            "public protocol RoutesBuilder {\n    func add(_ route: Route)\n}\n\nfinal class Storage {\n"
            "    subscript(key: String) -> Int? {\n        nil\n    }\n\n    deinit {\n    }\n}\n"),
        "Sources/Vapor/Concurrency/RoutesBuilder+Concurrency.swift": (
            "extension RoutesBuilder {\n    func get() {}\n}\n"),
        "core/src/main/scala-3/demo/Givens.scala": (
            "package demo\n\ngiven userOrdering: Ordering[User] with\n  def compare(a: User, b: User): Int = 0\n\n"
            "extension [A](xs: List[A])\n  def second: A = xs(1)\n\n"
            "given Ordering[Foo] with\n  def compare(a: Foo, b: Foo): Int = 0\n\ngiven Show[List[Foo]] = Show.list\n"),
        "core/src/main/scala/headers/Content-Type.scala": "object `Content-Type` {\n  val name = 1\n}\n",
    })
    swift = explorer.get_symbols("Sources/Vapor/Sessions/Request+Session.swift").symbols
    assert _flat(swift) == [("property", "Bcrypt"), ("variable", "defaultCost"), ("extension", "Request"),
                            ("property", "session"), ("variable", "flag"), ("method", "reset")]  # no local
    found = explorer.find_definitions("session", max_results=10).definitions
    assert [(d.file, d.line) for d in found] == [("Sources/Vapor/Sessions/Request+Session.swift", 9)]
    storage = explorer.get_symbols("Sources/Vapor/Routing/RoutesBuilder.swift").symbols
    assert _flat(storage) == [("protocol", "RoutesBuilder"), ("method", "add"), ("class", "Storage"),
                              ("method", "subscript"), ("method", "deinit")]
    found = explorer.find_definitions("RoutesBuilder", max_results=10).definitions  # the protocol before extensions
    assert [(d.file, d.kind) for d in found] == [("Sources/Vapor/Routing/RoutesBuilder.swift", "protocol"),
                                                 ("Sources/Vapor/Concurrency/RoutesBuilder+Concurrency.swift", "extension")]
    scala = explorer.get_symbols("core/src/main/scala-3/demo/Givens.scala").symbols
    # an anonymous given is named as the compiler (and the chunker) names it
    assert _flat(scala) == [("object", "userOrdering"), ("method", "compare"), ("extension", "List"),
                            ("method", "second"), ("object", "given_Ordering_Foo"), ("method", "compare"),
                            ("object", "given_Show_List_Foo")]
    found = explorer.find_definitions("given_Ordering_Foo", max_results=10).definitions
    assert [(d.file, d.line) for d in found] == [("core/src/main/scala-3/demo/Givens.scala", 9)]
    found = explorer.find_definitions("Content-Type", max_results=10).definitions  # a backquoted name, unquoted
    assert [(d.file, d.line, d.kind) for d in found] == [("core/src/main/scala/headers/Content-Type.scala", 1, "object")]
    found = explorer.find_definitions("second", max_results=10).definitions
    assert [(d.file, d.line) for d in found] == [("core/src/main/scala-3/demo/Givens.scala", 7)]


def test_the_shell_functions_of_a_bats_file_are_definitions(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {"test/plugins.bats": (
        "#!/usr/bin/env bats\n\nload test_helper\n\nsetup() {\n  export HOME=\"$BATS_TMPDIR\"\n}\n\n"
        "assert_enabled() {\n  [ -e \"$1\" ]\n}\n\n@test \"enable a plugin\" {\n  assert_enabled jump\n}\n")})
    found = explorer.find_definitions("assert_enabled", max_results=10).definitions
    assert [(d.file, d.line, d.language) for d in found] == [("test/plugins.bats", 9, "bash")]
    outline = explorer.get_symbols("test/plugins.bats").symbols  # its tests too, each named by its title
    assert [(s.kind, s.name, s.line, s.end_line) for s in outline] == [
        ("function", "setup", 5, 7), ("function", "assert_enabled", 9, 11), ("function", "enable a plugin", 13, 15)]
    assert explorer.get_function_at_line("test/plugins.bats", 14).code == '@test "enable a plugin" {\n  assert_enabled jump\n}'
    # a test is found by its title, bare or as written (ctags, which read the file before, knew no test)
    for title in ("enable a plugin", '@test "enable a plugin"', "'enable a plugin'"):
        found = explorer.find_definitions(title).definitions
        assert [(d.file, d.line, d.end_line, d.kind) for d in found] == [("test/plugins.bats", 13, 15, "function")]
    assert [d.name for d in explorer.find_definitions("enable a", match="prefix").definitions] == ["enable a plugin"]
    with pytest.raises(InvalidArgument) as refused:  # words that title nothing: what to send instead
        explorer.find_definitions("enable the plugin")
    assert "titled 'enable the plugin'" in str(refused.value) and "test's title" in (refused.value.hint or "")


def test_a_shell_dispatchers_subcommands_are_its_members(tmp_path: Path) -> None:
    """nvm's `nvm()` is one `case` over its subcommands, 1,500 lines: each branch is what `nvm install` runs, a
    function of the dispatcher in its outline and definitions (as in its chunks), and the function a line is in."""
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {"nvm.sh": (
        "nvm() {\n  local COMMAND=\"$1\"\n  case $COMMAND in\n    'help' | '--help')\n      echo usage\n    ;;\n"
        "    \"install\" | \"i\")\n      nvm_install \"$@\"\n    ;;\n    \"use\")\n      nvm_use \"$@\"\n    ;;\n"
        "    \"ls\" | \"list\")\n      nvm_ls\n    ;;\n    \"current\")\n      nvm_current\n    ;;\n    *)\n"
        "      nvm --help\n    ;;\n  esac\n}\n\nnvm_use() {\n  echo \"$1\"\n}\n")})
    (nvm, nvm_use) = explorer.get_symbols("nvm.sh").symbols
    assert [(s.kind, s.name, s.line, s.end_line) for s in nvm.children] == [
        ("function", "help", 4, 6), ("function", "install", 7, 9), ("function", "use", 10, 12),
        ("function", "ls", 13, 15), ("function", "current", 16, 18)]
    assert (nvm_use.name, nvm_use.children) == ("nvm_use", [])
    assert explorer.get_function_at_line("nvm.sh", 8).name == "install"
    found = explorer.find_definitions("nvm.install").definitions  # ctags, which reads .sh files, knows no branch
    assert [(d.file, d.line, d.scope) for d in found] == [("nvm.sh", 7, "nvm")]
    assert [d.line for d in explorer.find_definitions("nvm_use").definitions] == [25]


def test_the_definitions_of_a_script_without_a_suffix_come_from_its_interpreter_line(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {
        "bin/setup": "#!/usr/bin/env bash\nset -e\n\ninstall_deps() {\n  npm ci\n}\n\ninstall_deps\n",
        "bin/release": "#!/usr/bin/env python3\n\n\ndef publish(version):\n    return version\n",
        "LICENSE": "install_deps() is not code here\n",
    })
    found = explorer.find_definitions("install_deps", max_results=10).definitions
    assert [(d.file, d.line, d.language) for d in found] == [("bin/setup", 4, "bash")]
    found = explorer.find_definitions("publish", max_results=10).definitions
    assert [(d.file, d.line, d.language) for d in found] == [("bin/release", 4, "python")]
    outline = explorer.get_symbols("bin/setup")  # its outline, by the same line
    assert outline.language == "bash" and [(s.kind, s.name) for s in outline.symbols] == [("function", "install_deps")]


def test_lua_and_bash_files_have_outlines(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {
        "lua/lspconfig/util.lua": (
            "local M = {}\n\nlocal function escape(p)\n  return p\nend\n\nfunction M.root_pattern(...)\n  return ...\n"
            "end\n\nM.strip_archive_subpath = function(p)\n  return p\nend\n\nreturn M\n"),
        "lib/helpers.bash": "# Enables a plugin.\nfunction _enable-plugin() {\n  echo \"$1\"\n}\n\nreload() {\n  exec bash\n}\n",
    })
    lua = explorer.get_symbols("lua/lspconfig/util.lua").symbols
    # the module table's functions are its members, named without it (`function M.root_pattern` is root_pattern in M)
    assert [(s.kind, s.name, s.line, s.end_line) for s in lua] == [("variable", "M", 1, 1), ("function", "escape", 3, 5)]
    assert [(s.kind, s.name, s.line, s.end_line) for s in lua[0].children] == [
        ("function", "root_pattern", 7, 9), ("function", "strip_archive_subpath", 11, 13)]
    bash = explorer.get_symbols("lib/helpers.bash").symbols
    assert [(s.kind, s.name, s.line, s.end_line) for s in bash] == [
        ("function", "_enable-plugin", 2, 4), ("function", "reload", 6, 8)]


LUA_TYPES = """local Object = require("plenary.class")

---@class uv_pipe_t
---@field close function: Close the handle

--- Reads a pipe's output
---@class LinesPipe : BasePipe
---@field buffer string[]
local LinesPipe = Object:extend()
LinesPipe.__index = LinesPipe

function LinesPipe:read()
  return self.buffer
end

function LinesPipe.new()
  return setmetatable({}, LinesPipe)
end

function vim.pipe_helper()
end

---@class pipes.reader.opts
---@field limit integer

LinesPipe.filters = {
  prefix = function(items) return items end,
}

return LinesPipe
"""


LUA_RUNNER = """local M = { run = function() end }

---@class RunnerConfig
M.defaults = {
  timeout = 10,
}

function M.start(opts)
  local o = vim.tbl_extend("force", M.defaults, opts)
  M.run(o)
  o:validate()
end

return M
"""


def test_lua_types_declared_by_luals_annotations(tmp_path: Path) -> None:
    """A LuaLS `---@class` line declares a type: the table assigned below it (whose functions are its members), or
    the comment lines alone; find_definitions finds both by name, and tables of functions, as ctags could not."""
    from tests.explore.conftest import explorer_over

    explorer = explorer_over(tmp_path, {"lua/pipes.lua": LUA_TYPES,
                                        "lua/runner.lua": LUA_RUNNER})
    symbols = explorer.get_symbols("lua/pipes.lua").symbols
    assert [(s.kind, s.name, s.line, s.end_line) for s in symbols] == [
        ("variable", "Object", 1, 1), ("class", "uv_pipe_t", 3, 4), ("class", "LinesPipe", 9, 9),
        ("function", "vim.pipe_helper", 20, 21), ("class", "pipes.reader.opts", 23, 24)]
    pipe = symbols[2]
    assert [(s.kind, s.name, s.line) for s in pipe.children] == [
        ("variable", "__index", 10), ("method", "read", 12), ("function", "new", 16), ("class", "filters", 26)]
    # a table of functions is a class with its functions as members, as the chunker reads it
    assert [(s.kind, s.name, s.line, s.end_line) for s in pipe.children[-1].children] == [("function", "prefix", 27, 27)]
    assert pipe.children[-1].end_line == 28
    for name, line in (("LinesPipe", 9), ("uv_pipe_t", 3), ("opts", 23)):
        found = explorer.find_definitions(name).definitions
        assert [(d.file, d.line, d.kind) for d in found] == [("lua/pipes.lua", line, "class")], name
    # a table of functions is found as the class it is, once (ctags takes `local M = { run = function` for a function),
    # and its functions as its members (ctags tags them alone)
    for name, where in (("LinesPipe.filters", ("lua/pipes.lua", 26, 28, "class")), ("M", ("lua/runner.lua", 1, 1, "class")),
                        ("filters.prefix", ("lua/pipes.lua", 27, 27, "function"))):
        found = explorer.find_definitions(name).definitions
        assert [(d.file, d.line, d.end_line, d.kind) for d in found] == [where], name
    assert "prefix" not in {u.name for u in explorer.unused_answer("lua").unused}  # a member: never judged alone
    # a member table a `---@class` line names otherwise is that type, to the end of its statement, as it is a chunk
    (runner,) = explorer.get_symbols("lua/runner.lua").symbols
    assert [(s.kind, s.name, s.line, s.end_line) for s in runner.children] == [
        ("function", "run", 1, 1), ("class", "RunnerConfig", 4, 6), ("function", "start", 8, 12)]
    found = explorer.find_definitions("RunnerConfig").definitions  # a member, so never judged unused by its own name
    assert [(d.line, d.end_line, d.scope) for d in found] == [(4, 6, "M")]
    assert not explorer.unused_answer("lua/runner.lua").unused
    functions = explorer.analyze_structure("lua/runner.lua").functions  # with the calls they make, `o:validate()` too
    assert [(f.name, [c.name for c in f.calls]) for f in functions] == [
        ("run", []), ("start", ["tbl_extend", "run", "validate"])]
