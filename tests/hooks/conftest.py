"""Hook tests run against real sessions: the workflow engine on a small project, with FakeGit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.hooks.pre_tool_use import HookDecision, decide
from code_intel.workflow.engine import WorkflowEngine
from tests.workflow.conftest import APP_CODE, Driver, FakeGit, make_engine

__all__ = ["APP_CODE"]


@pytest.fixture
def app_project(project_dir) -> ProjectRoot:  # type: ignore[no-untyped-def]
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
    (project_dir / "lib").mkdir()
    (project_dir / "lib" / "other.py").write_text("x = 1\n", encoding="utf-8")
    (project_dir / "README.md").write_text("# sample\n", encoding="utf-8")
    return ProjectRoot.from_args(project_dir)


@pytest.fixture
def engine(app_project: ProjectRoot) -> WorkflowEngine:
    eng = make_engine(app_project, FakeGit())
    yield eng  # type: ignore[misc]
    eng.close()


@pytest.fixture
def driver(engine: WorkflowEngine, app_project: ProjectRoot) -> Driver:
    return Driver(engine, engine.git, app_project)  # type: ignore[arg-type]


@pytest.fixture
def hook(app_project: ProjectRoot) -> Callable[..., HookDecision]:
    """`hook(tool, **tool_input)`: the pre-tool-use decision for one call, as the client would send it."""

    def ask(tool: str, **tool_input: Any) -> HookDecision:
        event = {"session_id": "client-1", "hook_event_name": "PreToolUse", "cwd": str(app_project.path),
                 "tool_name": tool, "tool_input": tool_input}
        return decide(event, app_project)

    return ask
