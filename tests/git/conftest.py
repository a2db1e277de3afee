"""Real temporary repositories for the git tests; the machine's own git config is never read or written."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService


@pytest.fixture(autouse=True)
def _isolated_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No global or system git config: identity comes only from each test repository."""
    empty = tmp_path_factory.mktemp("gitconfig") / "config"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


class TestRepo:
    """A real repository in tmp_path plus the few helpers the tests need."""

    __test__ = False  # not a test class

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(["git", *args], cwd=self.path, check=check, capture_output=True, text=True)
        return result.stdout

    def write(self, rel: str, text: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def status(self) -> str:
        """Porcelain status with every untracked file: what the user sees of the tree and index."""
        return self.git("status", "--porcelain=v1", "--untracked-files=all")

    def branches(self) -> list[str]:
        return sorted(self.git("for-each-ref", "--format=%(refname:short)", "refs/heads/").split())

    def head_branch(self) -> str:
        return self.git("rev-parse", "--abbrev-ref", "HEAD").strip()

    def rev(self, name: str) -> str:
        return self.git("rev-parse", name).strip()

    def show(self, rev_path: str) -> str:
        return self.git("show", rev_path)

    def commit_all(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.rev("HEAD")

    def service(self, project: Path | None = None) -> GitService:
        return GitService(ProjectRoot.from_args(project or self.path))


APP = "def main():\n    return 1\n\n\ndef helper():\n    return 2\n"


def dirty_user_tree(repo: TestRepo) -> str:
    """Staged, unstaged and untracked user changes made before the session; returns `git status`."""
    repo.write("staged.txt", "user staged\n")
    repo.git("add", "staged.txt")
    repo.write("README.md", "# sample\nuser edit, not staged\n")
    repo.write("notes/untracked.md", "user notes\n")
    return repo.status()


def init_repo(folder: Path, branch: str = "main") -> TestRepo:
    folder.mkdir(parents=True, exist_ok=True)
    repo = TestRepo(folder.resolve())
    repo.git("init", "-q", "-b", branch)
    repo.git("config", "user.name", "Test User")
    repo.git("config", "user.email", "test@example.com")
    repo.git("config", "commit.gpgsign", "false")
    repo.write("app.py", APP)
    repo.write("README.md", "# sample\n")
    repo.commit_all("initial")
    return repo


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., TestRepo]:
    """`make_repo(branch="main", name="repo")`: a repository with one commit (app.py, README.md)."""

    def make(branch: str = "main", name: str = "repo") -> TestRepo:
        return init_repo(tmp_path / name, branch)

    return make


@pytest.fixture
def repo(make_repo: Callable[..., TestRepo]) -> TestRepo:
    return make_repo()
