"""The reading side of the stdio transport: every request line that carries an id gets an answer.

The MCP SDK's stdio transport validates each line with pydantic and, when that fails, passes the
exception to the session, which logs it and answers nothing: a request nested 200 levels deep,
holding a lone surrogate (`"\\ud800"`) or a 5,000-digit number, or simply malformed, leaves the
client waiting forever. This layer reads stdin itself, checks each line first and answers what it
refuses with a JSON-RPC error through the SDK's own writer (so answers never interleave):

- -32700 parse error: not UTF-8, not JSON, or JSON's forbidden NaN/Infinity;
- -32600 invalid request: not a JSON-RPC 2.0 request (including batches, which MCP dropped),
  nesting deeper than MAX_DEPTH, a line longer than MAX_LINE_BYTES, a bad value outside `params`;
- -32602 invalid params: a lone surrogate or an over-long number inside `params`, `params` not an object,
  a tools/call whose `name` is not a string or whose `arguments` are not an object (said in words: the SDK
  would answer only "Invalid request parameters").

The id is taken from the parsed message, or, when the line is not JSON, from its top-level `"id"`
if one can be read; JSON-RPC says to answer with id null otherwise. Notifications and responses
from the client are never answered (JSON-RPC forbids it); a bad one is logged. Lines that pass
are handed to the SDK unchanged. File descriptor 0 is moved to /dev/null while serving, as the SDK
does when it owns stdin, so child processes never read protocol bytes.

File descriptor 1 is the SDK's to claim: it points it at stderr while serving, so a stray print can never
corrupt the protocol stream.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import IO, Any

import anyio
import anyio.to_thread

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64  # below the SDK's own JSON recursion limit, so whatever passes here it can read
MAX_NUMBER_CHARS = 100
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Rejection:
    """A line refused before the SDK sees it; `answer` is False for notifications and responses."""

    code: int
    message: str
    id: int | str | None
    answer: bool


class _BigNumber:
    """Stands in for a number too long to take, so the check below can say where it was."""

    def __init__(self, text: str) -> None:
        self.text = text


def _number(kind: type) -> Any:
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            return _BigNumber(text)
        return kind(text)

    return parse


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _valid_id(value: Any) -> int | str | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def top_level_id(text: str) -> int | str | None:
    """The `id` member of the outermost object in a line that may be broken, when it can be read."""
    depth = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            key = text[i:end + 1]
            i = end + 1
            if depth == 1 and key == '"id"':
                rest = text[i:].lstrip()
                if rest.startswith(":"):
                    value = re.match(r'\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,256}")', rest[1:])
                    if value:
                        with suppress(ValueError):
                            return _valid_id(json.loads(value.group(1)))
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        i += 1
    return None


def _problem(value: Any, path: str, depth: int) -> tuple[str, str] | None:
    """(where, what) for the first value this layer refuses, or None."""
    if depth > MAX_DEPTH:
        return path, f"nests deeper than {MAX_DEPTH} levels"
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        if found:
            return path, (f"holds a lone UTF-16 surrogate (\\u{ord(found.group()):04x}), which is not a Unicode "
                          "character: send valid UTF-8 text")
        return None
    if isinstance(value, _BigNumber):
        return path, f"is a number of {len(value.text)} characters; at most {MAX_NUMBER_CHARS} are accepted"
    if isinstance(value, dict):
        for key, item in value.items():
            if _SURROGATE.search(key):
                return f"{path}.<key>", "has a key holding a lone UTF-16 surrogate: send valid UTF-8 text"
            found_problem = _problem(item, f"{path}.{key}", depth + 1)
            if found_problem:
                return found_problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found_problem = _problem(item, f"{path}[{index}]", depth + 1)
            if found_problem:
                return found_problem
    return None


def _shape_problem(message: dict[str, Any]) -> tuple[int, str] | None:
    """What makes this object no JSON-RPC 2.0 request or notification, in words, or None."""
    if "method" not in message:
        if "result" in message or "error" in message:
            return None  # a response: the SDK's validation judges it
        return INVALID_REQUEST, "invalid request: no `method`; send {\"jsonrpc\": \"2.0\", \"id\", \"method\", \"params\"}"
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, f"invalid request: `jsonrpc` must be \"2.0\", got {message.get('jsonrpc')!r}"
    if not isinstance(message["method"], str):
        return INVALID_REQUEST, f"invalid request: `method` must be a string, got {type(message['method']).__name__}"
    if "id" in message and _valid_id(message["id"]) is None:
        return INVALID_REQUEST, f"invalid request: `id` must be an integer or a string, got {message['id']!r}"[:300]
    if "params" in message and message["params"] is not None and not isinstance(message["params"], dict):
        return INVALID_PARAMS, f"invalid params: `params` must be an object, got {type(message['params']).__name__}"
    if message["method"] == "tools/call":  # said here in words: the SDK answers only "Invalid request parameters"
        params = message.get("params") or {}
        if not isinstance(params.get("name"), str):
            return INVALID_PARAMS, ("invalid params: tools/call needs `name`, the tool's name as a string (tools/list "
                                    f"names them), got {type(params.get('name')).__name__}")
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            return INVALID_PARAMS, ("invalid params: tools/call `arguments` must be an object of argument names and "
                                    f"values, e.g. {{\"pattern\": \"def main\"}}, got {type(arguments).__name__}")
    return None


def check_line(raw: bytes) -> Rejection | str | None:
    """The text to hand to the SDK, a Rejection, or None for a blank line."""
    line = raw.rstrip(b"\r\n")
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        return Rejection(PARSE_ERROR, f"parse error: the line is not valid UTF-8 (byte {err.start})",
                         top_level_id(line.decode("utf-8", errors="replace")), answer=True)
    try:
        message = json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_no_constants)
    except RecursionError:
        return Rejection(INVALID_REQUEST, f"invalid request: the message nests deeper than {MAX_DEPTH} levels",
                         top_level_id(text), answer=True)
    except ValueError as err:
        return Rejection(PARSE_ERROR, f"parse error: {err}", top_level_id(text), answer=True)
    if not isinstance(message, dict):
        kind = "a batch (array)" if isinstance(message, list) else f"a JSON {type(message).__name__}"
        return Rejection(INVALID_REQUEST, f"invalid request: the message is {kind}; send one JSON-RPC 2.0 object "
                         "per line", None, answer=True)
    message_id = message.get("id")
    is_request = "id" in message and "method" in message
    is_response = "id" in message and ("result" in message or "error" in message) and "method" not in message
    answer = "id" in message and not is_response
    problem = _problem(message, "message", 1)
    if problem is not None:
        where, what = problem
        inside_params = where.startswith("message.params")
        code = INVALID_PARAMS if inside_params and is_request else INVALID_REQUEST
        label = "invalid params" if code == INVALID_PARAMS else "invalid request"
        return Rejection(code, f"{label}: {where.removeprefix('message.')[:200]} {what}",
                         _valid_id(message_id) if not isinstance(message_id, _BigNumber) else None, answer=answer)
    shape = _shape_problem(message)
    if shape is not None:
        code, what = shape
        return Rejection(code, what, _valid_id(message_id), answer=answer)
    from mcp_types import jsonrpc_message_adapter

    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as err:  # pydantic's ValidationError: the message is not JSON-RPC 2.0
        lines = str(err).splitlines()
        detail = "; ".join(line.strip() for line in lines[1:4]) or type(err).__name__
        return Rejection(INVALID_REQUEST, f"invalid request: not a JSON-RPC 2.0 message ({detail})"[:500],
                         _valid_id(message_id), answer=answer)
    return text


def _claim_stdin() -> tuple[IO[bytes], Callable[[], None]]:
    """A private binary reader on the real stdin; until released, file descriptor 0 reads /dev/null, so child
    processes never read protocol bytes (the SDK does the same for stdout, pointing it at stderr)."""
    private = os.dup(0)
    os.set_inheritable(private, False)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)

    def release() -> None:
        with suppress(OSError):
            os.dup2(private, 0)

    return os.fdopen(private, "rb", closefd=False), release


class GuardedLines:
    """An async iterator of the lines the SDK may read; refused lines are answered on the way."""

    def __init__(self, source: IO[bytes]) -> None:
        self.source = source
        self.writer: Any = None
        self._writer_ready = anyio.Event()

    def attach(self, write_stream: Any) -> None:
        self.writer = write_stream
        self._writer_ready.set()

    def __aiter__(self) -> GuardedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await anyio.to_thread.run_sync(self.source.readline, MAX_LINE_BYTES + 1)
            if not raw:
                raise StopAsyncIteration
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                await self._skip_rest_of_line()
                checked: Rejection | str | None = Rejection(
                    INVALID_REQUEST, f"invalid request: the line is longer than {MAX_LINE_BYTES} bytes",
                    top_level_id(raw[:4096].decode("utf-8", errors="replace")), answer=True)
            else:
                checked = check_line(raw)
            if checked is None:
                continue
            if isinstance(checked, str):
                return checked + "\n"
            await self._refuse(checked)

    async def _skip_rest_of_line(self) -> None:
        while True:
            chunk = await anyio.to_thread.run_sync(self.source.readline, MAX_LINE_BYTES)
            if not chunk or chunk.endswith(b"\n"):
                return

    async def _refuse(self, rejection: Rejection) -> None:
        log.warning("refused a stdin line (%s): %s", rejection.code, rejection.message[:300])
        if not rejection.answer:
            return
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError

        await self._writer_ready.wait()
        error = JSONRPCError(jsonrpc="2.0", id=rejection.id,
                             error=ErrorData(code=rejection.code, message=rejection.message))
        try:
            await self.writer.send(SessionMessage(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            log.info("the connection closed before a refused line could be answered")


async def serve_stdio(run: Callable[[Any, Any], Awaitable[None]]) -> None:
    """`run(read_stream, write_stream)` on the SDK's stdio transport, with our reader in front of stdin."""
    from mcp.server.stdio import stdio_server

    source, release = _claim_stdin()
    try:
        lines = GuardedLines(source)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.attach(write_stream)
            await run(read_stream, write_stream)
    finally:
        release()
