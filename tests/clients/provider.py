"""Scripted stand-ins for the model providers' APIs, served on 127.0.0.1 for the real clients.

No model is reachable from the test machines, so the test plays the model. The client is pointed at
one of these servers (Claude Code with ANTHROPIC_BASE_URL, Codex with a `model_providers` entry
whose `base_url` is `base_url + "/v1"`), sends its usual streamed requests and gets back a fixed
sequence of assistant turns. Everything else about the run is real: the client starts our MCP
server, loads its deferred tools, runs the project's hooks and feeds the results back here, where
the test reads them.

- `MessagesProvider`: the Anthropic Messages API (`POST /v1/messages`, server-sent events), turns
  made of `text(...)` and `tool(...)` blocks.
- `ResponsesProvider`: the OpenAI Responses API (`POST /v1/responses`, server-sent events), which
  is the only wire API Codex 0.169 speaks (it refuses `wire_api = "chat"`); turns made of
  `tool_search(...)`, `function_call(...)`, `custom_call(...)` and `message(...)` items.

Which turn to answer is read from the conversation itself: the number of scripted turns whose call
ids already appear in the request (never fewer than an earlier request showed, because a compacted
conversation no longer holds them). That survives the client merging and reordering messages, and
repeats the same answer if it retries a request. A request with no turn left gets a short text
reply; one that is not the main loop (a title, a compaction summary) gets a fitting text.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Block = dict[str, Any]
Turn = list[Block]
SUMMARY = "<analysis>Recap.</analysis>\n<summary>The user asked for a change; a code-intel session is running.</summary>"
LIMIT_REACHED = "The scripted provider's request limit was reached; stopping."


class ScriptedProvider:
    """`with SomeProvider(script) as provider:` serves `provider.script` at `provider.base_url`.

    Subclasses say how a request is answered (`respond`) and where its conversation is (`conversation`)."""

    def __init__(self, script: list[Turn] | None = None, max_requests: int = 200) -> None:
        self.script: list[Turn] = script or []
        self.requests: list[dict[str, Any]] = []  # every request body, in order
        self.max_requests = max_requests
        self._lock = threading.Lock()
        self._done = 0  # turns the client has taken up, as far as any request showed
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                provider.respond(self, body)

            def do_GET(self) -> None:  # noqa: N802
                self.send_response(404)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ScriptedProvider:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def record(self, body: dict[str, Any]) -> bool:
        """Keep the request; False once the request limit is passed (a client looping on the script)."""
        with self._lock:
            self.requests.append(body)
            return len(self.requests) <= self.max_requests

    def next_turn(self, body: dict[str, Any]) -> Turn | None:
        """The first scripted turn none of whose call ids the conversation holds yet; None when all are done."""
        conversation = self.conversation(body)
        seen = sum(1 for turn in self.script if any(f'"{call_id}"' in conversation for call_id in map(_call_id, turn)
                                                    if call_id))
        with self._lock:
            self._done = done = max(self._done, seen)
        return self.script[done] if done < len(self.script) else None

    def conversation(self, body: dict[str, Any]) -> str:
        raise NotImplementedError

    def respond(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        raise NotImplementedError


def _call_id(block: Block) -> str | None:
    return block.get("id") if "id" in block else block.get("call_id")


def send_json(handler: BaseHTTPRequestHandler, data: dict[str, Any]) -> None:
    raw = json.dumps(data).encode("utf-8")
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(raw)))
    handler.end_headers()
    handler.wfile.write(raw)


def send_events(handler: BaseHTTPRequestHandler, events: list[tuple[str, dict[str, Any]]]) -> None:
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.end_headers()
    for name, data in events:
        handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
    handler.wfile.flush()


# ----------------------------------------------------------------------------- Anthropic Messages (Claude Code)
def text(words: str) -> Turn:
    return [{"type": "text", "text": words}]


def tool(tool_id: str, name: str, **tool_input: Any) -> Turn:
    return [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]


class MessagesProvider(ScriptedProvider):
    """The Anthropic Messages API as Claude Code uses it. Only main-loop requests (those offering
    ToolSearch) follow the script; a compaction request gets SUMMARY."""

    def conversation(self, body: dict[str, Any]) -> str:
        return json.dumps(body.get("messages", []))

    def respond(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if "count_tokens" in handler.path:
            send_json(handler, {"input_tokens": 1000})
            return
        blocks = self.answer(body)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        if body.get("stream"):
            send_events(handler, stream_events(blocks, stop, body.get("model")))
        else:
            send_json(handler, {"id": f"msg_{uuid.uuid4().hex}", "type": "message", "role": "assistant",
                                "model": body.get("model"), "content": blocks, "stop_reason": stop,
                                "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}})

    def answer(self, body: dict[str, Any]) -> Turn:
        if not self.record(body):
            return text(LIMIT_REACHED)
        conversation = self.conversation(body)
        if "<summary>" in conversation and "Respond with plain text only" in conversation:
            return text(SUMMARY)
        tools = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
        if "ToolSearch" not in tools:
            return text("ok")
        return self.next_turn(body) or text("Stopping here.")

    # -- reading what Claude Code sent back ---------------------------------------
    def tool_results(self) -> dict[str, dict[str, Any]]:
        """tool_use_id -> the tool_result block Claude Code sent for it (the last one seen)."""
        found: dict[str, dict[str, Any]] = {}
        for body in self.requests:
            for message in body.get("messages", []):
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        found[block["tool_use_id"]] = block
        return found

    def result_text(self, tool_use_id: str) -> str:
        block = self.tool_results().get(tool_use_id)
        if block is None:
            return ""
        content = block.get("content")
        if isinstance(content, list):
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return str(content)


def stream_events(blocks: Turn, stop: str, model: Any) -> list[tuple[str, dict[str, Any]]]:
    """One assistant message as the Messages API streams it: start, each block (start, delta, stop), end."""
    message = {"id": f"msg_{uuid.uuid4().hex}", "type": "message", "role": "assistant", "model": model or "claude",
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# ----------------------------------------------------------------------------- OpenAI Responses (Codex)
def message(words: str) -> Turn:
    return [{"type": "message", "role": "assistant", "id": f"msg_{uuid.uuid4().hex}",
             "content": [{"type": "output_text", "text": words}]}]


def tool_search(call_id: str, query: str, limit: int = 20) -> Turn:
    """Codex's client-side tool search: it answers with the deferred tools (MCP namespaces) that match."""
    return [{"type": "tool_search_call", "call_id": call_id, "execution": "client",
             "arguments": {"query": query, "limit": limit}}]


def function_call(call_id: str, name: str, namespace: str | None = None, **arguments: Any) -> Turn:
    """A JSON-argument tool call; MCP tools are named inside their namespace (`mcp__code_intel`)."""
    item: Block = {"type": "function_call", "call_id": call_id, "name": name, "arguments": json.dumps(arguments)}
    if namespace:
        item["namespace"] = namespace
    return [item]


def custom_call(call_id: str, name: str, tool_input: str) -> Turn:
    """A freeform tool call, the way Codex offers apply_patch: the patch text is the whole input."""
    return [{"type": "custom_tool_call", "call_id": call_id, "name": name, "input": tool_input}]


CODEX_COMPACTION = "CONTEXT CHECKPOINT COMPACTION"  # the opening of Codex's summary request
FULL_CONTEXT_TOKENS = 1_000_000


class ResponsesProvider(ScriptedProvider):
    """The OpenAI Responses API as Codex uses it: each answer streams `response.created`, one
    `response.output_item.done` per item of the turn and `response.completed` (which Codex waits for).

    `compact_after`: call ids whose turn, the first time it is answered, reports FULL_CONTEXT_TOKENS
    used, so that Codex (run with a lower `model_auto_compact_token_limit`) compacts before going on;
    its summary request gets a short summary."""

    def __init__(self, script: list[Turn] | None = None, max_requests: int = 200,
                 compact_after: set[str] | None = None) -> None:
        super().__init__(script, max_requests)
        self.compact_after = set(compact_after or ())

    def conversation(self, body: dict[str, Any]) -> str:
        return json.dumps(body.get("input", []))

    def respond(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        tokens = 15
        if not self.record(body):
            items = message(LIMIT_REACHED)
        elif CODEX_COMPACTION in self.conversation(body)[-4000:]:
            items = message("Summary: the user asked for a change; a code-intel session is running.")
        elif not body.get("tools"):
            items = message("ok")  # not the agent loop (a title)
        else:
            items = self.next_turn(body) or message("Stopping here.")
            with self._lock:
                heavy = {item.get("call_id") for item in items} & self.compact_after
                self.compact_after -= heavy
            if heavy:
                tokens = FULL_CONTEXT_TOKENS
        response_id = f"resp_{uuid.uuid4().hex}"
        usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                 "output_tokens_details": None, "total_tokens": tokens}
        events = [("response.created", {"type": "response.created", "response": {"id": response_id}})]
        events += [("response.output_item.done", {"type": "response.output_item.done", "item": item}) for item in items]
        events.append(("response.completed", {"type": "response.completed",
                                               "response": {"id": response_id, "usage": usage}}))
        send_events(handler, events)

    # -- reading what Codex sent back ---------------------------------------------
    def items(self, kind: str) -> list[dict[str, Any]]:
        """Every input item of one type across all requests, in order (repeats included)."""
        return [item for body in self.requests for item in body.get("input", [])
                if isinstance(item, dict) and item.get("type") == kind]

    def output(self, call_id: str) -> str:
        """What Codex answered the model for one call (function, custom tool), the last one seen."""
        found = ""
        for kind in ("function_call_output", "custom_tool_call_output"):
            for item in self.items(kind):
                if item.get("call_id") == call_id:
                    output = item.get("output")
                    found = output if isinstance(output, str) else json.dumps(output)
        return found
