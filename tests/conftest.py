"""Fixtures shared by every test folder. Keep this small and generic; put area-specific fixtures
in the conftest.py of that test folder."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from code_intel.core.project import ENV_PROJECT, ProjectRoot
from code_intel.index.embedder import Embedder

FULL_MODEL = "all-MiniLM-L6-v2-code"  # the opt-in transformer model (embedding_model in config.json)

REPO_ROOT = Path(__file__).resolve().parent.parent


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write each relative path's text under `root`, creating folders."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@pytest.fixture(scope="session")
def embedding_model() -> Embedder:
    """The full (transformer) embedding model, loaded once for the whole run: every Embedder of that model in
    this process (SemanticIndex, the query router) reuses it. Tests that request it are marked `model`, which
    `make test-fast` leaves out. The default model is the static one (no torch); this one is opt-in."""
    embedder = Embedder(FULL_MODEL)
    assert embedder.numpy_model is not None and embedder.loaded  # what the index embeds with (no torch)
    return embedder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "embedding_model" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.model)


@pytest.fixture(scope="session", autouse=True)
def _seal_keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The seals' keys live in the test run's temporary folder, never in the user's state folder; set for the whole
    session, before any module-scoped fixture writes a sealed checkpoint."""
    previous = os.environ.get("CODE_INTEL_KEY_DIR")
    os.environ["CODE_INTEL_KEY_DIR"] = str(tmp_path_factory.getbasetemp() / "code-intel-keys")
    yield
    if previous is None:
        os.environ.pop("CODE_INTEL_KEY_DIR", None)
    else:
        os.environ["CODE_INTEL_KEY_DIR"] = previous


@pytest.fixture(autouse=True)
def _offline_and_unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a model hub, and no test inherits the caller's project root."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    monkeypatch.delenv(ENV_PROJECT, raising=False)


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    """An empty project folder (symlink-resolved, as ProjectRoot stores it)."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder.resolve()


@pytest.fixture
def project(project_dir: Path) -> ProjectRoot:
    return ProjectRoot.from_args(project_dir)


def _git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with a fixed identity; returns stdout, raises on failure."""
    result = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )
    return result.stdout


@pytest.fixture
def run_git() -> Callable[..., str]:
    """`run_git(cwd, *args)`: git with a test identity, for tests that build their own history."""
    return _git


@pytest.fixture
def git_project(project_dir: Path) -> Path:
    """A git repository on branch main with one commit holding README.md."""
    _git(project_dir, "init", "-q")
    (project_dir / "README.md").write_text("# sample\n", encoding="utf-8")
    _git(project_dir, "add", "README.md")
    _git(project_dir, "commit", "-q", "-m", "initial")
    return project_dir
