"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1 for a real Claude Code.

No model is reachable from the test machines, so the test plays the model: Claude Code, pointed at
this server with ANTHROPIC_BASE_URL, sends its usual `POST /v1/messages` requests (streamed as
server-sent events) and gets back a fixed sequence of assistant turns, each a text or tool_use
block. Everything else about the run is real: Claude Code starts our MCP server from `.mcp.json`,
loads deferred tools through ToolSearch, runs the project's hooks and feeds the results back here,
where the test reads them.

Which turn to answer is read from the conversation itself: the number of scripted tool_use ids
already present in the request's messages. That survives Claude Code merging and reordering
messages, and repeats the same answer if it retries a request. A request with no turn left (or one
that is not the main loop, such as a title or a compaction summary) gets a short text reply.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Block = dict[str, Any]
SUMMARY = "<analysis>Recap.</analysis>\n<summary>The user asked for a change; a code-intel session is running.</summary>"


def text(words: str) -> list[Block]:
    return [{"type": "text", "text": words}]


def tool(tool_id: str, name: str, **tool_input: Any) -> list[Block]:
    return [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]


class ScriptedProvider:
    """`with ScriptedProvider() as provider:` serves `provider.script` at `provider.base_url`."""

    def __init__(self, script: list[list[Block]] | None = None, max_requests: int = 200) -> None:
        self.script: list[list[Block]] = script or []
        self.requests: list[dict[str, Any]] = []  # every request body, in order
        self.max_requests = max_requests
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                if "count_tokens" in self.path:
                    self._json({"input_tokens": 1000})
                    return
                blocks = provider.answer(body)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                if body.get("stream"):
                    self._stream(blocks, stop, body.get("model"))
                else:
                    self._json({"id": f"msg_{uuid.uuid4().hex}", "type": "message", "role": "assistant",
                                "model": body.get("model"), "content": blocks, "stop_reason": stop,
                                "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}})

            def do_GET(self) -> None:  # noqa: N802
                self.send_response(404)
                self.end_headers()

            def _json(self, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode("utf-8")
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, blocks: list[Block], stop: str, model: Any) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for name, data in stream_events(blocks, stop, model):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

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

    def answer(self, body: dict[str, Any]) -> list[Block]:
        with self._lock:
            self.requests.append(body)
            if len(self.requests) > self.max_requests:
                return text("The scripted provider's request limit was reached; stopping.")
        conversation = json.dumps(body.get("messages", []))
        if "<summary>" in conversation and "Respond with plain text only" in conversation:
            return text(SUMMARY)
        tools = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
        if "ToolSearch" not in tools:
            return text("ok")
        done = sum(1 for turn in self.script if any(f'"{b["id"]}"' in conversation for b in turn if "id" in b))
        return self.script[done] if done < len(self.script) else text("Stopping here.")

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


def stream_events(blocks: list[Block], stop: str, model: Any) -> list[tuple[str, dict[str, Any]]]:
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
