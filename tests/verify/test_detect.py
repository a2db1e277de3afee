"""Detection per project kind, from the files alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from code_intel.verify.detect import detect_commands
from tests.conftest import write_files


def _write(root: Path, rel: str, text: str = "") -> None:
    write_files(root, {rel: text})


def _runs(root: Path) -> list[list[str] | str]:
    return [c.run for c in detect_commands(root).commands]


def test_pytest_from_each_marker(tmp_path: Path) -> None:
    markers = {
        "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n",
        "pytest.ini": "[pytest]\n",
        "tox.ini": "[tox]\n[pytest]\n",
        "setup.cfg": "[tool:pytest]\n",
        "tests/test_app.py": "def test_x(): pass\n",
    }
    for index, (rel, text) in enumerate(markers.items()):
        root = tmp_path / str(index)
        _write(root, rel, text)
        detection = detect_commands(root)
        assert [c.name for c in detection.commands] == ["pytest"], rel
        assert detection.commands[0].run[1:3] == ["-m", "pytest"]
        assert detection.commands[0].when == []  # one kind of project: always relevant
        assert rel.split("/")[0] in detection.found[0]


def test_project_venv_python_is_used(tmp_path: Path) -> None:
    _write(tmp_path, "pytest.ini", "[pytest]\n")
    _write(tmp_path, ".venv/bin/python", "")
    assert detect_commands(tmp_path).commands[0].run[0] == ".venv/bin/python"


UNITTEST_FILE = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        self.assertTrue(True)\n"


def _venv(root: Path, *, pytest_installed: bool) -> None:
    _write(root, ".venv/bin/python", "")
    site = ".venv/lib/python3.11/site-packages"
    _write(root, f"{site}/pytest/__init__.py" if pytest_installed else f"{site}/six.py", "")


def test_unittest_when_the_venv_has_no_pytest_to_run_unittest_files(tmp_path: Path) -> None:
    """A project whose tests are unittest's and whose virtualenv has no pytest: `python -m pytest` could not even
    start, so the command is unittest's (discovery from the top when tests/ is a package, from tests/ when not)."""
    package = tmp_path / "package"
    _write(package, "tests/__init__.py")
    _write(package, "tests/test_more.py", UNITTEST_FILE)
    _venv(package, pytest_installed=False)
    detection = detect_commands(package)
    assert [(c.name, c.run) for c in detection.commands] == [("unittest", [".venv/bin/python", "-m", "unittest"])]
    assert detection.found == ["tests/ with test_*.py files using unittest, and no pytest in .venv"]
    folder = tmp_path / "folder"
    _write(folder, "tests/test_more.py", UNITTEST_FILE)
    _venv(folder, pytest_installed=False)
    assert _runs(folder) == [[".venv/bin/python", "-m", "unittest", "discover", "-s", "tests"]]


def test_pytest_stays_when_it_is_installed_configured_or_imported(tmp_path: Path) -> None:
    installed = tmp_path / "installed"
    _write(installed, "tests/test_more.py", UNITTEST_FILE)
    _venv(installed, pytest_installed=True)
    assert [c.name for c in detect_commands(installed).commands] == ["pytest"]
    no_venv = tmp_path / "no_venv"  # python3 from PATH: what it has installed is not read from files
    _write(no_venv, "tests/test_more.py", UNITTEST_FILE)
    assert [c.name for c in detect_commands(no_venv).commands] == ["pytest"]
    for name, files in {"configured": {"pytest.ini": "[pytest]\n", "tests/test_more.py": UNITTEST_FILE},
                        "imported": {"tests/test_more.py": "import pytest\n\n\ndef test_x():\n    assert True\n"}}.items():
        root = tmp_path / name
        write_files(root, files)
        _venv(root, pytest_installed=False)
        detection = detect_commands(root)
        assert [c.name for c in detection.commands] == ["pytest"], name
        assert detection.notes == ["pytest is not installed in .venv: install it there (.venv/bin/python -m pip "
                                   "install pytest), or the server's checks cannot run"], name


def test_poetry_and_pipenv_run_the_tests_in_their_own_virtualenv(tmp_path: Path) -> None:
    """poetry and pipenv keep the virtualenv outside the project: python3 from PATH would lack the project's
    dependencies, so the tests run through them; a virtualenv inside the project still wins."""
    cases = {"poetry-lock": {"poetry.lock": "", "pytest.ini": "[pytest]\n"},
             "poetry-pyproject": {"pyproject.toml": "[tool.poetry]\nname = 'x'\n[tool.pytest.ini_options]\n"},
             "pipenv": {"Pipfile": "[packages]\n", "tests/test_x.py": "def test_x():\n    pass\n"}}
    for name, files in cases.items():
        write_files(tmp_path / name, files)
    assert _runs(tmp_path / "poetry-lock") == [["poetry", "run", "python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]]
    assert _runs(tmp_path / "poetry-pyproject")[0][:3] == ["poetry", "run", "python"]
    detection = detect_commands(tmp_path / "pipenv")
    assert [c.run[:3] for c in detection.commands] == [["pipenv", "run", "python"]]
    assert detection.found == ["tests/ with test_*.py files; through pipenv, which keeps the virtualenv outside the project"]
    _write(tmp_path / "poetry-lock", ".venv/bin/python", "")  # virtualenvs.in-project
    assert _runs(tmp_path / "poetry-lock")[0][0] == ".venv/bin/python"


def test_pyproject_without_pytest_and_no_tests_is_nothing(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    detection = detect_commands(tmp_path)
    assert detection.commands == []
    assert "no test command found" in detection.report_lines()[0]


def test_package_managers_and_the_npm_placeholder_script(tmp_path: Path) -> None:
    for manager, lock in (("npm", None), ("pnpm", "pnpm-lock.yaml"), ("yarn", "yarn.lock")):
        root = tmp_path / manager
        _write(root, "package.json", json.dumps({"scripts": {"test": "vitest run"}}))
        if lock:
            _write(root, lock, "")
        assert _runs(root) == [[manager, "test"]]
    placeholder = tmp_path / "placeholder"
    _write(placeholder, "package.json", json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}))
    assert _runs(placeholder) == []


def test_go_cargo_maven_gradle(tmp_path: Path) -> None:
    cases = {
        "go.mod": ["go", "test", "./..."],
        "Cargo.toml": ["cargo", "test"],
        "pom.xml": ["mvn", "-q", "test"],
        "build.gradle": ["gradle", "test"],
    }
    for rel, run in cases.items():
        root = tmp_path / rel.replace(".", "_")
        _write(root, rel, "")
        assert _runs(root) == [run], rel
    wrapper = tmp_path / "wrapper"
    _write(wrapper, "build.gradle.kts", "")
    _write(wrapper, "gradlew", "")
    assert _runs(wrapper) == [["./gradlew", "test"]]


def test_make_only_when_nothing_else_runs_the_tests(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    _write(plain, "Makefile", "CC=cc\ncheck:\n\t./run-checks\n")
    assert _runs(plain) == [["make", "check"]]
    both = tmp_path / "both"
    _write(both, "Makefile", "test:\n\tpytest\n")
    _write(both, "pytest.ini", "[pytest]\n")
    detection = detect_commands(both)
    assert [c.name for c in detection.commands] == ["pytest"]
    assert any("Makefile has a 'test' target (runs: pytest)" in n for n in detection.notes)


def test_a_check_target_beside_the_tests_is_named_with_what_it_runs(tmp_path: Path) -> None:
    """more-itertools' Makefile: `test` runs unittest, `check` the linters and stubtest its CI runs. pytest runs
    the tests; the note names both targets and what `check` runs, so the user can add it."""
    _write(tmp_path, "tests/test_more.py", "def test_x():\n    pass\n")
    _write(tmp_path, "Makefile", ".PHONY: test\ntest:\n\tpython -m unittest -v ${tests}\n\n.PHONY: check\ncheck:\n"
           "\truff format --check .\n\t@ruff check more_itertools tests\n\t# types\n\tstubtest more_itertools.more\n"
           "\tmypy --strict more_itertools/and/a/path/long/enough/to/be/cut/short/in/the/note.py\n\ndocs:\n\tsphinx\n")
    detection = detect_commands(tmp_path)
    assert [c.name for c in detection.commands] == ["pytest"]
    assert detection.notes == [
        "Makefile has a 'test' target (runs: python -m unittest -v ${tests}); not added because pytest already runs "
        "the tests (add it to verify.commands if it checks more)",
        "Makefile has a 'check' target (runs: ruff format --check .; ruff check more_itertools tests; stubtest "
        "more_itertools.more; +1 more); not added (add it to verify.commands to have the server run it too)"]
    alone = tmp_path / "alone"
    _write(alone, "Makefile", "check:\n\t./lint\ntest:\n\t./run-tests\n")
    detection = detect_commands(alone)
    assert [c.run for c in detection.commands] == [["make", "test"]]
    assert detection.notes == ["Makefile has a 'check' target (runs: ./lint); not added (add it to verify.commands to "
                               "have the server run it too)"]


def test_several_kinds_get_their_own_globs(tmp_path: Path) -> None:
    _write(tmp_path, "pytest.ini", "[pytest]\n")
    _write(tmp_path, "web/../package.json", json.dumps({"scripts": {"test": "jest"}}))
    _write(tmp_path, "go.mod", "module x\n")
    detection = detect_commands(tmp_path)
    assert [c.name for c in detection.commands] == ["pytest", "npm test", "go test"]
    assert all(c.when for c in detection.commands)
    assert "**/*.go" in detection.commands[2].when


CMAKE_PROJECT = {
    "CMakeLists.txt": ("cmake_minimum_required(VERSION 3.10)\nproject(calc C)\nadd_library(calc calc.c)\n"
                       "enable_testing()\nadd_subdirectory(tests)\n"),
    "calc.c": "int sub(int a, int b) { return a + b; }\n",
    "tests/CMakeLists.txt": ("add_executable(sub_test sub_test.c)\ntarget_link_libraries(sub_test calc)\n"
                             "add_test(NAME sub_test COMMAND sub_test)\n"),
    "tests/sub_test.c": "int sub(int, int);\nint main(void) { return sub(3, 1) == 2 ? 0 : 1; }\n",
    "Makefile": "test:\n\t./run-tests\n",
}


def test_cmake_with_tests_runs_ctest_in_a_build_folder_outside_the_project_files(tmp_path: Path) -> None:
    """ctest wins over a Makefile's test target, and builds under .code-intel/cache/ (ignored by git), so the
    session does not see a build folder as changed files."""
    for rel, text in CMAKE_PROJECT.items():
        _write(tmp_path, rel, text)
    detection = detect_commands(tmp_path)
    assert [c.name for c in detection.commands] == ["ctest"]
    run = detection.commands[0].run
    assert isinstance(run, str) and "-B .code-intel/cache/cmake-build" in run and "ctest --output-on-failure" in run
    assert any("not added because ctest" in note for note in detection.notes)
    no_tests = tmp_path / "plain"
    _write(no_tests, "CMakeLists.txt", "project(x C)\nadd_library(x x.c)\n")
    _write(no_tests, "sub/CMakeLists.txt", "add_test(NAME t COMMAND t)\n")
    assert _runs(no_tests) == [detect_commands(tmp_path).commands[0].run]  # a test folder one level down counts
    _write(tmp_path / "nested", "lib/CMakeLists.txt", "enable_testing()\n")  # no CMakeLists.txt at the top
    assert _runs(tmp_path / "nested") == []


def test_the_detected_ctest_command_builds_and_runs_the_tests(tmp_path: Path) -> None:
    import shutil

    from code_intel.verify.runner import run_command

    if shutil.which("cmake") is None or shutil.which("cc") is None:
        pytest.skip("cmake or a C compiler is not installed on this machine")
    for rel, text in CMAKE_PROJECT.items():
        _write(tmp_path, rel, text)
    (command,) = detect_commands(tmp_path).commands
    outcome = run_command(command, tmp_path)
    assert outcome.verdict == "failed" and outcome.exit_code != 0, outcome.tail
    assert outcome.failing_tests == ["sub_test"] and (tmp_path / ".code-intel/cache/cmake-build").is_dir()
    top = {p.name for p in tmp_path.iterdir()}
    assert top == {*{rel.split("/")[0] for rel in CMAKE_PROJECT}, ".code-intel"}  # nothing built among the sources
    _write(tmp_path, "calc.c", "int sub(int a, int b) { return a - b; }\n")
    assert run_command(command, tmp_path).verdict == "passed"
