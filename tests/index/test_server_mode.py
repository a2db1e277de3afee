"""The index on a real Chroma server (`chroma run` on loopback, started by the test)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from code_intel.core.errors import ToolUnavailable
from code_intel.index.service import SemanticIndex

pytestmark = pytest.mark.slow

CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    if not CHROMA.exists():
        pytest.skip(f"{CHROMA} not installed")
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen([str(CHROMA), "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"chroma run did not answer on port {port}")
                time.sleep(0.3)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_sync_and_search_through_a_chroma_server(
    sample_project: Path, chroma_server: int, make_index: Callable[..., SemanticIndex]
) -> None:
    settings = {"chroma": {"mode": "http", "host": "127.0.0.1", "port": chroma_server}}
    index = make_index(sample_project, **settings)
    report = index.sync()
    assert report["complete"] is True and report["store"] == f"chroma http://127.0.0.1:{chroma_server}"
    assert not (sample_project / ".code-intel" / "chroma").exists()  # nothing stored locally
    hit = index.semantic_search("mail a greeting to a new user", n_results=2)["results"][0]
    assert hit["file"] == "src/mailer.py"
    assert "smtplib" in index.fetch_chunk_detail(hit["chunk_id"])["content"]

    (sample_project / "src/images.js").unlink()
    assert index.sync()["files_removed"] == 1
    index.add_agreement("send the welcome mail", ["send_welcome_email"], ["src/mailer.py"], None)
    assert index.semantic_search("send the welcome mail", 3)["map_shortcut"] is True

    reopened = make_index(sample_project)  # same config, new process state: the server still has it all
    again = reopened.sync()
    assert again["chunks_added"] == 0 and again["files_unchanged"] == 3


def test_an_unreachable_server_is_a_clear_refusal(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    index = make_index(sample_project, chroma={"mode": "http", "host": "127.0.0.1", "port": _free_port()})
    with pytest.raises(ToolUnavailable) as refused:
        index.sync()
    assert "chroma run" in (refused.value.hint or "")
