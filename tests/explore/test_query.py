"""The query router: candidate extraction, merging, and routing through the real Explorer."""

from pathlib import Path
from typing import Any

import pytest

from code_intel.core.errors import InvalidArgument, ToolUnavailable
from code_intel.explore import query as query_module
from code_intel.explore.models import QueryHit
from code_intel.explore.query import extract_candidates, merge_hits, stem
from code_intel.explore.query import run_query as query_result
from code_intel.explore.service import Explorer
from tests.explore.conftest import explorer_over


def run_query(*args: Any) -> dict[str, Any]:
    """The result as the wire shows it (null fields left out)."""
    return query_result(*args).model_dump(exclude_none=True)

PROJECT = {
    "app/config.py": (
        "import json\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "class ConfigLoader:\n"  # 4
        "    def load_settings(self, path):\n"  # 5
        "        return parse_config(open(path).read())\n"  # 6
        "\n"  # 7
        "\n"  # 8
        "def parse_config(text):\n"  # 9
        "    return json.loads(text)\n"  # 10
    ),
    "app/service.py": "from app.config import parse_config\n\n\ndef start():\n    return parse_config('{}')\n",
    "app/errors.py": 'MESSAGE = "connection refused by peer"\n',
    "web/auth.ts": "export function authenticateUser(name: string): boolean {\n  return name.length > 0;\n}\n",
}


@pytest.fixture
def explorer(tmp_path: Path) -> Explorer:
    return explorer_over(tmp_path, PROJECT)


# --------------------------------------------------------------------------- extraction
def test_identifiers_words_and_phrases_are_told_apart() -> None:
    found = extract_candidates('Where does SessionManager call parse_config and Parser.parse() on "connection refused"?')
    assert found.identifiers == ["SessionManager", "parse_config", "parse", "Parser"]
    assert found.phrases == ["connection refused", "Parser.parse"]
    assert found.words == []


def test_backticked_names_and_plain_words() -> None:
    found = extract_candidates("how does `load` relate to the authentication flow")
    assert found.identifiers == ["load"]
    assert found.words == ["relate", "authentication", "flow"]


def test_file_names_are_phrases_not_qualified_names() -> None:
    found = extract_candidates("how is index.html served for a folder, and where is `package.json` read?")
    assert found.identifiers == []
    assert found.phrases == ["package.json", "index.html"]
    # a dotted name whose last part is not a file extension is still object.attribute
    assert extract_candidates("where is request.body parsed").identifiers == ["body", "request"]


def test_prose_capitals_are_words_not_identifiers() -> None:
    found = extract_candidates("What renders the Dashboard?")
    assert found.identifiers == []
    assert found.words == ["renders", "Dashboard"]


# --------------------------------------------------------------------------- merging
def hit(kind: str, line: int, end: int | None = None, score: float = 0.5, source: str | None = None) -> QueryHit:
    return QueryHit(file="a.py", line=line, end_line=end, kind=kind, snippet="", score=score,
                    sources=[source or kind])


def test_text_inside_a_definition_merges_and_ranks_higher() -> None:
    merged = merge_hits([hit("text", 12, score=0.5), hit("definition", 10, 20, score=1.0, source="definition:exact")])
    assert len(merged) == 1
    assert merged[0].kind == "definition"
    assert merged[0].sources == ["definition:exact", "text"]
    assert merged[0].score == pytest.approx(1.15)
    assert merged[0].lines == [12]


def test_a_chunk_spanning_a_class_does_not_swallow_its_methods() -> None:
    merged = merge_hits([
        hit("semantic", 1, 40, score=0.75, source="semantic:forest"),
        hit("definition", 1, 40, score=1.0), hit("definition", 20, 25, score=0.9),
    ])
    assert [(h.line, h.sources) for h in merged] == [(1, ["definition", "semantic:forest"]), (20, ["definition"])]


def test_text_hits_on_the_same_line_are_one_place() -> None:
    merged = merge_hits([hit("text", 3, score=0.5, source="text"), hit("text", 3, score=0.49, source="text")])
    assert len(merged) == 1 and merged[0].score == 0.5


# --------------------------------------------------------------------------- routing
def test_identifier_question_finds_definition_first(explorer: Explorer) -> None:
    result = run_query(explorer, "where is parse_config defined and used?", None)
    assert result["routes_used"] == ["definitions", "text"]
    top = result["results"][0]
    assert (top["file"], top["line"], top["end_line"], top["kind"]) == ("app/config.py", 9, 10, "definition")
    assert top["name"] == "parse_config" and "def parse_config" in top["snippet"]
    assert "text" in top["sources"]
    lines = {(r["file"], r["line"]) for r in result["results"]}
    assert {("app/service.py", 1), ("app/service.py", 5), ("app/config.py", 6)} <= lines
    assert any("semantic search unavailable" in n for n in result["notes"])
    assert all(r["line"] >= 1 and r["snippet"] for r in result["results"])


def test_plain_words_match_definitions_case_insensitively_and_by_prefix(explorer: Explorer) -> None:
    result = run_query(explorer, "explain configloader", None)
    assert result["results"][0]["name"] == "ConfigLoader"
    assert result["candidates"] == ["ConfigLoader"]  # the word became the name it matched
    prefix = run_query(explorer, "how does authentication work", None)  # stem 'authenticat'
    assert ("web/auth.ts", 1) in {(r["file"], r["line"]) for r in prefix["results"] if r["kind"] == "definition"}


def test_adjacent_words_find_a_compound_name(explorer: Explorer) -> None:
    result = run_query(explorer, "how is the config loader built", None)
    top = result["results"][0]
    assert (top["file"], top["line"], top["name"]) == ("app/config.py", 4, "ConfigLoader")
    assert {"definition:icase", "text"} <= set(top["sources"])


def test_dotted_names_are_looked_up_in_their_scope(explorer: Explorer) -> None:
    result = run_query(explorer, "what does ConfigLoader.load_settings return?", None)
    top = result["results"][0]
    assert (top["file"], top["line"], top["name"]) == ("app/config.py", 5, "load_settings")
    assert top["score"] > 1.0


def test_test_files_rank_below_code(explorer: Explorer, tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_config.py").write_text("def parse_config(x):\n    return x\n", encoding="utf-8")
    result = run_query(explorer, "parse_config", None)
    definitions = [r["file"] for r in result["results"] if r["kind"] == "definition"]
    assert definitions == ["app/config.py", "tests/test_config.py"]


def test_stems_and_compounds() -> None:
    assert stem("resolved") == "resolv" and stem("parsing") == "parsing"[:4] and stem("user") == "user"
    assert extract_candidates("how is the project root resolved").compounds == ["project_root", "root_resolved"]
    assert extract_candidates("where is parse_config called?").compounds == []


def test_quoted_phrase_goes_to_text_search(explorer: Explorer) -> None:
    result = run_query(explorer, 'who says "connection refused"?', None)
    assert [(r["file"], r["line"], r["kind"]) for r in result["results"]] == [("app/errors.py", 1, "text")]


def test_semantic_results_are_merged_with_the_other_routes(explorer: Explorer) -> None:
    calls: list[dict[str, Any]] = []

    def semantic(**kwargs: Any) -> dict[str, Any]:
        calls.append(kwargs)
        return {"results": [
            {"file": "app/config.py", "line": 9, "end_line": 10, "score": 0.03, "source": "forest",
             "chunk_id": "c1", "snippet": "def parse_config(text):"},
            {"file": "app/service.py", "line": 4, "end_line": 5, "score": 0.02, "source": "forest", "chunk_id": "c2"},
            {"file": None, "line": None, "score": 0.01, "source": "map"},
        ]}

    result = run_query(explorer, "where is parse_config defined?", semantic)
    assert calls == [{"query": "where is parse_config defined?", "n_results": 10}]
    assert result["routes_used"] == ["definitions", "text", "semantic"]
    top = result["results"][0]
    assert (top["file"], top["line"]) == ("app/config.py", 9)
    assert {"definition:exact", "text", "semantic:forest"} <= set(top["sources"])
    assert top["chunk_id"] == "c1"
    service = [r for r in result["results"] if r["file"] == "app/service.py" and r["line"] == 4]
    assert service and service[0]["kind"] == "semantic" and "text" in service[0]["sources"]


def test_keywords_are_guesses_the_semantic_route_still_leads(explorer: Explorer) -> None:
    """A definition only the caller's keywords name joins the answer, but does not take the lead from the
    semantic route the way an identifier written in the question does."""

    def semantic(**kwargs: Any) -> dict[str, Any]:
        return {"results": [
            {"file": "web/auth.ts", "line": 1, "end_line": 3, "score": 0.9, "source": "forest", "chunk_id": "a1"},
        ]}

    guessed = query_result(explorer, "how is a user checked at login?", semantic, ["parse_config"]).results
    assert (guessed[0].file, guessed[0].line) == ("web/auth.ts", 1)
    assert any(h.file == "app/config.py" and h.line == 9 for h in guessed)  # the guess is still in the answer
    written = query_result(explorer, "how is a user checked at login by parse_config?", semantic).results
    assert (written[0].file, written[0].line) == ("app/config.py", 9)


def test_a_dotted_name_names_a_definition_only_in_its_own_scope(explorer: Explorer) -> None:
    """`Other.load_settings` does not name ConfigLoader's load_settings (a platform API or another class
    may share the member's name): the semantic route keeps the lead; `ConfigLoader.load_settings` names it."""

    def semantic(**kwargs: Any) -> dict[str, Any]:
        return {"results": [
            {"file": "web/auth.ts", "line": 1, "end_line": 3, "score": 0.9, "source": "forest", "chunk_id": "a1"},
        ]}

    elsewhere = query_result(explorer, "what does Other.load_settings return?", semantic).results
    assert (elsewhere[0].file, elsewhere[0].line) == ("web/auth.ts", 1)
    assert any(h.file == "app/config.py" and h.line == 5 for h in elsewhere)  # still found, behind the lead
    scoped = query_result(explorer, "what does ConfigLoader.load_settings return?", semantic).results
    assert (scoped[0].file, scoped[0].line) == ("app/config.py", 5)
    plain = query_result(explorer, "what does load_settings return?", semantic).results
    assert (plain[0].file, plain[0].line) == ("app/config.py", 5)


def test_a_name_defined_only_in_tests_does_not_take_the_lead(explorer: Explorer, tmp_path: Path) -> None:
    """`next()` in "calling next() twice in the same middleware" is a test's local helper, not a part of the project
    the question names: the semantic route keeps the lead; the test's definition is still in the answer."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_flow.py").write_text("def test_flow():\n    def next():\n        return 1\n",
                                                     encoding="utf-8")

    def semantic(**kwargs: Any) -> dict[str, Any]:
        return {"results": [
            {"file": "web/auth.ts", "line": 1, "end_line": 3, "score": 0.9, "source": "forest", "chunk_id": "a1"},
        ]}

    hits = query_result(explorer, "calling next() twice in the same handler", semantic).results
    assert (hits[0].file, hits[0].line) == ("web/auth.ts", 1)
    assert any(h.file == "tests/test_flow.py" and h.kind == "definition" for h in hits)
    named = query_result(explorer, "calling parse_config() twice", semantic).results
    assert (named[0].file, named[0].line) == ("app/config.py", 9)  # a name the project's code defines still leads


def test_a_failing_semantic_index_is_noted_not_fatal(explorer: Explorer) -> None:
    def broken(**_: Any) -> dict[str, Any]:
        raise RuntimeError("chroma is gone")

    result = run_query(explorer, "parse_config", broken)
    assert result["routes_used"] == ["definitions", "text"]
    assert any("chroma is gone" in n for n in result["notes"])
    assert result["results"][0]["name"] == "parse_config"


def test_a_failing_text_search_keeps_the_other_routes(explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_rg(*_: Any, **__: Any) -> None:
        raise ToolUnavailable("ripgrep (rg) not found")

    monkeypatch.setattr(explorer, "search_text", no_rg)
    result = run_query(explorer, "parse_config", None)
    assert result["routes_used"] == ["definitions"]
    assert any("text search failed" in n for n in result["notes"])
    assert result["results"][0]["kind"] == "definition"


def test_a_failing_definition_index_keeps_the_text_route(explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(*_: Any, **__: Any) -> None:
        raise ToolUnavailable("Universal Ctags not found")

    monkeypatch.setattr(explorer, "find_definitions", unavailable)
    result = run_query(explorer, "parse_config", None)
    assert any("Universal Ctags not found" in n for n in result["notes"])
    assert {r["kind"] for r in result["results"]} == {"text"}
    assert ("app/config.py", 9) in {(r["file"], r["line"]) for r in result["results"]}


def test_results_are_capped_with_truncated(explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("code_intel.explore.query.MAX_RESULTS", 2)
    result = run_query(explorer, "parse_config", None)
    assert len(result["results"]) == 2 and result["truncated"] is True


def test_empty_and_oversized_questions_are_refused(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument):
        run_query(explorer, "   ", None)
    with pytest.raises(InvalidArgument):
        run_query(explorer, "x" * 5000, None)


def test_app_routes_a_question_without_an_index(explorer: Explorer) -> None:
    from code_intel.server.app import CodeIntelApp

    assert CodeIntelApp(explorer.root).query("parse_config").results[0].file == "app/config.py"


def test_the_same_question_gets_the_same_answer_when_text_matches_are_cut(tmp_path: Path) -> None:
    # More files mention the name than the text route keeps (TEXT_PER_PATTERN), across enough files for
    # ripgrep's threads to finish them in varying order: the kept matches are the first in file/line order,
    # so every run answers alike (the question benchmark saw `query` move between runs before that).
    files = {f"pkg{i % 7}/mod{i:02d}.py": f"from core import retry_budget\n\nVALUE_{i} = retry_budget({i})\n"
             for i in range(60)}
    files["core.py"] = "def retry_budget(n):\n    return n * 2\n"
    explorer = explorer_over(tmp_path, files)

    def semantic(**kwargs: Any) -> dict[str, Any]:
        return {"results": [{"file": "pkg3/mod10.py", "line": 3, "end_line": 3, "symbol": None,
                             "snippet": "VALUE_10 = retry_budget(10)", "source": "forest"}]}

    answers = [run_query(explorer, "how is retry_budget computed", semantic) for _ in range(5)]
    assert all(answer == answers[0] for answer in answers[1:])
    assert answers[0]["results"][0]["file"] == "core.py"
    everything = sorted((m["file"], m["line"]) for m in explorer.search_text(r"\bretry_budget\b", max_results=5000).matches)
    kept = {(r["file"], r["line"]) for r in answers[0]["results"] if "text" in r["sources"]}
    assert len(everything) > query_module.TEXT_PER_PATTERN and kept
    assert kept <= set(everything[: query_module.TEXT_PER_PATTERN])
