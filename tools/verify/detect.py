"""Which check commands a project has: pytest (or unittest), npm/pnpm/yarn test, go test, cargo test, Maven,
Gradle, CMake's ctest, make.

`code-intel init` writes what this finds into `config.json` under `verify.commands` and says what it
found and why. Detection only reads files; it never runs anything. With one kind of project every
command is always relevant (`when` empty); when several kinds share a project, each command is
made relevant to its own kind's files so a change to the web client does not run the Go tests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from code_intel.verify.settings import VerifyCommand

NPM_DEFAULT_TEST = "no test specified"
_MAKE_TARGET = re.compile(r"^(test|check)\s*:(?!=)", re.MULTILINE)
_PYTHON_TEST_FILE = re.compile(r"^(?:test_.*|.*_test)\.py$")


@dataclass
class Detection:
    commands: list[VerifyCommand] = field(default_factory=list)
    found: list[str] = field(default_factory=list)  # "pytest (pyproject.toml [tool.pytest.ini_options])"
    notes: list[str] = field(default_factory=list)

    def report_lines(self) -> list[str]:
        if not self.commands:
            return ["verify.commands: no test command found (pytest, npm/pnpm/yarn test, go test, cargo test, "
                    "make test/check, mvn, gradle, ctest); the list is empty and POST_IMPL_VERIFY stays self-reported. "
                    "Add commands to .code-intel/config.json to have the server run them.", *self.notes]
        lines = [f"verify.commands: {c.name}: {c.shown()}  <- {why}" for c, why in zip(self.commands, self.found, strict=True)]
        return lines + self.notes


def _read(file: Path, limit: int = 1_000_000) -> str:
    try:
        if not file.is_file() or file.stat().st_size > limit:
            return ""
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _python(root: Path) -> str:
    for candidate in (".venv/bin/python", "venv/bin/python"):
        if (root / candidate).is_file():
            return candidate
    return "python3"


def _interpreter(root: Path, python: str) -> tuple[list[str], str]:
    """How to start the project's Python, and why when not plainly: its virtualenv's python when the project holds
    one; `poetry run python` or `pipenv run python` when those manage it, since they keep the virtualenv outside
    the project (python3 from PATH would lack the project's dependencies); else python3."""
    if python != "python3":
        return [python], ""
    if (root / "poetry.lock").is_file() or "[tool.poetry]" in _read(root / "pyproject.toml"):
        return ["poetry", "run", "python"], "; through poetry, which keeps the virtualenv outside the project"
    if (root / "Pipfile").is_file():
        return ["pipenv", "run", "python"], "; through pipenv, which keeps the virtualenv outside the project"
    return [python], ""


def _venv_has_pytest(root: Path, python: str) -> bool | None:
    """Whether the project's virtualenv (the folder of `python`, `.venv/bin/python`) has pytest installed; None
    when that cannot be told from its files (no virtualenv, or no `lib/python*/site-packages` in it)."""
    if not python.endswith("/bin/python"):
        return None
    site = [p for p in sorted((root / python).parent.parent.glob("lib/python*/site-packages")) if p.is_dir()]
    if not site:
        return None
    return any((p / "pytest").is_dir() or (p / "_pytest").is_dir() or any(p.glob("pytest-*.dist-info")) for p in site)


_UNITTEST_STYLE = re.compile(r"^\s*(?:import unittest|from unittest\b)", re.MULTILINE)
_PYTEST_STYLE = re.compile(r"^\s*(?:import pytest|from pytest\b|from _pytest\b)", re.MULTILINE)


def _unittest_only(folder: Path) -> bool:
    """The test files under `folder` use unittest and none imports pytest (the first 200 read)."""
    files = [p for p in _limited_walk(folder, 200) if _PYTHON_TEST_FILE.match(p.name)]
    texts = [_read(p, 2_000_000) for p in files]
    return any(_UNITTEST_STYLE.search(t) for t in texts) and not any(_PYTEST_STYLE.search(t) for t in texts)


def _python_tests(root: Path, notes: list[str]) -> tuple[VerifyCommand, str, list[str]] | None:
    """pytest when the project shows it (its config, a conftest.py, test files); `python -m unittest` instead when
    only a tests folder shows it, its files are unittest's, and the project's virtualenv has no pytest to run them.
    A virtualenv without the pytest the project needs is told in `notes`."""
    reason = _pytest_reason(root)
    if reason is None:
        return None
    python = _python(root)
    venv = python.split("/")[0]
    globs = ["**/*.py", "*.toml", "*.cfg", "*.ini"]
    folder = reason.split("/")[0]
    has_pytest = _venv_has_pytest(root, python)
    if reason.endswith("with test_*.py files") and has_pytest is False and _unittest_only(root / folder):
        run = [python, "-m", "unittest"] if (root / folder / "__init__.py").is_file() else [
            python, "-m", "unittest", "discover", "-s", folder]
        return VerifyCommand(name="unittest", run=run), f"{reason} using unittest, and no pytest in {venv}", globs
    if has_pytest is False:
        notes.append(f"pytest is not installed in {venv}: install it there ({python} -m pip install pytest), or the "
                     "server's checks cannot run")
    start, why = _interpreter(root, python)
    return VerifyCommand(name="pytest", run=[*start, "-m", "pytest", "-q", "-p", "no:cacheprovider"]), reason + why, globs


def _pytest_reason(root: Path) -> str | None:
    if "[tool.pytest.ini_options]" in _read(root / "pyproject.toml"):
        return "pyproject.toml [tool.pytest.ini_options]"
    if (root / "pytest.ini").is_file():
        return "pytest.ini"
    if "[pytest]" in _read(root / "tox.ini"):
        return "tox.ini [pytest]"
    if "[tool:pytest]" in _read(root / "setup.cfg"):
        return "setup.cfg [tool:pytest]"
    if (root / "conftest.py").is_file():
        return "conftest.py"
    for folder in ("tests", "test"):
        base = root / folder
        if base.is_dir() and any(_PYTHON_TEST_FILE.match(p.name) for p in _limited_walk(base)):
            return f"{folder}/ with test_*.py files"
    return None


def _limited_walk(base: Path, limit: int = 2000) -> list[Path]:
    out: list[Path] = []
    for path in base.rglob("*.py"):
        out.append(path)
        if len(out) >= limit:
            break
    return out


def _package_manager(root: Path) -> str:
    if (root / "pnpm-lock.yaml").is_file():
        return "pnpm"
    if (root / "yarn.lock").is_file():
        return "yarn"
    return "npm"


def _npm_test(root: Path) -> tuple[str, str] | None:
    text = _read(root / "package.json")
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or not test.strip() or NPM_DEFAULT_TEST in test:
        return None
    return _package_manager(root), test


# ctest builds out of the tree, inside .code-intel/cache/ (which init lists in .gitignore): a build folder among
# the project's files would be changed files the session has to review at PRE_COMMIT.
CMAKE_BUILD_DIR = ".code-intel/cache/cmake-build"
_CMAKE_TESTS = re.compile(r"^\s*(?:enable_testing\s*\(|add_test\s*\(|include\s*\(\s*CTest\b)",
                          re.MULTILINE | re.IGNORECASE)


def _cmake_tests(root: Path) -> str | None:
    """Why the project's CMake build has tests (CMakeLists.txt with enable_testing(), add_test() or
    include(CTest), at the top or one folder down), or None."""
    if not (root / "CMakeLists.txt").is_file():
        return None
    for lists in [root / "CMakeLists.txt", *sorted(root.glob("*/CMakeLists.txt"))[:50]]:
        if _CMAKE_TESTS.search(_read(lists)):
            return f"{lists.relative_to(root)} (enable_testing / add_test)"
    return None


def _recipe(makefile: str, target: str, most: int = 3) -> str:
    """` (runs: a; b; c)`: the first commands of `target`'s recipe, for the note that tells the user what it does."""
    lines = makefile.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"{target}\s*:(?!=)", line)), None)
    if start is None:
        return ""
    commands = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            if line.strip() and not line.lstrip().startswith("#"):
                break
            continue
        command = line.strip().lstrip("@-+").strip()
        if command and not command.startswith("#"):
            commands.append(command if len(command) <= 60 else command[:57] + "...")
    if not commands:
        return ""
    more = f"; +{len(commands) - most} more" if len(commands) > most else ""
    return f" (runs: {'; '.join(commands[:most])}{more})"


def _build_tool_commands(root: Path) -> list[tuple[VerifyCommand, str, list[str]]]:
    """The test commands of the build tools whose files `root` holds: go, cargo, maven, gradle, cmake."""
    found: list[tuple[VerifyCommand, str, list[str]]] = []
    if (root / "go.mod").is_file():
        found.append((VerifyCommand(name="go test", run=["go", "test", "./..."], timeout_s=1200), "go.mod", ["**/*.go", "go.mod", "go.sum"]))
    if (root / "Cargo.toml").is_file():
        found.append((VerifyCommand(name="cargo test", run=["cargo", "test"], timeout_s=1800), "Cargo.toml", ["**/*.rs", "Cargo.toml", "Cargo.lock"]))
    if (root / "pom.xml").is_file():
        found.append((VerifyCommand(name="mvn test", run=["mvn", "-q", "test"], timeout_s=1800), "pom.xml", ["**/*.java", "**/*.kt", "pom.xml"]))
    gradle = next((n for n in ("build.gradle", "build.gradle.kts") if (root / n).is_file()), None)
    if gradle:
        runner = "./gradlew" if (root / "gradlew").is_file() else "gradle"
        found.append((VerifyCommand(name="gradle test", run=[runner, "test"], timeout_s=1800), gradle,
                      ["**/*.java", "**/*.kt", "**/*.gradle", "**/*.gradle.kts"]))
    cmake = _cmake_tests(root)
    if cmake:
        build = CMAKE_BUILD_DIR
        cmd = VerifyCommand(name="ctest", timeout_s=1800, run=(
            f"cmake -S . -B {build} && cmake --build {build} --parallel && cd {build} && ctest --output-on-failure"))
        found.append((cmd, cmake, ["**/*.c", "**/*.h", "**/*.cc", "**/*.cpp", "**/*.cxx", "**/*.hpp", "**/*.hh",
                                   "**/CMakeLists.txt", "**/*.cmake"]))
    return found


def _make_targets(root: Path, found: list[tuple[VerifyCommand, str, list[str]]], detection: Detection) -> None:
    """A Makefile's `test` or `check` target: the command when nothing else was found, else a note."""
    makefile = next((n for n in ("GNUmakefile", "makefile", "Makefile") if (root / n).is_file()), None)
    text = _read(root / makefile) if makefile else ""
    targets = _MAKE_TARGET.findall(text)
    for target in sorted(set(targets), key=("test", "check").index):
        runs = _recipe(text, target)
        if not found:
            found.append((VerifyCommand(name=f"make {target}", run=["make", target], timeout_s=1200), f"{makefile} target '{target}'", []))
        elif target == "test":
            detection.notes.append(f"{makefile} has a 'test' target{runs}; not added because {found[0][0].name} already "
                                   "runs the tests (add it to verify.commands if it checks more)")
        else:  # often the linters and type checkers the project's CI runs beside its tests
            detection.notes.append(f"{makefile} has a 'check' target{runs}; not added (add it to verify.commands to have "
                                   "the server run it too)")


def detect_commands(root: Path) -> Detection:
    """Inspect `root` and propose its check commands (nothing is run)."""
    found: list[tuple[VerifyCommand, str, list[str]]] = []  # command, why, its kind's globs
    detection = Detection()
    python_tests = _python_tests(root, detection.notes)
    if python_tests:
        found.append(python_tests)
    npm = _npm_test(root)
    if npm:
        manager, script = npm
        cmd = VerifyCommand(name=f"{manager} test", run=[manager, "test"])
        found.append((cmd, f"package.json scripts.test ({script[:60]})",
                      ["**/*.js", "**/*.jsx", "**/*.ts", "**/*.tsx", "**/*.mjs", "**/*.cjs", "**/*.vue", "**/*.svelte", "package.json"]))
    found += _build_tool_commands(root)
    _make_targets(root, found, detection)
    several = len(found) > 1
    for cmd, why, globs in found:
        if several:
            cmd.when = list(globs)
        detection.commands.append(cmd)
        detection.found.append(why)
    if several:
        detection.notes.append("several kinds of project found: each command runs when files of its kind changed (its `when` globs)")
    return detection
