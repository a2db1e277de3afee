"""`code-intel hook session-start`: after a compaction or a resume, tell the model where the session stands.

The client runs it when a conversation starts again (installed for the `compact` and `resume`
sources). With an active session it answers the phase, step, instruction and expected payload the
server last gave (kept in the checkpoint's `status`) and the compaction_count to send next; the
client adds that text to the conversation. With no session it says nothing.
"""

from __future__ import annotations

import json
from typing import Any

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ProjectRoot
from code_intel.hooks.session import describe, find_session

LOAD_TOOLS = ("The code-intel tools may be deferred: in Claude Code load them first with ToolSearch "
              "`select:mcp__code-intel__get_session_status,mcp__code-intel__submit_phase`; in Codex find them with "
              "tool_search (namespace mcp__code_intel).")
MAX_INSTRUCTION_CHARS = 4000


def session_context(event: dict[str, Any], root: ProjectRoot) -> str | None:
    """The text to add to the conversation, or None when no session is active."""
    try:
        session = find_session(root)
    except CheckpointCorrupt as err:
        return (f"code-intel: a session checkpoint exists but cannot be read ({err.message}). Tell the user and ask "
                f"whether to discard it: {err.hint}. Until then the code-intel hooks refuse file writes.")
    if session is None:
        return None
    compacted = event.get("source") == "compact"
    count = session.compaction_count + 1 if compacted else session.compaction_count
    lines = [
        f"code-intel: session {session.session_id} is active, in {describe(session)}. Work continues through "
        "code-intel: do not edit files before READY, and leave each phase with submit_phase.",
    ]
    status = session.status
    if isinstance(status.get("instruction"), str):
        instruction = status["instruction"].strip()
        if len(instruction) > MAX_INSTRUCTION_CHARS:
            instruction = instruction[:MAX_INSTRUCTION_CHARS] + " [...] (get_session_status has the whole text)"
        lines.append(f"Instruction of this phase: {instruction}")
    if isinstance(status.get("expected_payload"), dict):
        lines.append("submit_phase expects: " + json.dumps(status["expected_payload"], ensure_ascii=False))
    if compacted:
        lines.append(f"Your context was compacted: send compaction_count {count} with your next submit_phase; the "
                     "server then returns the summaries of the earlier phases.")
    else:
        lines.append(f"Echo compaction_count {count} with your next submit_phase.")
    lines.append("If anything is unclear, call get_session_status first and follow its instruction. " + LOAD_TOOLS)
    return "\n".join(lines)
