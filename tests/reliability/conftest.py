"""A raw stdio client for the reliability tests: it writes JSON-RPC lines itself (so it can send what
no SDK client would) and reads the answers by id, with a deadline on every wait."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
SERVER = REPO / "code_intel_server.py"


class ServerGone(Exception):
    """The server process ended (killed, or crashed) before answering."""


class RawServer:
    def __init__(self, project: Path, env: dict[str, str] | None = None, prefix: list[str] | None = None) -> None:
        full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
        full_env.pop("CODE_INTEL_PROJECT", None)
        self.process = subprocess.Popen(
            [*(prefix or []), sys.executable, str(SERVER), "--project", str(project)], cwd=project, env=full_env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._answers: dict[Any, dict[str, Any]] = {}
        self._arrived: queue.Queue[None] = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 100
        self._schemas: dict[str, Any] | None = None
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr or []), daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            message = json.loads(raw)  # stdout must carry protocol messages only
            with self._lock:
                self._answers[message.get("id")] = message
            self._arrived.put(None)
        self._arrived.put(None)

    # ------------------------------------------------------------------ sending
    def send_line(self, line: bytes | str) -> None:
        data = line.encode("utf-8") if isinstance(line, str) else line
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(data.rstrip(b"\n") + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError as err:
            raise ServerGone("the server closed its stdin") from err

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    # ------------------------------------------------------------------ reading
    def answer(self, request_id: Any, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if request_id in self._answers:
                    return self._answers.pop(request_id)
            if self.process.poll() is not None and self._arrived.empty():
                raise ServerGone(f"the server exited ({self.process.returncode}) before answering {request_id!r}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {request_id!r} within {timeout} s")
            try:
                self._arrived.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue

    def has_answer(self, request_id: Any) -> bool:
        with self._lock:
            return request_id in self._answers

    def initialize(self) -> dict[str, Any]:
        first = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "reliability-tests", "version": "1"}})
        answer = self.answer(first, timeout=60)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, tool: str, arguments: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        """A tool's structured result (every tool of ours answers an object with `success`), checked against
        the tool's output schema from tools/list, as the SDK's client does."""
        answer = self.answer(self.request("tools/call", {"name": tool, "arguments": arguments or {}}), timeout)
        assert "result" in answer, answer
        structured: dict[str, Any] = answer["result"]["structuredContent"]
        self._check_schema(tool, structured)
        return structured

    def _check_schema(self, tool: str, structured: dict[str, Any]) -> None:
        import jsonschema

        if self._schemas is None:
            listed = self.answer(self.request("tools/list"), timeout=30)["result"]["tools"]
            self._schemas = {t["name"]: t.get("outputSchema") for t in listed}
        schema = self._schemas.get(tool)
        if schema:
            jsonschema.validate(structured, schema)

    # ------------------------------------------------------------------ ending
    def wait_exit(self, timeout: float = 30.0) -> int:
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            if self.process.stdin:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def spawn() -> Iterator[Callable[..., RawServer]]:
    """`spawn(project, env=None, prefix=None)`: a started, initialized server (its command after `prefix`);
    every one is closed after the test."""
    started: list[RawServer] = []

    def start(project: Path, env: dict[str, str] | None = None, initialize: bool = True,
              prefix: list[str] | None = None) -> RawServer:
        server = RawServer(project, env, prefix)
        started.append(server)
        if initialize:
            server.initialize()
        return server

    yield start
    for server in started:
        server.close()


def read_only_prefix(folder: Path) -> list[str]:
    """A command prefix under which `folder` cannot be written by the server.

    As root, permissions do not stop writes, so the server runs in its own mount namespace where
    the folder is bind-mounted read-only (the real read-only mount a user could have); as any other
    user the folder's write bits are simply removed. Skips when neither is possible here."""
    if os.geteuid() != 0:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir():
                path.chmod(0o555)
            elif path.is_file():
                path.chmod(0o444)
        return []
    probe = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$1" "$1" && ! touch "$1/.probe" 2>/dev/null',
                            "sh", str(folder)], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("cannot make a folder read-only here (root without mount namespaces)")
    return ["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$1" "$1" && shift && exec "$@"', "sh", str(folder)]
