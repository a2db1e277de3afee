"""Phase responses: what the agent sees after start_session, submit_phase and get_session_status.

The contract supplies instruction, expected_payload and resources; the session adds what only it
knows: the revert reason and task list at planning, the next task, the stale branches, and the
compaction_count protocol (echo it back; add one after losing context).

Decision: at SESSION_COMPLETE `call` is "record_outcome" and expected_payload is empty, since no
further submit is accepted.
"""

from __future__ import annotations

from typing import Any

from tools.project import ProjectRoot
from tools.workflow.contract import PhaseContract
from tools.workflow.phases import Phase
from tools.workflow.state import SessionState

COMPACTION_FIELD = "int (echo the compaction_count of the last response; add 1 if you lost that response to a context reset)"


def expand_resources(root: ProjectRoot, patterns: list[str]) -> list[str]:
    """Project-relative files the phase should read: existing files, globs expanded, missing ones left out."""
    found: list[str] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            matches = sorted(p for p in root.path.glob(pattern) if p.is_file())
            found.extend(root.relative(p) for p in matches)
        elif (root.path / pattern).is_file():
            found.append(pattern)
    return list(dict.fromkeys(found))


def instruction_for(state: SessionState, contract: PhaseContract) -> str:
    text = contract.instruction.strip()
    if state.phase is Phase.READY and state.ready_substep == "planning" and state.revert_reason:
        return state.board.revert_instruction(state.revert_reason) + "\n\n" + text
    if state.phase is Phase.READY and state.ready_substep == "implementation":
        task = state.board.next_pending()
        if task is not None:
            items = "; ".join(i.item for i in task.checklist)
            return f"Next task: {task.id}: {task.description} (checklist: {items}).\n\n{text}"
    if state.phase is Phase.BRANCH_INTERVENTION and state.git.stale_branches:
        return f"Stale branches: {', '.join(state.git.stale_branches)}.\n\n{text}"
    return text


def phase_response(root: ProjectRoot, state: SessionState, contract: PhaseContract) -> dict[str, Any]:
    complete = state.phase is Phase.SESSION_COMPLETE
    expected = dict(contract.expected_payload)
    if not complete:
        expected["compaction_count"] = COMPACTION_FIELD
    response: dict[str, Any] = {
        "success": True,
        "session_id": state.session_id,
        "phase": state.phase.value,
        "step": state.step,
        "instruction": instruction_for(state, contract),
        "expected_payload": expected,
        "call": "record_outcome" if complete else "submit_phase",
        "compaction_count": state.compaction_count,
    }
    resources = expand_resources(root, contract.resources)
    if resources:
        response["resources"] = resources
    return response


def refusal_fields(root: ProjectRoot, state: SessionState, contract: PhaseContract | None) -> dict[str, Any]:
    """What every refusal carries so the agent can retry the current phase."""
    fields: dict[str, Any] = {"session_id": state.session_id, "current_phase": state.phase.value, "step": state.step,
                              "call": "submit_phase", "compaction_count": state.compaction_count}
    if contract is not None:
        base = phase_response(root, state, contract)
        fields.update(instruction=base["instruction"], expected_payload=base["expected_payload"])
        if "resources" in base:
            fields["resources"] = base["resources"]
    return fields
