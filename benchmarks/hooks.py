"""Hook latency: how long `code-intel hook pre-tool-use|session-start` takes, the way a client runs it.

Claude Code and Codex start the hook as a new process for every Edit/Write/Read/Bash call, pipe the event
JSON in and wait for the answer, so the figure that matters is the whole process: interpreter start,
imports, reading the lock and the checkpoint, the decision, the write-log append. Each case is timed
from Popen to exit; the baseline is the same interpreter doing nothing (`python -c pass`), the floor
no hook written in Python can go under. Rounds interleave the baseline and the cases, so a busy
machine slows them alike; "over base" is the median of each round's difference. CPU time (user +
sys) is printed beside wall time because it moves less with the load. The in-process time of the
decision alone and the imports (python -X importtime: no mcp, pydantic, chromadb, torch,
tree-sitter) are reported too.

The worst case is measured too: pathological calls during a session in READY (`$(...)` nested 1,100
deep, 300 file patterns in a branch that never runs, a 100,000-character command, interpreter code the
size of the reader's cap, an 8 MB event, a PostToolUse answer of 4 MB naming 200 files), each of which
must be answered, with a denial for the PreToolUse ones, under WORST_TARGET_MS (the clients wait 10 s
and then run the call).

    .venv/bin/python benchmarks/hooks.py [--runs 15] [--explored 300] [--worst-runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from code_intel.core.project import ProjectRoot  # noqa: E402
from code_intel.workflow.checkpoint import CheckpointStore  # noqa: E402
from code_intel.workflow.contract import ContractSource  # noqa: E402
from code_intel.workflow.flags import SessionFlags  # noqa: E402
from code_intel.workflow.phases import Phase  # noqa: E402
from code_intel.workflow.responses import phase_response  # noqa: E402
from code_intel.workflow.state import SessionState  # noqa: E402

CODE_INTEL = Path(sys.executable).parent / "code-intel"
TARGET_MS = 100.0
WORST_TARGET_MS = 2000.0
HEAVY = ("mcp", "pydantic", "pydantic_core", "chromadb", "torch", "sentence_transformers", "tree_sitter",
         "tree_sitter_language_pack", "yaml", "git")


def make_project(folder: Path, explored: int) -> tuple[ProjectRoot, list[str]]:
    root = ProjectRoot(folder.resolve())
    files = [f"src/pkg{i // 25}/module_{i}.py" for i in range(explored)]
    for rel in files[:50]:
        (root.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (root.path / rel).write_text("x = 1\n", encoding="utf-8")
    return root, files


def write_session(root: ProjectRoot, phase: Phase, explored: list[str]) -> None:
    """A checkpoint as the server writes it: state, a dozen phase summaries and the last answer."""
    store = CheckpointStore(root)
    for file in store.files():
        file.unlink()
    substep = "implementation" if phase is Phase.READY else None
    state = SessionState(session_id="20261123_120000_beef", intent="MODIFY", query="bench the hook",
                         flags=SessionFlags(), phase=phase, ready_substep=substep, explored_files=explored)
    contract = ContractSource(root).phase(state.contract_id)
    response = phase_response(root, state, contract)
    status = {k: response[k] for k in ("phase", "step", "instruction", "expected_payload", "call")}
    summaries = {f"step_{i:02d}_X": {"summary": "a summary of what this phase found " * 8} for i in range(3, 12)}
    store.save(state, summaries, status)


def event(root: ProjectRoot, tool: str, **tool_input: object) -> str:
    return json.dumps({"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": str(root.path),
                       "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": tool_input, "tool_use_id": "toolu_bench"})


def answered(root: ProjectRoot, tool: str, response: object, **tool_input: object) -> str:
    """A PostToolUse event: the call and what the tool answered (Claude Code's shapes)."""
    data = json.loads(event(root, tool, **tool_input))
    return json.dumps({**data, "hook_event_name": "PostToolUse", "tool_response": response})


def worst_cases(root: ProjectRoot, pre: list[str], post: list[str], explored: list[str]) -> list[Case]:
    """Pathological calls in READY: each must be answered well before the clients' 10 s timeout."""
    for i in range(40):  # a tree for the patterns to walk
        (root.path / "deep" / f"a{i}" / f"b{i}").mkdir(parents=True, exist_ok=True)
    files = " ".join(explored[:200])
    big_stdout = "\n".join(f"{rel}:1:x = 1" for rel in explored[:50]) + "\n" + "y" * 4_000_000
    return [
        Case("$(...) nested 1,100 deep (deny)", pre, event(root, "Bash", command="echo " + "$(" * 1100 + ")" * 1100)),
        Case("300 patterns in a branch that never runs (deny)", pre,
             event(root, "Bash", command="false && rm " + " ".join(f"deep/*/*/x{i}" for i in range(300)))),
        Case("a command over 100,000 characters (deny)", pre, event(root, "Bash", command="echo " + "x " * 50_000)),
        Case("node -e with 20,000 characters of code", pre,
             event(root, "Bash", command="node -e '" + "console.log(1);" * 1300 + "'")),
        Case("an 8 MB event (deny)", pre, event(root, "Bash", command="ls") + " " * 8_000_000),
        Case("PostToolUse: 4 MB of output naming 200 files", post,
             answered(root, "Bash", {"stdout": big_stdout, "stderr": ""}, command=f"cat {files}")),
    ]


# children write their .pyc files, as an installed code-intel does (a developer shell may disable it)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(argv: list[str], stdin: str) -> tuple[float, float, str]:
    """Wall and CPU milliseconds of one run, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False, env=ENV)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.stdout


class Case:
    def __init__(self, label: str, argv: list[str], stdin: str) -> None:
        self.label, self.argv, self.stdin = label, argv, stdin
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.over: list[float] = []  # wall minus the same round's baseline
        self.output = ""


def measure(cases: list[Case], baseline: Case, runs: int) -> None:
    for round_ in range(runs + 1):  # round 0 warms the file cache and writes .pyc files; not counted
        base_wall, base_cpu, _ = once(baseline.argv, baseline.stdin)
        if round_:
            baseline.wall.append(base_wall)
            baseline.cpu.append(base_cpu)
        for case in cases:
            wall, cpu, case.output = once(case.argv, case.stdin)
            if round_:
                case.wall.append(wall)
                case.cpu.append(cpu)
                case.over.append(wall - base_wall)


def heavy_imports(root: ProjectRoot) -> list[str]:
    argv = [sys.executable, "-X", "importtime", "-m", "code_intel.cli.main", "hook", "pre-tool-use", "--project", str(root.path)]
    done = subprocess.run(argv, input=event(root, "Edit", file_path=str(root.path / "src/pkg0/module_0.py")),
                          capture_output=True, text=True, cwd=REPO, check=True)
    loaded = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "import time:" in line}
    return sorted(loaded.intersection(HEAVY))


def in_process_ms(root: ProjectRoot, stdin: str, repeat: int = 200) -> float:
    from code_intel.hooks.pre_tool_use import decide

    data = json.loads(stdin)
    started = time.perf_counter()
    for _ in range(repeat):
        decide(data, root)
    return (time.perf_counter() - started) * 1000 / repeat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--explored", type=int, default=300, help="explored files in the session's checkpoint")
    parser.add_argument("--worst-runs", type=int, default=5, help="rounds of the pathological cases")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="code-intel-hooks-") as tmp:
        root, explored = make_project(Path(tmp), args.explored)
        target = str(root.path / explored[0])
        pre = [str(CODE_INTEL), "hook", "pre-tool-use", "--project", str(root.path)]  # the command init installs
        post = [str(CODE_INTEL), "hook", "post-tool-use", "--project", str(root.path)]
        start = [str(CODE_INTEL), "hook", "session-start", "--project", str(root.path)]
        long_bash = " && ".join([f"sed -i 's/x/y/' {explored[0]}", "cat README.md | grep -c x > /dev/null",
                                 "echo done 2>&1 | tee /tmp/code-intel-bench.log"] * 5)

        baseline = Case("baseline: same interpreter, `python -c pass`", [sys.executable, "-c", "pass"], "")
        edit = event(root, "Edit", file_path=target, old_string="x", new_string="y")
        compact = json.dumps({"hook_event_name": "SessionStart", "source": "compact"})
        no_session = [Case("Edit, no session (allow)", pre, edit)]
        measure(no_session, Case("", baseline.argv, ""), args.runs)

        write_session(root, Phase.EXPLORATION, explored)
        exploring = [
            Case("Bash `pytest -q`, session in EXPLORATION (no write: allow)", pre, event(root, "Bash", command="pytest -q")),
            Case("Edit, session in EXPLORATION (deny)", pre, edit),
            Case("Read of a project file, EXPLORATION (allow)", pre, event(root, "Read", file_path=target)),
            Case("PostToolUse Read, EXPLORATION (content shown: read log)", post,
                 answered(root, "Read", {"type": "text", "file": {"filePath": target, "content": "x = 1\n"}},
                          file_path=target)),
            Case("PostToolUse Bash `sed -n 1,80p FILE`, EXPLORATION (read log)", post,
                 answered(root, "Bash", {"stdout": "x = 1", "stderr": ""}, command=f"sed -n 1,80p {explored[0]}")),
            Case("SessionStart compact, EXPLORATION", start, compact),
        ]
        measure(exploring, Case("", baseline.argv, ""), args.runs)
        exploring_ms = in_process_ms(root, edit)

        write_session(root, Phase.READY, explored)
        ready = [
            Case("Edit of an explored file, READY (allow + write log)", pre, edit),
            Case(f"Bash, 15 commands with sed -i / tee, READY ({len(long_bash)} chars)", pre,
                 event(root, "Bash", command=long_bash)),
            Case("SessionStart compact, READY", start, compact),
        ]
        measure(ready, baseline, args.runs)
        ready_ms = in_process_ms(root, edit)
        worst_list = worst_cases(root, pre, post, explored)
        measure(worst_list, Case("", baseline.argv, ""), args.worst_runs)
        heavy = heavy_imports(root)
        size = next(iter(CheckpointStore(root).files())).stat().st_size
        cases = no_session + exploring + ready

    assert "deny" in exploring[1].output and "deny" not in ready[0].output, (exploring[1].output, ready[0].output)
    med = statistics.median
    print(f"hook process, Popen to exit, {args.runs} rounds (checkpoint {size} bytes, {args.explored} explored files), ms:")
    print(f"  {'case':<62} {'wall min':>8} {'median':>7} {'over base':>9} {'cpu med':>8}")
    print(f"  {baseline.label:<62} {min(baseline.wall):8.1f} {med(baseline.wall):7.1f} {'':>9} {med(baseline.cpu):8.1f}")
    worst = max(cases, key=lambda c: med(c.wall))
    for case in cases:
        print(f"  {case.label:<62} {min(case.wall):8.1f} {med(case.wall):7.1f} {med(case.over):+9.1f} {med(case.cpu):8.1f}")
    verdict = "met" if med(worst.wall) < TARGET_MS else "NOT met"
    print(f"slowest median {med(worst.wall):.1f} ms ({worst.label}); target < {TARGET_MS:.0f} ms: {verdict}; "
          f"the hook adds at most {max(med(c.over) for c in cases):.1f} ms to the bare interpreter")
    print(f"decision alone, in process: deny before READY {exploring_ms:.2f} ms, allow + log in READY {ready_ms:.2f} ms")
    print("heavy libraries imported by the hook: " + (", ".join(heavy) if heavy else "none"))
    print(f"worst case, {args.worst_runs} rounds, ms (target: every run under {WORST_TARGET_MS:.0f} ms):")
    print(f"  {'case':<62} {'median':>7} {'max':>7} {'cpu med':>8}  answer")
    for case in worst_list:
        answer = "deny" if '"deny"' in case.output else "allow"
        print(f"  {case.label:<62} {med(case.wall):7.1f} {max(case.wall):7.1f} {med(case.cpu):8.1f}  {answer}")
    slowest = max(max(c.wall) for c in worst_list)
    denied = all('"deny"' in c.output for c in worst_list if "(deny)" in c.label)
    print(f"slowest run {slowest:.1f} ms; target < {WORST_TARGET_MS:.0f} ms: "
          f"{'met' if slowest < WORST_TARGET_MS and denied else 'NOT met'}")
    return 0 if not heavy else 1


if __name__ == "__main__":
    sys.exit(main())
