"""Workflow test fixtures: an in-memory FakeGit (the GitPort protocol), an engine on a small project,
and a `Driver` that plays a well-behaved agent (calling the tools a phase needs, then submitting).

Test files of the engine use `driver`; W2's task tests do not need anything here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.errors import CodeIntelError, GitError
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import (
    Baseline,
    BranchChoice,
    BranchReport,
    ChangeReview,
    CleanupReport,
    CommitReport,
    DeletedBranch,
    GitSessionInfo,
    MergeReport,
    ReviewedFile,
)
from code_intel.workflow.engine import WorkflowEngine

QUERY = "Add a subtract function next to add in src/app.py, with a test"
APP_CODE = "def add(a, b):\n    total = a + b\n    return total\n"
# the tests of APP_CODE, for the engines that run pytest as their check command (loads src/app.py by path)
TEST_APP = '''\
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location("app", pathlib.Path(__file__).parent / "src" / "app.py")
app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(app)


def test_add():
    assert app.add(1, 2) == 3


def test_subtract():
    assert app.subtract_task_1(3, 1) == 2
'''


class FakeGit:
    """Records every call; `changed`, `stale` and `fail` steer what it answers."""

    def __init__(self, *, is_repo: bool = True, stale: list[str] | None = None, root: Path | None = None) -> None:
        self.is_repo = is_repo
        self.root = root
        self.start_content: dict[str, str] = {}  # the "snapshot": file contents at begin_session
        self.ready_content: dict[str, str | None] = {}  # snapshot_at_ready: the early files' contents then
        self.stale = list(stale or [])
        self.changed: list[str] = []
        self.dirty_at_start: list[str] = []  # changed_at_start: the user's uncommitted files when the session began
        self.fail: dict[str, str] = {}  # method name -> GitError message
        self.repairs: list[str] = []  # what reconcile reports having repaired
        self.calls: list[tuple[str, Any]] = []

    def _maybe_fail(self, method: str) -> None:
        if method in self.fail:
            raise GitError(self.fail[method], hint="fix the repository and retry")

    def begin_session(self, session_id: str) -> GitSessionInfo:
        self.calls.append(("begin_session", session_id))
        self._maybe_fail("begin_session")
        if self.root is not None:
            self.start_content = {p.relative_to(self.root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
                                  for p in self.root.rglob("*") if p.is_file() and ".code-intel" not in p.parts}
        if not self.is_repo:
            return GitSessionInfo(is_repo=False, note="not a git repository: the workflow runs without branches")
        return GitSessionInfo(is_repo=True, base_branch="main", base_commit="c0", snapshot="snap-1",
                              stale_branches=list(self.stale))

    def resolve_stale_branches(self, choice: BranchChoice, info: GitSessionInfo) -> tuple[GitSessionInfo, BranchReport]:
        self.calls.append(("resolve_stale_branches", choice))
        self._maybe_fail("resolve_stale_branches")
        new = info.model_copy(update={"stale_branches": [], "branch_policy": choice})
        if choice == "continue":
            new.task_branch = info.stale_branches[0] if info.stale_branches else None
        return new, BranchReport(choice=choice, kept_branches=list(info.stale_branches) if choice == "continue" else None,
                                 deleted_branches=None if choice == "continue" else [
                                     DeletedBranch(branch=b, head="c9", recover=f"git branch {b} c9") for b in info.stale_branches])

    def create_task_branch(self, session_id: str, info: GitSessionInfo) -> GitSessionInfo:
        self.calls.append(("create_task_branch", session_id))
        self._maybe_fail("create_task_branch")
        return info.model_copy(update={"task_branch": f"llm_task_{session_id}_from_main"})

    def changed_since_snapshot(self, info: GitSessionInfo) -> list[str]:
        self.calls.append(("changed_since_snapshot", None))
        return list(self.changed)

    def changed_at_start(self, info: GitSessionInfo) -> list[str]:
        return list(self.dirty_at_start)

    def baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        return Baseline(known=True, text=self.start_content.get(path))

    def remember_baseline(self, info: GitSessionInfo, paths: list[str]) -> None:
        self.calls.append(("remember_baseline", list(paths)))

    def snapshot_at_ready(self, session_id: str, info: GitSessionInfo, paths: list[str]) -> GitSessionInfo:
        self.calls.append(("snapshot_at_ready", list(paths)))
        if self.root is not None:
            self.ready_content = {p: (self.root / p).read_text(encoding="utf-8") if (self.root / p).is_file() else None
                                  for p in paths}
        return info.model_copy(update={"ready_snapshot": session_id})

    def ready_baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        if path not in self.ready_content:
            return Baseline(known=False)
        return Baseline(known=True, text=self.ready_content[path])

    def review(self, info: GitSessionInfo, *, max_diff_bytes: int = 200_000,
               write_allowed: Callable[[str], bool] | None = None) -> ChangeReview:
        self.calls.append(("review", None))
        files = [ReviewedFile(file=f, status="modified", added=1, removed=0,
                              write_allowed=write_allowed(f) if write_allowed else None) for f in self.changed]
        return ChangeReview(files=files, outside_write_rules=[f.file for f in files if f.write_allowed is False])

    def commit(self, info: GitSessionInfo, reviewed_files: list[str], discarded_files: list[str],
               message: str) -> tuple[GitSessionInfo, CommitReport]:
        self.calls.append(("commit", (list(reviewed_files), list(discarded_files), message)))
        self._maybe_fail("commit")
        commit = f"c{len(info.commits) + 1}"
        return (info.model_copy(update={"commits": [*info.commits, commit]}),
                CommitReport(committed=True, commit=commit, committed_files=list(reviewed_files)))

    def merge(self, info: GitSessionInfo) -> tuple[GitSessionInfo, MergeReport]:
        self.calls.append(("merge", info.task_branch))
        self._maybe_fail("merge")
        return (info.model_copy(update={"task_branch": None}),
                MergeReport(merged=True, base_branch=info.base_branch, deleted_branch=info.task_branch))

    def end_session(self, info: GitSessionInfo) -> None:
        self.calls.append(("end_session", info.snapshot))

    def reconcile(self, session_id: str, info: GitSessionInfo, on_task_branch: bool) -> tuple[GitSessionInfo, list[str]]:
        self.calls.append(("reconcile", on_task_branch))
        self._maybe_fail("reconcile")
        return info, list(self.repairs)

    def prune_snapshots(self, keep: set[str]) -> list[str]:
        self.calls.append(("prune_snapshots", sorted(keep)))
        return []

    def cleanup(self) -> CleanupReport:
        self.calls.append(("cleanup", None))
        self._maybe_fail("cleanup")
        return CleanupReport(is_repo=self.is_repo, deleted_branches=[
            DeletedBranch(branch=b, head="c9", recover=f"git branch {b} c9") for b in self.stale])

    def called(self, method: str) -> list[Any]:
        return [arg for name, arg in self.calls if name == method]


def make_engine(project: ProjectRoot, git: Any, context: ContextSettings | None = None) -> WorkflowEngine:
    settings = context or ContextSettings()
    return WorkflowEngine(project, git=git, context=lambda: settings, config=lambda: Config())


class Driver:
    """Plays an agent that follows instructions: per phase it calls what the phase needs and submits.

    `answers` sets Q1/Q2/Q3; `verify_results` is consumed one per POST_IMPL_VERIFY (then passes);
    `quality_issues` likewise per QUALITY_REVIEW (then none).
    """

    def __init__(self, engine: WorkflowEngine, git: FakeGit, root: ProjectRoot) -> None:
        self.engine, self.git, self.root = engine, git, root
        self.compaction_count = 0
        self.answers = {"Q1": False, "Q2": False, "Q3": False}
        self.verify_results: list[bool] = []
        self.quality_issues: list[list[str]] = []
        self.fix_tasks = 0
        self.steps: list[int] = []
        self.phases: list[str] = []

    # -- calls, as the MCP layer would make them ------------------------------
    def start(self, intent: str = "IMPLEMENT", flags: list[str] | None = None, query: str = QUERY) -> dict[str, Any]:
        return self._record(self._guard(lambda: self.engine.start_session(intent, query, flags or [], None)))

    def read(self, *files: str) -> None:
        """The agent's own Read of these files, logged as the client hook logs it (from the session's checkpoint)."""
        from code_intel.hooks.session import find_session
        from code_intel.workflow import write_log
        session = find_session(self.root)
        assert session is not None, "no session to read in"
        write_log.append(session.file.parent, write_log.LogEntry(
            session_id=session.session_id, phase=session.phase, tool="Read", files=files), reads=True)

    def tool(self, name: str, *, shown: list[str] | None = None, **args: Any) -> None:
        """A server tool call as the server records it; `shown`: the files its answer showed code of."""
        self.engine.record_tool_call(name, args, ok=True, shown=(lambda: shown) if shown else None)

    def submit(self, payload: Any, *, echo: bool = True) -> dict[str, Any]:
        data = {**payload, "compaction_count": self.compaction_count} if echo and isinstance(payload, dict) else payload
        resp = self._guard(lambda: self.engine.submit_phase(data))
        if "compaction_count" in resp:
            self.compaction_count = resp["compaction_count"]
        return self._record(resp)

    def status(self) -> dict[str, Any]:
        return self._guard(self.engine.get_session_status)

    def _guard(self, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return call()
        except CodeIntelError as err:
            data = err.to_dict()
            self.engine.annotate_refusal(data)
            return data

    def _record(self, resp: dict[str, Any]) -> dict[str, Any]:
        if resp.get("success") and "phase" in resp and not resp.get("recovery_available"):
            self.steps.append(resp["step"])
            self.phases.append(resp["phase"])
        return resp

    # -- the payload a good agent sends for the phase of `resp` ---------------
    def payload(self, resp: dict[str, Any]) -> dict[str, Any]:
        phase, step = resp["phase"], resp["step"]
        summary = f"summary of {phase} step {step}"
        if phase == "BRANCH_INTERVENTION":
            return {"choice": "delete", "tools_used": [], "summary": summary}
        if phase == "DOCUMENT_RESEARCH":
            self.read("README.md")
            return {"documents_reviewed": ["README.md"], "tools_used": [], "summary": summary}
        if phase == "QUERY_FRAME":
            return {"action_type": "add_feature", "target_symbols": ["add"], "scope": "src/app.py",
                    "target_feature": "subtract function", "constraints": "with a test",
                    "quotes": {"target_feature": "a subtract function", "constraints": "with a test"},
                    "tools_used": [], "summary": summary}
        if phase == "EXPLORATION":
            self.tool("search_text", pattern="def add", shown=["src/app.py"])
            self.tool("find_definitions", symbol="add")
            return {"explored_files": ["src/app.py"], "findings": ["add lives in src/app.py"],
                    "tools_used": ["search_text", "find_definitions"], "summary": summary}
        if phase in ("Q1", "Q2", "Q3"):
            field = {"Q1": "needs_more_information", "Q2": "has_unverified_hypotheses", "Q3": "needs_impact_analysis"}[phase]
            return {field: self.answers[phase], "reason": "because", "tools_used": [], "summary": summary}
        if phase == "SEMANTIC":
            self.tool("semantic_search", query="add numbers")
            return {"search_query": "add numbers", "search_results": ["src/app.py:1"],
                    "tools_used": ["semantic_search"], "summary": summary}
        if phase == "VERIFICATION":
            self.tool("find_references", symbol="add")
            return {"hypotheses_verified": [{"hypothesis": "add is pure", "result": True, "evidence": "src/app.py:1-3"}],
                    "tools_used": ["find_references"], "summary": summary}
        if phase == "IMPACT_ANALYSIS":
            self.tool("analyze_impact", files=["src/app.py"])
            return {"impact_summary": {"direct": 1}, "tools_used": ["analyze_impact"], "summary": summary}
        if phase == "READY" and step == 12:
            return {"tasks": self.task_list(resp), "tools_used": [], "summary": summary}
        if phase == "READY" and step == 13:
            return self.implementation(resp["next_task"]["id"] if "next_task" in resp else self.next_task_id())
        if phase == "READY":
            return {"summary": summary}
        if phase == "POST_IMPL_VERIFY":
            passed = self.verify_results.pop(0) if self.verify_results else True
            return {"verifier_used": "backend.md", "passed": passed, "details": "ok" if passed else "test_x failed",
                    "tools_used": ["Bash"], "summary": summary}
        if phase == "VERIFY_INTERVENTION":
            return {"prompt_used": "interventions/step_back.md", "action_taken": "re-read the failure",
                    "tools_used": [], "summary": summary}
        if phase == "PRE_COMMIT":
            review = self.engine.review_changes()
            self.tool("review_changes")
            files = [f["file"] for f in review.get("files", [])]
            return {"review_prompt_used": "garbage_detection.md", "reviewed_files": files,
                    "commit_message": "Add subtract", "tools_used": ["review_changes"], "summary": summary}
        if phase == "QUALITY_REVIEW":
            issues = self.quality_issues.pop(0) if self.quality_issues else []
            return {"quality_prompt_used": "quality_review.md", "quality_score": "good", "issues": issues,
                    "tools_used": [], "summary": summary}
        if phase == "MERGE":
            return {"summary": summary}
        raise AssertionError(f"no payload for {phase}")

    def task_list(self, resp: dict[str, Any]) -> list[dict[str, Any]]:
        board = self.engine.live.state.board if self.engine.live else None
        tasks = [t.model_dump() for t in board.tasks] if board and board.tasks else []
        if not tasks:
            return [{"id": "task_1", "description": "Add subtract", "status": "pending",
                     "checklist": [{"item": "subtract() in src/app.py", "status": "pending"}]}]
        self.fix_tasks += 1
        tasks.append({"id": f"fix_{self.fix_tasks}", "description": "Fix the failure", "status": "pending",
                      "checklist": [{"item": f"fix {self.fix_tasks} in src/app.py", "status": "pending"}]})
        return tasks

    def next_task_id(self) -> str:
        assert self.engine.live is not None
        state = self.engine.live.state
        assert state.board.next_pending() is not None
        return state.board.next_pending().id  # type: ignore[union-attr]

    def implementation(self, task_id: str) -> dict[str, Any]:
        decision = self.engine.check_write_target("src/app.py")
        self.tool("check_write_target", file_path="src/app.py")
        assert decision["allowed"], decision
        app = self.root.path / "src" / "app.py"
        app.write_text(app.read_text(encoding="utf-8") + f"\n\ndef subtract_{task_id}(a, b):\n    return a - b\n")
        last = len(app.read_text(encoding="utf-8").splitlines())
        if isinstance(self.git, FakeGit) and "src/app.py" not in self.git.changed:
            self.git.changed.append("src/app.py")
        assert self.engine.live is not None
        state = self.engine.live.state
        task = next(t for t in state.board.tasks if t.id == task_id)
        return {"task_id": task_id, "tools_used": ["check_write_target", "Edit"],
                "checklist": [{"item": i.item, "status": "done", "evidence": f"src/app.py:{last - 1}-{last}"}
                              for i in task.checklist],
                "summary": f"{task_id} implemented"}

    def run(self, resp: dict[str, Any], *, until: str = "SESSION_COMPLETE", limit: int = 80) -> dict[str, Any]:
        """Answer phases until `until` (or a refusal); returns the last response."""
        for _ in range(limit):
            if not resp.get("success") or resp.get("phase") == until:
                return resp
            resp = self.submit(self.payload(resp))
        raise AssertionError(f"did not reach {until} in {limit} submits; at {resp.get('phase')}")


@pytest.fixture
def app_project(project_dir: Path) -> ProjectRoot:
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
    (project_dir / "README.md").write_text("# sample\n", encoding="utf-8")
    return ProjectRoot.from_args(project_dir)


@pytest.fixture
def fake_git(app_project: ProjectRoot) -> FakeGit:
    return FakeGit(root=app_project.path)


@pytest.fixture
def engine(app_project: ProjectRoot, fake_git: FakeGit) -> WorkflowEngine:
    eng = make_engine(app_project, fake_git)
    yield eng  # type: ignore[misc]
    eng.close()


@pytest.fixture
def driver(engine: WorkflowEngine, fake_git: FakeGit, app_project: ProjectRoot) -> Driver:
    return Driver(engine, fake_git, app_project)


@pytest.fixture
def new_engine(app_project: ProjectRoot) -> Callable[..., WorkflowEngine]:
    """`new_engine(git, context=None)`: another engine on the same project (a server restart)."""
    made: list[WorkflowEngine] = []

    def build(git: Any, context: ContextSettings | None = None) -> WorkflowEngine:
        made.append(make_engine(app_project, git, context))
        return made[-1]

    yield build  # type: ignore[misc]
    for eng in made:
        eng.close()


@pytest.fixture
def new_driver(app_project: ProjectRoot) -> Callable[[WorkflowEngine, Any], Driver]:
    return lambda engine, git: Driver(engine, git, app_project)
