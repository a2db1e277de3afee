"""The enforcement catalogue's projects: a small git-less project with a session checkpoint in a chosen phase,
written the way the server writes it, so each attempt costs one hook decision and no workflow run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.hooks.pre_tool_use import HookDecision, decide
from code_intel.workflow.checkpoint import CheckpointStore
from code_intel.workflow.contract import ContractSource
from code_intel.workflow.flags import SessionFlags
from code_intel.workflow.phases import Phase
from code_intel.workflow.responses import phase_response
from code_intel.workflow.state import SessionState

APP = "def add(a, b):\n    total = a + b\n    return total\n"
SESSION_ID = "20261127_220000_c0de"
# where an attempt is made: before READY, in READY (src/app.py explored), after PRE_COMMIT
PHASES = {"early": Phase.EXPLORATION, "ready": Phase.READY, "late": Phase.QUALITY_REVIEW}


def make_project(folder: Path) -> ProjectRoot:
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text(APP, encoding="utf-8")
    (folder / "lib").mkdir()
    (folder / "lib" / "other.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "README.md").write_text("# sample\n", encoding="utf-8")
    (folder / ".code-intel").mkdir()
    (folder / ".code-intel" / "config.json").write_text('{"verify": {"commands": ["pytest -q"]}}', encoding="utf-8")
    return ProjectRoot(folder.resolve())


def start_session(root: ProjectRoot, phase: Phase, explored: tuple[str, ...] = ("src/app.py",)) -> None:
    store = CheckpointStore(root)
    for file in store.files():
        file.unlink()
    substep = "implementation" if phase is Phase.READY else None
    state = SessionState(session_id=SESSION_ID, intent="MODIFY", query="make add return an int",
                         flags=SessionFlags(), phase=phase, ready_substep=substep, explored_files=list(explored))
    response = phase_response(root, state, ContractSource(root).phase(state.contract_id))
    store.save(state, {}, {k: response[k] for k in ("phase", "step", "instruction", "expected_payload", "call")})


Ask = Callable[..., HookDecision]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ProjectRoot]]:
    """One project per phase of PHASES, shared by a module's attempts: a denied call changes nothing. Sealed with
    the key the tests' own fixture (tests/conftest.py) points every test at, set here before it runs."""
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODE_INTEL_KEY_DIR", str(tmp_path_factory.getbasetemp() / "code-intel-keys"))
        for where, phase in PHASES.items():
            out[where] = make_project(tmp_path_factory.mktemp(where) / "project")
            start_session(out[where], phase)
        yield out


@pytest.fixture
def ask(sessions: dict[str, ProjectRoot]) -> Callable[[str], Ask]:
    """`ask(phase)(tool, **tool_input)`: the PreToolUse decision for one call in a session at that phase."""

    def in_phase(where: str) -> Ask:
        project = sessions[where]

        def call(tool: str, **tool_input: Any) -> HookDecision:
            event = {"session_id": "client-1", "hook_event_name": "PreToolUse", "cwd": str(project.path),
                     "tool_name": tool, "tool_input": tool_input}
            return decide(event, project)

        return call

    return in_phase
