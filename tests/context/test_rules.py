from __future__ import annotations

import shutil

import yaml

from code_intel.context.rules import (
    MAX_CONTENT_CHARS,
    extract_summary,
    load_project_rules,
    refresh_project_rules,
)
from code_intel.core.config import load_context
from code_intel.core.project import TEMPLATES_DIR, ProjectRoot

RULES = """\
# Project

Some intro. Nothing to extract here.

## Rules
- Business logic lives in the Service layer
- Never put complex logic in controllers

## Style
- Use four spaces
- You must add type hints

## Don't
- Commit secrets

```
- must not be read: inside a code fence
```
Always write tests.
"""


def _context(root: ProjectRoot) -> None:
    root.state_dir.mkdir(exist_ok=True)
    shutil.copy(TEMPLATES_DIR / "code-intel" / "context.yml", root.state_dir / "context.yml")


def test_extract_summary_sorts_rules_into_do_and_dont() -> None:
    summary = extract_summary(RULES)
    do_part, dont_part = summary.split("DON'T:")
    assert "- Business logic lives in the Service layer" in do_part
    assert "- You must add type hints" in do_part
    assert "- Always write tests." in do_part
    assert "- Never put complex logic in controllers" in dont_part
    assert "- Commit secrets" in dont_part
    assert "Use four spaces" not in summary and "code fence" not in summary and "intro" not in summary


def test_extract_summary_is_capped_and_says_so() -> None:
    many = "\n".join(f"- Always follow rule number {i} of the handbook" for i in range(200))
    summary = extract_summary(many)
    assert len(summary) <= 1500 + 60
    assert "more rules in the rules file" in summary


def test_load_project_rules_reads_claude_md_and_falls_back(project: ProjectRoot) -> None:
    absent = load_project_rules(project, load_context(project.state_dir))
    assert absent["source"] is None and "CLAUDE.md" in absent["note"]

    (project.path / ".claude").mkdir()
    (project.path / ".claude" / "CLAUDE.md").write_text(RULES, encoding="utf-8")
    rules = load_project_rules(project, load_context(project.state_dir))
    assert rules["source"] == ".claude/CLAUDE.md"
    assert rules["content"] == RULES and rules["content_hash"].startswith("sha256:")
    assert "Commit secrets" in rules["summary"] and rules["summary_from"] == "rules file"

    (project.path / "CLAUDE.md").write_text("- Never guess\n", encoding="utf-8")
    assert load_project_rules(project, load_context(project.state_dir))["source"] == "CLAUDE.md"


def test_load_project_rules_caps_content(project: ProjectRoot) -> None:
    (project.path / "CLAUDE.md").write_text("- Always be brief\n" + "x" * (MAX_CONTENT_CHARS * 2), encoding="utf-8")
    rules = load_project_rules(project, load_context(project.state_dir))
    assert len(rules["content"]) == MAX_CONTENT_CHARS
    assert rules["content_truncated"] is True and "cut at" in rules["note"]


def test_custom_source_outside_the_project_is_ignored(project: ProjectRoot) -> None:
    project.state_dir.mkdir()
    (project.state_dir / "context.yml").write_text("project_rules:\n  source: ../../etc/passwd\n", encoding="utf-8")
    assert load_project_rules(project, load_context(project.state_dir))["source"] is None


def test_refresh_writes_summary_keeping_comments_and_other_keys(project: ProjectRoot) -> None:
    _context(project)
    context_file = project.state_dir / "context.yml"
    context_file.write_text(context_file.read_text(encoding="utf-8") + "my_team_key: keep me\n", encoding="utf-8")
    (project.path / "CLAUDE.md").write_text(RULES, encoding="utf-8")

    result = refresh_project_rules(project)
    assert result["changed"] is True and result["comments_preserved"] is True
    text = context_file.read_text(encoding="utf-8")
    assert "# Layer 2: task-specific rules" in text  # the template's comments survive
    data = yaml.safe_load(text)
    assert data["my_team_key"] == "keep me"
    assert data["doc_research"]["docs_path"] == ["docs/"]
    assert data["project_rules"]["summary"] == result["summary"]
    assert data["project_rules"]["content_hash"] == result["content_hash"]
    assert data["last_synced"] == result["last_synced"]

    # the stored summary is now what sessions get, and a second refresh changes nothing
    rules = load_project_rules(project, load_context(project.state_dir))
    assert rules["summary_from"] == "context.yml"
    assert refresh_project_rules(project)["changed"] is False

    # editing the rules file makes the stored summary stale until the next refresh
    (project.path / "CLAUDE.md").write_text(RULES + "- Never skip review\n", encoding="utf-8")
    stale = load_project_rules(project, load_context(project.state_dir))
    assert stale["summary_from"] == "rules file" and "Never skip review" in stale["summary"]
    assert "update_context" in stale["note"]
    again = refresh_project_rules(project)
    assert again["changed"] is True and again["previous_hash"] == result["content_hash"]


def test_refresh_creates_context_yml_when_missing(project: ProjectRoot) -> None:
    (project.path / "CLAUDE.md").write_text("- Always run the linter\n", encoding="utf-8")
    result = refresh_project_rules(project)
    data = yaml.safe_load((project.state_dir / "context.yml").read_text(encoding="utf-8"))
    assert data["project_rules"]["summary"] == "DO:\n- Always run the linter" == result["summary"]


def test_refresh_without_rules_file_changes_nothing(project: ProjectRoot) -> None:
    result = refresh_project_rules(project)
    assert result["changed"] is False and result["source"] is None
    assert not (project.state_dir / "context.yml").exists()
