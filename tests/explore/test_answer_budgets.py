"""search_text, query and semantic_search answer within the exploration budget (issue #40): about 1,500 tokens by
default, the same size for the same tree and arguments, what was left out counted, and offset/next_offset paging
through the rest in the same order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from code_intel.explore.answers import budget_chars
from code_intel.server.app import CodeIntelApp
from tests.conftest import write_files
from tests.explore.conftest import explorer_over

FILES = 120  # each with two long matching lines: far more than one answer's budget


def _project() -> dict[str, str]:
    return {f"pkg/mod{i:03}.py": (f"def handler_{i}(request):\n"
                                  f"    return dispatch_token('{'x' * 60}', request, {i})\n\n\n"
                                  f"def other_{i}():\n    return dispatch_token('{'y' * 60}', None, {i})\n")
            for i in range(FILES)}


def _size(answer: Any) -> int:
    data = answer if isinstance(answer, dict) else answer.model_dump(mode="json", exclude_none=True)
    return len(json.dumps(data, separators=(",", ":")))


def test_search_text_answers_within_the_budget_and_pages_through_every_match(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, _project())
    everything = explorer.search_text("dispatch_token", max_results=1000).matches
    first = explorer.text_answer("dispatch_token")
    assert first.total_matches == len(everything) == 2 * FILES
    assert _size(first) <= budget_chars()
    assert 0 < len(first.matches) < len(everything)
    assert first.truncated and first.left_out == len(everything) - len(first.matches)
    assert first.next_offset == len(first.matches)
    assert _size(explorer.text_answer("dispatch_token")) == _size(first)  # deterministic
    pages, offset = [first], first.next_offset
    while offset is not None:
        page = explorer.text_answer("dispatch_token", offset=offset)
        assert _size(page) <= budget_chars()
        pages.append(page)
        offset = page.next_offset
    assert [m for p in pages for m in p.matches] == everything  # every match once, in the same order
    assert pages[-1].left_out is None and not pages[-1].truncated
    listed = explorer.text_answer("dispatch_token", max_results=150)
    assert len(listed.matches) == 150 and listed.left_out == len(everything) - 150  # past the budget on request


def test_search_text_patterns_share_the_budget(tmp_path: Path) -> None:
    explorer = explorer_over(tmp_path, _project())
    both = explorer.text_answer(["handler_", "other_"])
    assert _size(both) <= budget_chars()
    assert all(r.matches and r.next_offset == len(r.matches) for r in both.results)
    assert both.truncated


def test_query_answers_within_the_budget_and_pages_on(tmp_path: Path) -> None:
    write_files(tmp_path, {f"pkg/mod{i:03}.py": f"def h{i}():\n    return dispatch_token('{'x' * 280}')\n"
                           for i in range(40)})
    app = CodeIntelApp.for_path(tmp_path)
    try:
        first = app.query("where is dispatch_token called?")
        assert _size(first) <= budget_chars()
        assert first.left_out and first.next_offset == len(first.results) and first.truncated
        second = app.query("where is dispatch_token called?", offset=first.next_offset)
        assert _size(second) <= budget_chars()
        seen = {(h.file, h.line) for h in first.results}
        assert second.results and not seen & {(h.file, h.line) for h in second.results}
        assert _size(app.query("where is dispatch_token called?")) == _size(first)
    finally:
        app.close()


def test_query_holds_the_semantic_routes_ten_places_on_its_first_page(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The semantic route's ten places are all on query's first page: its lowest snippets are cut to their first
    line as semantic_search's are (with whole snippets the page held 8 or 9 and the 9th and 10th fell off), the first
    keeps its own, and paging on still gives every hit once."""
    write_files(tmp_path, {"pkg/__init__.py": ""})
    body = "\n".join(f"    step_{n} = compute_{n}(request, '{'z' * 20}')" for n in range(8))
    hits = [{"file": f"pkg/mod{i}.py", "line": 10 * i + 1, "end_line": 10 * i + 9, "symbol": f"handler_{i}",
             "score": 1 - i / 20, "source": "forest", "chunk_id": f"c{i}",
             "snippet": f"def handler_{i}(request):\n{body}"} for i in range(10)]
    app = CodeIntelApp.for_path(tmp_path)
    try:
        monkeypatch.setattr(app.index, "is_available", lambda: True)
        monkeypatch.setattr(app, "_semantic_hits", lambda **_: {"results": hits})
        first = app.query("how are the request steps computed")
        assert [h.chunk_id for h in first.results] == [f"c{i}" for i in range(10)]
        assert _size(first) <= budget_chars()
        assert first.results[0].snippet == hits[0]["snippet"][:300]
        assert first.results[-1].snippet == "def handler_9(request):"
    finally:
        app.close()


@pytest.mark.slow
def test_semantic_search_answers_within_the_budget_and_pages_on(tmp_path: Path) -> None:
    write_files(tmp_path, _project())
    app = CodeIntelApp.for_path(tmp_path)
    try:
        app.index.sync(wait=True)
        ranking = [h["chunk_id"] for h in app._semantic_hits("dispatch a request token", n_results=40)["results"]]
        first = app.semantic_search("dispatch a request token", n_results=40)
        assert _size(first) <= budget_chars()
        assert 0 < len(first["results"]) < 40
        assert first["next_offset"] == len(first["results"]) and first["left_out"] == 40 - len(first["results"])
        second = app.semantic_search("dispatch a request token", n_results=40 - first["next_offset"],
                                     offset=first["next_offset"])
        assert [h["chunk_id"] for h in first["results"] + second["results"]] == ranking[:len(first["results"]) +
                                                                                        len(second["results"])]
    finally:
        app.close()


def test_semantic_search_answers_every_hit_asked_for_with_the_lowest_snippets_cut() -> None:
    """Ten hits asked for are ten hits answered: the lowest-ranked snippets shrink to their first line (the
    whole chunk is one fetch_chunk_detail away), the top hit keeps its own, the order is the ranking's."""
    from code_intel.explore.answers import shape_hits, shorten_snippets

    body = "\n".join(f"    step_{n} = compute_{n}(request, '{'z' * 50}')" for n in range(8))
    hits = [{"file": f"pkg/mod{i}.py", "line": 10 * i + 1, "end_line": 10 * i + 9, "symbol": f"handler_{i}",
             "score": 1 - i / 20, "source": "forest", "chunk_id": f"c{i}",
             "snippet": f"def handler_{i}(request):\n{body}"} for i in range(10)]
    assert len(shape_hits(hits)[0]) < 10  # the budget would drop some whole
    page, next_offset, left_out = shape_hits(shorten_snippets(hits))
    assert [h["chunk_id"] for h in page] == [f"c{i}" for i in range(10)]
    assert next_offset is None and left_out is None
    assert _size({"results": page}) <= budget_chars()
    assert page[0]["snippet"] == hits[0]["snippet"]
    assert page[-1]["snippet"] == "def handler_9(request):"
    small = hits[:3]
    assert shorten_snippets(small) == small  # what fits is left whole
