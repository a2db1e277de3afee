"""Unused definitions (get_symbols unused=true): what nothing else names, with evidence, exports left out."""

from __future__ import annotations

from pathlib import Path

from tests.explore.conftest import explorer_over

FILES = {
    "package.json": '{"name": "p", "main": "index.js"}\n',
    "index.js": "module.exports = require('./lib/api');\n",
    "lib/api.js": "function publicThing() { return 1; }\nmodule.exports = { publicThing };\n",
    "lib/tools.js": "function usedHelper() { return 2; }\nfunction neverCalled() { return 3; }\n"
                    "exports.run = function run() { return usedHelper(); };\n",
    "src/app/__init__.py": "from .core import exported\n__all__ = ['listed_only']\n",
    "src/app/core.py": "def exported():\n    return 1\n\n\ndef listed_only():\n    return 2\n\n\n"
                       "def dead_code():\n    return 3\n\n\nclass Gone:\n    def method(self):\n        return 4\n\n\n"
                       "def called_in_tests():\n    return 5\n\n\ndef _private_dead():\n    return 6\n",
    "tests/test_core.py": "from app.core import called_in_tests\n\ndef test_it():\n    assert called_in_tests()\n",
    "docs/guide.md": "Call `configured_by_docs` from your settings.\n",
    "src/app/plugins.py": "def configured_by_docs():\n    return 7\n",
}


def test_unused_lists_what_nothing_names_with_evidence(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, FILES)
    found = explorer.unused_answer(".")
    names = {item.name: item for item in found.unused}
    # lib/tools.js is required by nobody: `run` is written twice (exports.run = function run) and counts as used
    assert set(names) == {"neverCalled", "dead_code", "Gone", "_private_dead"}
    assert names["dead_code"].file == "src/app/core.py" and names["dead_code"].line == 9
    assert "written 1 time in the project, defined 1" in names["dead_code"].evidence
    assert found.exported >= 2  # listed_only (__all__) and publicThing (the package's entry re-exports lib/api.js)
    assert found.total == 4 and found.next_offset is None


def test_unused_in_one_folder_and_on_a_library_with_nothing_dead(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, FILES)
    assert {i.name for i in explorer.unused_answer("lib").unused} == {"neverCalled"}
    assert explorer.unused_answer("src/app/plugins.py").unused == []  # named in a doc: reached from outside


def test_library_api_callbacks_and_decorated_functions_are_not_dead(tmp_path: Path) -> None:
    files = {**FILES, "pyproject.toml": "[project]\nname = 'app'\n",
             "src/app/cli.py": "import click\n\n@click.command()\ndef serve():\n    return 1\n",
             "lib/server.js": "function start(router) {\n  router.use('/', function mounted(req) { return req; });\n}\n"
                              "start(null);\n"}
    names = {item.name for item in explorer_over(tmp_path, files).unused_answer(".").unused}
    # a distributed package's public names are its API; only the private one is dead
    assert names == {"neverCalled", "_private_dead"}


def test_a_package_main_in_its_build_folder_is_traced_to_its_source(tmp_path: Path) -> None:
    """A VS Code extension's package.json names the compiled out/extension.js; its tsconfig.json (with comments,
    as tsconfig files have) maps out/ to src/, so src/extension.ts is the entry whose `deactivate` the editor
    calls: exported on purpose, not dead."""
    explorer = explorer_over(tmp_path, {
        "ext/package.json": '{"name": "ext", "main": "./out/extension.js"}\n',
        "ext/tsconfig.json": '{\n  // compiled into out/\n  "compilerOptions": {"outDir": "out", "rootDir": "src"}\n}\n',
        "ext/src/extension.ts": "export function activate(): void {}\n\nexport function deactivate(): void {}\n",
        "ext/src/helpers.ts": "export function neverCalled(): number {\n  return 1;\n}\n",
    })
    found = explorer.unused_answer(".")
    assert [u.name for u in found.unused] == ["neverCalled"]
    assert found.exported >= 2


def test_an_entry_file_makes_public_what_it_re_exports_not_what_it_imports(tmp_path: Path) -> None:
    """`export { Indexer } from` makes Indexer public, not the private functions beside it; `export * from` makes
    a whole file public; a command line's dynamic import of a module only uses it."""
    explorer = explorer_over(tmp_path, {
        "package.json": '{"name": "p", "main": "src/index.ts", "bin": {"p": "bin/cli.ts"}}\n',
        "src/index.ts": 'export { Indexer } from "./indexer.js";\nexport * from "./all.js";\n',
        "src/indexer.ts": "export class Indexer {}\n\nfunction hashFile(): string {\n  return '';\n}\n",
        "src/all.ts": "export function everything(): number {\n  return 1;\n}\n",
        "bin/cli.ts": 'const helpers = await import("../src/helpers.js");\nconsole.log(helpers);\n',
        "src/helpers.ts": "export function unusedHelper(): number {\n  return 2;\n}\n",
    })
    assert sorted(u.name for u in explorer.unused_answer(".").unused) == ["hashFile", "unusedHelper"]


def test_a_file_a_config_names_is_an_entry(tmp_path: Path) -> None:
    # mkdocs.yml's `hooks:` names scripts/hooks.py: mkdocs calls its functions by convention; a doc or code file
    # naming it does not count (only config files are read), so scripts/other.py's function stays dead
    files = {**FILES, "mkdocs.yml": "hooks:\n  - scripts/hooks.py\n", "scripts/hooks.py": "def on_page(page):\n    return page\n",
             "scripts/other.py": "def on_other(page):\n    return page\n", "notes.txt": "see scripts/other.py\n"}
    names = {item.name for item in explorer_over(tmp_path, files).unused_answer("scripts").unused}
    assert names == {"on_other"}
