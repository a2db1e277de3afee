"""One test per row of the v1.16 phase matrix: for every column, run a real session with that
column's intent/flag and check whether the row's step was visited.

Each run has stale branches (so step 2 can happen), answers every Q with true (so gated steps
can happen) and fails verification three times (so step 16 can happen)."""

from __future__ import annotations

from functools import cache

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.workflow.engine import WorkflowEngine
from code_intel.workflow.matrix import COLUMNS, MATRIX

COLUMN_START: dict[str, tuple[str, list[str]]] = {
    "impl": ("IMPLEMENT", []),
    "investigate": ("INVESTIGATE", []),
    "no_verify": ("IMPLEMENT", ["--no-verify"]),
    "no_quality": ("IMPLEMENT", ["--no-quality"]),
    "fast": ("IMPLEMENT", ["--fast"]),
    "quick": ("IMPLEMENT", ["--quick"]),
    "no_doc": ("IMPLEMENT", ["--no-doc-research"]),
    "ni": ("IMPLEMENT", ["-ni"]),
}

_visited: dict[str, set[int]] = {}


@pytest.fixture
def visited(tmp_path_factory, request):
    """Steps visited per column; each column's session runs once for the whole module."""
    driver_class = request.getfixturevalue("driver").__class__
    fake_class = request.getfixturevalue("fake_git").__class__
    if not _visited:
        for column, (intent, flags) in COLUMN_START.items():
            folder = tmp_path_factory.mktemp(f"matrix_{column}")
            (folder / "src").mkdir()
            (folder / "src" / "app.py").write_text("def add(a, b):\n    total = a + b\n    return total\n")
            root = ProjectRoot.from_args(folder)
            git = fake_class(stale=["llm_task_old_from_main"])
            engine = WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: Config())
            drv = driver_class(engine, git, root)
            drv.answers = {"Q1": True, "Q2": True, "Q3": True}
            drv.verify_results = [False, False, False]
            final = drv.run(drv.start(intent=intent, flags=flags), limit=120)
            assert final["phase"] == "SESSION_COMPLETE", (column, final)
            _visited[column] = {1, *drv.steps}
            engine.close()
    return _visited


@cache
def _row_ids() -> list[str]:
    return [f"step{row.step:02d}-{row.label}" for row in MATRIX]


@pytest.mark.parametrize("row", MATRIX, ids=_row_ids())
def test_matrix_row(row, visited):
    for column in COLUMNS:
        expected = row.allows(column)
        assert (row.step in visited[column]) is expected, (
            f"step {row.step} ({row.label}) under column {column}: expected {'run' if expected else 'skip'}"
        )


def test_matrix_has_every_step_of_the_table():
    assert [row.step for row in MATRIX] == list(range(1, 20))
