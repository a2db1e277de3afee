"""`code-intel hook pre-tool-use`: may the agent's own Edit/Write/Bash call write what it wants to?

The decision is the server's: the same write rules `check_write_target` applies (READY only,
inside the project, explored files, ...), fed from the active session's checkpoint. Calls that
write nothing are let through, and so is everything when no session is active. An allowed write
is appended to the session's write log (tools/workflow/write_log.py). What the agent read is logged
after the call, from what the tool answered (tools/hooks/post_tool_use.py), never from what it asked.

Tools it reads:
- Claude Code `Edit`, `Write`, `MultiEdit` (`tool_input.file_path`), `NotebookEdit` (`notebook_path`);
- Codex `apply_patch` (`tool_input.command` holds the patch; its `*** Add/Update/Delete File:` and
  `*** Move to:` lines name the files);
- `Bash` in both clients (`tool_input.command`, read by code_intel/hooks/bash.py). A Bash write outside
  the project is none of code-intel's business and is let through; an Edit/Write outside it is not.
  During a session git is an allow-list (code_intel/hooks/git_policy.py): only reading subcommands pass.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from code_intel.core.project import ProjectRoot
from code_intel.explore.write_rules import evaluate_write
from code_intel.hooks.bash import BashWrites, Limits, write_targets
from code_intel.hooks.git_policy import INSTEAD
from code_intel.hooks.session import describe, find_session
from code_intel.workflow import write_log

EDIT_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
READ_TOOL = "Read"
PATCH_TOOL = "apply_patch"
SHELL_TOOL = "Bash"
_PATCH_FILE = re.compile(r"^\s*\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)
KEY_REFUSED = ("it names code-intel's key folder, which authenticates the session's saved state: no tool of the "
               "agent reads it")


class HookDecision(NamedTuple):
    allow: bool
    reason: str = ""
    files: tuple[str, ...] = ()  # project-relative files an allowed call writes


class Request(NamedTuple):
    """The files one tool call writes: `strict` targets outside the project are refused, others ignored."""

    tool: str
    writes: BashWrites
    strict: bool
    command: str | None = None


def _absolute(path: str, cwd: Path) -> Path:
    expanded = Path(os.path.expanduser(path))
    return expanded if expanded.is_absolute() else cwd / expanded


def read_request(event: dict[str, Any], root: ProjectRoot) -> Request | None:
    """What the call would write, or None for a tool this hook does not judge."""
    tool = event.get("tool_name")
    tool_input = event.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    cwd_text = event.get("cwd")
    cwd = Path(cwd_text) if isinstance(cwd_text, str) and os.path.isabs(cwd_text) else root.path
    if tool in EDIT_TOOLS:
        path = tool_input.get(EDIT_TOOLS[tool]) or tool_input.get("file_path")
        if not isinstance(path, str) or not path.strip():
            return Request(tool, BashWrites(unknown=[f"{tool} without a file path"]), strict=True)
        return Request(tool, BashWrites(files=[_absolute(path, cwd)]), strict=True)
    if tool == READ_TOOL:
        path = tool_input.get("file_path")
        named = isinstance(path, str) and _names_key_dir(str(_absolute(path, cwd)))
        return Request(tool, BashWrites(refused=[KEY_REFUSED]), strict=False) if named else None
    if tool == PATCH_TOOL:
        patch = next((v for k in ("command", "patch", "input") if isinstance(v := tool_input.get(k), str)), "")
        names = _PATCH_FILE.findall(patch)
        if not names:
            return Request(tool, BashWrites(unknown=["a patch naming no file"]), strict=True)
        return Request(tool, BashWrites(files=[_absolute(n, cwd) for n in names]), strict=True)
    if tool == SHELL_TOOL:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return Request(tool, BashWrites(unknown=["a shell call without a command string"]), strict=False)
        writes = write_targets(command, cwd, Limits(root.path))
        if _names_key_dir(command):
            writes.refused.append(KEY_REFUSED)
        return Request(tool, writes, strict=False, command=command)
    return None


def _names_key_dir(text: str) -> bool:
    from code_intel.workflow.seal import key_dir

    return str(key_dir()) in text or "code-intel/keys" in text


def decide(event: dict[str, Any], root: ProjectRoot) -> HookDecision:
    """Allow or deny one tool call; raises CheckpointCorrupt when a write meets an unreadable checkpoint."""
    request = read_request(event, root)
    if request is None or not request.writes.any:
        return HookDecision(allow=True)
    session = find_session(root)
    if session is None:
        return HookDecision(allow=True)
    in_ready = session.phase == "READY"
    problems: list[str] = [f"{problem}: {INSTEAD}" for problem in request.writes.git]
    problems += request.writes.refused
    for form in request.writes.unknown:
        problems.append(f"cannot tell which file `{form}` writes: name the file literally (or use Edit/Write) "
                        "so the write rules can check it")
    allowed: list[str] = []
    for path in request.writes.files:
        if not request.strict and not root.contains(path):
            continue  # a shell write outside the project (a temp file, /dev/null) is not ours to judge
        decision = evaluate_write(root, str(path), in_ready=in_ready, explored=set(session.explored_files),
                                  relaxed=session.relaxed)
        if decision.allowed:
            allowed.append(decision.file)
        else:
            problems.append(decision.reason)
    if problems:
        unique = list(dict.fromkeys(problems))
        where = f"The code-intel session {session.session_id} is in {describe(session)}"
        next_step = ("" if in_ready else
                     ": continue it with submit_phase; get_session_status repeats the instruction and expected payload")
        # no closing period: Codex appends ". Command: ..." to the reason it hands the model
        return HookDecision(allow=False, reason=f"code-intel blocked this {request.tool} call: " + "; ".join(unique)
                            + f". {where}{next_step}")
    if allowed:
        files = list(dict.fromkeys(allowed))
        write_log.append(session.file.parent, write_log.LogEntry(
            session_id=session.session_id, phase=session.phase, step=session.step, tool=request.tool,
            files=tuple(files), command=request.command))
        return HookDecision(allow=True, files=tuple(files))
    return HookDecision(allow=True)
