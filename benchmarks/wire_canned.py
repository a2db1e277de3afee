"""A stdio MCP server that has its answers ready: benchmarks/wire.py's floor for the cost of an answer on the wire.

It is the same SDK server class code-intel uses (MCPServer), and it answers every tools/call of a tool named in
the JSON file given as its argument with that tool's recorded answer, sent the way code-intel sends one: the
compact JSON as text content, and the same data as structured content, written from the text by code-intel's
own stdio layer (tools/stdio.py). It does no other work, so its time on the pipe is what the SDK's dispatch,
that layer and the transport cost for an answer of that size.

    .venv/bin/python benchmarks/wire_canned.py ANSWERS.json     # {"tool name": structured answer, ...}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic_core import to_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.stdio import STRUCTURED_AS_TEXT, guarded_stdio  # noqa: E402


class CannedServer(MCPServer[None]):
    def __init__(self, answers: dict[str, dict[str, Any]]) -> None:
        super().__init__("wire-canned")
        self.answers = {name: to_json(data).decode() for name, data in answers.items()}

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        return None  # no input validation: the arguments do not matter here

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        text = self.answers[name]
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=STRUCTURED_AS_TEXT,
                              is_error=False)

    async def run_stdio_async(self) -> None:  # as code_intel_server.CodeIntelServer does
        async with guarded_stdio() as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream, self._lowlevel_server.create_initialization_options())


def main() -> int:
    answers = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    CannedServer(answers).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
