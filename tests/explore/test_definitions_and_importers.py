"""Definitions that are there and importers to rely on (issue #40): functions nested in JS wrapper functions, ctags'
misreads of `??`, files ctags gives up on, imports resolved as the language resolves them, importers never taken
from comments or npm packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.explore import definitions as definitions_module
from code_intel.explore.ctags import Tag, tag_to_definition
from code_intel.explore.impact import analyze_impact
from code_intel.explore.resolve import import_targets
from tests.explore.conftest import explorer_over
from tests.index.test_chunker import PHP_LEVEL

WRAPPED = """;(function() {
  var VERSION = '1.0';
  var runInContext = (function runInContext(context) {
    function map(collection, iteratee) {
      return collection;
    }
    var helper = function(x) { return x; };
    var merge = createAssigner(function(object) { var local = 1; return local; });
    return map;
  });
  var made = (function() {
    function inner() { return 1; }
    return inner;
  }());
}.call(this));
"""


def test_functions_inside_wrapper_functions_are_in_the_outline(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, {"lib/wrapped.js": WRAPPED})
    symbols = {s.name: s for s in explorer.get_symbols("lib/wrapped.js").symbols}
    wrapper = symbols["runInContext"]
    assert wrapper.kind == "function"
    # a module pattern: its body's functions and variables are the module's definitions, not a function's locals
    assert [(c.name, c.line) for c in wrapper.children] == [("map", 4), ("helper", 7), ("merge", 8)]
    assert [(c.name, c.kind) for c in symbols["made"].children] == [("inner", "function")]  # an IIFE's value
    assert symbols["made"].kind == "variable"


def test_a_variable_bound_to_a_call_inside_a_wrapper_is_a_definition(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """lodash's `var merge = createAssigner(...)` inside runInContext, in a file ctags gives up on."""
    body = "".join(f"    function fn{i}(x) {{\n      return x + {i};\n    }}\n" for i in range(3000))
    source = (";(function() {\n  var runInContext = (function runInContext(context) {\n" + body +
              "    var merge = createAssigner(function(object) { var local = 1; return local; });\n"
              "    return merge;\n  });\n}.call(this));\n")
    explorer = explorer_over(tmp_path, {"big.js": source})
    real = definitions_module.run_ctags
    monkeypatch.setattr(definitions_module, "run_ctags",
                        lambda cwd, files, timeout=120.0: [t for t in real(cwd, files, timeout) if t.line < 1000])
    assert [(d.file, d.line) for d in explorer.find_definitions("merge").definitions] == [("big.js", 3 + 3 * 3000)]
    assert explorer.find_definitions("local").definitions == []  # a local of a function inside it is not


COMMONJS = """var etag = require('etag');

exports.etag = createETagGenerator({ weak: false });
exports.query = require('./middleware/query');

exports.compileETag = function(val) {
  var fn;
  if (typeof val === 'function') {
    return val;
  }
  return fn;
};

app.handle = function handle(req, res) {
  var router = this._router;
  return router;
};

other = function() { var local = 1; return local; };
"""


def test_commonjs_exports_and_functions_set_on_objects_are_in_the_outline(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, {"lib/utils.js": COMMONJS})
    outline = [(s.name, s.kind, s.line, s.end_line) for s in explorer.get_symbols("lib/utils.js").symbols]
    # a module's public names and its functions, and never the locals of those functions
    assert outline == [("etag", "variable", 1, 1), ("etag", "variable", 3, 3), ("query", "variable", 4, 4),
                       ("compileETag", "function", 6, 12), ("handle", "function", 14, 17),
                       ("other", "function", 19, 19)]


def test_a_nullish_or_optional_use_is_not_a_definition() -> None:
    def tag(line: str, name: str = "foo") -> dict[str, object]:
        return {"_type": "tag", "name": name, "path": "a.ts", "line": 3, "kind": "constant",
                "pattern": f"/^{line}$/", "language": "TypeScript"}

    for line in ("const b = a ?? foo(2);", "const d = a?.foo(4);", "const f = foo?.(5);", "let e = x! + foo;"):
        assert tag_to_definition(tag(line)) is None, line
    for line in ("const foo = 1;", "const a = 1, foo = 2;", "const {x = 1, foo} = o;", "export const foo = (x) => x;"):
        assert tag_to_definition(tag(line)) is not None, line


def test_references_mark_no_definition_at_a_nullish_use(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, {"a.ts": "function foo(x: number) { return x; }\nconst a = null;\n"
                                                "const b = a ?? foo(2);\nconst c = a || foo(3);\n"})
    found = explorer.find_references("foo", max_results=50)
    assert {(r.line, r.is_definition) for r in found.references} == {(1, True), (3, False), (4, False)}


def test_a_large_file_ctags_gives_up_on_gets_its_definitions_from_the_syntax_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "".join(f"  function fn{i}(x) {{\n    return x + {i};\n  }}\n" for i in range(3000))
    explorer = explorer_over(tmp_path, {"big.js": ";(function() {\n" + body + "}.call(this));\n"})
    real = definitions_module.run_ctags

    def stops_early(cwd: Path, files: list[str], timeout: float = 120.0) -> list[Tag]:
        return [t for t in real(cwd, files, timeout) if t.line < 1000]  # what ctags does with lodash.js

    monkeypatch.setattr(definitions_module, "run_ctags", stops_early)
    found = explorer.find_definitions("fn2999")
    assert [(d.file, d.line) for d in found.definitions] == [("big.js", 2 + 3 * 2999)]


def test_imports_resolve_to_project_files_as_the_language_does(tmp_path: Path) -> None:
    files = {
        "src/pkg/__init__.py": "from . import core\n",
        "src/pkg/core.py": "from .util import x\nfrom ..other import y\nimport os\nfrom pkg.util import z\n",
        "src/pkg/util.py": "x = z = 1\n",
        "web/app.ts": "import ignore from 'ignore';\nimport { a } from './lib/a';\nimport b from '@/b';\n"
                      "const c = require('./c.js');\nimport * as idx from './lib';\n",
        "web/lib/a.ts": "export const a = 1;\n",
        "web/lib/index.ts": "export {};\n",
        "web/c.js": "module.exports = 1;\n",
        "src/b.ts": "export default 1;\n",
        "src/utils/ignore.ts": "export const ignore = 1;\n",
        "go.mod": "module example.com/proj\n",
        "internal/db/db.go": "package db\n",
    }
    explorer = explorer_over(tmp_path, files)
    root = explorer.root.path
    assert import_targets(root, "src/pkg/__init__.py", "python", ".", ["core"]) == ["src/pkg/core.py"]
    assert import_targets(root, "src/pkg/core.py", "python", ".util", ["x"]) == ["src/pkg/util.py"]
    assert import_targets(root, "src/pkg/core.py", "python", "pkg.util", ["z"]) == ["src/pkg/util.py"]
    assert import_targets(root, "src/pkg/core.py", "python", "os", ["os"]) == []
    assert import_targets(root, "web/app.ts", "typescript", "ignore", []) == []  # an npm package
    assert import_targets(root, "x.go", "go", "example.com/proj/internal/db", []) == ["internal/db"]
    structure = explorer.analyze_structure("web/app.ts")
    assert {i.module: i.targets for i in structure.imports} == {
        "ignore": None, "./lib/a": ["web/lib/a.ts"], "@/b": ["src/b.ts"], "./c.js": ["web/c.js"],
        "./lib": ["web/lib/index.ts"]}


def test_importers_come_from_code_not_comments_nor_npm_packages(tmp_path: Path) -> None:
    files = {
        "src/utils/ignore.ts": "export function ignoreFilter() { return 1; }\n",
        "src/indexer.ts": "import { ignoreFilter } from './utils/ignore';\nignoreFilter();\n",
        "src/watcher.ts": "import ignore from 'ignore';\nignore();\n",
        "lib/express.js": "/**\n * Example:\n *   var app = require('./application')\n */\nmodule.exports = 1;\n",
        "lib/application.js": "exports.init = function init() {};\n",
        "lib/router.js": "var app = require('./application');\n",
        "pkg/core.py": "def alpha():\n    return 1\n",
        "pkg/doc.py": '"""Usage:\n\nfrom pkg.core import alpha\n"""\n',
        "pkg/user.py": "from pkg.core import alpha\n",
    }
    explorer = explorer_over(tmp_path, files)
    ts = analyze_impact(explorer, ["src/utils/ignore.ts"], None)
    assert [i.file for i in ts.importers] == ["src/indexer.ts"]
    js = analyze_impact(explorer, ["lib/application.js"], None)
    assert [i.file for i in js.importers] == ["lib/router.js"]
    py = analyze_impact(explorer, ["pkg/core.py"], None)
    assert [i.file for i in py.importers] == ["pkg/user.py"]


def test_structure_parts_and_budget(tmp_path: Path) -> None:
    source = "import os\n" + "".join(f"def f{i}(x):\n    return os.path.join(x, 'a')\n\n" for i in range(400))
    explorer = explorer_over(tmp_path, {"m.py": source})
    only = explorer.structure_answer("m.py", parts=["imports"])
    assert [i.module for i in only.imports] == ["os"] and only.functions == [] and only.next_offset is None
    first = explorer.structure_answer("m.py")
    assert first.functions and first.next_offset == len(first.functions) and first.left_out
    rest = explorer.structure_answer("m.py", offset=first.next_offset)
    assert rest.functions[0].name == f"f{len(first.functions)}"


PHP_LOGGER = """<?php

namespace Monolog;

use Monolog\\Level;

#[\\Attribute]
class Logger implements LoggerInterface
{
    public function log(Level $level): void
    {
    }
}
"""


def test_php_enums_are_definitions_and_imports_are_not(tmp_path: Path) -> None:
    """monolog: ctags 5.9 knows no PHP enum, so `enum Level` was no definition and `Level.fromName` found nothing,
    while each `use Monolog\\Level;` line of 60 files was a definition named Level."""
    explorer = explorer_over(tmp_path, {"src/Level.php": PHP_LEVEL, "src/Logger.php": PHP_LOGGER})
    found = explorer.find_definitions("Level").definitions
    assert [(d.file, d.line, d.kind) for d in found] == [("src/Level.php", 10, "enum")]
    assert [(d.file, d.line) for d in explorer.find_definitions("Level.fromName").definitions] == [
        ("src/Level.php", 17)]  # the tree's method starts at its attribute
    assert [d.line for d in explorer.find_definitions("VALUES").definitions] == [23]  # a constant ctags alone gives
    assert explorer.find_definitions("LogLevel").definitions == []
    # a file whose types ctags reads keeps ctags' tags, with the bases ctags records
    assert [(d.file, d.line, d.kind) for d in explorer.find_definitions("Logger").definitions] == [
        ("src/Logger.php", 8, "class")]
    assert [d.line for d in explorer.find_definitions("Logger.log").definitions] == [10]
    assert explorer.definition_index.ancestors("Logger") == {"LoggerInterface"}


def test_a_c_function_written_inside_a_macro_call_is_found_by_its_own_name(tmp_path: Path) -> None:
    """libuv's `UV_UNUSED(static int uv__stat(...)) {`: ctags names the function after the macro."""
    source = ("#define UV_UNUSED(declaration) declaration\n"
              "UV_UNUSED(static int uv__stat(const char* path, int* s)) {\n  return *s;\n}\n"
              "static int plain(int x) {\n  return x;\n}\n")
    explorer = explorer_over(tmp_path, {"src/internal.h": source, "src/core.c": source})
    found = explorer.find_definitions("uv__stat")
    assert sorted((d.file, d.line, d.kind) for d in found.definitions) == [
        ("src/core.c", 2, "function"), ("src/internal.h", 2, "function")]
    assert all(d.signature and d.signature.startswith("uv__stat(") for d in found.definitions)
    assert [d.kind for d in explorer.find_definitions("UV_UNUSED").definitions] == ["macro", "macro"]
