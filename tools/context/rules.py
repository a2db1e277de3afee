"""Layer 1 context: the project's rules file (CLAUDE.md by default) and its DO / DON'T digest.

`load_project_rules` is what a session starts with; `refresh_project_rules` (the update_context tool)
writes the digest into `.code-intel/context.yml`, touching only the keys it manages so the user's
other keys and comments stay as they were.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from code_intel.core.config import ContextSettings, load_context, read_yaml
from code_intel.core.errors import CodeIntelError
from code_intel.core.fsutil import write_atomic
from code_intel.core.project import ProjectRoot

log = logging.getLogger(__name__)

DEFAULT_SOURCE = "CLAUDE.md"
FALLBACK_SOURCE = ".claude/CLAUDE.md"
MAX_CONTENT_CHARS = 6000
MAX_SUMMARY_CHARS = 1500

_NEGATIVE = re.compile(r"\b(?:don['’]?t|do not|never|must not|mustn['’]?t|avoid|should not|shouldn['’]?t|forbidden)\b", re.I)
_POSITIVE = re.compile(r"\b(?:do|must|always|should|prefer|required?)\b", re.I)
_RULES_HEADING = re.compile(r"\b(?:rules?|guidelines?|conventions?|do|must|always)\b", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")


def _rules_file(root: ProjectRoot, context: ContextSettings) -> tuple[Path | None, list[str]]:
    """The configured source, else .claude/CLAUDE.md; also the names tried, for the 'absent' note."""
    candidates = [context.project_rules.source or DEFAULT_SOURCE, FALLBACK_SOURCE]
    tried: list[str] = []
    for name in dict.fromkeys(candidates):
        tried.append(name)
        try:
            file = root.resolve(name, kind="project_rules.source")
        except CodeIntelError as err:
            log.warning("ignoring project rules source %r: %s", name, err.message)
            continue
        if file.is_file():
            return file, tried
    return None, tried


def _hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def extract_summary(markdown: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    """DO / DON'T digest: bullets and sentences with do/don't/must/never/always, or under a rules heading."""
    dos: list[str] = []
    donts: list[str] = []
    heading_kind: str | None = None  # "do", "dont" or None (a heading that is not about rules)
    in_fence = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading:
            title = heading.group(1)
            heading_kind = "dont" if _NEGATIVE.search(title) else "do" if _RULES_HEADING.search(title) else None
            continue
        bullet = _BULLET.match(line)
        text = bullet.group(1) if bullet else line.strip()
        text = text.replace("**", "").replace("__", "").strip()
        if not text:
            continue
        keyword = bool(_NEGATIVE.search(text) or _POSITIVE.search(text))
        if not (keyword or bullet and heading_kind):
            continue
        if not bullet and not re.match(r"^(?:always|never|do|don['’]?t|must|avoid)\b", text, re.I):
            continue  # prose sentences count only when they are imperatives
        negative = _NEGATIVE.search(text) or bullet and heading_kind == "dont"
        target = donts if negative else dos
        if text not in target:
            target.append(text)
    return _render_summary(dos, donts, limit)


def _render_summary(dos: list[str], donts: list[str], limit: int) -> str:
    out: list[str] = []
    used = 0
    left_out = 0
    for title, items in (("DO:", dos), ("DON'T:", donts)):
        if not items:
            continue
        out.append(title)
        used += len(title) + 1
        for item in items:
            entry = f"- {item}"
            if used + len(entry) + 1 > limit:
                left_out += 1
                continue
            out.append(entry)
            used += len(entry) + 1
    if left_out:
        out.append(f"({left_out} more rules in the rules file)")
    return "\n".join(out)


def load_project_rules(root: ProjectRoot, context: ContextSettings) -> dict[str, Any]:
    """The rules a session starts with: source, summary, content (capped) and content_hash; a note when absent."""
    file, tried = _rules_file(root, context)
    if file is None:
        return {
            "source": None,
            "note": f"no project rules file found (looked for {', '.join(tried)}); "
            "set project_rules.source in .code-intel/context.yml to use another file",
        }
    data = file.read_bytes()
    text = data.decode("utf-8", errors="replace")
    digest = _hash(data)
    settings = context.project_rules
    fresh = bool(settings.summary.strip()) and settings.content_hash == digest
    result: dict[str, Any] = {
        "source": root.relative(file),
        "summary": settings.summary.strip() if fresh else extract_summary(text),
        "summary_from": "context.yml" if fresh else "rules file",
        "content": text[:MAX_CONTENT_CHARS],
        "content_hash": digest,
    }
    if len(text) > MAX_CONTENT_CHARS:
        result["content_truncated"] = True
        result["note"] = f"content cut at {MAX_CONTENT_CHARS} of {len(text)} characters; read {result['source']} for the rest"
    elif settings.summary.strip() and not fresh:
        result["note"] = "context.yml's summary is older than the rules file; call update_context to refresh it"
    return result


# context.yml editing --------------------------------------------------------------------------------


def _edit_text(text: str, summary: str, digest: str, synced: str) -> str:
    """context.yml with project_rules' summary and content_hash and the top-level last_synced set. ruamel.yaml
    edits it round trip, so comments, key order, quoting and the layout of other keys stay as they were."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

    editor = YAML()
    editor.width = 10_000
    editor.preserve_quotes = True
    editor.indent(mapping=2, sequence=4, offset=2)
    data = editor.load(text) or CommentedMap()
    rules = data.get("project_rules")
    if not isinstance(rules, dict):
        rules = data["project_rules"] = CommentedMap()
    lines = summary.split("\n")
    block = len(lines) > 1 and all(line == line.rstrip() and "\t" not in line for line in lines) and not lines[0].startswith(" ")
    rules["summary"] = LiteralScalarString(summary) if block else DoubleQuotedScalarString(summary)
    rules["content_hash"] = DoubleQuotedScalarString(digest)
    data["last_synced"] = DoubleQuotedScalarString(synced)
    out = io.StringIO()
    editor.dump(data, out)
    return out.getvalue()


class ContextUpdate(BaseModel):
    """update_context's answer: whether context.yml's project_rules summary changed, and from what."""

    changed: bool
    source: str | None = None
    note: str | None = None
    summary: str | None = None
    content_hash: str | None = None
    previous_hash: str | None = None
    previous_summary: str | None = None
    last_synced: str | None = None
    context_file: str | None = None
    comments_preserved: bool | None = None


def refresh_project_rules(root: ProjectRoot) -> dict[str, Any]:
    """update_context: digest the rules file into context.yml (summary, content_hash, last_synced)."""
    context = load_context(root.state_dir)
    file, tried = _rules_file(root, context)
    if file is None:
        return {"changed": False, "source": None,
                "note": f"no project rules file found (looked for {', '.join(tried)}); nothing to summarise"}
    data = file.read_bytes()
    digest = _hash(data)
    summary = extract_summary(data.decode("utf-8", errors="replace"))
    previous = context.project_rules
    source = root.relative(file)
    if previous.content_hash == digest and previous.summary.strip() == summary:
        return {"changed": False, "source": source, "summary": summary, "content_hash": digest, "last_synced": context.last_synced}
    synced = datetime.now(UTC).isoformat(timespec="seconds")
    context_file = root.state_dir / "context.yml"
    original = context_file.read_text(encoding="utf-8") if context_file.exists() else ""
    before = read_yaml(original) or {}
    from ruamel.yaml.error import YAMLError as RoundTripError

    comments_kept = True
    expected = {**before, "project_rules": {**(before.get("project_rules") or {}), "summary": summary,
                                             "content_hash": digest}, "last_synced": synced}
    try:
        edited = _edit_text(original, summary, digest, synced)
        ok = read_yaml(edited) == expected
    except (yaml.YAMLError, RoundTripError):
        ok = False
    if not ok:  # an unusual layout: fall back to a plain YAML dump, which keeps keys but not comments
        log.warning("context.yml could not be edited in place; rewriting it without comments")
        edited = yaml.safe_dump(expected, sort_keys=False, allow_unicode=True)
        comments_kept = False
    write_atomic(context_file, edited)
    return {
        "changed": True,
        "source": source,
        "summary": summary,
        "content_hash": digest,
        "previous_hash": previous.content_hash,
        "previous_summary": previous.summary,
        "last_synced": synced,
        "context_file": root.relative(context_file),
        "comments_preserved": comments_kept,
    }
