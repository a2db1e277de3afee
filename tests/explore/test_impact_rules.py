"""The pure rules of impact analysis: which files are tests or configs, and which import lines hit a file."""

from pathlib import Path

import pytest

from code_intel.explore.impact import is_config_file, is_test_file
from code_intel.explore.importers import Importer, importers_of, python_module_names
from code_intel.explore.imports import is_import_line
from code_intel.explore.resolve import jvm_class_of, rust_module_path
from tests.explore.conftest import explorer_over


def _importers(tmp_path: Path, files: dict[str, str], target: str) -> list[Importer]:
    """analyze_impact's importers of `target` in a project of `files` (the target written too when not given)."""
    files = {target: files.get(target, "\n"), **files}
    return importers_of(explorer_over(tmp_path, files), target, [])


def _imports(tmp_path: Path, importer: str, line: str, target: str, others: dict[str, str] | None = None) -> bool:
    return [i.file for i in _importers(tmp_path, {importer: line + "\n", **(others or {})}, target)] == [importer]


@pytest.mark.parametrize("path", [
    "tests/unit/helpers.py", "test_app.py", "pkg/app_test.py", "conftest.py", "server/handler_test.go",
    "web/util.test.ts", "web/Button.spec.jsx", "src/__tests__/x.js", "src/FooTest.java", "spec/user_spec.rb",
])
def test_test_files(path: str) -> None:
    assert is_test_file(path)


@pytest.mark.parametrize("path", ["src/testing_utils_impl.py", "src/contest.py", "src/latest.ts", "attest/x.py"])
def test_not_test_files(path: str) -> None:
    assert not is_test_file(path)


def test_config_files() -> None:
    assert all(is_config_file(p) for p in ["a/b.json", "c.yml", "pyproject.toml", "setup.cfg", ".env", ".env.local"])
    assert not any(is_config_file(p) for p in ["a.py", "README.md", "environment.ts"])


def test_import_lines() -> None:
    # a reference's line read alone by its file's grammar and the language's imports query
    for file, line in [("a.py", "from a import b"), ("a.py", "    import os"), ("a.ts", "import { x } from './y'"),
                       ("a.js", "const x = require('y')"), ("a.c", "#include <stdio.h>"), ("a.rs", "use crate::x;"),
                       ("a.ts", "export { a } from './b'"), ("a.js", "await import('./lazy')"),
                       ("a.rb", 'require_relative "helper"'), ("a.rs", "pub mod mock;"), ("a.php", "use App\\User;")]:
        assert is_import_line(line, file), line
    for file, line in [("a.py", "result = important(x)"), ("a.kt", "require(size >= 0) { \"size < 0\" }"),
                       ("a.rb", "require File.dirname(__FILE__) + '/helper'"), ("a.java", "package a.b;"),
                       ("a.md", "import os")]:
        assert not is_import_line(line, file), line  # a call, a computed path, a package, prose


def test_python_module_names() -> None:
    assert python_module_names("src/pkg/mod.py") == ["src.pkg.mod", "pkg.mod"]
    assert python_module_names("pkg/__init__.py") == []
    assert python_module_names("web/a.ts") == []


@pytest.mark.parametrize(("importer", "line", "named"), [
    ("x.py", "from pkg.mod import f", "pkg.mod"),
    ("x.py", "from pkg import mod", "pkg.mod"),
    ("x.py", "from pkg import (mod as m, other)", "pkg.mod"),
    ("x.py", "import pkg.mod as m", "pkg.mod"),
    ("x.py", "import os, pkg.mod", "pkg.mod"),
    ("x.py", "from src.pkg.mod import f", "src.pkg.mod"),
    ("x.py", "from pkg.modern import f", None),
    ("x.py", "from other.mod2 import f", None),
    ("src/pkg/y.py", "from .mod import f", ".mod"),
    ("src/pkg/y.py", "from . import mod", ".mod"),
    ("src/pkg/sub/z.py", "from ..mod import f", "..mod"),
    ("src/pkg/sub/z.py", "from .. import mod", "..mod"),
    ("src/pkg/sub/z.py", "from .mod import f", None),
])
def test_python_import_resolution(tmp_path: Path, importer: str, line: str, named: str | None) -> None:
    """Whether the line imports src/pkg/mod.py, and the module as the line names it."""
    found = _importers(tmp_path, {importer: line + "\n"}, "src/pkg/mod.py")
    assert [i.module for i in found] == ([named] if named else [])


@pytest.mark.parametrize(("importer", "line", "hits"), [
    ("web/main.ts", "import { a } from './util';", True),
    ("web/main.ts", "import { a } from './util.js';", True),
    ("web/pages/p.ts", "import u from '../util'", True),
    ("web/pages/p.ts", "import u from './util'", False),
    ("web/x.js", "const u = require(\"./util\")", True),
    ("src/x.ts", "import { a } from '@/web/util'", True),
    ("web/main.ts", "import { a } from './utility';", False),
])
def test_javascript_import_resolution(tmp_path: Path, importer: str, line: str, hits: bool) -> None:
    assert _imports(tmp_path, importer, line, "web/util.ts") is hits


def test_index_files_are_imported_by_their_folder(tmp_path: Path) -> None:
    assert _imports(tmp_path, "src/app.ts", "import { B } from './components'", "src/components/index.ts")


@pytest.mark.parametrize(("source", "hits"), [
    ('import (\n\t"github.com/me/proj/pkg/util"\n)', True),
    ('import u "github.com/me/proj/pkg/util"', True),
    ('import "github.com/me/proj/other/util"', False),
    ('import "fmt"\n\nfunc f() { fmt.Println("pkg/util") }', False),
])
def test_go_package_imports(tmp_path: Path, source: str, hits: bool) -> None:
    """Without a go.mod, an import path that ends with the package's folder names it."""
    assert _imports(tmp_path, "cmd/main.go", "package main\n\n" + source, "pkg/util/util.go") is hits


@pytest.mark.parametrize(("file", "path"), [
    ("src/lib.rs", []), ("src/main.rs", []), ("src/parse.rs", ["parse"]), ("src/a/b.rs", ["a", "b"]),
    ("src/a/mod.rs", ["a"]), ("crates/x/src/y.rs", ["y"]), ("tests/test_version.rs", []),
    ("tests/util/mod.rs", ["util"]), ("src/bin/tool.rs", []), ("src/bin/tool/x.rs", ["x"]), ("build.rs", None),
])
def test_rust_module_paths(file: str, path: list[str] | None) -> None:
    assert rust_module_path(file) == path


@pytest.mark.parametrize(("importer", "line", "target", "hits"), [
    ("src/lib.rs", "mod parse;", "src/parse.rs", True),
    ("src/lib.rs", "pub(crate) mod parse;", "src/parse.rs", True),
    ("src/other.rs", "mod parse;", "src/parse.rs", False),  # that one is src/other/parse.rs
    ("src/lib.rs", "pub use crate::parse::Error;", "src/parse.rs", True),
    ("src/lib.rs", "use crate::parser::Error;", "src/parse.rs", False),
    ("src/lib.rs", "use crate::{parse::{Error, Position}, eval};", "src/parse.rs", True),
    ("src/lib.rs", "use crate::parse::Error as ParseError;", "src/parse.rs", True),
    ("src/lib.rs", "use parse::Error;", "src/parse.rs", True),  # a name in scope at the crate root
    ("src/error.rs", "use super::parse;", "src/parse.rs", True),
    ("src/a/b.rs", "use super::super::parse::X;", "src/parse.rs", True),
    ("src/a/b.rs", "use super::parse::X;", "src/parse.rs", False),  # that is a::parse
    ("src/a/mod.rs", "mod b;", "src/a/b.rs", True),
    ("src/a/mod.rs", "use self::b::Thing;", "src/a/b.rs", True),
    ("tests/test_version.rs", "mod util;", "tests/util/mod.rs", True),
    ("src/x.rs", "use crate::util::X;", "tests/util/mod.rs", False),  # another crate
    ("crates/b/src/lib.rs", "mod parse;", "crates/a/src/parse.rs", False),
])
def test_rust_import_resolution(tmp_path: Path, importer: str, line: str, target: str, hits: bool) -> None:
    assert _imports(tmp_path, importer, line, target) is hits


def test_rust_importers_in_an_impact_report(tmp_path: Path) -> None:
    """A Rust module's importers: the `mod` that declares it and the `use` lines that take items from it, one of
    them a use tree spread over several lines."""
    from code_intel.explore.impact import analyze_impact
    from tests.explore.conftest import explorer_over

    files = {
        "src/lib.rs": "mod error;\nmod parse;\n\npub use crate::parse::Error;\n",
        "src/parse.rs": "pub struct Error;\n\npub fn parse_all() {}\n",
        "src/error.rs": "use crate::{\n    parse::{Error, parse_all},\n};\n\npub fn report(e: Error) {}\n",
        "src/eval.rs": "use crate::parser::Error;\n",
    }
    report = analyze_impact(explorer_over(tmp_path, files), ["src/parse.rs"], None)
    importers = sorted((i.file, i.line) for i in report.dependents if i.reason.startswith("imports"))
    assert importers == [("src/error.rs", 1), ("src/lib.rs", 2), ("src/lib.rs", 4)]
    assert {i.symbol for i in report.dependents if i.reason.startswith("imports")} == {"crate::parse"}


@pytest.mark.parametrize(("importer", "line", "hits"), [
    ("src/X.java", "import org.jsoup.nodes.Element;", True),
    ("src/X.java", "import static org.jsoup.nodes.Element.escape;", True),
    ("src/X.java", "import org.jsoup.nodes.Element.Inner;", True),  # a nested class
    ("src/X.kt", "import org.jsoup.nodes.Element", True),
    ("src/X.kt", "import org.jsoup.nodes.Element as E", True),
    ("src/X.java", "import org.jsoup.nodes.*;\nclass X { Element e; }", True),  # the package, and the class used
    ("src/X.java", "import org.jsoup.nodes.*;\nclass X { Node n; }", False),
    ("src/X.java", "import org.jsoup.nodes.Elements;", False),
    ("src/X.java", "import org.jsoup.select.Element;", False),
    ("src/X.java", "// import org.jsoup.nodes.Element;", False),
])
def test_jvm_import_resolution(tmp_path: Path, importer: str, line: str, hits: bool) -> None:
    target = "src/main/java/org/jsoup/nodes/Element.java"
    element = {target: "package org.jsoup.nodes;\n\npublic class Element {}\n"}
    assert _imports(tmp_path, importer, line, target, element) is hits


def test_jvm_class_of_a_file(tmp_path: Path) -> None:
    files = {"src/main/java/org/jsoup/nodes/Element.java": "/* c */\npackage org.jsoup.nodes;\n\npublic class Element {}\n",
             "X.kt": "package a.b\n\nclass X\n", "Plain.java": "class Plain {}\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert jvm_class_of(tmp_path, "src/main/java/org/jsoup/nodes/Element.java") == ("org.jsoup.nodes", "Element")
    assert jvm_class_of(tmp_path, "X.kt") == ("a.b", "X")
    assert jvm_class_of(tmp_path, "Plain.java") == ("", "Plain")


@pytest.mark.parametrize(("importer", "line", "target", "hits"), [
    ("src/a.c", '#include "util.h"', "src/util.h", True),
    ("src/a.c", '#include "util.h"', "lib/util.h", False),  # src/util.h is right beside it
    ("app/x.c", '#include "util.h"', "lib/util.h", True),  # found through an include directory
    ("app/x.c", "#include <foo/bar.h>", "include/foo/bar.h", True),
    ("app/x.c", "#include <bar.h>", "include/foo/bar.h", True),  # include/foo may be an include directory
    ("app/x.c", "#include <ar.h>", "include/foo/bar.h", False),
    ("src/a.c", '#include "../lib/util.h"', "lib/util.h", True),
    ("src/a.c", '  #  include "util.h" // why', "src/util.h", True),
    ("src/a.c", "#include <stdio.h>", "include/foo/bar.h", False),
])
def test_c_include_resolution(tmp_path: Path, importer: str, line: str, target: str, hits: bool) -> None:
    existing = {"src/util.h": "int f(void);\n", "lib/util.h": "int g(void);\n", "include/foo/bar.h": "int h(void);\n"}
    assert _imports(tmp_path, importer, line, target, existing) is hits


def test_java_and_c_importers_in_an_impact_report(tmp_path: Path) -> None:
    """Java: the class's importers, a wildcard import only where the class is named, and a Kotlin importer.
    C: the files that include the changed header, not those including a namesake beside them."""
    from code_intel.explore.impact import analyze_impact
    from tests.explore.conftest import explorer_over

    files = {
        "src/org/demo/nodes/Element.java": "package org.demo.nodes;\n\npublic class Element {}\n",
        "src/org/demo/Parser.java": "package org.demo;\n\nimport org.demo.nodes.Element;\n\nclass Parser {}\n",
        "src/org/demo/Walker.java": "package org.demo;\n\nimport org.demo.nodes.*;\n\nclass Walker { Element e; }\n",
        "src/org/demo/Other.java": "package org.demo;\n\nimport org.demo.nodes.*;\n\nclass Other { Node n; }\n",
        "src/org/demo/Use.kt": "package org.demo\n\nimport org.demo.nodes.Element\n\nfun f(e: Element) = e\n",
        "lib/util.h": "int twice(int x);\n",
        "lib/util.c": '#include "util.h"\nint twice(int x) { return 2 * x; }\n',
        "app/main.c": '#include <stdio.h>\n#include "util.h"\nint main(void) { return twice(1); }\n',
        "vendor/util.h": "int other(void);\n",
        "vendor/v.c": '#include "util.h"\nint other(void) { return 0; }\n',
    }
    explorer = explorer_over(tmp_path, files)
    java = analyze_impact(explorer, ["src/org/demo/nodes/Element.java"], None)
    assert sorted(i.file for i in java.dependents if i.reason.startswith("imports")) == [
        "src/org/demo/Parser.java", "src/org/demo/Use.kt", "src/org/demo/Walker.java"]
    c = analyze_impact(explorer, ["lib/util.h"], None)
    assert sorted((i.file, i.line) for i in c.dependents + c.tests if i.reason == "imports lib/util.h") == [
        ("app/main.c", 2), ("lib/util.c", 1)]


@pytest.mark.parametrize(("text", "declares"), [
    ("CJSON_PUBLIC(double) cJSON_GetNumberValue(const cJSON * const item);", True),
    ("static const char *parse(int a, int b);", True),
    ("extern int parse(int);", True),
    ("std::vector<int>& parse(const std::string& s);", True),
    ("parse(x);", False), ("y = parse(x);", False), ("return parse(x);", False), ("int z = parse(x);", False),
    ("(void) parse(x);", False), ("obj.parse(x);", False), ("ptr->parse(x);", False), ("g(parse(x));", False),
    ("int parse(int x)", False),  # a definition's first line
])
def test_c_prototypes_are_told_from_calls(text: str, declares: bool) -> None:
    from code_intel.explore.impact import is_prototype

    name = "cJSON_GetNumberValue" if "cJSON" in text else "parse"
    assert is_prototype(name, text, "include/x.h") is declares
    assert not is_prototype(name, text, "x.py")


def test_a_c_functions_prototype_is_to_be_kept_in_step(tmp_path: Path) -> None:
    from code_intel.explore.impact import analyze_impact
    from tests.explore.conftest import explorer_over

    files = {"calc.h": "int twice(int x);\n", "calc.c": '#include "calc.h"\nint twice(int x) { return 2 * x; }\n',
             "main.c": '#include "calc.h"\nint main(void) { return twice(1); }\n'}
    report = analyze_impact(explorer_over(tmp_path, files), ["calc.c"], ["twice"])
    assert [(i.file, i.reason) for i in report.should_verify] == [
        ("calc.h", "declares twice (a prototype): keep it in step with the definition")]
    assert [(i.file, i.reason) for i in report.dependents] == [("main.c", "calls twice")]


def test_typescript_paths_and_base_url_from_tsconfig(tmp_path: Path) -> None:
    """tsconfig.json's `paths` and `baseUrl` (comments and trailing commas in it) resolve specifiers; a bare
    package name that names no file under baseUrl stays an npm package."""
    tsconfig = ('{\n  // paths\n  "compilerOptions": {\n    "baseUrl": "src",\n'
                '    "paths": { "@app/*": ["app/*"], "#settings": ["settings/index.ts"], },\n  },\n}\n')
    files = {"tsconfig.json": tsconfig, "src/app/util.ts": "export const u = 1;\n",
             "src/settings/index.ts": "export {};\n", "src/lib/ignore.ts": "export {};\n"}
    assert _imports(tmp_path, "web/main.ts", "import { u } from '@app/util';", "src/app/util.ts", files)
    assert _imports(tmp_path, "web/main.ts", "import c from '#settings';", "src/settings/index.ts", files)
    assert _imports(tmp_path, "web/main.ts", "import i from 'lib/ignore';", "src/lib/ignore.ts", files)  # baseUrl
    assert not _imports(tmp_path, "web/main.ts", "import i from 'ignore';", "src/lib/ignore.ts", files)


@pytest.mark.parametrize(("importer", "line", "hits"), [
    ("lib/app/cli.rb", "require_relative 'parser'", True),
    ("lib/app/cli.rb", "require_relative '../app/parser.rb'", True),
    ("bin/tool.rb", "require 'app/parser'", True),  # from lib/, the load path
    ("lib/app/cli.rb", "# require_relative 'parser'", False),
    ("lib/app/cli.rb", "require 'parser'", False),  # a gem of that name, not lib/app/parser.rb
])
def test_ruby_require_resolution(tmp_path: Path, importer: str, line: str, hits: bool) -> None:
    assert _imports(tmp_path, importer, line, "lib/app/parser.rb") is hits


@pytest.mark.parametrize(("importer", "line", "target", "hits"), [
    ("lua/lazy/core/loader.lua", 'local Util = require("lazy.core.util")', "lua/lazy/core/util.lua", True),
    ("plugin/lazy.lua", "local util = require 'lazy.core.util'", "lua/lazy/core/util.lua", True),
    ("lua/lazy/init.lua", "local function f()\n  return require('lazy.manage').install()\nend",
     "lua/lazy/manage/init.lua", True),  # a folder's init.lua, required inside a function
    ("src/main.lua", 'local p = require("app.parser")', "app/parser.lua", True),  # from the root
    ("lua/lazy/core/loader.lua", '-- require("lazy.core.util")', "lua/lazy/core/util.lua", False),
    ("lua/lazy/core/loader.lua", 'local u = require("lazy." .. "core.util")', "lua/lazy/core/util.lua", False),
    ("lua/lazy/core/loader.lua", 'local u = require("other.util")', "lua/lazy/core/util.lua", False),
])
def test_lua_require_resolution(tmp_path: Path, importer: str, line: str, target: str, hits: bool) -> None:
    assert _imports(tmp_path, importer, line, target) is hits


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modules importers_of resolves, in order (resolving is its cost: a check of the disk per candidate path)."""
    from code_intel.explore import importers

    modules: list[str] = []
    real = importers.import_targets

    def counting(root: Path, file: str, language: str | None, module: str, *args: object, **kw: object) -> list[str]:
        modules.append(module)
        return real(root, file, language, module, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(importers, "import_targets", counting)
    return modules


def test_only_imports_that_may_name_the_file_are_resolved(tmp_path: Path, resolved: list[str]) -> None:
    """A file that imports the changed module among many others costs one resolution, not one per import (sympy's
    basic.py: 2,518 resolutions for 141 importers); a bare relative import may still name a package."""
    others = "".join(f"import pkg.other{i}\nfrom pkg.other{i} import thing\n" for i in range(20))
    files = {"pkg/__init__.py": "from .basic import Basic\n", "pkg/basic.py": "class Basic: ...\n",
             "app.py": others + "from pkg.basic import Basic\n"}
    assert [i.file for i in _importers(tmp_path, files, "pkg/basic.py")] == ["app.py", "pkg/__init__.py"]
    assert sorted(resolved) == [".basic", "pkg.basic"]
    resolved.clear()
    files = {"pkg/__init__.py": "helper = 1\n", "pkg/mod.py": "import pkg\nfrom . import helper\n"}
    assert [(i.file, i.line) for i in _importers(tmp_path / "rel", files, "pkg/__init__.py")] == [
        ("pkg/mod.py", 1), ("pkg/mod.py", 2)]


def test_one_tsconfig_reader_for_resolution_and_build_folders(tmp_path: Path) -> None:
    """baseUrl and paths (imports) and outDir and rootDir (unused's entry points) come from one reader, past comments
    and trailing commas; a file that is not there reads as empty."""
    from code_intel.explore.resolve import TsConfig, read_tsconfig

    (tmp_path / "tsconfig.json").write_text(
        '{\n  // build\n  "compilerOptions": {\n    "baseUrl": "./src", "outDir": "out", "rootDir": "src",\n'
        '    "paths": { "@app/*": ["app/*", "vendor/app/*"], },\n  },\n}\n', encoding="utf-8")
    assert read_tsconfig(tmp_path / "tsconfig.json") == TsConfig(
        base_url="src", paths=(("@app/*", ("app/*", "vendor/app/*")),), out_dir="out", root_dir="src")
    assert read_tsconfig(tmp_path / "missing" / "tsconfig.json") == TsConfig()


def test_a_python_package_is_resolved_only_where_an_import_ends_with_it(tmp_path: Path, resolved: list[str]) -> None:
    """`from pkg.core.add import f` names add.py, not core's `__init__.py`: it is not resolved for the package
    (sympy's core/__init__.py: 2,678 resolutions, most of them such submodule imports)."""
    files = {"pkg/core/__init__.py": "X = 1\n", "pkg/core/add.py": "def f(): ...\n",
             "app.py": "from pkg.core.add import f\nimport pkg.core.add\nfrom pkg.core import X\nimport pkg.core as c\n"}
    assert [i.line for i in _importers(tmp_path, files, "pkg/core/__init__.py")] == [3, 4]
    assert resolved == ["pkg.core", "pkg.core"]
