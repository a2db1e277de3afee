"""Report tests: a small DOM read with html.parser, and projects where whole sessions run through the engine with
real git and a real check command (pytest), so the page is rendered from what a session really left behind."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.report.output import report_at_end
from code_intel.verify.service import CheckService
from code_intel.verify.settings import VerifyCommand, VerifySettings
from code_intel.workflow.engine import WorkflowEngine
from tests.workflow.conftest import TEST_APP, Driver, FakeGit, app_project  # noqa: F401 - app_project: a fixture

VOID = frozenset({"meta", "br", "img", "input", "link", "hr", "col", "source", "wbr", "area", "base", "embed", "param",
                  "track"})

PYTEST = VerifyCommand(name="pytest", run=[sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                           "test_app.py"], timeout_s=120)


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str | None = None, cls: str | None = None, **data: str) -> list[Node]:
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)
                and all(n.attrs.get(f"data-{k.replace('_', '-')}") == v for k, v in data.items())]

    def by_id(self, ident: str) -> Node:
        found = [n for n in self.walk() if n.attrs.get("id") == ident]
        assert len(found) == 1, f"{len(found)} elements with id {ident!r}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_page(html: str) -> Node:
    """The page as a tree; fails on a mis-nested tag (the page is well formed)."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    assert builder.stack == [builder.root], f"unclosed: {[n.tag for n in builder.stack[1:]]}"
    return builder.root


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(app_project: ProjectRoot) -> ProjectRoot:  # noqa: F811 - the fixture imported above
    """The workflow tests' project (src/app.py, a README) with test_app.py, committed on main in a git repository."""
    folder = app_project.path
    (folder / "test_app.py").write_text(TEST_APP, encoding="utf-8")
    (folder / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    git(folder, "init", "-q", "-b", "main")
    for key, value in (("user.name", "report test"), ("user.email", "report@test.invalid"), ("commit.gpgsign", "false")):
        git(folder, "config", key, value)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "start")
    return app_project


@pytest.fixture
def session(repo: ProjectRoot) -> Iterator[Any]:
    """`session(checks=True)`: a Driver over an engine built as the server builds it: real git, the outcome checks,
    the reporter (and pytest as the check command)."""
    engines: list[WorkflowEngine] = []

    def build(*, checks: bool = True) -> Driver:
        settings = VerifySettings(commands=[PYTEST] if checks else [])
        git = GitService(repo)
        engine = WorkflowEngine(repo, git=git, context=lambda: ContextSettings(), config=lambda: Config(),
                                checks=CheckService(repo, lambda: settings), outcome=git.outcome(),
                                reporter=lambda session_id: report_at_end(repo, session_id))
        engines.append(engine)
        driver = Driver(engine, FakeGit(), repo)  # FakeGit only steers the driver; the engine uses real git
        driver.git = engine.git  # type: ignore[assignment]
        return driver

    yield build
    for engine in engines:
        engine.close()
