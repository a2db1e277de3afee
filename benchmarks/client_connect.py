"""How soon the server answers a client's first message, and how long Claude Code takes to connect.

Claude Code 2.1.330 opens a stdio server with a `server/discover` probe (protocol 2026-07-28) and
waits 3 s for it (its stdio probe timeout). A server that answers later gets an `initialize`, which the
SDK refuses once it has read the probe, then a second `server/discover` on the same process: the
connection still comes up, a second or more later ("probe timed out" below). So what matters is
the time from spawn to the first answer, and that is the server's start-up.

Two measures, each taken for every server in turns so that the machine's load hits them alike
(the first round warms the OS file cache and is not counted):

- **first answer**: spawn the server, write the `server/discover` line Claude Code sends, and time the
  answer (wall) and the CPU the process had used by then (user + sys, from /proc, which the load
  barely moves); then `tools/list`, when the tool table is ready;
- **Claude Code**: `claude -p` against the scripted provider stand-in (tests/clients/provider.py),
  with `--strict-mcp-config` so only the measured server starts, and the "Successfully connected
  ... in N ms" of its debug log, plus whether its probe timed out.

Servers: `code-intel` (`code_intel_server.py` of this checkout, or of `--root DIR`, e.g. an
older checkout: its own `tools/` package is imported, with this venv's libraries), and `sdk-floor`,
a bare MCPServer of the same SDK, the baseline no server built on this SDK can beat. The Claude Code
measure needs the npm clients from the client tests (`.cache/clients`); `--no-claude` skips it.

    .venv/bin/python benchmarks/client_connect.py [--runs 5] [--root DIR ...] [--no-claude]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.clients.provider import MessagesProvider  # noqa: E402  (the stand-in the client tests use)

CLAUDE = REPO / ".cache" / "clients" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
CONNECTED = re.compile(r'MCP server "code-intel": Successfully connected \(transport: stdio\) in (\d+)ms')
PROBE_TIMED_OUT = re.compile(r"version negotiation probe timed out", re.IGNORECASE)
FLOOR = ("from mcp.server.mcpserver import MCPServer\n"
         "MCPServer('code-intel', instructions='floor').run()\n")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.330"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}}}
DISCOVER = {"jsonrpc": "2.0", "id": "server-discover-probe-1", "method": "server/discover", "params": {"_meta": META}}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}


def server_commands(roots: list[Path], python: str) -> dict[str, list[str]]:
    commands = {}
    for root in roots:
        label = "code-intel" if root == REPO else f"code-intel ({root})"
        commands[label] = [python, str(root / "code_intel_server.py"), "--project", "{project}"]
    commands["sdk-floor"] = [python, "-c", FLOOR]
    return commands


def sample_project(work: Path) -> Path:
    project = work / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "app.py").write_text("x = 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project


def cpu_seconds(pid: int) -> float:
    """User + system CPU a live process has used, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def answer(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed stdout before answering {message['method']}")
        if json.loads(line).get("id") == message["id"]:
            return


def first_answer_once(command: list[str], work: Path) -> tuple[float, float, float]:
    """Seconds from spawn to the answer to server/discover, CPU seconds used by then, seconds to tools/list."""
    args = [part.replace("{project}", str(sample_project(work))) for part in command]
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        answer(proc, DISCOVER)
        first = time.perf_counter() - started
        cpu = cpu_seconds(proc.pid)
        answer(proc, TOOLS_LIST)
        listed = time.perf_counter() - started
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=30)
    return first, cpu, listed


def connect_once(command: list[str], work: Path, base_url: str) -> tuple[int, bool]:
    """Milliseconds Claude Code reports for the connection, and whether its probe timed out."""
    project = sample_project(work)
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    config = work / "mcp.json"
    args = [part.replace("{project}", str(project)) for part in command]
    config.write_text(json.dumps({"mcpServers": {"code-intel": {"type": "stdio", "command": args[0], "args": args[1:],
                                                                "env": {}}}}), encoding="utf-8")
    log = work / "debug.log"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8",
           "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-bench-not-a-key",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    subprocess.run([str(CLAUDE), "-p", "hi", "--strict-mcp-config", "--mcp-config", str(config),
                    "--debug-file", str(log), "--output-format", "json"],
                   cwd=project, env=env, capture_output=True, text=True, timeout=180, check=True)
    text = log.read_text(encoding="utf-8", errors="replace")
    found = CONNECTED.search(text)
    if found is None:
        raise RuntimeError(f"Claude Code did not report a connection; see {log}")
    return int(found.group(1)), PROBE_TIMED_OUT.search(text) is not None


def spread(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:5.0f} ms   fastest {min(values) * 1000:5.0f}   "
            f"slowest {max(values) * 1000:5.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", action="append", default=[], type=Path,
                        help="also time the code_intel_server.py of this checkout (repeatable)")
    parser.add_argument("--no-claude", action="store_true", help="only the first-answer measure")
    args = parser.parse_args()
    claude = not args.no_claude
    if claude and not CLAUDE.is_file():
        print(f"Claude Code is not installed at {CLAUDE}: run the client tests once (pytest tests/clients) "
              "so that they install it, or pass --no-claude", file=sys.stderr)
        return 2
    commands = server_commands([REPO, *[root.resolve() for root in args.root]], sys.executable)
    first: dict[str, list[tuple[float, float, float]]] = {label: [] for label in commands}
    connected: dict[str, list[tuple[int, bool]]] = {label: [] for label in commands}
    loads = [os.getloadavg()[0]]
    with MessagesProvider([]) as provider, tempfile.TemporaryDirectory(prefix="code-intel-connect-") as tmp:
        for run in range(args.runs + 1):
            for index, (label, command) in enumerate(commands.items()):
                measured = first_answer_once(command, Path(tmp) / f"first-{run}-{index}")
                if run:
                    first[label].append(measured)
                if claude:
                    reported = connect_once(command, Path(tmp) / f"claude-{run}-{index}", provider.base_url)
                    if run:
                        connected[label].append(reported)
            loads.append(os.getloadavg()[0])
    width = max(len(label) for label in commands)
    print(f"{args.runs} rounds, servers in turns; 1-minute load average {min(loads):.1f} to {max(loads):.1f}")
    print("spawn -> answer to server/discover (wall; CPU used by then) and -> tools/list:")
    for label, rows in first.items():
        print(f"  {label:{width}s}  first answer {spread([r[0] for r in rows])}   "
              f"CPU median {statistics.median(r[1] for r in rows) * 1000:5.0f} ms   "
              f"tools/list median {statistics.median(r[2] for r in rows) * 1000:5.0f} ms")
    if claude:
        print("Claude Code 'Successfully connected ... in N ms' (its debug log):")
        for label, reports in connected.items():
            timeouts = sum(1 for _, timed_out in reports if timed_out)
            print(f"  {label:{width}s}  {spread([ms / 1000 for ms, _ in reports])}   "
                  f"probe timed out {timeouts}/{len(reports)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
