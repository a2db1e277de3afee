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

The writing side is ours too (`WireWriter`), for one reason: a tool answer carries the same JSON twice, as
text content and as structured content, and can hold thousands of matches. The server keeps the answer's encoded
JSON aside (`WireAnswers`) and hands the SDK a result whose text and structured content are small markers naming
it; when the SDK's line is written, the markers are replaced by the answer, as a JSON string in the text and as
itself in the structured content. The SDK's line stays a few hundred bytes, so neither the SDK (dump, protocol
check, JSON) nor this layer walks the answer more than once more: the escaping that makes it a JSON string.
File descriptor 1 is pointed at stderr while serving, as the SDK does, so a stray print can never corrupt the
protocol stream.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import secrets
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal

import anyio
import anyio.to_thread

from code_intel.server.written import json_string_body

if TYPE_CHECKING:
    from mcp_types import CallToolResult

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


def _std_fd(stream: IO[Any] | None, default: int) -> int:
    try:
        return stream.fileno() if stream is not None else default
    except (AttributeError, OSError, ValueError):  # replaced by an object without a descriptor
        return default


def _claim(stream: IO[Any] | None, default_fd: int, mode: Literal["rb", "wb"]) -> tuple[IO[bytes], Any]:
    """A private binary reader or writer on a real standard stream. Until released, the descriptor itself
    points elsewhere: stdin at /dev/null, stdout at stderr (or /dev/null when there is none), so child
    processes never read protocol bytes and stray output never lands in the protocol stream."""
    fd = _std_fd(stream, default_fd)
    private = os.dup(fd)
    os.set_inheritable(private, False)
    diverted = False
    if mode == "wb":
        with suppress(OSError):
            os.dup2(2, fd)
            diverted = True
    if not diverted:
        devnull = os.open(os.devnull, os.O_RDONLY if mode == "rb" else os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)

    def release() -> None:
        with suppress(OSError):
            os.dup2(private, fd)

    return os.fdopen(private, mode, closefd=False), release


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


ANSWER_KEY = "code_intel_answer"  # the structured content's marker: {ANSWER_KEY: token}
MAX_WAITING_ANSWERS = 256  # answers kept aside for a line not written yet (see WireAnswers)
MAX_WAITING_BYTES = 64 * 1024 * 1024
# an answer's line is written milliseconds after the answer is kept; one still waiting after this long belongs to
# a call that was cancelled (the SDK drops its line) and goes when the next answer is kept
MAX_WAITING_SECONDS = 600.0


class WireAnswers:
    """Tool answers as encoded JSON, kept aside until the SDK's line that carries them is written (WireWriter).

    `result()` keeps an answer under a token and gives the SDK a CallToolResult whose text content is the
    token and whose structured content is `{ANSWER_KEY: token}`; the text copy is the answer as the inside of
    a JSON string, escaped when the line is written or given ready (`body`, made while the engine still ran).
    A token is this process's random tag and a counter: it is never sent to the client (each is replaced as
    its line is written), so no text from outside can name one. An answer leaves when its line is written. One whose line never is (the call was cancelled,
    the client went away) would stay, so at most MAX_WAITING_ANSWERS answers and MAX_WAITING_BYTES are kept,
    none for longer than MAX_WAITING_SECONDS once another answer comes: past any of these, the oldest are
    dropped, with a warning, and their lines (if they ever come) go out as an internal_error refusal."""

    def __init__(self, max_answers: int = MAX_WAITING_ANSWERS, max_bytes: int = MAX_WAITING_BYTES,
                 max_seconds: float = MAX_WAITING_SECONDS, clock: Callable[[], float] = time.monotonic,
                 annotate: Callable[[dict[str, Any]], object] | None = None) -> None:
        self.tag = f"code-intel-answer-{secrets.token_hex(8)}-"
        self.tokens = re.compile(re.escape(self.tag) + "[0-9]+")
        self.max_answers = max_answers
        self.max_bytes = max_bytes
        self.max_seconds = max_seconds
        self.clock = clock
        self.annotate = annotate  # adds the session's phase fields to the refusal for a lost answer
        self._counter = itertools.count(1)
        self._waiting: OrderedDict[str, tuple[bytes, bytes | None]] = OrderedDict()
        self._kept_at: dict[str, float] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._waiting)

    def result(self, answer: bytes, *, is_error: bool, body: bytes | None = None) -> CallToolResult:
        """The CallToolResult to hand the SDK for `answer` (compact JSON of an object, UTF-8); `body`, when
        given, is json_string_body(answer), made ahead."""
        from mcp_types import CallToolResult, TextContent

        token = self.keep(answer, body)
        return CallToolResult(content=[TextContent(type="text", text=token)], structured_content={ANSWER_KEY: token},
                              is_error=is_error)

    def keep(self, answer: bytes, body: bytes | None = None) -> str:
        size = len(answer) + (len(body) if body is not None else 0)
        with self._lock:
            token = f"{self.tag}{next(self._counter)}"
            now = self.clock()
            self._waiting[token] = (answer, body)
            self._kept_at[token] = now
            self._bytes += size
            while len(self._waiting) > 1 and (len(self._waiting) > self.max_answers or self._bytes > self.max_bytes
                                              or now - self._kept_at[next(iter(self._waiting))] > self.max_seconds):
                oldest, old = self._waiting.popitem(last=False)
                del self._kept_at[oldest]
                self._bytes -= _size(old)
                log.warning("dropped an answer of %d bytes whose line was never written (%d answers waiting); if "
                            "its line comes it is sent as an internal_error", len(old[0]), len(self._waiting))
        return token

    def take(self, token: str) -> tuple[bytes, bytes | None] | None:
        """The answer kept under `token` and its body made ahead (or None), taken out; None if not kept."""
        with self._lock:
            kept = self._waiting.pop(token, None)
            if kept is not None:
                self._bytes -= _size(kept)
                del self._kept_at[token]
            return kept

    def complete(self, line: str) -> tuple[bytes, ...]:
        """The bytes to write for a line the SDK made, in pieces: with the answer its markers name put in their
        place. A line naming an answer that is no longer kept (or naming it in an unexpected way) becomes an
        internal_error refusal for its request, so no marker ever reaches the client."""
        if self.tag not in line:
            # the server's answers are UTF-8 safe (tools/core/pathnames.py); "replace" only keeps the stream valid if not
            return (line.encode("utf-8", errors="replace"),)
        tokens = set(self.tokens.findall(line))
        answers = {token: self.take(token) for token in tokens}
        if len(tokens) == 1:
            ((token, kept),) = answers.items()
            if kept is not None:
                spliced = _splice(line, token, *kept)
                if spliced is not None:
                    return spliced
                log.error("an answer line does not hold its markers as expected (%d characters); sent as an "
                          "internal_error", len(line))
            else:
                log.error("an answer line names an answer that is no longer kept; sent as an internal_error")
        else:
            log.error("an answer line names %d answers; sent as an internal_error", len(tokens))
        return (self.lost_answer_line(line),)



    def lost_answer_line(self, line: str) -> bytes:
        """The answer for the request of a line whose tool answer was lost: an internal_error refusal in the
        usual envelope (both copies, isError), so the client's call ends and the model can call again.
        `self.annotate` adds the contract's phase fields (current_phase, step, instruction, ...); a fault in it
        leaves the refusal without them rather than the request without an answer."""
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        request_id = _valid_id(message.get("id")) if isinstance(message, dict) else top_level_id(line)
        if request_id is None:  # no request to answer (our markers are only ever in tool results, which have one)
            return b""
        refusal = {
            "success": False,
            "error": "internal_error",
            "message": "the answer to this call was lost before it could be written (the server kept too many "
                       "unwritten answers, or a fault in its stdio layer)",
            "hint": "call the tool again; see .code-intel/logs/server.log; the server is still running",
        }
        if self.annotate is not None:
            try:
                self.annotate(refusal)
            except Exception:
                log.exception("adding the phase fields to a lost answer's refusal failed; sent without them")
        text = json.dumps(refusal, separators=(",", ":"), default=str)  # whatever annotate added, it must not fail here
        return json.dumps({"jsonrpc": "2.0", "id": request_id,
                           "result": {"content": [{"type": "text", "text": text}], "structuredContent": refusal,
                                      "isError": True}}, separators=(",", ":"), default=str).encode("utf-8") + b"\n"


def _size(kept: tuple[bytes, bytes | None]) -> int:
    return len(kept[0]) + (len(kept[1]) if kept[1] is not None else 0)


def _splice(line: str, token: str, answer: bytes, body: bytes | None = None) -> tuple[bytes, ...] | None:
    """`line` with its structured marker replaced by `answer` and its text marker (the token between
    quotes) by `answer` as the inside of a JSON string (`body` when it was made ahead), in five pieces (joined,
    they would be one more copy of the answer, in freshly allocated memory: as slow as the escaping); None
    when the markers are not there once each."""
    structured = f'{{"{ANSWER_KEY}":"{token}"}}'
    quoted = f'"{token}"'
    at_structured = line.find(structured)
    if at_structured < 0 or line.count(quoted) != 2 or line.count(structured) != 1:
        return None
    inside = at_structured + len(structured) - 1 - len(quoted)  # the token's own quotes in the structured marker
    at_text = line.find(quoted)
    if at_text == inside:
        at_text = line.find(quoted, inside + len(quoted))
    at_text += 1  # the token only: its quotes stay, around the escaped answer
    text = body if body is not None else json_string_body(answer)
    if at_text < at_structured:
        first, first_end, first_bytes = at_text, at_text + len(token), text
        second, second_end, second_bytes = at_structured, at_structured + len(structured), answer
    else:
        first, first_end, first_bytes = at_structured, at_structured + len(structured), answer
        second, second_end, second_bytes = at_text, at_text + len(token), text
    return (line[:first].encode("utf-8"), first_bytes, line[first_end:second].encode("utf-8"), second_bytes,
            line[second_end:].encode("utf-8"))


class WireWriter:
    """The `stdout` the SDK's stdio transport writes its lines to: each line gets the answer its markers name
    put in place (WireAnswers.complete) and goes to the real stdout, both on a worker thread, so neither a
    large answer nor a client that reads slowly holds up the event loop. The SDK's writer task sends one line
    at a time; the lock keeps a line's pieces together even if something else ever wrote here too."""

    def __init__(self, sink: IO[bytes], answers: WireAnswers) -> None:
        self.sink = sink
        self.answers = answers
        self._lock = threading.Lock()

    async def write(self, line: str) -> None:
        await anyio.to_thread.run_sync(self._send, line)

    def _send(self, line: str) -> None:
        try:
            pieces = self.answers.complete(line)
        except Exception:  # a fault here must not end the SDK's writer task, nor leave the request unanswered
            log.exception("putting an answer in its line failed; sent as an internal_error")
            pieces = (self.answers.lost_answer_line(line),)
        with self._lock:
            for piece in pieces:
                if piece:
                    self.sink.write(piece)
            self.sink.flush()

    async def flush(self) -> None:
        return None  # every write is flushed


@asynccontextmanager
async def guarded_stdio(answers: WireAnswers | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's `stdio_server()` with our reader in front of stdin and our writer behind stdout; `answers`
    holds the tool answers the SDK's lines name (WireAnswers.result)."""
    from mcp.server.stdio import stdio_server

    source, release_stdin = _claim(sys.stdin, 0, "rb")
    try:
        sink, release_stdout = _claim(sys.stdout, 1, "wb")
        try:
            lines = GuardedLines(source)
            writer = WireWriter(sink, answers if answers is not None else WireAnswers())
            async with stdio_server(stdin=lines, stdout=writer) as (read_stream, write_stream):  # type: ignore[arg-type]
                lines.attach(write_stream)
                yield read_stream, write_stream
        finally:
            release_stdout()
    finally:
        release_stdin()


async def serve_stdio(lowlevel_server: Any, answers: WireAnswers) -> None:
    """Run an SDK low-level server on our stdio layer; its tool results come from `answers.result()`."""
    async with guarded_stdio(answers) as (read_stream, write_stream):
        await lowlevel_server.run(read_stream, write_stream, lowlevel_server.create_initialization_options())
