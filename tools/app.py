"""The application object: one per project root, wiring the workflow to its adapters.

Services are built on first use so that the server answers `tools/list` before any heavy
library (chromadb, sentence-transformers, torch) is imported.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.config import Config, ContextSettings, load_config, load_context
from tools.project import ProjectRoot

if TYPE_CHECKING:
    from tools.explore.service import Explorer
    from tools.git.service import GitService
    from tools.index.service import SemanticIndex
    from tools.learning.outcomes import OutcomeLog
    from tools.verify.service import CheckService
    from tools.workflow.engine import WorkflowEngine

log = logging.getLogger(__name__)


class _Cached:
    """Loads a settings file again only when its mtime changes."""

    def __init__(self, file: Path, loader: Any) -> None:
        self.file, self.loader = file, loader
        self._stamp: float | None = -1.0
        self._value: Any = None

    def get(self) -> Any:
        stamp = self.file.stat().st_mtime if self.file.exists() else None
        if stamp != self._stamp or self._value is None:
            self._value = self.loader(self.file.parent)
            self._stamp = stamp
        return self._value


class CodeIntelApp:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.RLock()
        self._services: dict[str, Any] = {}
        self._config = _Cached(root.state_dir / "config.json", load_config)
        self._context = _Cached(root.state_dir / "context.yml", load_context)

    @classmethod
    def for_path(cls, path: str | Path | None = None) -> CodeIntelApp:
        return cls(ProjectRoot.from_args(path))

    # settings -----------------------------------------------------------------
    @property
    def config(self) -> Config:
        value: Config = self._config.get()
        return value

    @property
    def context(self) -> ContextSettings:
        value: ContextSettings = self._context.get()
        return value

    # services -----------------------------------------------------------------
    def _service(self, name: str, build: Any) -> Any:
        with self._lock:
            if name not in self._services:
                self._services[name] = build()
            return self._services[name]

    @property
    def explorer(self) -> Explorer:
        from tools.explore.service import Explorer

        return self._service("explorer", lambda: Explorer(self.root, lambda: self.config))  # type: ignore[no-any-return]

    @property
    def index(self) -> SemanticIndex:
        from tools.index.service import SemanticIndex

        return self._service("index", lambda: SemanticIndex(self.root, lambda: self.config))  # type: ignore[no-any-return]

    @property
    def git(self) -> GitService:
        from tools.git.service import GitService

        return self._service("git", lambda: GitService(self.root))  # type: ignore[no-any-return]

    @property
    def outcomes(self) -> OutcomeLog:
        from tools.learning.outcomes import OutcomeLog

        return self._service("outcomes", lambda: OutcomeLog(self.root))  # type: ignore[no-any-return]

    @property
    def workflow(self) -> WorkflowEngine:
        from tools.workflow.engine import WorkflowEngine

        return self._service(  # type: ignore[no-any-return]
            "workflow",
            lambda: WorkflowEngine(self.root, git=self.git, context=lambda: self.context, config=lambda: self.config,
                                   checks=self.checks),
        )

    @property
    def checks(self) -> CheckService:
        from tools.verify.service import CheckService

        return self._service("checks", lambda: CheckService(self.root, lambda: self.config.verify))  # type: ignore[no-any-return]

    # cross-service operations ------------------------------------------------
    def start_session(self, intent: str, query: str, flags: list[str], repo_path: str | None) -> dict[str, Any]:
        """Start the workflow, then let the index catch up in the background (never blocking a tool)."""
        response = self.workflow.start_session(intent, query, flags, repo_path)
        if response.get("success") and self.config.sync_on_start:
            try:
                self.index.start_background_sync()
            except Exception:  # a broken index must not stop a session from starting
                log.exception("background index sync could not start")
        return response

    def sync_index(self, force: bool, progress: Any = None, wait: bool = True) -> Any:
        """sync_index, refused up front (naming the folder) when the index folder cannot be written."""
        chroma = self.config.chroma
        if chroma.mode == "persistent" and chroma.path is None:
            self.root.writable_dir("chroma", "sync_index")
        return self.index.sync(force=force, progress=progress, wait=wait)

    def query(self, question: str, keywords: list[str] | None = None, code_hint: str | None = None) -> Any:
        semantic = None
        if self.index.is_available():
            semantic = self.index.semantic_search
        return self.explorer.query(question, semantic=semantic, keywords=keywords, code_hint=code_hint)

    def update_context(self) -> dict[str, Any]:
        from tools.context.rules import refresh_project_rules

        return refresh_project_rules(self.root)

    def record_outcome(self, outcome: str, phase_at_outcome: str | None, analysis: dict[str, Any]) -> dict[str, Any]:
        session = self.workflow.outcome_context()
        entry = self.outcomes.record(outcome, phase_at_outcome, analysis, session)
        if outcome == "success" and session.get("query"):
            try:
                self.index.add_agreement(
                    request=session["query"],
                    symbols=list(session.get("target_symbols") or []),
                    files=list(session.get("explored_files") or []),
                    session_id=session.get("session_id"),
                )
                entry["map_updated"] = True
            except Exception as err:  # the outcome is recorded even when the Map cannot be written
                log.exception("could not write the agreement to the Map")
                entry["map_updated"] = False
                entry["map_error"] = str(err)
        return entry

    def outcome_stats(self) -> dict[str, Any]:
        return self.outcomes.stats()

    def close_session(self) -> None:
        """The part of close() that must not be skipped, and is quick: save the session's checkpoint and
        release the project lock (a server stopped by a signal has a fraction of a second)."""
        workflow = self._services.get("workflow")
        if workflow is not None:
            workflow.close()

    def close(self) -> None:
        with self._lock:
            # the workflow first: its checkpoint and lock must not wait behind an index sync that is finishing
            for _, service in sorted(self._services.items(), key=lambda item: item[0] != "workflow"):
                closer = getattr(service, "close", None)
                if callable(closer):
                    try:
                        closer()
                    except Exception:  # closing must never mask the real outcome
                        log.exception("error while closing %s", type(service).__name__)
            self._services.clear()
