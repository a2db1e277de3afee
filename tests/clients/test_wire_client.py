"""benchmarks/wire_client.mjs, the wire benchmark's TypeScript SDK client, against a canned server: through its own
listTools and callTool only, it validates the recorded answer against the listed outputSchema and refuses the same
answer for the tool listed with a schema no answer meets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks.test_wire import our_listing_and_answer, project

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import wire  # noqa: E402

pytestmark = pytest.mark.slow  # node and the canned server


async def test_the_ts_client_validates_the_canned_answer_and_refuses_it_for_a_wrong_schema(
        npm_clients: Path, tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    label, args = "search_text def", {"pattern": "def"}
    listing, answer = await our_listing_and_answer(root, args)
    argv = wire.canned_servers(root, {label: (args, None)}, {label: answer}, listing)[label]
    plan = {"runs": 1, "sessions": [{
        "command": argv[0], "args": argv[1:], "cwd": str(root),
        "calls": [{"label": label, "name": "search_text", "arguments": args, "touch": None}],
        "wrong_schema": {"name": wire.WRONG_SCHEMA_TOOL, "arguments": args}}]}
    sdk = npm_clients / "node_modules" / "@modelcontextprotocol" / "sdk"
    done = subprocess.run(["node", str(BENCHMARKS / "wire_client.mjs"), str(sdk)], input=json.dumps(plan),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    session, = json.loads(done.stdout)["sessions"]
    row = session["calls"][label]
    assert row["validated"] and row["structured"] == answer and row["matches"] == 2
    assert "must have required property 'not_in_any_answer'" in session["wrong_schema"]
