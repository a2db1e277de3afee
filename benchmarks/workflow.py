"""Workflow engine costs: submit latency through a whole session, checkpoint size, import time.

Runs real sessions (real GitService on a temporary git repository, real checkpoints and lock) and
prints per-submit latency, the largest checkpoint written, how long importing the engine takes, what
journaling a tool call in the ledger costs beside the in-memory ledger alone, and what loading the phase
contract (once per server, again when phase_contract.yml changes) costs with libyaml's parser, as shipped,
beside PyYAML's pure-Python one.

    .venv/bin/python benchmarks/workflow.py [--sessions 5] [--tasks 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "init.defaultBranch=main",
                    *args], cwd=cwd, check=True, capture_output=True)


def make_repo(folder: Path) -> None:
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("def add(a, b):\n    total = a + b\n    return total\n")
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "init")


def run_session(folder: Path, tasks: int) -> tuple[list[float], int]:
    from code_intel.core.config import Config, ContextSettings
    from code_intel.core.project import ProjectRoot
    from code_intel.git.service import GitService
    from code_intel.workflow.engine import WorkflowEngine

    root = ProjectRoot.from_args(folder)
    engine = WorkflowEngine(root, git=GitService(root), context=lambda: ContextSettings(), config=lambda: Config())
    timings: list[float] = []
    biggest = 0

    def submit(payload: dict[str, Any]) -> dict[str, Any]:
        nonlocal biggest
        started = time.perf_counter()
        resp = engine.submit_phase(payload)
        timings.append(time.perf_counter() - started)
        for file in (root.state_dir / "sessions").glob("*.json"):
            biggest = max(biggest, file.stat().st_size)
        return resp

    def call(tool: str, **args: Any) -> None:
        engine.record_tool_call(tool, args, ok=True)

    resp = engine.start_session("IMPLEMENT", "add subtract next to add", [], None)
    summary = "s" * 300
    while resp["phase"] != "SESSION_COMPLETE":
        phase, step = resp["phase"], resp["step"]
        if phase == "DOCUMENT_RESEARCH":
            resp = submit({"documents_reviewed": [], "summary": summary})
        elif phase == "QUERY_FRAME":
            resp = submit({"action_type": "add", "target_symbols": ["add"], "scope": "src", "constraints": "", "summary": summary})
        elif phase == "EXPLORATION":
            call("search_text", pattern="add")
            call("find_definitions", symbol="add")
            resp = submit({"explored_files": ["src/app.py"], "findings": ["f"], "tools_used": ["search_text", "find_definitions"],
                           "summary": summary})
        elif phase in ("Q1", "Q2", "Q3"):
            key = {"Q1": "needs_more_information", "Q2": "has_unverified_hypotheses", "Q3": "needs_impact_analysis"}[phase]
            resp = submit({key: False, "reason": "r", "summary": summary})
        elif phase == "READY" and step == 12:
            resp = submit({"tasks": [{"id": f"t{i}", "description": "d", "status": "pending",
                                      "checklist": [{"item": f"item {i}", "status": "pending"}]} for i in range(tasks)],
                           "summary": summary})
        elif phase == "READY" and step == 13:
            engine.check_write_target("src/app.py")
            call("check_write_target", file_path="src/app.py")
            app = folder / "src" / "app.py"
            before = app.read_text()
            app.write_text(before + f"\n\ndef f_{resp['next_task']['id']}(a):\n    return a * 2\n")
            first = before.count("\n") + 2  # the new def, after one blank line
            resp = submit({"task_id": resp["next_task"]["id"], "tools_used": ["check_write_target"], "summary": summary,
                           "checklist": [{"item": resp["next_task"]["checklist"][0], "status": "done",
                                          "evidence": f"src/app.py:{first}-{first + 1}"}]})
        elif phase == "READY":
            resp = submit({"summary": summary})
        elif phase == "POST_IMPL_VERIFY":
            resp = submit({"verifier_used": "v", "passed": True, "details": "ok", "summary": summary})
        elif phase == "PRE_COMMIT":
            review = engine.review_changes()
            call("review_changes")
            resp = submit({"review_prompt_used": "g", "reviewed_files": [f["file"] for f in review["files"]],
                           "commit_message": "bench", "tools_used": ["review_changes"], "summary": summary})
        elif phase == "QUALITY_REVIEW":
            resp = submit({"quality_prompt_used": "q", "quality_score": "ok", "issues": [], "summary": summary})
        elif phase == "MERGE":
            resp = submit({"summary": summary})
        else:
            raise RuntimeError(f"unexpected phase {phase}: {resp}")
    engine.close()
    return timings, biggest


def ledger_cost(folder: Path, calls: int, rounds: int = 5) -> tuple[float, float, float, int]:
    """Per-call cost of engine.record_tool_call in µs (median over rounds): the ledger in memory only (the
    baseline, as before the journal) and journaled (one line appended per call), and the journal's bytes
    per call; first, the cost of a call outside any session. Rounds alternate so both see the same machine."""
    from code_intel.core.config import Config, ContextSettings
    from code_intel.core.project import ProjectRoot
    from code_intel.git.service import GitService
    from code_intel.workflow.engine import WorkflowEngine

    root = ProjectRoot.from_args(folder)
    engine = WorkflowEngine(root, git=GitService(root), context=lambda: ContextSettings(), config=lambda: Config())
    args = {"pattern": "def add", "path": "src", "max_results": 50}
    started = time.perf_counter()
    for _ in range(calls):  # no session, no checkpoint: the look for a session waiting to be restored
        engine.record_tool_call("search_text", args, ok=True)
    idle = (time.perf_counter() - started) / calls * 1e6
    engine.start_session("IMPLEMENT", "add subtract next to add", [], None)
    live = engine.live
    assert live is not None and live.ledger.journal is not None
    journal = live.ledger.journal
    memory: list[float] = []
    journaled: list[float] = []
    for _ in range(rounds):
        for sink, on in ((memory, None), (journaled, journal)):
            live.ledger.journal = on
            journal.reset()
            started = time.perf_counter()
            for _ in range(calls):
                engine.record_tool_call("search_text", args, ok=True)
            sink.append((time.perf_counter() - started) / calls * 1e6)
    per_line = journal.file.stat().st_size // calls
    engine.close()
    return idle, statistics.median(memory), statistics.median(journaled), per_line


def import_time() -> float:
    code = "import time; t=time.perf_counter(); import code_intel.workflow.engine; print(time.perf_counter()-t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def contract_load(rounds: int = 15) -> tuple[float, float]:
    """Median ms to load the built-in phase contract (read, parse, merge, validate), as shipped and with the
    pure-Python YAML parser, alternating."""
    import contextlib
    from unittest import mock

    import yaml

    from code_intel.workflow.contract import load_contract

    shipped: list[float] = []
    pure: list[float] = []
    for _ in range(rounds):
        for timings, parser in ((shipped, contextlib.nullcontext()), (pure, mock.patch.object(yaml, "CSafeLoader", yaml.SafeLoader))):
            with parser:
                start = time.perf_counter()
                load_contract(None)
                timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(shipped), statistics.median(pure)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--ledger-calls", type=int, default=2000, help="tool calls per round of the ledger timing")
    args = parser.parse_args()
    all_timings: list[float] = []
    biggest = 0
    for n in range(args.sessions):
        with tempfile.TemporaryDirectory(prefix="ci-wf-bench-") as tmp:
            folder = Path(tmp) / f"p{n}"
            make_repo(folder)
            timings, size = run_session(folder, args.tasks)
            all_timings += timings
            biggest = max(biggest, size)
    ms = sorted(t * 1000 for t in all_timings)
    print(f"submits: {len(ms)} over {args.sessions} sessions ({args.tasks} tasks each, real git)")
    print(f"submit latency ms: median {statistics.median(ms):.1f}, p95 {ms[int(len(ms) * 0.95) - 1]:.1f}, max {ms[-1]:.1f}")
    print(f"largest checkpoint: {biggest} bytes (limit 262144)")
    print(f"import code_intel.workflow.engine: {import_time() * 1000:.0f} ms")
    with tempfile.TemporaryDirectory(prefix="ci-wf-bench-") as tmp:
        folder = Path(tmp) / "ledger"
        make_repo(folder)
        idle, memory, journaled, per_line = ledger_cost(folder, args.ledger_calls)
    print(f"record_tool_call µs per call ({args.ledger_calls} calls a round, median of 5): in memory {memory:.1f}, "
          f"journaled {journaled:.1f} (+{journaled - memory:.1f}); {per_line} bytes a line; "
          f"outside a session {idle:.1f}")
    shipped, pure = contract_load()
    print(f"load the phase contract ms (median of 15): libyaml parser {shipped:.1f}, pure-Python parser {pure:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
