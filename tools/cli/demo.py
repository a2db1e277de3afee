"""`code-intel demo`: a whole guided session on a generated sample repository, through a real stdio client.

The demo plays the agent. It never decides the order of phases: it reads each response's `phase`
and answers with that phase's payload, doing the work a real agent would do first (calling the
exploration tools, editing the file, running the sample's tests). It also shows two refusals, so
a newcomer sees what the server enforces.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from code_intel.core import processes

REQUEST = "Add a power(base, exponent) function to calc/operations.py, next to add and multiply, with a unit test."

SAMPLE_FILES: dict[str, str] = {
    "calc/__init__.py": '"""A tiny calculator package used by the code-intel demo."""\n',
    "calc/operations.py": textwrap.dedent(
        '''\
        """Arithmetic operations."""


        def add(a: float, b: float) -> float:
            """Return the sum of a and b."""
            return a + b


        def multiply(a: float, b: float) -> float:
            """Return the product of a and b."""
            return a * b
        '''
    ),
    "calc/cli.py": textwrap.dedent(
        '''\
        """Command line entry point: `python -m calc.cli add 2 3`."""

        import sys

        from calc.operations import add, multiply

        OPERATIONS = {"add": add, "multiply": multiply}


        def main(argv: list[str]) -> int:
            name, a, b = argv[0], float(argv[1]), float(argv[2])
            print(OPERATIONS[name](a, b))
            return 0


        if __name__ == "__main__":
            sys.exit(main(sys.argv[1:]))
        '''
    ),
    "tests/__init__.py": "",
    "tests/test_operations.py": textwrap.dedent(
        '''\
        import unittest

        from calc.operations import add, multiply


        class OperationsTest(unittest.TestCase):
            def test_add(self) -> None:
                self.assertEqual(add(2, 3), 5)

            def test_multiply(self) -> None:
                self.assertEqual(multiply(2, 3), 6)


        if __name__ == "__main__":
            unittest.main()
        '''
    ),
    "docs/design.md": "# Design\n\n- Every operation lives in `calc/operations.py` and takes two numbers.\n"
    "- Every operation has a unit test in `tests/test_operations.py`.\n",
    "CLAUDE.md": "# Project rules\n\n## DO\n- Keep operations pure functions with type hints.\n- Add a unit test for every operation.\n\n"
    "## DON'T\n- Don't print from library code.\n",
    "README.md": "# calc\n\nA tiny calculator used to demonstrate code-intel.\n",
}

POWER_CODE = textwrap.dedent(
    '''

    def power(base: float, exponent: float) -> float:
        """Return base raised to exponent."""
        return base**exponent
    '''
)

# A method of OperationsTest: written with its class indentation, not dedented.
POWER_TEST = "\n    def test_power(self) -> None:\n        self.assertEqual(power(2, 10), 1024)\n"


def _git(repo: Path, *args: str) -> str:
    done = processes.run(["git", *args], cwd=repo, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.err.strip()}")
    return done.out


def create_sample(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    for rel, text in SAMPLE_FILES.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "code-intel demo")
    _git(repo, "config", "user.email", "demo@code-intel.invalid")
    _git(repo, "config", "commit.gpgsign", "false")
    from code_intel.context.installer import install

    install(repo, force=False)
    # The server runs the checks itself at POST_IMPL_VERIFY: the sample's tests are unittest, run with this Python.
    config_file = repo / ".code-intel" / "config.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["verify"] = {"commands": [{"name": "unittest", "run": [sys.executable, "-m", "unittest", "-q"],
                                      "when": [], "timeout_s": 120}]}
    config_file.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Initial calculator")


class Printer:
    def __init__(self) -> None:
        self.color = sys.stdout.isatty()

    def _c(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def phase(self, resp: dict[str, Any]) -> None:
        label = f"step {resp.get('step')}: {resp.get('phase')}"
        print("\n" + self._c("1;36", "== " + label))
        instruction = str(resp.get("instruction", ""))
        print(textwrap.indent(textwrap.shorten(instruction, 300, placeholder=" ..."), "   "))
        before = resp.get("checks_before_change")
        if isinstance(before, dict):
            self.note(f"(server ran verify.commands before any change: {before.get('summary')})")

    def tool(self, name: str, args: dict[str, Any], summary: str) -> None:
        shown = json.dumps(args, ensure_ascii=False)
        print(f"   {self._c('33', name)}({textwrap.shorten(shown, 90, placeholder='...')}) -> {summary}")

    def note(self, text: str) -> None:
        print(f"   {text}")

    def refusal(self, resp: dict[str, Any]) -> None:
        print("   " + self._c("31", f"refused ({resp.get('error')}): ") + textwrap.shorten(str(resp.get("message")), 200))


class Quiet(Printer):
    """Prints refusals only: for tests and benchmarks that drive the demo agent."""

    def __init__(self) -> None:
        self.color = False

    def phase(self, resp: dict[str, Any]) -> None:
        pass

    def tool(self, name: str, args: dict[str, Any], summary: str) -> None:
        pass

    def note(self, text: str) -> None:
        pass


def _summarise(name: str, data: dict[str, Any]) -> str:
    if not data.get("success", False):
        return f"error {data.get('error')}: {data.get('message')}"
    if name == "find_references" and isinstance(data.get("total"), int):  # hits grouped by file
        return f"{data['total']} references in {data.get('files_with_matches', 0)} files"
    for key in ("definitions", "references", "matches", "files", "symbols", "results"):
        if isinstance(data.get(key), list):
            return f"{len(data[key])} {key}"
    if "chunks_total" in data:
        return f"{data['chunks_total']} chunks indexed, complete={data.get('complete')}"
    if "allowed" in data:
        return f"allowed={data['allowed']} ({data.get('reason')})"
    return "ok"


class DemoAgent:
    """Plays the agent: one handler per phase, each doing the work and returning the payload."""

    def __init__(self, call: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]], repo: Path, out: Printer,
                 query: str = REQUEST) -> None:
        self.call, self.repo, self.out, self.query = call, repo, out, query
        self.compaction_count = 0
        self.refusal_shown = False

    async def tool(self, name: str, **args: Any) -> dict[str, Any]:
        data = await self.call(name, args)
        self.out.tool(name, args, _summarise(name, data))
        return data

    async def submit(self, payload: dict[str, Any]) -> dict[str, Any]:
        payload = {**payload, "compaction_count": self.compaction_count}
        resp = await self.call("submit_phase", {"data": payload})
        if "compaction_count" in resp:
            self.compaction_count = resp["compaction_count"]
        return resp

    # -- phase handlers ---------------------------------------------------------
    async def branch_intervention(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"choice": "delete", "tools_used": [], "summary": "Discarded leftover task branches from an earlier run."}

    async def document_research(self, resp: dict[str, Any]) -> dict[str, Any]:
        await self.tool("search_files", pattern="docs/**/*.md")
        await self.tool("search_text", pattern="operation", path="docs")
        return {
            "documents_reviewed": ["docs/design.md", "CLAUDE.md"],
            "tools_used": ["search_files", "search_text"],
            "summary": "Rules: operations live in calc/operations.py as pure typed functions; each needs a unit test.",
        }

    async def query_frame(self, resp: dict[str, Any]) -> dict[str, Any]:
        # Quotes must be verbatim from the request: the server checks them against the original query.
        # A slot is filled only when the request backs it with a quote; every filled slot needs one.
        wanted = {"target_feature": "power(base, exponent)", "desired_action": "with a unit test"}
        quotes = {slot: text for slot, text in wanted.items() if text.lower() in self.query.lower()}
        return {
            "action_type": "add_feature",
            "target_symbols": ["power", "add", "multiply"],
            "scope": "calc/operations.py and tests/test_operations.py",
            "target_feature": "a power(base, exponent) function" if "target_feature" in quotes else None,
            "desired_action": "add it beside add and multiply, with a unit test" if "desired_action" in quotes else None,
            "constraints": "",
            "quotes": quotes,
            "tools_used": [],
            "summary": "Add power(base, exponent) beside add/multiply in calc/operations.py, plus a test.",
        }

    async def exploration(self, resp: dict[str, Any]) -> dict[str, Any]:
        if not self.refusal_shown:
            self.refusal_shown = True
            self.out.note("first, a submit that names a tool it never called:")
            bad = await self.submit({
                "explored_files": ["calc/operations.py"], "findings": ["guessing"],
                "tools_used": ["find_definitions", "find_references"], "summary": "Skipped the actual exploration.",
            })
            self.out.refusal(bad)
            probe = await self.tool("check_write_target", file_path="calc/operations.py")
            self.out.note(f"writing before READY is refused too: allowed={probe.get('allowed')}")
        await self.tool("find_definitions", symbol="multiply")
        await self.tool("get_symbols", path="calc/operations.py")
        await self.tool("find_references", symbol="multiply", role="all")  # the tests' lines too, not only counts
        return {
            "explored_files": ["calc/operations.py", "tests/test_operations.py", "calc/cli.py"],
            "findings": [
                "calc/operations.py:4 add and :9 multiply are typed pure functions",
                "tests/test_operations.py holds one unittest method per operation",
                "calc/cli.py maps operation names to functions",
            ],
            "tools_used": ["find_definitions", "get_symbols", "find_references"],
            "summary": "operations.py has add/multiply; tests in tests/test_operations.py; cli.py registers operations.",
        }

    async def q1(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"needs_more_information": True, "reason": "Check for any existing exponent helper elsewhere.",
                "tools_used": [], "summary": "Semantic search to rule out an existing power helper."}

    async def semantic(self, resp: dict[str, Any]) -> dict[str, Any]:
        self.out.note("(the first semantic search loads the embedding model and indexes the sample; a few seconds)")
        query = "raise a number to a power"
        found = await self.tool("semantic_search", query=query, n_results=5)
        if not found.get("results") and not found.get("index_complete", True):
            self.out.note(f"({found.get('note', 'the index is not complete')}: syncing, then searching again)")
            await self.tool("sync_index")
            found = await self.tool("semantic_search", query=query, n_results=5)
        hits = [f"{r.get('file')}:{r.get('line')}" for r in found.get("results", [])][:5]
        return {"search_query": query, "search_results": hits or ["no results"],
                "tools_used": ["semantic_search"], "summary": "No existing power helper; closest code is multiply."}

    async def q2(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"has_unverified_hypotheses": False, "reason": "The structure was read directly.",
                "tools_used": [], "summary": "Nothing left to verify."}

    async def verification(self, resp: dict[str, Any]) -> dict[str, Any]:
        await self.tool("find_definitions", symbol="add")
        return {"hypotheses_verified": [{"hypothesis": "operations are module-level functions", "result": True,
                                         "evidence": "calc/operations.py:4"}],
                "tools_used": ["find_definitions"], "summary": "Confirmed operations are module-level functions."}

    async def q3(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"needs_impact_analysis": True, "reason": "Check who depends on operations.py.",
                "tools_used": [], "summary": "Run impact analysis on operations.py."}

    async def impact_analysis(self, resp: dict[str, Any]) -> dict[str, Any]:
        impact = await self.tool("analyze_impact", files=["calc/operations.py"])
        counts = {k: impact.get("summary", {}).get(k, 0) for k in ("direct", "dependents", "tests", "configs", "docs")}
        return {"impact_summary": counts, "tools_used": ["analyze_impact"],
                "summary": "Adding a function is additive: cli.py and the tests import operations; nothing breaks."}

    async def ready(self, resp: dict[str, Any]) -> dict[str, Any]:
        step = resp.get("step")
        if step == 12:
            return {
                "tasks": [
                    {"id": "task_1", "description": "Add power() to calc/operations.py", "status": "pending",
                     "checklist": [{"item": "power(base, exponent) with type hints and docstring", "status": "pending"}]},
                    {"id": "task_2", "description": "Test power()", "status": "pending",
                     "checklist": [{"item": "test_power in tests/test_operations.py", "status": "pending"},
                                   {"item": "CLI registration of power", "status": "pending"}]},
                ],
                "tools_used": [],
                "summary": "Two tasks: implement power(), test it.",
            }
        if step == 13:
            task = (resp.get("next_task") or {}).get("id") or "task_1"
            return await self.implement(task)
        return {"summary": "Both tasks are implemented with evidence."}

    async def implement(self, task_id: str) -> dict[str, Any]:
        if task_id == "task_1":
            target = "calc/operations.py"
            await self.tool("check_write_target", file_path=target)
            path = self.repo / target
            before = path.read_text(encoding="utf-8")
            path.write_text(before + POWER_CODE, encoding="utf-8")
            start = before.count("\n") + 3
            self.out.note(f"(edited {target}: lines {start}-{start + 2})")
            return {"task_id": task_id, "tools_used": ["check_write_target", "Edit"],
                    "checklist": [{"item": "power(base, exponent) with type hints and docstring", "status": "done",
                                   "evidence": f"{target}:{start}-{start + 2}"}],
                    "summary": "power() added after multiply()."}
        target = "tests/test_operations.py"
        await self.tool("check_write_target", file_path=target)
        path = self.repo / target
        text = path.read_text(encoding="utf-8").replace(
            "from calc.operations import add, multiply", "from calc.operations import add, multiply, power")
        marker = "\n\n\nif __name__"
        head, tail = text.split(marker, 1)
        new_text = head + "\n" + POWER_TEST.rstrip("\n") + marker + tail
        path.write_text(new_text, encoding="utf-8")
        line = new_text.splitlines().index("    def test_power(self) -> None:") + 1
        self.out.note(f"(edited {target}: lines {line}-{line + 1})")
        return {"task_id": task_id, "tools_used": ["check_write_target", "Edit"],
                "checklist": [{"item": "test_power in tests/test_operations.py", "status": "done",
                               "evidence": f"{target}:{line}-{line + 1}"},
                              {"item": "CLI registration of power", "status": "skipped",
                               "reason": "The request asks for the function and its test only; the CLI stays as it is."}],
                "summary": "test_power added."}

    async def post_impl_verify(self, resp: dict[str, Any]) -> dict[str, Any]:
        checks = await self.tool("run_checks")  # the same run the server makes when this phase is submitted
        passed = bool(checks.get("passed"))
        self.out.note(f"(server ran verify.commands: {checks.get('summary')})")
        return {"verifier_used": ".code-intel/verifiers/backend.md", "passed": passed,
                "details": "" if passed else ", ".join(checks.get("failing_tests") or []) or str(checks.get("summary")),
                "tools_used": ["run_checks"], "summary": "Unit tests pass." if passed else "Unit tests fail."}

    async def verify_intervention(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"prompt_used": ".code-intel/interventions/", "action_taken": "re-read the failure",
                "tools_used": [], "summary": "Intervention applied."}

    async def pre_commit(self, resp: dict[str, Any]) -> dict[str, Any]:
        review = await self.tool("review_changes")
        files = [f["file"] if isinstance(f, dict) else f for f in review.get("files", [])]
        for garbage in review.get("garbage", []) or []:
            self.out.note(f"garbage candidate: {garbage}")
        return {"review_prompt_used": ".code-intel/review_prompts/garbage_detection.md",
                "reviewed_files": files or ["calc/operations.py", "tests/test_operations.py"],
                "discarded_files": [], "commit_message": "Add power() with a unit test",
                "tools_used": ["review_changes"], "summary": "Two files reviewed, no garbage; committed."}

    async def quality_review(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"quality_prompt_used": ".code-intel/review_prompts/quality_review.md", "quality_score": "good",
                "issues": [], "tools_used": [], "summary": "Typed, documented, tested; no issues."}

    async def merge(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"summary": "Merge the task branch into main."}

    HANDLERS = {
        "BRANCH_INTERVENTION": branch_intervention, "DOCUMENT_RESEARCH": document_research,
        "QUERY_FRAME": query_frame, "EXPLORATION": exploration, "Q1": q1, "SEMANTIC": semantic, "Q2": q2,
        "VERIFICATION": verification, "Q3": q3, "IMPACT_ANALYSIS": impact_analysis, "READY": ready,
        "POST_IMPL_VERIFY": post_impl_verify, "VERIFY_INTERVENTION": verify_intervention,
        "PRE_COMMIT": pre_commit, "QUALITY_REVIEW": quality_review, "MERGE": merge,
    }


def server_params(repo: Path, log_level: str = "WARNING") -> Any:
    """How to spawn the server for a project, exactly as an MCP client would."""
    from mcp.client.stdio import StdioServerParameters

    server = Path(__file__).resolve().parents[2] / "code_intel_server.py"
    # The server logs to .code-intel/logs/server.log; WARNING keeps its stderr out of the demo's output.
    return StdioServerParameters(command=sys.executable,
                                 args=[str(server), "--project", str(repo), "--log-level", log_level],
                                 env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}, cwd=str(repo))


@contextlib.asynccontextmanager
async def connect(repo: Path) -> AsyncIterator[Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]]:
    """A stdio MCP client on a freshly spawned server; yields `call(tool, args) -> structured result`."""
    from mcp import Client

    async with Client(server_params(repo), read_timeout_seconds=600) as client:

        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(name, args)
            if result.structured_content is not None:
                return dict(result.structured_content)
            text = "".join(getattr(c, "text", "") for c in result.content)
            return {"success": False, "error": "tool_error", "message": text}

        yield call


async def follow(agent: DemoAgent, resp: dict[str, Any], *, max_steps: int = 60,
                 stop_at: str | None = None) -> dict[str, Any]:
    """Answer whatever phase the server names until SESSION_COMPLETE, a refusal, or `stop_at`."""
    for _ in range(max_steps):
        if not resp.get("success"):
            agent.out.refusal(resp)
            return resp
        phase = str(resp.get("phase"))
        agent.out.phase(resp)
        if phase == "SESSION_COMPLETE" or phase == stop_at:
            return resp
        handler = DemoAgent.HANDLERS.get(phase)
        if handler is None:
            raise RuntimeError(f"the demo has no handler for phase {phase}")
        payload = await handler(agent, resp)
        resp = await agent.submit(payload)
    raise RuntimeError("the session did not complete within the step budget")


async def drive(repo: Path, out: Printer) -> dict[str, Any]:
    """Run one IMPLEMENT session against a spawned server; returns the final response."""
    async with connect(repo) as call:
        agent = DemoAgent(call, repo, out)
        resp = await call("start_session", {"intent": "IMPLEMENT", "query": REQUEST, "flags": []})
        rules = resp.get("project_rules") or {}
        if resp.get("success") and rules.get("source"):
            out.note(f"project rules loaded from {rules.get('source')}")
        return await follow(agent, resp)


def run_demo(args: argparse.Namespace) -> int:
    import anyio

    out = Printer()
    base = Path(args.dir).resolve() if args.dir else Path(tempfile.mkdtemp(prefix="code-intel-demo-"))
    repo = base / "calc-sample" if args.dir else base
    if repo.exists() and any(repo.iterdir()):
        print(f"code-intel demo: {repo} is not empty; pass an empty or new --dir", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(f"code-intel demo: sample repository at {repo}")
    print(f"request: {REQUEST}")
    create_sample(repo)
    final = anyio.run(drive, repo, out)
    ok = bool(final.get("success")) and final.get("phase") == "SESSION_COMPLETE"
    print()
    if ok:
        print("session complete. The sample repository's history now reads:")
        print(textwrap.indent(_git(repo, "log", "--oneline", "--graph", "-n", "5"), "   "))
        branches = _git(repo, "branch", "--list").strip()
        print(f"   branches: {branches}")
        page = (final.get("report") or {}).get("path")
        if page and (args.keep or args.dir):
            print(f"   the session's report page: {repo / page}")
    else:
        print("the demo session did not complete; see the refusal above and "
              f"{repo / '.code-intel' / 'logs' / 'server.log'}", file=sys.stderr)
    if not args.keep and not args.dir:
        shutil.rmtree(base, ignore_errors=True)
    elif args.keep or args.dir:
        print(f"kept the sample repository at {repo}")
    return 0 if ok else 1
