"""The embedding calls are held to the exploration time budget: the first one loads the model, which
cannot be cut short, so past the budget the answer is partial and the work goes on in the background."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from code_intel.index.models import SemanticSearchResult
from code_intel.server.app import CodeIntelApp


class SlowIndex:
    def __init__(self) -> None:
        self.release = threading.Event()

    def semantic_search(self, query: str, n_results: int = 10, collection: str | None = None,
                        keywords: list[str] | None = None, code_hint: str | None = None) -> dict[str, Any]:
        self.release.wait(10)
        return {"query": query, "index_complete": True, "source": "forest", "results": []}

    def index_state(self) -> dict[str, Any]:
        return {"state": "complete", "indexed_chunks": 3, "full_quality_chunks": 3, "indexed_files": 1}

    def validate_symbol_relevance(self, query: str, symbols: list[str]) -> dict[str, Any]:
        self.release.wait(10)
        return {"query": query, "results": [], "thresholds": {"high": 0.5}}


def test_a_slow_semantic_call_answers_partial_within_the_budget(project_dir: Path) -> None:
    (project_dir / ".code-intel").mkdir()
    (project_dir / ".code-intel" / "config.json").write_text(json.dumps({"search_timeout_seconds": 0.3}),
                                                             encoding="utf-8")
    app = CodeIntelApp.for_path(project_dir)
    index = SlowIndex()
    app._services["index"] = index  # noqa: SLF001 - the real index needs the model; this one is only slow
    try:
        for call in (lambda: app.semantic_search("parse a date"), lambda: app.validate_symbol_relevance("q", ["f"])):
            started = time.monotonic()
            answer = call()
            assert time.monotonic() - started < 2
            assert answer["partial"] is True and "time budget" in answer["partial_reason"] and answer["results"] == []
        # the partial answer is a whole semantic_search result, index state included
        partial = SemanticSearchResult.model_validate(app.semantic_search("parse a date", keywords=["parse"]))
        assert partial.index.state == "complete" and partial.results == []
        index.release.set()
        assert app.semantic_search("parse a date")["index_complete"] is True
    finally:
        index.release.set()
        app.close()
