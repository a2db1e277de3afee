"""The /code skill (Claude Code command, Codex skill and MCP prompt alike) tells the agent to hand the user the report
page at SESSION_COMPLETE, by the field the server's answer carries."""

from __future__ import annotations

import pytest

from code_intel.context import skill
from code_intel.workflow.response_models import PhaseResponse


@pytest.mark.parametrize("text", [skill.claude_command().decode(), skill.codex_skill().decode(),
                                  skill.prompt_text("add a subtract function")],
                         ids=["claude", "codex", "prompt"])
def test_the_skill_says_to_give_the_user_the_report(text):
    _, _, end = text.partition("## At SESSION_COMPLETE")
    assert end, "the skill has no SESSION_COMPLETE section"
    assert "`report`" in end and "`path`" in end and "code-intel report" in end and "record_outcome" in end


def test_the_session_complete_answer_declares_the_report():
    field = PhaseResponse.model_fields["report"]
    assert field.annotation is not None and "ReportPage" in str(field.annotation)
