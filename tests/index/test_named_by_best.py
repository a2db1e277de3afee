"""A question about how parts fit together: the definitions that the best results call join the candidates (#41)."""

from __future__ import annotations

import pytest

from code_intel.index import service
from code_intel.index.memory import MemoryIndex
from code_intel.index.retrieval import Scored, asks_one_name, mark_named, names_written, rank_code
from code_intel.index.service import SemanticIndex
from tests.conftest import write_files
from tests.index.test_static_index import static_index  # noqa: F401 (the fixture)


def test_a_definition_the_best_result_calls_ranks_above_an_equal_one_it_does_not() -> None:
    best = Scored("best", 0.9, 9.0, "src/applyMiddleware.ts", "applyMiddleware", ["applyMiddleware"], "function", "code")
    called = Scored("called", 0.3, 1.0, "src/compose.ts", "compose", ["compose"], "function", "code")
    other = Scored("other", 0.3, 1.0, "src/combine.ts", "combine", ["combine"], "function", "code")
    names = names_written(["export function applyMiddleware(...m) {\n  return compose(...chain)(store.dispatch)\n}"])
    assert {"compose", "chain", "store", "dispatch", "applyMiddleware"} <= names and "m" not in names
    mark_named([best, called, other], names, {best.file})
    assert (best.named, called.named, other.named) == (False, True, False)  # the best result's own file: no
    ranked = rank_code([other, called, best], "how middleware wraps the store's dispatch")
    assert [c.id for c in ranked] == ["best", "called", "other"]
    assert asks_one_name("applyMiddleware") and asks_one_name("class Router")
    assert not asks_one_name("how middleware wraps the store's dispatch")


@pytest.fixture
def middleware(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> SemanticIndex:
    # `compose` shares no word with the question, and mentions of the question's words fill the lexical top
    files = {f"store/logger_{n}.js": f"export function logger{n}(store) {{\n  // middleware that logs each dispatch\n"
             f"  return (next) => (action) => next(action) // middleware dispatch\n}}\n" for n in range(3)}
    files["store/applyMiddleware.js"] = (
        "export function applyMiddleware(...middlewares) {\n  return (createStore) => (reducer) => {\n"
        "    const store = createStore(reducer)\n    const chain = middlewares.map((middleware) => middleware(store))\n"
        "    const dispatch = compose(...chain)(store.dispatch)\n    return { ...store, dispatch }\n  }\n}\n")
    files["util/compose.js"] = ("export function compose(...funcs) {\n"
                                "  return funcs.reduce((a, b) => (...args) => a(b(...args)))\n}\n")
    index: SemanticIndex = request.getfixturevalue("static_index")
    write_files(index.root.path, files)
    index.sync()
    monkeypatch.setattr(service, "CANDIDATES", 3)
    monkeypatch.setattr(MemoryIndex, "nearest", lambda self, vector, limit: [])  # the dense side finds nothing here
    return index


def test_the_definition_the_best_result_calls_joins_the_candidates(middleware: SemanticIndex) -> None:
    results = middleware.semantic_search("how does applyMiddleware wrap the dispatch of the store", 10)["results"]
    files = [r["file"] for r in results]
    assert files[0] == "store/applyMiddleware.js" and "util/compose.js" in files


def test_a_question_that_is_only_a_name_takes_no_definitions_its_best_result_calls(middleware: SemanticIndex) -> None:
    files = [r["file"] for r in middleware.semantic_search("applyMiddleware", 10)["results"]]
    assert files[0] == "store/applyMiddleware.js" and "util/compose.js" not in files
