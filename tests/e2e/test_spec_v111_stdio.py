"""The v1.11 submit_phase memo, checked the way an outside check drives the server: one real stdio client,
one spawned server, one generated git repository, a session per row of the memo's phase matrix.

The expected routes are the memo's matrix written out by step number (docs/spec-audit-v1.11.md lists
every claim and where it is checked). The agent is the demo's, with the answers each scenario needs:
Q1-Q3, the verification verdicts, the quality issues, and a fix task planned after every revert."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import DemoAgent, Quiet, connect, create_sample

pytestmark = pytest.mark.slow  # spawns the server over stdio

REQUEST = "Add a power(base, exponent) function to calc/operations.py, next to add and multiply, with a unit test."
ANSWER_KEYS = ("phase", "step", "instruction", "expected_payload", "call")


class MatrixAgent(DemoAgent):
    """The demo agent with scripted decisions; after a revert it resends the list plus one fix task."""

    def __init__(self, call: Any, repo: Path, *, gates: tuple[bool, bool, bool] = (False, False, False),
                 verdicts: list[bool] | None = None, issues: list[list[str]] | None = None) -> None:
        super().__init__(call, repo, Quiet(), query=REQUEST)
        self.refusal_shown = True
        self.gates, self.verdicts, self.issues = gates, list(verdicts or []), list(issues or [])
        self.completed: list[str] = []
        self.fixes = 0

    async def q1(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"needs_more_information": self.gates[0], "reason": "scripted", "tools_used": [], "summary": "Q1"}

    async def q2(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"has_unverified_hypotheses": self.gates[1], "reason": "scripted", "tools_used": [], "summary": "Q2"}

    async def q3(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"needs_impact_analysis": self.gates[2], "reason": "scripted", "tools_used": [], "summary": "Q3"}

    async def ready(self, resp: dict[str, Any]) -> dict[str, Any]:
        if resp["step"] == 12 and self.completed:  # a revert: the complete list plus a new fix task
            self.fixes += 1
            tasks = [{"id": t, "description": t, "status": "completed", "checklist": [{"item": t, "status": "pending"}]}
                     for t in self.completed]
            tasks.append({"id": f"fix_{self.fixes}", "description": "fix the failure", "status": "pending",
                          "checklist": [{"item": f"fix {self.fixes}", "status": "pending"}]})
            return {"tasks": tasks, "tools_used": [], "summary": "the list again, plus a fix task"}
        if resp["step"] == 13:
            task = resp["next_task"]["id"]
            self.completed.append(task)
            if task.startswith("fix_"):
                return await self.fix(task)
        return await super().ready(resp)

    async def fix(self, task: str) -> dict[str, Any]:
        target = "calc/operations.py"
        await self.tool("check_write_target", file_path=target)
        path = self.repo / target
        before = path.read_text(encoding="utf-8")
        path.write_text(before + f"\n\ndef {task}() -> int:\n    return {self.fixes}\n", encoding="utf-8")
        start = before.count("\n") + 3
        return {"task_id": task, "tools_used": ["check_write_target"], "summary": "fixed",
                "checklist": [{"item": f"fix {self.fixes}", "status": "done", "evidence": f"{target}:{start}-{start + 1}"}]}

    async def post_impl_verify(self, resp: dict[str, Any]) -> dict[str, Any]:
        passed = self.verdicts.pop(0) if self.verdicts else True
        return {"verifier_used": "backend.md", "passed": passed, "details": "" if passed else "test_power failed",
                "tools_used": [], "summary": "verified" if passed else "failed"}

    async def quality_review(self, resp: dict[str, Any]) -> dict[str, Any]:
        issues = self.issues.pop(0) if self.issues else []
        return {"quality_prompt_used": "quality_review.md", "quality_score": "ok", "issues": issues,
                "tools_used": [], "summary": "reviewed"}

    async def verify_intervention(self, resp: dict[str, Any]) -> dict[str, Any]:
        payload = await super().verify_intervention(resp)
        if "user_escalation.md" in resp["instruction"]:  # the third intervention asks the user
            payload.update(prompt_used=".code-intel/user_escalation.md", action_taken="asked the user: keep going")
        return payload

    HANDLERS = {**DemoAgent.HANDLERS, "Q1": q1, "Q2": q2, "Q3": q3, "READY": ready,
                "POST_IMPL_VERIFY": post_impl_verify, "VERIFY_INTERVENTION": verify_intervention,
                "QUALITY_REVIEW": quality_review}


# (label, intent, flags, agent options, the steps the memo's matrix runs, in order)
ROUTES: list[tuple[str, str, list[str], dict[str, Any], list[int]]] = [
    ("implement", "IMPLEMENT", [], {}, [3, 4, 5, 6, 8, 10, 12, 13, 13, 14, 15, 17, 18, 19, 20]),
    ("modify Q2 and Q3 yes", "MODIFY", [], {"gates": (False, True, True)},
     [3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 13, 14, 15, 17, 18, 19, 20]),
    ("--no-verify", "IMPLEMENT", ["--no-verify"], {}, [3, 4, 5, 6, 8, 10, 12, 13, 13, 14, 17, 18, 19, 20]),
    ("--no-quality", "IMPLEMENT", ["--no-quality"], {}, [3, 4, 5, 6, 8, 10, 12, 13, 13, 14, 15, 17, 19, 20]),
    ("--fast", "IMPLEMENT", ["--fast"], {}, [3, 4, 12, 13, 13, 14, 15, 17, 19, 20]),
    ("--quick", "IMPLEMENT", ["--quick"], {}, [3, 4, 12, 13, 13, 14, 15, 20]),
    ("--quick --no-verify", "IMPLEMENT", ["--quick", "--no-verify"], {}, [3, 4, 12, 13, 13, 14, 20]),
    ("--no-doc", "IMPLEMENT", ["--no-doc"], {}, [4, 5, 6, 8, 10, 12, 13, 13, 14, 15, 17, 18, 19, 20]),
    ("investigate", "INVESTIGATE", [], {}, [3, 4, 5, 6, 8, 10, 20]),
    ("question with impact", "QUESTION", [], {"gates": (False, False, True)}, [3, 4, 5, 6, 8, 10, 11, 20]),
    # the loops: three failures reach VERIFY_INTERVENTION (16), which sends the session back to planning
    ("verify fails 3x", "IMPLEMENT", ["--no-doc", "--fast"], {"verdicts": [False, False, False]},
     [4, 12, 13, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 16, 12, 13, 14, 15, 17, 19, 20]),
    # two interventions ran and the failures go on: the third intervention is the user escalation
    ("verify fails 9x", "IMPLEMENT", ["--no-doc", "--fast"], {"verdicts": [False] * 9},
     [4, 12, 13, 13, 14, 15, *[12, 13, 14, 15] * 2, 16, *[12, 13, 14, 15] * 3, 16, *[12, 13, 14, 15] * 3, 16,
      12, 13, 14, 15, 17, 19, 20]),
    ("-ni fails 4x", "IMPLEMENT", ["--no-doc", "--fast", "-ni"], {"verdicts": [False] * 4},
     [4, 12, 13, 13, 14, 15, *[12, 13, 14, 15] * 4, 17, 19, 20]),
    ("--quick fails 3x", "IMPLEMENT", ["--no-doc", "--quick"], {"verdicts": [False] * 3},
     [4, 12, 13, 13, 14, 15, *[12, 13, 14, 15] * 3, 20]),
    ("quality issues 3x", "IMPLEMENT", ["--no-doc", "--no-verify"], {"issues": [["a"], ["b"], ["c"]]},
     [4, 5, 6, 8, 10, 12, 13, 13, 14, 17, 18, 12, 13, 14, 17, 18, 12, 13, 14, 17, 18, 19, 20]),
]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


async def _session(call: Any, repo: Path, intent: str, flags: list[str], options: dict[str, Any]) -> list[dict[str, Any]]:
    agent = MatrixAgent(call, repo, **options)
    answers = [await call("start_session", {"intent": intent, "query": REQUEST, "flags": flags})]
    for _ in range(80):
        resp = answers[-1]
        if not resp.get("success") or resp["phase"] == "SESSION_COMPLETE":
            break
        if resp["phase"] == "MERGE" and resp.get("forced_completion"):
            answers.append({"status at forced MERGE": await call("get_session_status", {})})
        answers.append(await agent.submit(await MatrixAgent.HANDLERS[resp["phase"]](agent, resp)))
    return answers


async def _drive(repo: Path) -> dict[str, list[dict[str, Any]]]:
    start = git(repo, "rev-parse", "HEAD").strip()
    seen: dict[str, list[dict[str, Any]]] = {}
    async with connect(repo) as call:
        for label, intent, flags, options, _ in ROUTES:
            seen[label] = await _session(call, repo, intent, flags, options)
            git(repo, "reset", "-q", "--hard", start)  # the next session starts from the same code
            git(repo, "clean", "-qfd")
        git(repo, "branch", "llm_task_20000101_000000_abcd_from_main")  # a leftover from an interrupted session
        seen["stale"] = [await call("start_session", {"intent": "INVESTIGATE", "query": "How is add tested?", "flags": []})]
    return seen


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    repo = tmp_path_factory.mktemp("v111") / "calc"
    create_sample(repo)
    return anyio.run(_drive, repo)


def _route(answers: list[dict[str, Any]]) -> list[int]:
    return [a["step"] for a in answers if "step" in a]


@pytest.mark.parametrize(("label", "expected"), [(r[0], r[4]) for r in ROUTES], ids=[r[0] for r in ROUTES])
def test_the_route_is_the_memos_phase_matrix(sessions: dict[str, list[dict[str, Any]]], label: str,
                                             expected: list[int]) -> None:
    answers = sessions[label]
    assert all(a.get("success") for a in answers if "step" in a), answers[-1]
    assert _route(answers) == expected


@pytest.mark.parametrize("label", [r[0] for r in ROUTES])
def test_every_answer_says_what_to_do_and_what_to_send(sessions: dict[str, list[dict[str, Any]]], label: str) -> None:
    for answer in (a for a in sessions[label] if "step" in a):
        assert all(key in answer for key in ANSWER_KEYS), answer
        ongoing = answer["phase"] != "SESSION_COMPLETE"
        assert answer["call"] == ("submit_phase" if ongoing else "record_outcome")
        assert answer["instruction"].strip() and answer["expected_payload"], answer
        if not ongoing:  # what record_outcome takes
            assert set(answer["expected_payload"]) == {"outcome", "phase_at_outcome", "analysis"}, answer


def test_verify_failures_count_per_task_and_the_third_starts_an_intervention(sessions: dict[str, Any]) -> None:
    answers = [a for a in sessions["verify fails 3x"] if "step" in a]
    reverts = [a for a in answers if a.get("reverted")]
    assert len(reverts) == 3  # two failures, then the intervention, each back to planning
    assert "test_power failed" in reverts[0]["instruction"] and "task_1 [completed" in reverts[0]["instruction"]
    intervention = next(a for a in answers if a["phase"] == "VERIFY_INTERVENTION")
    assert max(intervention["failure_counts"].values()) == 3
    assert "failure_count" not in reverts[2]["instruction"]  # the intervention reset the counts


def test_after_two_interventions_the_third_asks_the_user(sessions: dict[str, Any]) -> None:
    answers = [a for a in sessions["verify fails 9x"] if "step" in a]
    interventions = [i for i, a in enumerate(answers) if a["phase"] == "VERIFY_INTERVENTION"]
    assert len(interventions) == 3
    for i in interventions[:2]:  # the first two: the intervention prompts, not the user
        assert ".code-intel/user_escalation.md" not in answers[i]["instruction"], answers[i]
    escalation = answers[interventions[2]]
    assert ".code-intel/user_escalation.md" in escalation["instruction"]
    assert "user_escalation" in escalation["expected_payload"]["prompt_used"]
    after = answers[interventions[2] + 1]  # accepted: back to planning, saying the user was asked
    assert after["phase"] == "READY" and after["step"] == 12 and "user escalation" in after["instruction"], after


def test_without_intervention_the_failures_keep_reverting(sessions: dict[str, Any]) -> None:
    answers = [a for a in sessions["-ni fails 4x"] if "step" in a]
    assert "VERIFY_INTERVENTION" not in {a["phase"] for a in answers}
    last = [a for a in answers if a.get("reverted")][-1]
    assert max(last["failure_counts"].values()) == 4  # the fourth failure, past the limit, still goes back to 12


def test_the_third_quality_revert_forces_merge_and_says_so_until_the_end(sessions: dict[str, Any]) -> None:
    answers = sessions["quality issues 3x"]
    merge = next(a for a in answers if a.get("phase") == "MERGE")
    assert merge["forced_completion"] is True and merge["warning"] == "Completing with unresolved quality issues: c"
    status = next(a["status at forced MERGE"] for a in answers if "status at forced MERGE" in a)
    assert status["phase"] == "MERGE" and status["warning"] == merge["warning"]
    assert status["counters"]["quality_revert_count"] == 3
    assert answers[-1]["phase"] == "SESSION_COMPLETE" and "c" in answers[-1]["warning"]


def test_planning_creates_the_branch_except_for_quick(sessions: dict[str, Any]) -> None:
    def branch(label: str) -> str | None:
        return next((a.get("task_branch") for a in sessions[label] if a.get("task_branch")), None)

    assert branch("implement").startswith("llm_task_") and branch("--fast").startswith("llm_task_")
    assert branch("--quick") is None
    assert sessions["implement"][-1]["merge"]["merged"] is True


def test_a_stale_task_branch_starts_any_session_at_branch_intervention(sessions: dict[str, Any]) -> None:
    start = sessions["stale"][0]
    assert start["phase"] == "BRANCH_INTERVENTION" and start["step"] == 2
    assert start["stale_branches"] == ["llm_task_20000101_000000_abcd_from_main"]
    assert set(start["expected_payload"]) >= {"choice", "summary"}
