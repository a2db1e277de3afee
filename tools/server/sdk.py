"""The one place the server reaches past the MCP SDK's public API (mcp 2.3.0), and why.

- `run_on_streams`: `MCPServer.run_stdio_async` opens the SDK's stdio transport on the process's own stdin. We
  put a reader in front of stdin that answers every request line the SDK would drop unanswered
  (tools/server/stdio.py), so the low-level server is run on the transport's streams here, as run_stdio_async
  does it.
- `skip_logging_setup`: `MCPServer()` calls the SDK's `configure_logging`, which builds a rich handler (start-up
  CPU spent for nothing, docs/benchmarks.md) only to pass it to `logging.basicConfig`, which does nothing once our
  own handlers exist (core/log_setup.py).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer


async def run_on_streams(server: MCPServer[Any], read_stream: Any, write_stream: Any) -> None:
    lowlevel = server._lowlevel_server  # no public way to run an MCPServer on given streams (mcp 2.3.0)
    await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def skip_logging_setup() -> None:
    import mcp.server.mcpserver.server as sdk_server

    sdk_server.configure_logging = lambda *args, **kwargs: None  # type: ignore[assignment]
