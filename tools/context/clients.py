"""What `code-intel init` installs for each client: the skill, the hooks, the permission rule, Codex's MCP table.

Claude Code (always):
- `.claude/commands/code.md`, the `/code` skill;
- in `.claude/settings.json`: a PreToolUse hook group (`code-intel hook pre-tool-use`) for the tools
  that write, a SessionStart group (`code-intel hook session-start`) for the `compact` and `resume`
  sources, and `permissions.allow: ["mcp__code-intel"]` (every code-intel tool; without it each call
  asks, and `claude -p` refuses them) unless `--no-allow`.

Codex (`--codex`):
- `.agents/skills/code/SKILL.md` (front matter `name`, `description`), invoked as `$code`;
- `.codex/hooks.json` with the same two hook groups;
- `[mcp_servers.code-intel]` in `.codex/config.toml` with startup and tool timeouts and `required = true`
  when Codex trusts the project (Codex reads a project's `.codex/` only then); otherwise the
  `codex mcp add` command and those lines are printed for the user's own config. `required` makes
  Codex wait for the server before a thread's first model request: an optional server that is still
  starting is left out of that request, and a short `codex exec` turn then runs without code-intel.

One matcher serves both clients: Claude Code names its writing tools Edit/Write/MultiEdit/
NotebookEdit/Bash (and Read, whose files go to the session's read log), Codex calls the hook for
Bash and apply_patch (Edit and Write match apply_patch there too). Hook commands are absolute:
clients run them with the user's PATH, not the venv's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.context import skill
from code_intel.core.errors import ConfigError

if TYPE_CHECKING:
    from code_intel.context.installer import InstallContext, JsonEntry, PlannedWrite

CLAUDE_SETTINGS = ".claude/settings.json"
CODEX_HOOKS = ".codex/hooks.json"
CODEX_CONFIG = ".codex/config.toml"
TOOLS_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Read|Bash|apply_patch"
SHOWN_MATCHER = "Read|Bash"  # the tools whose answers can show a file's content
SESSION_START_MATCHER = "compact|resume"
HOOK_TIMEOUT_SECONDS = 10
PERMISSION_RULE = "mcp__code-intel"
CODEX_STARTUP_TIMEOUT_SEC = 20
CODEX_TOOL_TIMEOUT_SEC = 600  # sync_index on a large project can take minutes
# How a hook command of ours names code-intel: its console script, or the module (now, and before the rename)
LAUNCHER_NAMES = ("code-intel", "code_intel.cli", "tools.cli")
HOOK_EVENTS = {"PreToolUse": ("pre-tool-use", TOOLS_MATCHER), "PostToolUse": ("post-tool-use", SHOWN_MATCHER),
               "SessionStart": ("session-start", SESSION_START_MATCHER)}
# folders the agent's shell may not write, whatever the hook reads in a command: the OS sandbox keeps them read-only
SANDBOX_DENY_WRITE = (".git", ".code-intel")
CODEX_SANDBOX_MODE = "workspace-write"


# ----------------------------------------------------------------------------- skill files
def generated_files(ctx: InstallContext) -> dict[str, bytes]:
    """Project-relative path -> content of each skill file this install writes."""
    files = {skill.CLAUDE_PATH: skill.claude_command()}
    if ctx.options.codex:
        files[skill.CODEX_PATH] = skill.codex_skill()
    return files


# ----------------------------------------------------------------------------- hooks
def hook_command(ctx: InstallContext, event: str) -> str:
    """`/abs/bin/code-intel hook EVENT --project /abs/project`, quoted for the shell the client uses."""
    return " ".join(shlex.quote(part) for part in [*ctx.launcher, "hook", event, "--project", str(ctx.project)])


def is_our_hook_group(event: str) -> Callable[[Any], bool]:
    """True for a hook group whose command runs `... hook EVENT --project ...` of code-intel."""
    marker = f" hook {event} --project "

    def check(item: Any) -> bool:
        hooks = item.get("hooks") if isinstance(item, dict) else None
        return isinstance(hooks, list) and any(
            isinstance(h, dict) and isinstance(h.get("command"), str) and marker in h["command"]
            and any(name in h["command"] for name in LAUNCHER_NAMES) for h in hooks)

    return check


def hook_entries(ctx: InstallContext, *, every_client: bool = False) -> list[JsonEntry]:
    from code_intel.context.installer import JsonEntry

    files = [CLAUDE_SETTINGS] + ([CODEX_HOOKS] if ctx.options.codex or every_client else [])
    entries = []
    for file in files:
        for hook_event, (event, matcher) in HOOK_EVENTS.items():
            group = {"matcher": matcher,
                     "hooks": [{"type": "command", "command": hook_command(ctx, event), "timeout": HOOK_TIMEOUT_SECONDS}]}
            entries.append(JsonEntry(file=file, keys=("hooks", hook_event), value=group, item_id="code-intel",
                                     identifies=is_our_hook_group(event)))
    return entries


def _absolute_rule_path(path: Path) -> str:
    """Claude Code's absolute form for a settings path: `//` then the path without its leading slash."""
    return "//" + str(path).lstrip("/")


def sandbox_entries(ctx: InstallContext) -> list[JsonEntry]:
    """Claude Code's sandbox for the Bash tool: on, with the project's .git/ and .code-intel/ read-only to it, and
    code-intel's key folder unreadable to it and to the Read tool (which the sandbox does not cover)."""
    from code_intel.context.installer import JsonEntry
    from code_intel.workflow.seal import key_dir

    entries = [JsonEntry(file=CLAUDE_SETTINGS, keys=("sandbox", "enabled"), value=True)]

    def item(keys: tuple[str, ...], value: str) -> JsonEntry:
        return JsonEntry(file=CLAUDE_SETTINGS, keys=keys, value=value, item_id=value,
                         identifies=lambda existing: existing == value)

    for name in SANDBOX_DENY_WRITE:
        entries.append(item(("sandbox", "filesystem", "denyWrite"), _absolute_rule_path(ctx.project / name)))
    keys = _absolute_rule_path(key_dir().expanduser().absolute())
    entries.append(item(("sandbox", "filesystem", "denyRead"), keys))
    entries.append(item(("permissions", "deny"), f"Read({keys}/**)"))
    return entries


def json_entries(ctx: InstallContext) -> list[JsonEntry]:
    from code_intel.context.installer import JsonEntry

    entries = hook_entries(ctx) if ctx.options.hooks else []
    if ctx.options.sandbox:
        entries += sandbox_entries(ctx)
    if ctx.options.allow:
        entries.append(JsonEntry(file=CLAUDE_SETTINGS, keys=("permissions", "allow"), value=PERMISSION_RULE,
                                 item_id=PERMISSION_RULE, identifies=lambda item: item == PERMISSION_RULE))
    return entries


# ----------------------------------------------------------------------------- Codex MCP entry
def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def codex_trusts(project: Path) -> bool:
    """Does the user's Codex config mark this project (or a folder above it) trusted?"""
    try:
        config = tomllib.loads((codex_home() / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return False
    for folder in (project, *project.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


def _server_command(ctx: InstallContext) -> tuple[str, list[str]]:
    from code_intel.context.installer import mcp_server_entry

    value = mcp_server_entry(ctx).value
    return value["command"], list(value["args"])


def codex_table(ctx: InstallContext) -> str:
    command, args = _server_command(ctx)
    return ("[mcp_servers.code-intel]\n"
            f"command = {json.dumps(command)}\n"
            f"args = [{', '.join(json.dumps(a) for a in args)}]\n"
            f"startup_timeout_sec = {CODEX_STARTUP_TIMEOUT_SEC}\n"
            f"tool_timeout_sec = {CODEX_TOOL_TIMEOUT_SEC}\n"
            "required = true\n")


_OUR_TABLE = re.compile(r'^\[mcp_servers\.(?:code-intel|"code-intel")(?:\.[^\]]*)?\]\s*$')


def _table_span(lines: list[str]) -> tuple[int, int] | None:
    """Line range of [mcp_servers.code-intel] and its sub-tables, or None."""
    start = next((i for i, line in enumerate(lines) if _OUR_TABLE.match(line.strip())), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and not (lines[end].lstrip().startswith("[") and not _OUR_TABLE.match(lines[end].strip())):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # blank lines before the next table are not ours
    return start, end


def _with_sandbox_mode(ctx: InstallContext, text: str) -> str:
    """The config with a top-level `sandbox_mode` (workspace-write keeps .git/ and .codex/ read-only to the agent's
    shell), unless the user chose one: then theirs stays and a note says so."""
    current = tomllib.loads(text).get("sandbox_mode")
    if current is not None:
        if current != CODEX_SANDBOX_MODE:
            ctx.notes.append(f"Codex: {CODEX_CONFIG} sets sandbox_mode = {json.dumps(current)}; code-intel suggests "
                             f'"{CODEX_SANDBOX_MODE}" (.git/ read-only to the agent\'s shell) and left yours as it is.')
        return text
    return f'sandbox_mode = "{CODEX_SANDBOX_MODE}"  # code-intel: the agent\'s shell may not write .git/\n' + text


def codex_manual_steps(ctx: InstallContext) -> str:
    command, args = _server_command(ctx)
    add = " ".join(shlex.quote(part) for part in ["codex", "mcp", "add", "code-intel", "--", command, *args])
    return "\n".join([
        "Codex: it does not trust this project yet, so it ignores the project's .codex/ folder (config.toml and",
        "hooks.json). Either trust the project (start `codex` in it and accept, or add",
        f'  [projects.{json.dumps(str(ctx.project))}]\n  trust_level = "trusted"',
        f"to {codex_home() / 'config.toml'}) and rerun `code-intel init --codex`, which then writes",
        f"{CODEX_CONFIG}; or register the server for your user:",
        f"  {add}",
        f"and add these lines under [mcp_servers.code-intel] in {codex_home() / 'config.toml'}",
        "(codex mcp add writes only the command; required makes Codex wait for the server before the first",
        "model request, so a short `codex exec` turn cannot run without it):",
        f"  startup_timeout_sec = {CODEX_STARTUP_TIMEOUT_SEC}",
        f"  tool_timeout_sec = {CODEX_TOOL_TIMEOUT_SEC}",
        "  required = true",
        "Codex runs new hooks only after you review them once (/hooks in the codex TUI).",
    ])


def plan_codex_config(ctx: InstallContext) -> list[PlannedWrite]:
    from code_intel.context.installer import InstallAction, PlannedWrite, _decide, _sha

    if not ctx.options.codex:
        return []
    if not codex_trusts(ctx.project):
        ctx.notes.append(codex_manual_steps(ctx))
        return []
    file = ctx.project / CODEX_CONFIG
    raw = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        tomllib.loads(raw)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{CODEX_CONFIG} is not valid TOML ({err}); nothing was written",
                          hint=f"fix {CODEX_CONFIG}, then rerun init: the installer merges its table into it") from None
    wanted = codex_table(ctx)
    lines = raw.splitlines(keepends=True)
    span = _table_span(lines)
    current = "".join(lines[span[0]:span[1]]) if span else None
    key = f"{CODEX_CONFIG}#mcp_servers.code-intel"
    status, detail = _decide(ctx, key, current.encode("utf-8") if current is not None else None, wanted.encode("utf-8"))
    label = f"{CODEX_CONFIG} (mcp_servers.code-intel)"
    text = raw
    if status in ("created", "updated", "overwritten"):
        if span is None:
            prefix = raw if not raw or raw.endswith("\n") else raw + "\n"
            text = prefix + ("\n" if prefix else "") + wanted
        else:
            text = "".join(lines[:span[0]]) + wanted + "".join(lines[span[1]:])
    if ctx.options.sandbox:
        text = _with_sandbox_mode(ctx, text)
    data = text.encode("utf-8") if text != raw else None
    ctx.notes.append("Codex trusts this project: it reads .codex/config.toml and .codex/hooks.json. It runs new hooks "
                     "only after you review them once (/hooks in the codex TUI).")
    return [PlannedWrite(file, data, InstallAction(path=label, status=status, detail=detail),
                         key if status != "kept" else None, _sha(wanted.encode("utf-8")))]
