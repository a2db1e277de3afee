"""The one place the server reaches past the MCP SDK's public API, and why.

`MCPServer.run_stdio_async` opens the SDK's stdio transport on the process's own stdin. We put a reader in front
of stdin that answers every request line the SDK would drop unanswered (tools/server/stdio.py), so the low-level
server is run on the transport's streams here, exactly as run_stdio_async does it. Nothing else is needed.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer


async def run_on_streams(server: MCPServer[Any], read_stream: Any, write_stream: Any) -> None:
    lowlevel = server._lowlevel_server  # no public way to run an MCPServer on given streams (mcp 2.3.0)
    await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
