"""The package installs as `code_intel` from the folder tools/: every subfolder must be listed in pyproject."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


# Folders outside tools/ that ship inside the package as data: what `init` writes (docs/install.md).
DATA_PACKAGES = {"code_intel.templates": "templates", "code_intel.skill": ".claude/commands"}


def test_every_package_folder_is_listed() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"code_intel": "tools", **DATA_PACKAGES}
    folders = {"code_intel"} | {
        "code_intel." + ".".join(init.parent.relative_to(REPO / "tools").parts)
        for init in (REPO / "tools").rglob("__init__.py") if init.parent != REPO / "tools"}
    assert set(setuptools["packages"]) == folders | set(DATA_PACKAGES)


def test_what_init_writes_is_found_in_the_checkout() -> None:
    from code_intel.context import skill
    from code_intel.core.project import SKILL_SOURCE, TEMPLATES_DIR

    assert TEMPLATES_DIR == REPO / "templates" and SKILL_SOURCE == REPO / ".claude" / "commands" / "code.md"
    assert skill.claude_command() == SKILL_SOURCE.read_bytes()
    assert not (REPO / "tools" / "templates").exists() and not (REPO / "tools" / "skill").exists()


def test_the_package_imports_under_its_installed_name() -> None:
    import code_intel
    import code_intel.cli.main

    assert Path(code_intel.__file__).resolve().parent == REPO / "tools"
    assert callable(code_intel.cli.main.main)
