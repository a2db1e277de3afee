"""Ranking signals (file role, kind, symbol name, keywords, file aggregation) and the optional `keywords` /
`code_hint` arguments of semantic_search and query."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument
from code_intel.core.file_roles import file_role
from code_intel.index.retrieval import CODE_RANKING, ForestQuery, Scored, Signals, rank_code, rerank
from code_intel.index.service import SemanticIndex
from tests.index.conftest import write_files


def scored(cid: str, dense: float, file: str) -> Scored:
    """A function chunk of `file` with this dense score and no lexical one, for rank_code's tests."""
    return Scored(cid, dense, 0.0, file, cid, [cid], "function", file_role(file))


@pytest.mark.parametrize(("path", "role"), [
    ("gunicorn/arbiter.py", "implementation"), ("src/hono.ts", "implementation"),
    ("tests/test_arbiter.py", "test"), ("context_test.go", "test"), ("src/router.test.ts", "test"),
    ("internal/testdata/a.go", "test"), ("docs/guide.md", "doc"), ("README.md", "doc"),
    ("examples/basic/main.go", "doc"), ("api.pb.go", "generated"), ("vendor/x/y.go", "generated"),
    ("types/index.d.ts", "generated"),
    # Swift packages keep tests in `Tests/` (capitalised) and name them `...Tests.swift`; Lua's busted specs; bats
    ("Tests/AlamofireTests/SessionTests.swift", "test"), ("Source/Core/Session.swift", "implementation"),
    ("RxSwift/Observables/Map.swift", "implementation"), ("lua/lspconfig/util_spec.lua", "test"),
    ("spec/lspconfig/util.lua", "test"), ("lua/lspconfig/util.lua", "implementation"),
    ("test/plugins/jump.plugin.bats", "test"), ("lib/helpers.bash", "implementation"),
    ("test/dio_test.dart", "test"), ("lib/src/client_test.dart", "test"), ("lib/src/client.dart", "implementation"),
    # Go's package documentation file, prose above the `package` clause
    ("doc.go", "doc"), ("internal/websocket/doc.go", "doc"), ("docker.go", "implementation"),
    # Java's: the package's Javadoc above the `package` line
    ("src/main/java/org/apache/commons/beanutils2/package-info.java", "doc"), ("src/main/java/a/Package.java",
                                                                                "implementation"),
])
def test_file_roles_come_from_the_path(path: str, role: str) -> None:
    assert file_role(path) == role


def _candidate(cid: str, score: float, file: str, symbol: str = "", kind: str = "function") -> Scored:
    return Scored(cid, 0.0, 0.0, file, symbol, [symbol] if symbol else [], kind, file_role(file), score)


def test_a_go_packages_doc_file_ranks_below_the_code_it_describes() -> None:
    # gorilla/websocket's doc.go explains in prose how large messages are written through the buffer; the question
    # asks what the code does, so `messageWriter.Write` comes first unless documentation is asked for
    fillers = [Scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"util_{n}.go", f"helper{n}", [f"helper{n}"], "function",
                      file_role(f"util_{n}.go")) for n in range(20)]
    prose = Scored("doc", 0.80, 9.0, "doc.go", "", [], "module", file_role("doc.go"))
    write = Scored("write", 0.62, 5.0, "conn.go", "messageWriter.Write", ["messageWriter.Write"], "function",
                   file_role("conn.go"))
    question = "what happens when a message is larger than the write buffer"
    assert [c.id for c in rank_code(copy.deepcopy([prose, write, *fillers]), question)][0] == "write"
    asked = "documentation of messages larger than the write buffer"
    assert [c.id for c in rank_code(copy.deepcopy([prose, write, *fillers]), asked)][0] == "doc"


def test_role_penalty_puts_the_implementation_first_unless_the_question_asks_for_tests() -> None:
    candidates = [_candidate("t", 0.95, "tests/test_retry.py", "test_retry_backoff"),
                  _candidate("d", 0.93, "docs/retry.md", "", "lines"),
                  _candidate("i", 0.85, "client/retry.py", "backoff")]
    signals = Signals(role_penalty={"test": 0.15, "doc": 0.15}, module_penalty=0.0)
    ranked = rerank(candidates, "how does retry backoff work", signals=signals)
    assert [c.id for c in ranked] == ["i", "t", "d"]
    asked = rerank(candidates, "which tests cover retry", signals=signals)
    assert asked[0].id == "t"  # tests stay findable: asked for, they are not pushed down
    assert {c.role for c in ranked} == {"test", "doc", "implementation"}


def test_module_and_keyword_signals() -> None:
    base = Signals(role_penalty={}, module_penalty=0.2, keyword_weight=0.3)
    candidates = [_candidate("mod", 0.9, "a.py", "", "module"), _candidate("other", 0.8, "a.py", "parse_rows"),
                  _candidate("named", 0.75, "b.py", "retry_request")]
    ranked = rerank(candidates, "retry request", signals=base)
    assert [c.id for c in ranked] == ["other", "named", "mod"]  # 0.8, 0.75, 0.7 (module code pushed down)
    keyed = rerank(candidates, "", keywords=["parse_rows"], signals=base)
    assert keyed[0].id == "other" and keyed[0].score == pytest.approx(1.1)


def test_a_code_hint_moves_the_query_vector_toward_it() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if "def" not in t else [0.0, 1.0] for t in texts]

    plain = ForestQuery("where is it").vector(embed, None)
    hinted = ForestQuery("where is it", code_hint="def retry(): pass").vector(embed, None)
    assert plain == [1.0, 0.0] and 0 < hinted[1] < hinted[0] and abs(hinted[0] ** 2 + hinted[1] ** 2 - 1) < 1e-9
    assert ForestQuery("q", ["retryAfter"]).lexical_text == "q retryAfter "


IMPLEMENTATION_AND_TESTS = {
    "client/backoff.py": '''def next_delay(attempt, base, cap):
    """Exponential backoff with full jitter between retries."""
    import random
    return random.uniform(0, min(cap, base * 2 ** attempt))
''',
    "tests/test_backoff.py": '''from client.backoff import next_delay


def test_delay_stays_under_the_cap():
    """The jittered backoff never waits longer than the cap."""
    for attempt in range(10):
        assert 0 <= next_delay(attempt, 0.1, 5) <= 5
''',
    "client/cache.py": '''def lookup_entry(store, key):
    return store.get(key)


def zq_apply(items, fn):
    return [fn(i) for i in items]
''',
}



RUBY_TEST_NAMESPACE = {
    "rack/test.rb": "require_relative 'test/cookie_jar'\n\nmodule Rack\n  module Test\n"
                    "    # A session of requests to a Rack app.\n    class Session\n      def request(uri)\n"
                    "        @app.call(uri)\n      end\n    end\n  end\nend\n",
    "rack/test/cookie_jar.rb": "module Rack\n  module Test\n    # Parses a Set-Cookie header into its name, value, "
                               "domain and path.\n    class Cookie\n      def initialize(raw)\n"
                               "        @name, @value = raw.split(';').first.split('=')\n"
                               "        @domain = raw[/domain=([^;]+)/, 1]\n      end\n    end\n  end\nend\n",
    "test/cookie_jar_test.rb": "describe Rack::Test::Cookie do\n  it 'parses a set-cookie header' do\n"
                               "    Rack::Test::Cookie.new('a=b; domain=x').name.must_equal 'a'\n  end\nend\n",
}


@pytest.mark.slow
def test_a_ruby_namespace_folder_named_test_ranks_as_the_library_it_is(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    # rack-test's lib/rack/test/ holds Rack::Test's code beside rack/test.rb: no test penalty for it
    write_files(project_dir, RUBY_TEST_NAMESPACE)
    index = make_index(project_dir)
    index.sync()
    found = index.semantic_search("parsing a set-cookie header into name, value and domain", n_results=5)["results"]
    roles = {r["file"]: r["role"] for r in found}
    assert roles["rack/test/cookie_jar.rb"] == "implementation" and roles.get("test/cookie_jar_test.rb") == "test"
    assert found[0]["file"] == "rack/test/cookie_jar.rb"


@pytest.mark.slow
def test_semantic_search_labels_roles_and_answers_how_it_works_with_the_implementation(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    write_files(project_dir, IMPLEMENTATION_AND_TESTS)
    index = make_index(project_dir)
    index.sync()
    found = index.semantic_search("how does exponential backoff with jitter between retries work", n_results=5)
    assert found["results"][0]["file"] == "client/backoff.py" and found["results"][0]["role"] == "implementation"
    roles = {r["file"]: r["role"] for r in found["results"]}
    assert roles["tests/test_backoff.py"] == "test"  # still findable, labelled
    tests_first = index.semantic_search("tests that the backoff delay stays under the cap", n_results=5)
    assert tests_first["results"][0]["file"] == "tests/test_backoff.py"

    plain = index.semantic_search("apply a function to every item", n_results=5)["results"]
    keyed = index.semantic_search("apply a function to every item", n_results=5, keywords=["zq_apply"])["results"]
    assert keyed[0]["symbol"] == "zq_apply" and keyed[0]["score"] > next(
        r["score"] for r in plain if r["symbol"] == "zq_apply")
    hinted = index.semantic_search("find the cached value", n_results=3, code_hint="return store.get(key)")
    assert hinted["results"][0]["symbol"] == "lookup_entry"

    with pytest.raises(InvalidArgument):
        index.semantic_search("x", keywords="zq_apply")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        index.semantic_search("x", keywords=[f"name{i}" for i in range(30)])
    with pytest.raises(InvalidArgument):
        index.semantic_search("x", code_hint="x" * 5000)


def test_a_lexical_match_that_stands_out_weighs_more_against_the_dense_side() -> None:
    # rack-session: "keeping sessions in a hash in memory guarded by a mutex" is answered by `Pool`, the one chunk
    # holding the question's rarer words (mutex, memory); the static vectors put the session hash's short methods
    # first. One candidate's BM25 score far above all others' lowers the dense side's share (0.6 -> 0.5).
    def scored(cid: str, dense: float, lexical: float, file: str) -> Scored:
        return Scored(cid, dense, lexical, file, cid, [cid], "function", file_role(file))

    fillers = [scored(f"f{n}", 0.30 + n * 0.005, 1.0, f"lib/other_{n}.rb") for n in range(20)]
    near = scored("near", 0.60, 1.0, "lib/hash.rb")
    words = scored("words", 0.39, 12.0, "lib/pool.rb")
    question = "keeping sessions in a hash in memory guarded by a mutex"
    assert rank_code(copy.deepcopy([near, words, *fillers]), question)[0].id == "words"
    # several candidates sharing the words about as well: no one stands out, and the dense side keeps its share
    shared = [scored(f"s{n}", 0.30 + n * 0.005, 11.0 if n < 4 else 1.0, f"lib/other_{n}.rb") for n in range(20)]
    assert rank_code(copy.deepcopy([near, words, *shared]), question)[0].id == "near"


def test_a_topic_spreads_the_answer_over_more_files_below_the_first_two() -> None:
    # semble's questions name a topic ("test runner worker pool and execution") and are answered by whole files: below
    # the first two places a busy file's later chunks yield to other files (t-sem: with five places kept, the busy
    # file's third and fourth chunks held places 3 and 5 above a topic's second answer file); a sentence or a
    # question ending in punctuation (a docstring, "...?") keeps the usual decay
    busy = [Scored(f"a{n}", 0.90 - n * 0.02, 0.0, "pool.go", f"pool{n}", [f"pool{n}"], "function",
                   file_role("pool.go")) for n in range(9)]
    other = [Scored(cid, dense, 0.0, file, cid, [cid], "function", file_role(file))
             for cid, dense, file in (("b", 0.70, "worker.go"), ("c", 0.66, "queue.go"))]
    # fillers named by one word each (util_10.go's name has two: CodeRanking.name_length)
    fillers = [Scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"util{chr(97 + n)}.go", f"helper{n}", [f"helper{n}"], "function",
                      file_role(f"util{chr(97 + n)}.go")) for n in range(20)]

    def ten(question: str) -> list[str]:
        return [c.id for c in rank_code(copy.deepcopy(busy + other + fillers), question)][:10]
    topic, sentence = ten("worker pool and task scheduling"), ten("worker pool and task scheduling?")
    assert topic[:2] == sentence[:2] == ["a0", "a1"]
    assert sentence[2:9] == ["a2", "b", "a3", "c", "a4", "a5", "a6"]
    assert topic[2:6] == ["b", "c", "a2", "a3"] and not {"a4", "a5", "a6"} & set(topic)
    assert ten("worker_pool() and task scheduling") == sentence  # code written in it: not a topic


def test_a_file_whose_name_has_fewer_words_ranks_above_one_that_scores_about_as_well() -> None:
    # messagepack-csharp: "how objects are serialized to MessagePack binary format" is answered by
    # MessagePackSerializer.cs, the library's entry point, which the fallback formatter
    # DynamicObjectTypeFallbackFormatter.cs stood above; each word of a file's name beyond its first costs a little
    # (CodeRanking.name_length): the more words, the narrower the variant, helper or part of a module the file holds.
    # The question here shares no word with either name, so only the names' length tells them apart
    fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"src/Other{n}.cs") for n in range(20)]
    narrow = scored("narrow", 0.62, "src/Formatters/DynamicObjectTypeFallbackFormatter.cs")
    entry = scored("entry", 0.60, "src/MessagePackSerializer.cs")
    question = "how values are turned into bytes"
    assert [c.id for c in rank_code(copy.deepcopy([narrow, entry, *fillers]), question)][:2] == ["entry", "narrow"]
    unweighted = dataclasses.replace(CODE_RANKING, name_length=0.0)
    assert [c.id for c in rank_code(copy.deepcopy([narrow, entry, *fillers]), question, (), unweighted)][:2] == [
        "narrow", "entry"]


def test_a_description_of_one_function_takes_less_support_from_its_files_other_chunks() -> None:
    # "Return the event loop of the running task." describes one function (it opens with a verb that says what code
    # does, imperative or third person, and asks no question): the function that does it comes before a busy file's
    # best chunk that its other chunks back (CodeRanking.function_support). A topic or a question keeps the full
    # support, and so does a description that names a file
    busy = [scored(f"b{n}", 0.70 - n * 0.02, "base.py") for n in range(5)]
    lone = scored("lone", 0.80, "runners.py")
    fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"util{chr(97 + n)}.py") for n in range(20)]

    def first(question: str) -> str:
        return rank_code(copy.deepcopy([*busy, lone, *fillers]), question)[0].id
    assert first("Return the event loop of the running task.") == "lone"
    assert first("Returns the event loop of the running task.") == "lone"
    assert first("which function returns the event loop of the running task?") == "b0"
    assert first("return the event loop") == "b0"  # a topic
    assert first("Return the event loop that base.py keeps.") == "b0"
    supported = dataclasses.replace(CODE_RANKING, function_support=CODE_RANKING.file_support)
    assert rank_code(copy.deepcopy([*busy, lone, *fillers]), "Return the event loop of the running task.", (),
                     supported)[0].id == "b0"


def test_a_question_asked_as_a_sentence_orders_a_files_chunks_without_their_names_similarity() -> None:
    # a question that ends with a question mark describes behaviour in its own words: a file's chunks keep the
    # order of their scores, not of how like the question their names are; the same words as a phrase, a short
    # question or a Ruby name that ends with a question mark still order them by the name's similarity
    def scored(cid: str, dense: float, file: str, similarity: float = 0.0) -> Scored:
        found = Scored(cid, dense, 0.0, file, cid, [cid], "function", file_role(file))
        found.name_similarity = similarity
        return found

    body = scored("body", 0.70, "frame.py")
    named = scored("named", 0.68, "frame.py", 0.5)
    fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"util{chr(97 + n)}.py") for n in range(20)]

    def order(question: str) -> list[str]:
        return [c.id for c in rank_code(copy.deepcopy([body, named, *fillers]), question)][:2]

    assert order("what happens to the payload length of an outgoing frame?") == ["body", "named"]
    assert order("what happens to the payload length of an outgoing frame") == ["named", "body"]
    assert order("Frame#outgoing?") == ["named", "body"]
    assert order("where is outgoing_frame?") == ["named", "body"]


@pytest.mark.parametrize(("question", "describes"), [
    ("Return the loop.", True), ("Parses a header and returns its value.", True), ("Check whether it is closed.", True),
    ("applies the patch to every file", True), ("Called when the connection is made.", False),
    ("how is the loop closed?", False), ("Serialize", False), ("get_param_as_json", False),
    ("Return the path of utils.py.", False), ("Load module foo", False), ("the loop of a task", False),
])
def test_a_description_opens_with_a_verb_that_says_what_code_does(question: str, describes: bool) -> None:
    from code_intel.index.retrieval import describes_function
    assert describes_function(question) is describes


def test_a_function_whose_code_writes_the_question_leads_its_files_chunks() -> None:
    # a question asked as one: `parseRequestBody` (which checks the method and writes the body) scores a little below
    # its sibling `parseRequestHeader`, whose name shares the file's words; the words its calls and string literals
    # write (Scored.body_words) put it first among the file's chunks
    fillers = [Scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"util_{n}.go", f"helper{n}", [f"helper{n}"], "function",
                      file_role(f"util_{n}.go")) for n in range(10)]
    header = Scored("header", 0.80, 0.0, "middleware.go", "parseRequestHeader", ["parseRequestHeader"], "function",
                    file_role("middleware.go"))
    body = Scored("body", 0.78, 0.0, "middleware.go", "parseRequestBody", ["parseRequestBody"], "function",
                  file_role("middleware.go"))
    question = "what happens to a GET request sent with a body"
    assert [c.id for c in rank_code(copy.deepcopy([header, body, *fillers]), question)][:2] == ["header", "body"]
    body.body_words = frozenset({"get", "request", "sent", "body"})
    assert [c.id for c in rank_code(copy.deepcopy([header, body, *fillers]), question)][:2] == ["body", "header"]
    # so does a short phrase that names what the code does, as a developer searches for it (names_behaviour)
    phrase = "GET request sent with a body"
    assert [c.id for c in rank_code(copy.deepcopy([header, body, *fillers]), phrase)][:2] == ["body", "header"]
    # a description of a function reads like its doc comment and name: the order stays, for one written as a doc
    # comment (a sentence ending in a period) or one longer than ten words
    for described in ("Parse a GET request sent with a body.",
                      "reading the body of a GET request sent by a client that set a length header"):
        assert [c.id for c in rank_code(copy.deepcopy([header, body, *fillers]), described)][:2] == ["header", "body"]


@pytest.mark.parametrize(("question", "names"), [
    ("what happens when a route function panics?", True), ("second ctrl+c kills the job that is running", True),
    ("response body is not written for HEAD requests", True), ("Mark the future done and set an exception.", False),
    ("running a synchronous view function in a thread executor so it does not block the event loop", False),
    ("get_param_as_json", False),
])
def test_a_question_names_what_the_code_does_when_asked_or_a_short_phrase(question: str, names: bool) -> None:
    from code_intel.index.retrieval import names_behaviour
    assert names_behaviour(question) is names


def test_the_first_file_a_leading_java_file_uses_by_name_follows_it_before_its_siblings() -> None:
    # jackson-core: "escaping string values and property names for JSON output" wants CharacterEscapes.java and
    # CharTypes.java; a file that scored a little better stood between them. The leading file's text writes
    # `CharTypes` (a type it uses), not the other file's name, so the file it uses rises to the second place
    # (CodeRanking.lead_uses), never above the leading chunk; a type it only extends or implements (the leading
    # file's stored supertypes, Scored.implements) does not, and neither does any file in Kotlin, unless the question
    # is a topic (a short phrase without a sentence's marks)
    def first_three(ext: str, text: str, weights: object = CODE_RANKING, question: str = "How are strings escaped?",
                    supertypes: tuple[str, ...] = ()) -> list[str]:
        fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"src/other/Other{n}.{ext}") for n in range(20)]
        lead = scored("lead", 0.80, f"src/io/CharacterEscapes.{ext}")
        lead.implements = list(supertypes)
        sibling = scored("sibling", 0.62, f"src/JsonFactoryBuilder.{ext}")
        used = scored("used", 0.60, f"src/io/CharTypes.{ext}")
        pool = copy.deepcopy([sibling, used, lead, *fillers])

        def writes(file: str) -> str:
            return text if file == lead.file else ""
        return [c.id for c in rank_code(pool, question, (), weights, writes)][:3]  # type: ignore[arg-type]

    uses = "public abstract class CharacterEscapes implements Serializable {\n  int[] esc = CharTypes.get7BitOutputEscapes();\n}"
    assert first_three("java", uses) == ["lead", "used", "sibling"]
    assert first_three("java", uses, dataclasses.replace(CODE_RANKING, lead_uses=0.0)) == ["lead", "sibling", "used"]
    assert first_three("kt", uses) == ["lead", "sibling", "used"]
    assert first_three("kt", uses, question="escaping strings") == ["lead", "used", "sibling"]
    assert first_three("py", uses, question="escaping strings") == ["lead", "used", "sibling"]
    assert first_three("py", uses, dataclasses.replace(CODE_RANKING, lead_uses=0.0), "escaping strings") == [
        "lead", "sibling", "used"]
    extends = "public abstract class CharacterEscapes extends CharTypes {\n}"
    assert first_three("java", extends, supertypes=("CharTypes",)) == ["lead", "sibling", "used"]
    # a type argument of a supertype is a type the file uses, not one it extends: failsafe's CircuitBreakerBuilder
    # `extends DelayablePolicyBuilder<CircuitBreakerBuilder<R>, CircuitBreakerConfig<R>, R>` (stored supertypes:
    # DelayablePolicyBuilder, PolicyListeners) builds a CircuitBreakerConfig; the regular expression over the file's
    # text that read its supertypes before took a type argument after a nested one for a supertype
    generic = ("public abstract class CharacterEscapes\n  extends Escapes<Map<String, int[]>, CharTypes>\n"
               "  implements Serializable {\n}")
    assert first_three("java", generic, supertypes=("Escapes", "Serializable")) == ["lead", "used", "sibling"]
    # the bonus stops at the leading chunk's score: a used file close below it does not pass it
    fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"src/other/Other{n}.java") for n in range(20)]
    close = scored("used", 0.79, "src/io/CharTypes.java")
    lead = scored("lead", 0.80, "src/io/CharacterEscapes.java")
    assert [c.id for c in rank_code(copy.deepcopy([close, lead, *fillers]), "escaping strings", (), CODE_RANKING,
                                    lambda file: uses)][:2] == ["lead", "used"]


def test_a_heading_that_names_how_something_works_gives_a_files_later_chunks_the_full_decay() -> None:
    # "how the timer wheel tracks sleep deadlines" asks for the files a mechanism runs through, each as a whole: a busy
    # file's second chunk, halved (how_decay) and not softened as the file holds most candidates, yields to the next
    # small files' best. The same words asked with a question mark are a developer's question about one behaviour,
    # and in Ruby (SPAN_LANGUAGES) a "how" asks for a central file's methods about as often: both keep the softened
    # decay
    def ten(ext: str, question: str) -> list[str]:
        busy = [scored(f"a{n}", 0.90 - n * 0.02, f"pool.{ext}") for n in range(9)]
        other = [scored("worker", 0.80, f"worker.{ext}"), scored("queue", 0.76, f"queue.{ext}")]
        fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"util{chr(97 + n)}.{ext}") for n in range(20)]
        return [c.id for c in rank_code(copy.deepcopy(busy + other + fillers), question)][:10]
    heading = "how the pool hands each submitted task to a free worker and keeps the rest in its queue"
    asked = "how does the pool hand each submitted task to a free worker and keep the rest in its queue?"
    assert ten("py", heading)[:5] == ["a0", "worker", "queue", "a1", "a2"]  # halved (how_decay): both files first
    assert ten("py", asked)[:5] == ["a0", "a1", "worker", "a2", "queue"]
    assert ten("rb", heading) == ten("rb", asked)


def test_a_java_or_kotlin_topic_gives_a_files_later_chunks_the_full_decay() -> None:
    # "observable mutable state container" names classes, each asked for whole (a Java or Kotlin file holds one class
    # named after it): a busy file's fourth chunk yields to a filler file's best, as for a "how" heading. In
    # Python (not FILE_TOPIC_LANGUAGES) a topic keeps the softened decay (since t-sem a topic keeps only its first two
    # places, so both languages put the small files third and fourth)
    def ten(ext: str) -> list[str]:
        busy = [scored(f"a{n}", 0.90 - n * 0.02, f"Pool.{ext}") for n in range(9)]
        other = [scored("worker", 0.80, f"Worker.{ext}"), scored("queue", 0.76, f"Queue.{ext}")]
        fillers = [scored(f"f{n}", 0.2 + n * 0.01, f"Util{chr(97 + n)}.{ext}") for n in range(20)]
        return [c.id for c in rank_code(copy.deepcopy(busy + other + fillers), "pooled task worker queue")][:10]
    assert ten("java")[:6] == ten("kt")[:6] == ["a0", "a1", "worker", "queue", "a2", "f19"]
    assert ten("py")[:6] == ["a0", "a1", "worker", "queue", "a2", "a3"]
