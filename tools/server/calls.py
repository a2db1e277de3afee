"""What is done around every tool call, once: the answer made from the tool's result model (`answering`), and the
session ledger entry, the timing and the log line (`record_calls`, a middleware of the SDK's server)."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp_types import CallToolResult

from code_intel.core.tool_facts import ToolFacts
from code_intel.explore.shown import shown_files
from code_intel.server.answers import answered

log = logging.getLogger("code_intel.server")


def answering(fn: Callable[..., Any]) -> Callable[..., CallToolResult]:
    """`fn` answering its result model as the wire result; what it raises goes on to CodeIntelServer.call_tool,
    which refuses it. The signature stays `fn`'s (functools.wraps): the SDK builds the input schema from it."""

    @functools.wraps(fn)
    def answer(*args: Any, **kwargs: Any) -> CallToolResult:
        return answered(fn(*args, **kwargs))

    return answer


def record_calls(tools: Mapping[str, ToolFacts]) -> ServerMiddleware[Any]:
    """The middleware that puts each tools/call into the session ledger (when its tool says so, refusals too) and
    logs it with the time it took; other messages pass untouched."""

    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params
        if ctx.method != "tools/call" or not isinstance(params, Mapping):
            return await call_next(ctx)
        started = time.perf_counter()
        result = await call_next(ctx)
        if isinstance(result, dict):
            name, arguments = params.get("name"), params.get("arguments")
            await anyio.to_thread.run_sync(functools.partial(
                _after, ctx.lifespan_context, tools.get(name) if isinstance(name, str) else None, str(name),
                arguments if isinstance(arguments, dict) else {}, result, started))
        return result

    return record


def _after(app: Any, facts: ToolFacts | None, name: str, arguments: dict[str, Any], result: dict[str, Any],
           started: float) -> None:
    data = result.get("structuredContent") or {}
    ok = not result.get("isError")
    if facts is not None and facts.ledger:
        # every successful call notes what it showed (nothing, for a tool that shows no code), as it always has
        shown = (lambda: shown_files(data) if facts.shows_code else []) if ok else None
        app.record_tool_call(name, arguments, ok=ok, shown=shown)
    log.info("%s %s in %.0f ms", name, "ok" if ok else data.get("error"), (time.perf_counter() - started) * 1000)
