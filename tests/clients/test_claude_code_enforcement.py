"""Claude Code end to end: writes the PreToolUse hook never sees are refused at the next submit_phase, and the
session recovers (docs/enforcement.md).

`claude -p` in a project set up by `code-intel init`, the model played by a script:
1. a shell form the hook lets through because it cannot read it (`python3 scripts/note.py`, a program that writes
   src/app.py itself) runs before READY; the next submit_phase is refused naming src/app.py, and the same payload
   sent again with `restore` puts the file back and is accepted;
2. between two model turns the test itself writes a new file, as a subagent or another program would, without any
   hook running; the next submit_phase is refused naming it, and `restore` deletes it.
Nothing reaches a commit: main's history is as it was.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import APP_CODE, EXPLORED, FRAME
from tests.clients.provider import MessagesProvider, text, tool
from tests.clients.test_claude_code import REQUEST, claude

pytestmark = pytest.mark.slow

NOTE = "# a note the hook never saw\n"
WRITER = f"from pathlib import Path\n\nPath('src/app.py').write_text(Path('src/app.py').read_text() + {NOTE!r})\n"


class BetweenTurns(MessagesProvider):
    """The scripted model, plus an action run once just before a given turn is served: what happens on the machine
    while the model 'thinks' (a subagent's write, another program)."""

    def __init__(self, script: list[Any], before: dict[int, Callable[[], None]]) -> None:
        super().__init__(script)
        self.before = before

    def next_turn(self, body: dict[str, Any]) -> Any:
        turn = super().next_turn(body)
        action = self.before.pop(self._done, None)
        if action is not None:
            action()
        return turn


def script(repo: Path) -> list[list[dict[str, Any]]]:
    tools = ",".join(f"mcp__code-intel__{t}" for t in ("start_session", "submit_phase", "get_session_status",
                                                        "search_text", "get_symbols"))
    return [
        tool("toolu_01", "ToolSearch", query=f"select:{tools}", max_results=5),
        tool("toolu_02", "mcp__code-intel__start_session", intent="MODIFY", query=REQUEST, flags=["--no-doc-research"]),
        tool("toolu_03", "Bash", command="python3 scripts/note.py", description="run the project's note script"),
        tool("toolu_04", "mcp__code-intel__submit_phase", data=FRAME),  # refused: src/app.py changed
        tool("toolu_05", "mcp__code-intel__submit_phase", data={**FRAME, "restore": ["src/app.py"]}),
        tool("toolu_06", "mcp__code-intel__search_text", pattern="def add"),
        tool("toolu_07", "mcp__code-intel__get_symbols", path="src/app.py"),
        tool("toolu_08", "Read", file_path=str(repo / "README.md")),
        tool("toolu_09", "mcp__code-intel__submit_phase", data=EXPLORED),  # refused: src/extra.py appeared
        tool("toolu_10", "mcp__code-intel__submit_phase", data={**EXPLORED, "restore": ["*"]}),
        text("Explored; stopping here."),
    ]


def test_writes_the_hook_never_sees_are_refused_at_the_next_submit(claude_bin: list[str], sample_repo: Path,
                                                                   tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(sample_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    settings = sample_repo / ".claude" / "settings.json"  # the user lets the agent run shell commands without asking
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"]["allow"].append("Bash")
    settings.write_text(json.dumps(data), encoding="utf-8")
    (sample_repo / "scripts").mkdir()
    (sample_repo / "scripts" / "note.py").write_text(WRITER, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=sample_repo, check=True)
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "scripts"],
                   cwd=sample_repo, check=True)
    main_before = subprocess.run(["git", "rev-parse", "main"], cwd=sample_repo, capture_output=True, text=True,
                                 check=True).stdout
    extra = sample_repo / "src" / "extra.py"

    def subagent_writes() -> None:
        extra.write_text("print('written behind the hook')\n", encoding="utf-8")

    with BetweenTurns(script(sample_repo), before={8: subagent_writes}) as provider:
        claude(claude_bin, sample_repo, home, provider, f"/code --no-doc-research {REQUEST}")

        def answer(tool_id: str) -> dict[str, Any]:
            return dict(json.loads(provider.result_text(tool_id)))

        started = answer("toolu_02")
        assert started["success"] and started["phase"] == "QUERY_FRAME", started
        assert not provider.tool_results()["toolu_03"].get("is_error"), provider.result_text("toolu_03")

        refused = answer("toolu_04")  # the program's write, which the hook let through, stops the session here
        assert refused["success"] is False and refused["error"] == "payload_mismatch", refused
        assert "src/app.py" in {c["path"] for c in refused["unexpected_changes"]}, refused
        assert "src/app.py" in refused["restorable"] and refused["current_phase"] == "QUERY_FRAME"
        recovered = answer("toolu_05")
        assert recovered["success"] and recovered["phase"] == "EXPLORATION", recovered
        assert (sample_repo / "src" / "app.py").read_text(encoding="utf-8") == APP_CODE

        behind = answer("toolu_09")  # the write made between two turns, no hook anywhere
        assert behind["success"] is False and "src/extra.py" in {c["path"] for c in behind["unexpected_changes"]}
        assert behind["current_phase"] == "EXPLORATION"
        explored = answer("toolu_10")
        assert explored["success"] and explored["phase"] == "Q1", explored
        assert not extra.exists()

    main_after = subprocess.run(["git", "rev-parse", "main"], cwd=sample_repo, capture_output=True, text=True,
                                check=True).stdout
    assert main_after == main_before  # nothing was committed
