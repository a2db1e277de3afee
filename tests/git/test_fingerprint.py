"""The fingerprint's walk (code_intel.git.fingerprint) on a small real repository: what it records, what it leaves
out, when it hashes again, and its repository-only take."""

from __future__ import annotations

import os
import time
from pathlib import Path

from code_intel.core.outcome_types import KEY_HEAD, KEY_REF
from code_intel.core.project import ProjectRoot
from code_intel.git.fingerprint import DEFAULT_CACHE_PATTERNS
from code_intel.git.outcome import OutcomeService
from code_intel.git.service import GitService
from tests.git.conftest import TestRepo, init_repo


def _service(repo: TestRepo) -> OutcomeService:
    service = GitService(ProjectRoot.from_args(repo.path)).outcome()
    assert isinstance(service, OutcomeService)
    return service


def _repo(folder: Path) -> TestRepo:
    repo = init_repo(folder)
    repo.write("src/app.py", "x = 1\n")
    repo.write("docs/a.md", "# a\n")
    repo.commit_all("start")
    (folder / "src" / "__pycache__").mkdir()
    (folder / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"cache")
    (folder / "link").symlink_to("src")
    (folder / ".code-intel" / "sessions").mkdir(parents=True)
    (folder / ".code-intel" / "sessions" / "x.json").write_text("{}")
    return repo


def test_a_take_records_files_links_and_git_state_and_leaves_out_caches_and_runtime(project_dir: Path) -> None:
    repo = _repo(project_dir)
    taken = _service(repo).take(DEFAULT_CACHE_PATTERNS)
    assert taken["src/app.py"].startswith("file 644 ")
    assert taken["link"] == "link src"  # a link to a folder is a link, never walked into
    assert taken[KEY_HEAD] == "ref: refs/heads/main"
    assert taken[KEY_REF + "refs/heads/main"] == repo.rev("refs/heads/main")
    assert ".git/config" in taken
    assert not any(k.startswith((".git/objects", "src/__pycache__", ".code-intel/sessions", "link/")) for k in taken)


def test_only_changed_or_racy_files_are_hashed_again(project_dir: Path) -> None:
    repo = _repo(project_dir)
    service = _service(repo)
    first = service.take(DEFAULT_CACHE_PATTERNS)
    service.take(DEFAULT_CACHE_PATTERNS)
    assert service.last_hashed > 0  # everything was written in the last two seconds: racy, hashed again
    time.sleep(2.1)  # past the racy window: a file is hashed again only when its stat changes
    service.take(DEFAULT_CACHE_PATTERNS)
    service.take(DEFAULT_CACHE_PATTERNS)
    assert service.last_hashed == 0
    app = project_dir / "src" / "app.py"
    stamp = app.stat().st_mtime_ns
    app.write_text("x = 2\n")  # same size, and the old mtime put back: the ctime still moves
    os.utime(app, ns=(stamp, stamp))
    now = service.take(DEFAULT_CACHE_PATTERNS)
    assert service.last_hashed == 1 and now["src/app.py"] != first["src/app.py"]


def test_the_repository_part_alone_does_not_walk_the_work_tree(project_dir: Path) -> None:
    repo = _repo(project_dir)
    service = _service(repo)
    whole = service.take(DEFAULT_CACHE_PATTERNS)
    part = service.take(DEFAULT_CACHE_PATTERNS, tree=False)
    assert "src/app.py" not in part and "docs/a.md" not in part
    assert {k: whole[k] for k in part} == part
    repo.git("branch", "other")
    assert KEY_REF + "refs/heads/other" in service.take(DEFAULT_CACHE_PATTERNS, tree=False)
    assert service.take(DEFAULT_CACHE_PATTERNS)["src/app.py"] == whole["src/app.py"]  # the stat cache was kept


def test_describe_answers_for_listed_paths_as_a_take_would(project_dir: Path) -> None:
    repo = _repo(project_dir)
    service = _service(repo)
    whole = service.take(DEFAULT_CACHE_PATTERNS)
    described = service.describe(DEFAULT_CACHE_PATTERNS, ["src/app.py", "gone.py", "src/__pycache__/app.cpython-311.pyc",
                                                         ".code-intel/sessions/x.json", ".git/config", "../out",
                                                         "link/app.py"])
    assert described == {"src/app.py": whole["src/app.py"], "gone.py": None}
