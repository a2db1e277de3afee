"""The enforcement catalogue, transition side: writes the PreToolUse hook lets through because it cannot see them
(a program or script writing on its own), run for real, then refused at the next submit_phase naming the file, and
put back by `restore`, with nothing committed.

Each attempt first asks the hook (it must allow: that is the gap this layer closes), then runs the command in a
real git repository with a real session (WorkflowEngine, GitService, the outcome check), then submits.
tests/workflow/test_outcome_checks.py has the server's own attempts (plumbing run directly, forged state,
symlinks, writes after PRE_COMMIT, the base branch moving).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.hooks.pre_tool_use import decide
from code_intel.workflow.engine import WorkflowEngine
from tests.git.conftest import TestRepo, init_repo
from tests.workflow.conftest import APP_CODE, Driver

pytestmark = pytest.mark.slow  # real git sessions and real shell commands

NOTE = "# written behind the hook\n"
SCRIPTS = {
    "scripts/note.py": f"from pathlib import Path\np = Path('src/app.py')\np.write_text(p.read_text() + {NOTE!r})\n",
    "scripts/note.sh": f"printf '%s' '{NOTE.strip()}' >> src/app.py\n",
    "scripts/note.pl": "open(my $f, '>>', 'src/app.py'); print $f \"# written behind the hook\\n\";\n",
    "scripts/note.awk": "BEGIN { print \"# written behind the hook\" >> \"src/app.py\" }\n",
    "Makefile": "note:\n\tpython3 scripts/note.py\n",
}

HIDDEN_WRITES = [
    pytest.param("python3 scripts/note.py", id="python-script"),
    pytest.param("bash scripts/note.sh", id="shell-script"),
    pytest.param(". scripts/note.sh", id="sourced-script"),
    pytest.param("perl scripts/note.pl", id="perl-script"),
    pytest.param("awk -f scripts/note.awk", id="awk-program-file"),
    pytest.param("make -s note", id="make"),
]


@pytest.fixture
def repo(project_dir: Path) -> TestRepo:
    repo = init_repo(project_dir)
    repo.write("src/__init__.py", "")
    repo.write("src/app.py", APP_CODE)
    for rel, text in SCRIPTS.items():
        repo.write(rel, text)
    repo.commit_all("project with scripts")
    return repo


@pytest.fixture
def driver(repo: TestRepo) -> Iterator[Driver]:
    root = ProjectRoot.from_args(repo.path)
    git = GitService(root)
    engine = WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: Config(),
                            outcome=git.outcome())
    yield Driver(engine, engine.git, engine.root)  # type: ignore[arg-type]
    engine.close()


@pytest.mark.parametrize("command", HIDDEN_WRITES)
def test_a_write_the_hook_cannot_see_is_refused_at_the_next_submit(driver: Driver, repo: TestRepo, command: str) -> None:
    resp = driver.run(driver.start(flags=["--no-quality"]), until="EXPLORATION")
    main_before = repo.rev("refs/heads/main")
    event = {"session_id": "c1", "hook_event_name": "PreToolUse", "cwd": str(repo.path), "tool_name": "Bash",
             "tool_input": {"command": command}}
    assert decide(event, driver.root).allow  # the hook cannot tell: this is what the outcome check is for
    subprocess.run(["bash", "-c", command], cwd=repo.path, check=True, capture_output=True, timeout=60)
    assert repo.read("src/app.py") != APP_CODE

    payload = driver.payload(resp)
    refused = driver.submit(payload)
    assert refused["success"] is False and refused["error"] == "payload_mismatch", refused
    assert "src/app.py" in {c["path"] for c in refused["unexpected_changes"]}
    assert refused["current_phase"] == "EXPLORATION"
    recovered = driver.submit({**payload, "restore": ["src/app.py"]})
    assert recovered["success"], recovered
    assert repo.read("src/app.py") == APP_CODE and repo.rev("refs/heads/main") == main_before
