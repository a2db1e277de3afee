"""The `/code` skill in each form a client reads, all rendered from `.claude/commands/code.md`.

- Claude Code: `.claude/commands/code.md` in the project, the source file as it is (its front
  matter has `description` and `argument-hint`; `$ARGUMENTS` is the text after `/code`).
- Codex: `.agents/skills/code/SKILL.md`, front matter `name` and `description` (what Codex
  requires), the same body, the request named as the text after `$code`.
- Any MCP client: the prompt `code`, the same body with the user's request put in.
"""

from __future__ import annotations

from code_intel.core.errors import ConfigError
from code_intel.core.project import REINSTALL_HINT, SKILL_SOURCE

SKILL_NAME = "code"
CLAUDE_PATH = f".claude/commands/{SKILL_NAME}.md"  # in this repository (the source) and in a project
CODEX_PATH = f".agents/skills/{SKILL_NAME}/SKILL.md"
SOURCE = SKILL_SOURCE
PLACEHOLDER = "$ARGUMENTS"
CODEX_REQUEST = "the text the user wrote after `$code` (if none, ask for the request)"


def _source_text() -> str:
    try:
        return SOURCE.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"the /code skill source {SOURCE} cannot be read: {err}",
                          hint=REINSTALL_HINT) from None


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """`key: value` lines between the leading `---` fences, and the body after them."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text
    fields: dict[str, str] = {}
    for line in text[4:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            fields[key.strip()] = value.strip().strip('"')
    return fields, text[end + 5:].lstrip("\n")


def description() -> str:
    return split_front_matter(_source_text())[0].get("description", "Work on a request through a code-intel session")


def claude_command() -> bytes:
    return _source_text().encode("utf-8")


def codex_skill() -> bytes:
    fields, body = split_front_matter(_source_text())
    summary = fields.get("description", description()).replace('"', "'")
    header = f'---\nname: {SKILL_NAME}\ndescription: "{summary}"\n---\n\n'
    return (header + body.replace(PLACEHOLDER, CODEX_REQUEST)).encode("utf-8")


# Claude Code splits what follows a prompt command on spaces and passes only the first word as the
# argument; the whole line reaches the model in the same message (<command-args>).
PROMPT_REQUEST_NOTE = ("(if this looks cut short, the request is the whole text the user typed after the "
                       "command, which Claude Code shows in <command-args>)")


def prompt_text(request: str) -> str:
    """The skill as an MCP prompt message, with the user's request in place."""
    body = split_front_matter(_source_text())[1]
    text = request.strip()
    return body.replace(PLACEHOLDER, f"{text} {PROMPT_REQUEST_NOTE}" if text else "(none given: ask the user for the request)")
