"""A stdio MCP server that has its answers ready: benchmarks/wire.py's floor for the cost of an answer on the wire.

It is the same SDK server class code-intel uses (MCPServer). It lists the tools given in the JSON file named as its
argument, exactly as given (benchmarks/wire.py writes our server's listing there, as a client got it from tools/list),
so a client learns their output schemas through its ordinary tools/list and validates the answers against them. It
answers every tools/call of a tool named under "answers" with that recorded answer, sent the way code-intel sends
one: the answer's compact JSON is kept aside by code-intel's own stdio layer (tools/server/stdio.py, WireAnswers), the SDK
is handed markers, and the writer puts the answer in their place as text content and as structured content. It
does no other work, so its time on the pipe is what the SDK's dispatch, that layer and the transport cost for an
answer of that size.

    .venv/bin/python benchmarks/wire_canned.py ANSWERS.json
    # {"tools": [tools/list entries, as JSON], "answers": {"tool name": structured answer, ...}}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import Tool
from pydantic_core import to_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from code_intel.server.stdio import WireAnswers, serve_stdio


class CannedServer(MCPServer[None]):
    """Lists the given tools and answers their calls with the recorded answers. It registers no tool functions, so
    the SDK checks no arguments against an input schema: the arguments do not matter here."""

    def __init__(self, tools: list[dict[str, Any]], answers: dict[str, dict[str, Any]]) -> None:
        super().__init__("wire-canned")
        self.listing = [Tool.model_validate(tool) for tool in tools]
        self.answers = {name: to_json(data) for name, data in answers.items()}
        self.wire_answers = WireAnswers()

    async def list_tools(self) -> list[Tool]:
        return self.listing

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name not in self.answers:
            return self.wire_answers.result(to_json({"error": f"no answer recorded for tool {name!r}"}), is_error=True)
        return self.wire_answers.result(self.answers[name], is_error=False)

    async def run_stdio_async(self) -> None:  # as code_intel_server.CodeIntelServer does
        await serve_stdio(self._lowlevel_server, self.wire_answers)


def main() -> int:
    given = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    CannedServer(given["tools"], given["answers"]).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
