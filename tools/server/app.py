"""The application object: one per project root, wiring the workflow to its adapters.

Services are built on first use so that the server answers `tools/list` before any heavy
library (chromadb, sentence-transformers, torch) is imported.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.core.config import Config, ContextSettings, load_config, load_context
from code_intel.core.errors import InvalidArgument
from code_intel.core.filecache import WatchedFile
from code_intel.core.project import ProjectRoot

if TYPE_CHECKING:
    from collections.abc import Callable

    from code_intel.explore.impact import ImpactLevel
    from code_intel.explore.models import ImpactReport, QueryResult
    from code_intel.explore.service import Explorer
    from code_intel.git.service import GitService
    from code_intel.index.service import SemanticIndex
    from code_intel.learning.outcomes import OutcomeLog
    from code_intel.verify.service import CheckService
    from code_intel.workflow.engine import WorkflowEngine

log = logging.getLogger(__name__)


class CodeIntelApp:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.RLock()
        self._services: dict[str, Any] = {}
        self._embedding_calls: Any = None  # a small thread pool, made on the first semantic call
        self._config = WatchedFile(root.state_dir / "config.json", lambda file: load_config(file.parent))
        self._context = WatchedFile(root.state_dir / "context.yml", lambda file: load_context(file.parent))

    @classmethod
    def for_path(cls, path: str | Path | None = None) -> CodeIntelApp:
        return cls(ProjectRoot.from_args(path))

    # settings -----------------------------------------------------------------
    @property
    def config(self) -> Config:
        return self._config.get()

    @property
    def context(self) -> ContextSettings:
        return self._context.get()

    # services -----------------------------------------------------------------
    def _service(self, name: str, build: Any) -> Any:
        with self._lock:
            if name not in self._services:
                self._services[name] = build()
            return self._services[name]

    @property
    def explorer(self) -> Explorer:
        from code_intel.explore.service import Explorer

        return self._service("explorer", lambda: Explorer(self.root, lambda: self.config))  # type: ignore[no-any-return]

    @property
    def index(self) -> SemanticIndex:
        from code_intel.index.service import SemanticIndex

        return self._service("index", lambda: SemanticIndex(self.root, lambda: self.config))  # type: ignore[no-any-return]

    @property
    def git(self) -> GitService:
        from code_intel.git.service import GitService

        return self._service("git", lambda: GitService(self.root))  # type: ignore[no-any-return]

    @property
    def outcomes(self) -> OutcomeLog:
        from code_intel.learning.outcomes import OutcomeLog

        return self._service("outcomes", lambda: OutcomeLog(self.root))  # type: ignore[no-any-return]

    @property
    def workflow(self) -> WorkflowEngine:
        from code_intel.report.output import report_at_end
        from code_intel.workflow.engine import WorkflowEngine

        return self._service(  # type: ignore[no-any-return]
            "workflow",
            lambda: WorkflowEngine(self.root, git=self.git, context=lambda: self.context, config=lambda: self.config,
                                   checks=self.checks, outcome=self.git.outcome(),
                                   reporter=lambda session_id: report_at_end(self.root, session_id)),
        )

    @property
    def checks(self) -> CheckService:
        from code_intel.explore.scope import project_filters
        from code_intel.verify.service import CheckService

        return self._service("checks", lambda: CheckService(  # type: ignore[no-any-return]
            self.root, lambda: self.config.verify, lambda: project_filters(self.root, self.config)))

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

    def record_tool_call(self, name: str, arguments: dict[str, Any], *, ok: bool,
                         shown: Callable[[], list[str]] | None) -> None:
        """Put a call in the session ledger (WorkflowEngine.record_tool_call). Until something in this process has
        loaded the workflow there is no live session, and without a checkpoint no session waits for a restore
        either: there is then no ledger to write, and the workflow (imports, models) is not loaded only to say so."""
        from code_intel.workflow.checkpoint import CheckpointStore

        if "workflow" not in self._services and not CheckpointStore(self.root).any_file():
            return
        self.workflow.record_tool_call(name, arguments, ok=ok, shown=shown)

    def sync_index(self, force: bool, progress: Any = None, wait: bool = True) -> Any:
        """sync_index, refused up front (naming the folder) when the index folder cannot be written."""
        chroma = self.config.chroma
        if chroma.mode == "persistent" and chroma.path is None:
            self.root.writable_dir("chroma", "sync_index")
        return self.index.sync_answering(force=force, progress=progress, wait=wait)

    def query(self, question: str, keywords: list[str] | None = None, code_hint: str | None = None, *,
              offset: int = 0) -> QueryResult:
        """query: symbol, text and (when an index exists) semantic routes, merged, within the time budget; the
        merged hits from `offset` on within the answer's budget (answers.shape_hits), the page's first PAGE_PLACES
        with their lowest snippets cut to one line as semantic_search's are, so that a page holds as many places as
        a semantic answer (with whole snippets it held 8 or 9, and the semantic route's 9th and 10th fell off)."""
        from code_intel.explore.answers import shape_hits, shorten_snippets
        from code_intel.explore.query import PAGE_PLACES, run_query

        _check_offset(offset)
        semantic = self._semantic_hits if self.index.is_available() else None  # held to the time budget too
        result = self.explorer.run_budgeted("query", run_query, self.explorer, question, semantic,
                                            keywords=keywords, code_hint=code_hint)
        hits, end = result.results, offset + PAGE_PLACES
        hits = hits[:offset] + shorten_snippets(hits[offset:end]) + hits[end:]
        result.results, result.next_offset, result.left_out = shape_hits(hits, offset=offset)
        result.truncated = result.truncated or result.next_offset is not None
        return result

    def analyze_impact(self, files: list[str], symbols: list[str] | None, *, level: ImpactLevel | None = None,
                       group: str | None = None, offset: int = 0) -> ImpactReport:
        """analyze_impact over the explorer's engines, with the project's document_search settings, within the
        time budget; with a level (the tool's answers), ranked and cut to the answer's budget (shape_impact)."""
        from code_intel.explore.impact import analyze_impact, shape_impact

        _check_offset(offset)
        report = self.explorer.run_budgeted("analyze_impact", analyze_impact, self.explorer, files, symbols,
                                            document_search=self.context.document_search)
        return report if level is None else shape_impact(report, level=level, group=group, offset=offset,
                                                         indexed=self.explorer.definition_index.files)

    # the embedding calls, held to the exploration time budget -------------------------------------
    def semantic_search(self, query: str, n_results: int = 10, collection: str | None = None,
                        keywords: list[str] | None = None, code_hint: str | None = None, *,
                        offset: int = 0) -> dict[str, Any]:
        """semantic_search as the tool answers it: hits offset to offset + n_results of the ranking, as many as
        fit the answer's budget once the lowest-ranked snippets are cut to one line (answers.shorten_snippets,
        shape_hits); the ranking reaches MAX_SEMANTIC_RANK hits."""
        from code_intel.explore.answers import shape_hits, shorten_snippets

        _check_offset(offset)
        if offset >= MAX_SEMANTIC_RANK:
            raise InvalidArgument(f"offset {offset} is past the {MAX_SEMANTIC_RANK} hits semantic search ranks",
                                  hint="narrow the query, or use search_text / find_references to list every use")
        valid = isinstance(n_results, int) and 1 <= n_results <= MAX_SEMANTIC_RANK  # else the index refuses it
        wanted = min(MAX_SEMANTIC_RANK, offset + n_results) if valid else n_results
        answer = self._semantic_hits(query, n_results=wanted, collection=collection, keywords=keywords,
                                     code_hint=code_hint)
        hits = answer.get("results") or []
        hits = hits[:offset] + shorten_snippets(hits[offset:])
        answer["results"], next_offset, left_out = shape_hits(hits, offset=offset)
        answer.update({k: v for k, v in (("next_offset", next_offset), ("left_out", left_out)) if v is not None})
        return answer

    def _semantic_hits(self, query: str, n_results: int = 10, collection: str | None = None,
                       keywords: list[str] | None = None, code_hint: str | None = None) -> dict[str, Any]:
        """The index's semantic search within search_timeout_seconds: the first call loads the embedding model,
        which cannot be cut short; past the budget the answer is an empty partial result and the search goes on
        in the background, so the next call finds the model loaded."""
        return self._within_budget(
            lambda: self.index.semantic_search(query, n_results=n_results, collection=collection,
                                               keywords=keywords, code_hint=code_hint),
            lambda reason: {"query": query, "index_complete": False, "index": self._index_state_or_unknown(),
                            "source": "none", "results": [], "partial": True, "partial_reason": reason})

    def _index_state_or_unknown(self) -> dict[str, Any]:
        try:
            return self.index.index_state()
        except Exception:  # the partial answer must not fail on the index it could not wait for
            log.debug("index state unavailable", exc_info=True)
            return {"state": "partial", "indexed_chunks": 0, "full_quality_chunks": 0, "indexed_files": 0}

    def validate_symbol_relevance(self, query: str, symbols: list[str]) -> dict[str, Any]:
        return self._within_budget(
            lambda: self.index.validate_symbol_relevance(query, symbols),
            lambda reason: {"query": query, "results": [], "thresholds": {}, "partial": True, "partial_reason": reason})

    def _within_budget(self, call: Any, partial: Any) -> dict[str, Any]:
        from code_intel.explore import budget

        seconds = budget.remaining(self.config.search_timeout_seconds)
        with self._lock:
            if self._embedding_calls is None:
                from concurrent.futures import ThreadPoolExecutor

                self._embedding_calls = ThreadPoolExecutor(max_workers=2, thread_name_prefix="code-intel-embedding")
            pool = self._embedding_calls
        future = pool.submit(call)
        try:
            result: dict[str, Any] = future.result(timeout=seconds)
        except TimeoutError:
            budget.note_partial(f"the semantic search did not finish within {seconds:.3g} s")
            return partial(f"not finished within the {seconds:.3g} s time budget (the embedding model loads on first "
                           "use); it goes on in the background: ask again in a few seconds")
        return result

    def update_context(self) -> dict[str, Any]:
        from code_intel.context.rules import refresh_project_rules

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
            if self._embedding_calls is not None:
                self._embedding_calls.shutdown(wait=False, cancel_futures=True)
                self._embedding_calls = None
            # the workflow first: its checkpoint and lock must not wait behind an index sync that is finishing
            for _, service in sorted(self._services.items(), key=lambda item: item[0] != "workflow"):
                closer = getattr(service, "close", None)
                if callable(closer):
                    try:
                        closer()
                    except Exception:  # closing must never mask the real outcome
                        log.exception("error while closing %s", type(service).__name__)
            self._services.clear()


MAX_SEMANTIC_RANK = 100  # hits semantic search ranks at most (its n_results limit)


def _check_offset(offset: int) -> None:
    if offset < 0:
        raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
