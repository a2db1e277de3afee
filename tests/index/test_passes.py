"""The two-pass index: fast static vectors first, the full model after; answers while a sync runs; a sync
killed half way (SIGKILL of a real process) resumes where it stopped."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.index import sync as sync_module
from code_intel.index.service import SemanticIndex
from code_intel.index.static import StaticEmbedder
from code_intel.index.store import FOREST
from tests.conftest import FULL_MODEL, REPO_ROOT
from tests.index.conftest import write_files

pytestmark = pytest.mark.slow

TOPICS = ["invoice tax", "email welcome", "thumbnail resize", "password hash", "csv export", "retry backoff"]


def _project(root: Path, files: int) -> dict[str, str]:
    sources = {}
    for n in range(files):
        topic = TOPICS[n % len(TOPICS)].split()
        sources[f"pkg/mod_{n:02d}.py"] = "".join(
            f"def {topic[0]}_{topic[1]}_{n}_{k}(value):\n    total = value * {k} + {n}\n    return total\n\n\n"
            for k in range(3))
    write_files(root, sources)
    return sources


def test_static_model_loads_offline_and_ranks_by_shared_meaning() -> None:
    model = StaticEmbedder()
    vectors = model.embed(["send a welcome email to a new user", "def send_welcome_email(address): smtp.send()",
                           "def resize_thumbnail(image, width): scale pixels", ""])
    assert vectors.shape == (4, model.dimension)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-3 and float((vectors[3] ** 2).sum()) == 0.0
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert model.identity.startswith("code-static|") and len(model.identity) == len("code-static|") + 12


def test_a_search_during_a_sync_answers_from_what_is_indexed_and_says_how_complete(
    project_dir: Path, make_index: Callable[..., SemanticIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 4)
    monkeypatch.setattr(sync_module, "FULL_CHUNKS_PER_BATCH", 6)
    _project(project_dir, 12)
    index = make_index(project_dir)
    paused, resume = threading.Event(), threading.Event()
    pauses = {"files": 4, "full": 12 + 6}  # pause once after the first batch of each pass (files, then chunks)

    def progress(done: float, total: float | None, message: str) -> None:
        phase = "full" if message.startswith("full model") else "files"
        if pauses.get(phase) == done:
            pauses.pop(phase)
            paused.set()
            assert resume.wait(60)
            resume.clear()

    worker = threading.Thread(target=lambda: index.sync(progress=progress))
    worker.start()
    try:
        assert paused.wait(120)
        paused.clear()
        during_files = index.semantic_search("compute the invoice tax", n_results=5)
        state = during_files["index"]
        assert state["state"] == "syncing" and state["quality"] == "fast" and state["total_chunks"] is None
        assert state["files_to_index"] == 12 and state["files_indexed_this_sync"] == 4
        assert during_files["index_complete"] is False and "indexing files (4 of 12" in during_files["note"]
        assert during_files["results"] and {r["file"] for r in during_files["results"]} <= {
            f"pkg/mod_{n:02d}.py" for n in range(4)}
        resume.set()

        assert paused.wait(120)
        paused.clear()
        during_full = index.semantic_search("compute the invoice tax", n_results=5)
        state = during_full["index"]
        assert state["quality"] == "fast" and state["total_chunks"] == state["indexed_chunks"] == 36
        assert state["full_quality_chunks"] == 6 and "6 of 36" in during_full["note"]
        assert during_full["results"][0]["file"] in {"pkg/mod_00.py", "pkg/mod_06.py"}
        resume.set()
    finally:
        resume.set()
        worker.join(300)
    done = index.semantic_search("compute the invoice tax", n_results=5)
    assert done["index"] == {"state": "complete", "quality": "full", "searchable": True, "indexed_chunks": 36,
                             "full_quality_chunks": 36, "indexed_files": 12, "total_chunks": 36}
    assert done["index_complete"] is True and "note" not in done
    parts = index._get_parts()
    assert parts.fast_store is not None
    assert parts.store.count(FOREST) == parts.fast_store.count(FOREST) == 36  # two spaces, never mixed


def test_sync_without_waiting_returns_after_the_fast_pass(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    _project(project_dir, 6)
    index = make_index(project_dir, sync_on_start=False)
    report = index.sync(wait=False)
    assert report["complete"] is False and report["chunks_total"] == 18 and report["chunks_full_embedded"] == 0
    assert report["index"]["quality"] == "fast" and "background" in report["note"]
    assert index.wait_for_background_sync(timeout=300)
    assert index.status()["index"]["quality"] == "full" and index.status()["complete"] is True
    again = index.sync(wait=False)  # nothing left: no background thread, complete at once
    assert again["complete"] is True and again["index"]["quality"] == "full" and "note" not in again


def test_the_fast_pass_can_be_switched_off(project_dir: Path, make_index: Callable[..., SemanticIndex]) -> None:
    _project(project_dir, 2)
    index = make_index(project_dir, index_fast_pass=False)
    report = index.sync(wait=False)
    assert report["complete"] is True and report["chunks_full_embedded"] == 0 and report["chunks_added"] == 6
    assert index._get_parts().fast_store is None
    assert index.semantic_search("invoice tax", 3)["index"]["quality"] == "full"


KILLED_SYNC = """
import json, sys, time
from pathlib import Path
from code_intel.core.config import load_config
from code_intel.index import sync
from code_intel.index.service import SemanticIndex
from code_intel.core.project import ProjectRoot

sync.FILES_PER_BATCH, sync.FULL_CHUNKS_PER_BATCH, sync.MANIFEST_SAVE_S, sync.PERSIST_BACKLOG_CHARS = 4, 6, 0.0, 0
root = ProjectRoot.from_args(Path(sys.argv[1]))
phase, stop_at = sys.argv[2], int(sys.argv[3])
index = SemanticIndex(root, lambda: load_config(root.state_dir))

def saved_files():
    found = list((root.path / ".code-intel" / "cache").glob("index-manifest-*.json"))
    return len(json.loads(found[0].read_text())["files"]) if found else 0

def progress(done, total, message):
    if ("full model" in message) == (phase == "full") and done >= stop_at + (12 if phase == "full" else 0):
        while phase == "files" and saved_files() < stop_at:
            time.sleep(0.05)  # the writer thread records the searchable batches in Chroma and the manifest
        print("saved", done, flush=True)
        time.sleep(120)  # the parent kills us here, after the manifest of this batch was written

index.sync(progress=progress)
print("finished", flush=True)
"""


def _kill_when_it_says(script: str, args: list[str], said: str) -> int:
    """Run `script` in a fresh interpreter, SIGKILL it once its first line starts with `said`; its return code."""
    process = subprocess.Popen([sys.executable, "-c", script, *args], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(said), line
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    return process.returncode


def _kill_sync_at(project: Path, phase: str, stop_at: int) -> None:
    (project / ".code-intel").mkdir(exist_ok=True)
    (project / ".code-intel" / "config.json").write_text(json.dumps({"embedding_model": FULL_MODEL}))
    assert _kill_when_it_says(KILLED_SYNC, [str(project), phase, str(stop_at)], "saved") == -signal.SIGKILL


def test_a_sync_killed_in_the_file_pass_resumes_without_redoing_files(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    _project(project_dir, 12)
    _kill_sync_at(project_dir, "files", 8)
    index = make_index(project_dir)
    saved = index.status()["files"]
    assert index.status()["index"]["state"] == "partial" and 8 <= saved < 12
    report = index.sync()
    assert report["files_unchanged"] == saved and report["files_added"] == 12 - saved
    assert report["chunks_added"] == 3 * (12 - saved)
    assert report["chunks_full_embedded"] == 36 and report["complete"] is True


def test_a_sync_killed_in_the_full_pass_resumes_where_it_stopped(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    _project(project_dir, 12)
    _kill_sync_at(project_dir, "full", 12)
    manifest = json.loads(next((project_dir / ".code-intel" / "cache").glob("index-manifest-*.json")).read_text())
    assert sum(c["full"] for f in manifest["files"].values() for c in f["chunks"]) == 12

    index = make_index(project_dir)
    before = index.semantic_search("compute the invoice tax", n_results=3)
    assert before["index"]["quality"] == "fast" and before["index"]["full_quality_chunks"] == 12
    assert before["results"]  # the killed process's vectors answer
    report = index.sync()
    assert report["files_unchanged"] == 12 and report["chunks_added"] == 0
    assert report["chunks_full_embedded"] == 24 and report["complete"] is True  # the other 12 were kept
    parts = index._get_parts()
    assert parts.store.count(FOREST) == 36 and index.status()["index"]["quality"] == "full"


KILLED_IN_LAST_SAVE = """
import sys, time
from pathlib import Path
from code_intel.core.config import load_config
from code_intel.core.project import ProjectRoot
from code_intel.index import manifest, sync
from code_intel.index.service import SemanticIndex

sync.FILES_PER_BATCH, sync.MANIFEST_SAVE_S, sync.PERSIST_BACKLOG_CHARS = 4, 0.0, 0
root = ProjectRoot.from_args(Path(sys.argv[1]))
finishing, written = [], []
finish, to_json = sync.ForestSync._finish, manifest.to_json

def last_save(self):
    finishing.append(True)
    finish(self)

def slow(value):
    if finishing and isinstance(value, manifest.FileEntry):
        written.append(value)
        if len(written) == 6:
            print("writing", flush=True)
            time.sleep(120)  # the parent kills us here, half way through the manifest's last save
    return to_json(value)

sync.ForestSync._finish, manifest.to_json = last_save, slow
SemanticIndex(root, lambda: load_config(root.state_dir)).sync()
print("finished", flush=True)
"""


def test_a_sync_killed_in_its_last_manifest_save_keeps_the_save_before_and_resumes(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    _project(project_dir, 12)
    (project_dir / ".code-intel").mkdir()
    (project_dir / ".code-intel" / "config.json").write_text(json.dumps({"sync_on_start": False}))
    _kill_when_it_says(KILLED_IN_LAST_SAVE, [str(project_dir)], "writing")
    saved = json.loads(next((project_dir / ".code-intel" / "cache").glob("index-manifest-*.json")).read_text())
    assert len(saved["files"]) == 12 and saved["complete"] is False  # the writer's save after its last batch

    index = make_index(project_dir)
    assert index.status()["index"]["state"] == "partial"
    report = index.sync()
    assert report["files_unchanged"] == 12 and report["chunks_added"] == 0 and report["complete"] is True
