"""The docs name every module: docs/architecture.md the whole tree, docs/workflow.md tools/workflow/."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODULES = sorted(p for p in (REPO / "tools").rglob("*.py") if p.name != "__init__.py")


def _named(module: Path) -> tuple[str, str]:
    rel = module.relative_to(REPO / "tools").as_posix()
    if rel.startswith("workflow/"):
        return "docs/workflow.md", f"`{module.name}`"
    return "docs/architecture.md", f"`{rel}`"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_module_is_named_in_the_docs(module: Path) -> None:
    doc, name = _named(module)
    assert name in (REPO / doc).read_text(encoding="utf-8"), f"{doc} does not name {name}"


def test_the_server_module_is_named() -> None:
    assert "`code_intel_server.py`" in (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
