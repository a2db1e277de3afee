"""Phase responses: what the agent sees after start_session, submit_phase and get_session_status.

The contract supplies instruction, expected_payload and resources; the session adds what only it
knows: the revert reason and task list at planning, the next task, the stale branches, and the
compaction_count protocol (echo it back; add one after losing context; read phase_summaries), which
ends every instruction before SESSION_COMPLETE and is repeated in expected_payload's field.

Decision: at SESSION_COMPLETE `call` is "record_outcome", since no further submit is accepted, and
expected_payload describes that call's arguments (as a refusal with no session describes start_session's):
every answer says what to call and what to send.
"""

from __future__ import annotations

from typing import Any

from code_intel.core.limits import first_of
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import Phase
from code_intel.workflow.contract import PhaseContract
from code_intel.workflow.state import SessionState

FORCED_COMPLETION_WARNING = "Completing with unresolved quality issues"
FORCED_PHASES = (Phase.MERGE, Phase.SESSION_COMPLETE)  # where a forced completion is still told


def forced_completion(state: SessionState) -> str | None:
    """The warning of a session that QUALITY_REVIEW's limit forced on to MERGE, while it still applies."""
    if state.phase in FORCED_PHASES and state.unresolved_issues:
        return f"{FORCED_COMPLETION_WARNING}: {'; '.join(state.unresolved_issues)}"
    return None


COMPACTION_FIELD = "int (echo the compaction_count of the last response; add 1 if you lost that response to a context reset)"
# The v1.13 memo's client protocol, attached to every instruction (not only to expected_payload): an agent that
# kept nothing else after a compaction still reads the instruction it is given.
COMPACTION_PROTOCOL = (
    "Every submit_phase carries compaction_count: echo the value of the last submit_phase answer you can still "
    "see. If that answer is gone from your context (a compaction, a new conversation), send the last value you "
    "know plus 1, or 1 if you know none; go by whether you can see that answer, not by a 'continued from a "
    "previous conversation' note. An answer with phase_summaries holds the key points of the earlier phases: "
    "read them before you go on."
)


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


SKIPS_TOLD = (Phase.QUALITY_REVIEW, Phase.SESSION_COMPLETE)  # where skipped checklist items are put before the agent


def skipped_items(state: SessionState) -> list[dict[str, str]]:
    """The checklist items the session reported skipped, in task order."""
    return [{"task_id": t.id, "item": i.item, "reason": i.reason or ""}
            for t in state.board.tasks for i in t.checklist if i.status == "skipped"]


def skips_told(state: SessionState) -> str | None:
    """QUALITY_REVIEW and SESSION_COMPLETE: what was skipped, so a skip is judged and reported, not lost."""
    skips = skipped_items(state) if state.phase in SKIPS_TOLD else []
    if not skips:
        return None
    listed = first_of([f"{s['task_id']}: {s['item']!r} ({s['reason'].rstrip('.')})" for s in skips], "; ",
                    "; and {} more in skipped_items")
    nothing_done = not any(i.status == "done" for t in state.board.tasks for i in t.checklist)
    if state.phase is Phase.QUALITY_REVIEW:
        return (f"Checklist items reported skipped: {listed}. Judge each skip as part of whether the change does "
                "what was asked: a skip of something the request needs is an issue.")
    if nothing_done:
        return (f"Nothing was implemented: every checklist item was reported skipped ({listed}). Tell the user so, "
                "with the reasons; do not report the request as done.")
    return f"Checklist items reported skipped: {listed}. Tell the user which were skipped and why."


TESTS_TOLD = (Phase.PRE_COMMIT, Phase.QUALITY_REVIEW, Phase.SESSION_COMPLETE)  # where test edits are told


def tests_told(state: SessionState) -> str | None:
    """PRE_COMMIT, QUALITY_REVIEW and SESSION_COMPLETE: the tests the change removed, skipped, focused or rewrote,
    so that a passing run that no longer holds the code to them is judged and reported, not taken at its word."""
    if state.phase not in TESTS_TOLD or not state.test_edits:
        return None
    listed = first_of(state.test_edits, "; ", "; and {} more in test_edits")
    said = f"The change removes, switches off or rewrites tests that guard the code: {listed}."
    if state.phase is Phase.PRE_COMMIT:
        return (f"{said} Keep each only if the request asks for it (a rewritten test must still check what it checked, "
                "unless the request changes that behaviour); a test file put in discarded_files goes back to how it "
                "was at the start, with everything else in it.")
    if state.phase is Phase.QUALITY_REVIEW:
        return (f"{said} Judge each: a test removed, skipped, focused or rewritten without the request asking for it "
                "is an issue, since the checks no longer hold the code to it.")
    return f"{said} Tell the user which, since the passing checks no longer hold the code to them as they were."


def failures_told(state: SessionState) -> str | None:
    """SESSION_COMPLETE after checks that still fail, only in tests that failed the same way before the change."""
    if state.phase is not Phase.SESSION_COMPLETE or not state.excused_failures:
        return None
    shown = first_of(state.excused_failures, ", ", " and {} more")
    return (f"The project's checks still fail in tests that failed the same way before the change: {shown}. "
            "Tell the user: the change did not cause them, but the suite is not green.")


def instruction_for(state: SessionState, contract: PhaseContract) -> str:
    text = contract.instruction.strip()
    for told in (failures_told(state), tests_told(state), skips_told(state)):
        if told:
            text = f"{told}\n\n{text}"
    if state.phase is Phase.READY and state.ready_substep == "planning" and state.revert_reason:
        return state.board.revert_instruction(state.revert_reason) + "\n\n" + text
    if state.phase is Phase.READY and state.ready_substep == "implementation":
        task = state.board.next_pending()
        if task is not None:
            items = "; ".join(i.item for i in task.checklist)
            return f"Next task: {task.id}: {task.description} (checklist: {items}).\n\n{text}"
    if state.phase is Phase.BRANCH_INTERVENTION and state.git.stale_branches:
        return f"Stale branches: {', '.join(state.git.stale_branches)}.\n\n{text}"
    if forced_completion(state):
        return (f"Quality review found issues {state.counters.quality_revert_count} times, so the session goes on "
                f"without fixing them; tell the user which remain: {'; '.join(state.unresolved_issues)}.\n\n{text}")
    return text


def phase_response(root: ProjectRoot, state: SessionState, contract: PhaseContract) -> dict[str, Any]:
    complete = state.phase is Phase.SESSION_COMPLETE
    expected = dict(RECORD_OUTCOME_PAYLOAD) if complete else dict(contract.expected_payload)
    if not complete:
        expected["compaction_count"] = COMPACTION_FIELD
    instruction = instruction_for(state, contract)
    if not complete:
        instruction += "\n\n" + COMPACTION_PROTOCOL
    response: dict[str, Any] = {
        "success": True,
        "session_id": state.session_id,
        "phase": state.phase.value,
        "step": state.step,
        "instruction": instruction,
        "expected_payload": expected,
        "call": "record_outcome" if complete else "submit_phase",
        "compaction_count": state.compaction_count,
    }
    resources = expand_resources(root, contract.resources)
    if resources:
        response["resources"] = resources
    warning = forced_completion(state)
    if warning:
        response.update(forced_completion=True, warning=warning)
    if state.phase in SKIPS_TOLD and (skips := skipped_items(state)):
        response["skipped_items"] = skips
    if state.phase in TESTS_TOLD and state.test_edits:
        response["test_edits"] = list(state.test_edits)
    if failures := failures_told(state):
        response["verification_note"] = failures
    return response


# record_outcome's arguments (code_intel_server.record_outcome), the call SESSION_COMPLETE asks for
RECORD_OUTCOME_PAYLOAD = {
    "outcome": "success | failure (as the user confirmed it)",
    "phase_at_outcome": "str, optional (where it went wrong; default: this session's phase)",
    "analysis": "object, optional (what worked or failed, e.g. {'cause': ...})",
}
START_SESSION_PAYLOAD = {
    "intent": "IMPLEMENT | MODIFY | INVESTIGATE | QUESTION",
    "query": "str (the user's request, verbatim)",
    "flags": "list of str (options exactly as typed, e.g. ['--quick']; may be empty)",
}


# refusals with no session of this server's own, where start_session would only be refused the same way:
# error -> (what to call instead, the instruction)
NO_SESSION_REDIRECTS = {
    "session_active": ("get_session_status",
                       "Another code-intel process holds this project's session (the message names it), so this server "
                       "can neither continue it nor start another. Tell the user: finish that session in the client "
                       "running it, or stop that process. Once it has stopped, call get_session_status here: it takes "
                       "the session over from its checkpoint."),
    "checkpoint_corrupt": ("cleanup_stale_branches",
                           "A session checkpoint cannot be read (the message names the file), so no session can start "
                           "or resume until it is gone. Ask the user first, then delete that file or call "
                           "cleanup_stale_branches (it deletes every checkpoint and llm_task_* branch, reporting each "
                           "branch's head commit), and call start_session again."),
}


def no_session_fields(last_completed: str | None = None, error: str | None = None) -> dict[str, Any]:
    """The refusal fields when this server has no session: how to start one (or resume one after a restart); for
    a session another process holds, or a checkpoint that cannot be read, what to do instead (NO_SESSION_REDIRECTS)."""
    if error in NO_SESSION_REDIRECTS:
        call, instruction = NO_SESSION_REDIRECTS[error]
        return {"current_phase": None, "step": 0, "expected_payload": {}, "call": call, "instruction": instruction}
    done = f"Session {last_completed} is complete. " if last_completed else ""
    return {
        "current_phase": None,
        "step": 0,
        "instruction": done + "No session is active. Start one with start_session: intent IMPLEMENT or MODIFY "
        "to change code, INVESTIGATE or QUESTION to explore only, query the user's request verbatim, flags as "
        "typed. If a server restart interrupted a session, get_session_status restores it from its checkpoint.",
        "expected_payload": dict(START_SESSION_PAYLOAD),
        "call": "start_session",
    }


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
