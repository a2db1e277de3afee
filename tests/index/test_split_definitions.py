"""A function too long for one chunk is cut into windows: its declaration window stands for all of them (#41)."""

from __future__ import annotations

import copy

import pytest

from code_intel.index import service
from code_intel.index.chunker import Chunk, Chunker
from code_intel.index.memory import MemoryIndex
from code_intel.index.retrieval import CodeRanking, Scored, rank_code
from code_intel.index.service import SemanticIndex
from tests.conftest import write_files
from tests.index.test_static_index import static_index  # noqa: F401 (the fixture)

# a method whose doc comment fills several windows, as sequel's `eager` (80 lines of doc over a five-line body)
DOC = "".join(f"    # Paragraph {k}: the option table for this call, its defaults and what each flag changes.\n"
              for k in range(120))
EAGER = ("module Sequel\n  module DatasetMethods\n"
         "    # The preferred eager loading method: loads all associated records of a set of records at once.\n"
         + DOC + "    def eager(*associations)\n      clone(:eager => associations)\n    end\n  end\nend\n")


def _scored(cid: str, dense: float, lexical: float, file: str, symbol: str, kind: str) -> Scored:
    return Scored(cid, dense, lexical, file, symbol, [symbol], kind, "implementation")


def test_the_windows_of_a_split_function_stand_for_its_declaration_window() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rb", f"helper{n}", "function") for n in range(20)]
    windows = [_scored("doc1", 0.74, 12.0, "associations.rb", "Sequel.DatasetMethods.eager", "part"),
               _scored("doc2", 0.70, 4.0, "associations.rb", "Sequel.DatasetMethods.eager", "part"),
               _scored("def", 0.62, 3.0, "associations.rb", "Sequel.DatasetMethods.eager", "function")]
    other = _scored("graph", 0.66, 6.0, "associations.rb", "Sequel.DatasetMethods.eager_graph", "function")
    ranked = [c.id for c in rank_code([*windows, other, *fillers], "eager loading associated records")]
    assert ranked[0] == "def" and "doc1" not in ranked and "doc2" not in ranked
    assert ranked.index("graph") < ranked.index("f19")  # another definition keeps its own place


# a function whose last body window holds the lines a question asks about (got's `create`, whose window on pagination
# limits was the match, answered with its first 30 lines)
PAGINATE = ("def paginate(seed, items, maximum_items):\n    \"\"\"Walk the pages.\"\"\"\n"
            + "".join(f"    step_{k} = compute_value(step_{k - 1} if {k} else seed, factor={k})\n" for k in range(120))
            + "    # stop paginating once the number of items reaches the limit\n"
            + "    if len(items) >= maximum_items:\n        return items[:maximum_items]\n    return items\n")


def test_a_declaration_window_that_stands_for_a_body_window_reaches_down_to_its_lines(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 (the fixture)
    chunks = Chunker().chunk("client/pages.py", PAGINATE, "python")
    declaration = next(c for c in chunks if c.kind == "function")
    last = chunks[-1]
    assert last.kind == "part" and last.start_line > declaration.end_line
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}", "function") for n in range(20)]

    def scored(cid: str, dense: float, chunk: Chunk) -> Scored:
        return Scored(cid, dense, 2.0, chunk.file, chunk.symbol, [chunk.symbol], chunk.kind, "implementation",
                      lines=(chunk.start_line, chunk.end_line), decl_line=chunk.decl_line)

    ranked = rank_code([scored("def", 0.3, declaration), scored("body", 0.9, last), *fillers], "stop paginating")
    assert ranked[0].id == "def" and ranked[0].lines == (declaration.start_line, last.end_line)
    quiet = rank_code([scored("def", 0.9, declaration), scored("body", 0.3, last), *fillers], "stop paginating")
    assert quiet[0].lines == (declaration.start_line, declaration.end_line)  # its own score: its own lines
    documented = Scored("def", 0.3, 2.0, "pages.rb", "paginate", ["paginate"], "function", "implementation",
                        lines=(41, 70))
    doc = Scored("doc", 0.9, 2.0, "pages.rb", "paginate", ["paginate"], "part", "implementation", lines=(1, 40),
                 decl_line=41)
    above = rank_code([documented, doc, *fillers], "stop paginating")
    assert above[0].id == "def" and above[0].lines == (41, 70)  # a doc window above: the declaration answers
    write_files(static_index.root.path, {"client/pages.py": PAGINATE})
    static_index.sync()
    monkeypatch.setattr(MemoryIndex, "nearest", lambda self, vector, limit: [])  # the lexical side alone: the body
    results = static_index.semantic_search("stop paginating once the number of items reaches the limit", 3)["results"]
    assert [(r["kind"], r["line"], r["end_line"]) for r in results if r["symbol"] == "paginate"] == [
        ("function", declaration.start_line, last.end_line)]


def test_a_question_writing_a_subcommand_finds_its_dispatcher_branch() -> None:
    # "how nvm use switches ..." writes the command line the `nvm.use` branch runs; a helper that merely shares the
    # words ranks below it, and a question not writing the command leaves the order to the scores
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.sh", f"helper{n}", "function") for n in range(20)]
    helper = _scored("current", 0.50, 7.0, "nvm.sh", "nvm_ls_current", "function")
    use = Scored("use", 0.45, 6.0, "nvm.sh", "nvm.use", ["nvm.use"], "function", "implementation", command="nvm use")
    assert [c.id for c in rank_code([helper, use, *fillers], "how nvm use switches the active version")][0] == "use"
    assert [c.id for c in rank_code([helper, use, *fillers], "which node version is active")][0] == "current"


def test_a_split_functions_declaration_window_is_a_candidate_when_only_its_doc_matches(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 (the fixture)
    chunks = Chunker().chunk("model/associations.rb", EAGER, "ruby")
    kinds = [(c.kind, c.symbol) for c in chunks if c.symbol == "Sequel.DatasetMethods.eager"]
    assert kinds[0] == ("part", "Sequel.DatasetMethods.eager") and ("function", kinds[0][1]) in kinds
    write_files(static_index.root.path, {"model/associations.rb": EAGER})
    static_index.sync()
    monkeypatch.setattr(MemoryIndex, "nearest", lambda self, vector, limit: [])  # the lexical side alone: the doc
    results = static_index.semantic_search("preferred eager loading of associated records", 3)["results"]
    eager = [r for r in results if r["symbol"] == "Sequel.DatasetMethods.eager"]
    assert [r["kind"] for r in eager] == ["function"]  # the doc windows that matched stand for it
    assert eager[0]["line"] <= EAGER.splitlines().index("    def eager(*associations)") + 1 <= eager[0]["end_line"]


def test_a_file_holding_most_candidates_decays_less_than_a_file_among_many() -> None:
    # a central file (sequel's base.rb) with most of the candidates, beside a few small files whose best chunks say
    # less: its second and third chunks stay above them, where the full decay put them below
    central = [_scored(f"base{n}", 0.80 - n * 0.01, 3.0, "model/base.rb", f"Model.m{n}", "function") for n in range(16)]
    small = [_scored(f"small{n}", 0.76 - n * 0.01, 3.0, f"model/small_{n}.rb", f"Small{n}.run", "function")
             for n in range(4)]
    question = "saving a model in a transaction"
    # (lone_file 0: each small file's one candidate would back itself, t-ruby14's rule, not the one tested here)
    shared = CodeRanking(repeat_decay=0.5, lone_file=0.0)
    full_decay = CodeRanking(repeat_decay=0.5, repeat_share=0.0, lone_file=0.0)
    assert [c.id for c in rank_code([*central, *small], question, weights=shared)][:3] == ["base0", "base1", "base2"]
    assert [c.id for c in rank_code([*central, *small], question, weights=full_decay)][1] == "small0"
    # spread over many files, the same three chunks decay about as before
    spread = [*central[:3], *[_scored(f"other{n}", 0.79 - n * 0.001, 2.9, f"lib/other_{n}.rb", f"Other{n}.run",
                                      "function") for n in range(30)]]
    assert [c.id for c in rank_code(spread, question, weights=shared)][:6] == [
        c.id for c in rank_code(spread, question, weights=full_decay)][:6]


def test_a_central_files_share_is_not_diluted_by_test_candidates() -> None:
    # nvm.sh beside one test script per function (`test/fast/Unit tests/nvm_<name>`): the tests fill most of the
    # candidates, yet the share that softens nvm.sh's decay is counted among the implementation candidates only
    central = [_scored(f"nvm{n}", 0.80 - n * 0.01, 3.0, "nvm.sh", f"nvm_f{n}", "function") for n in range(6)]
    small = [_scored(f"small{n}", 0.76 - n * 0.01, 3.0, f"install_{n}.sh", f"inst{n}", "function") for n in range(4)]
    tests = [Scored(f"test{n}", 0.78 - n * 0.005, 3.0, f"test/fast/Unit tests/nvm_f{n}", f"t{n}", [f"t{n}"],
                    "function", "test") for n in range(24)]
    ranked = [c.id for c in rank_code([*central, *small, *tests], "how is the active node version chosen?",
                                      weights=CodeRanking(repeat_decay=0.5))]
    assert ranked[:2] == ["nvm0", "nvm1"] and ranked.index("nvm2") < ranked.index("small1")


def test_a_ruby_predicate_or_bang_method_is_the_definition_of_its_bare_name() -> None:
    # `empty?` and `save!` are the names a question writes as `empty` and `save` (the tokenizer drops the suffix)
    memory = MemoryIndex()
    metas = {"pred": {"file": "model/errors.rb", "symbol": "Errors.empty?", "kind": "function", "symbols": "Errors.empty?"},
             "bang": {"file": "model/base.rb", "symbol": "Model.save!", "kind": "function", "symbols": "Model.save!"},
             "op": {"file": "model/base.rb", "symbol": "Model.==", "kind": "function", "symbols": "Model.=="}}
    memory.add(list(metas), [[1.0, 0.0]] * len(metas), [""] * len(metas), list(metas.values()))
    assert memory.defining(["empty"], 5) == ["pred"] and memory.defining(["save"], 5) == ["bang"]
    assert memory.defining(["=="], 5) == ["op"]
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rb", f"helper{n}", "function") for n in range(20)]
    uses = _scored("uses", 0.8, 6.0, "model/validations.rb", "Validations.valid", "part")
    ranked = [c.id for c in rank_code([uses, _scored("pred", 0.6, 2.0, "model/errors.rb", "Errors.empty?", "function"),
                                        *fillers], "empty?")]
    assert ranked[0] == "pred"


def test_a_question_that_is_only_a_name_keeps_the_full_decay_of_a_central_file() -> None:
    # `Engine`: the definition first, then the configuration file beside it rather than the central file's other
    # chunks, however many candidates that file holds
    central = [_scored("engine", 0.70, 6.0, "rails/engine.rb", "Rails.Engine", "class"),
               *[_scored(f"m{n}", 0.68 - n * 0.005, 3.0, "rails/engine.rb", f"Rails.Engine.m{n}", "function")
                 for n in range(14)]]
    config = _scored("config", 0.69, 5.0, "rails/engine/configuration.rb", "Rails.Engine.Configuration", "class")
    strong = CodeRanking(repeat_decay=0.5)  # a decay strong enough for the second file to pass the central one
    ranked = [c.id for c in rank_code([*central, config], "Engine", weights=strong)]
    assert ranked[:2] == ["engine", "config"]
    later = {q: next(c.score for c in rank_code([*central, config], q, weights=strong) if c.id == "m3")
             for q in ("Engine", "Engine Engine")}
    assert later["Engine Engine"] > later["Engine"]  # a sentence: the central file's later chunks decay less


def test_a_files_one_candidate_backs_itself_beside_a_large_files_many() -> None:
    # warden's strategies.rb (five methods, one of them a candidate) for "registering a custom strategy from a block
    # or a class", below proxy.rb, whose twenty candidates backed its best one: the small file's one candidate stands
    # in for the next ones at `lone_file` of its score
    proxy = [_scored(f"p{n}", 0.62 - n * 0.01, 2.5, "warden/proxy.rb", f"Warden.Proxy.m{n}", "function")
             for n in range(12)]
    strategies = _scored("add", 0.70, 3.0, "warden/strategies.rb", "Warden.Strategies.add", "function")
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rb", f"Other{n}.run", "function") for n in range(20)]
    question = "registering a custom strategy from a block or a class"
    assert rank_code([*proxy, strategies, *fillers], question)[0].id == "add"
    assert rank_code([*proxy, strategies, *fillers], question, weights=CodeRanking(lone_file=0.0))[0].id == "p0"
    # a second candidate of the file, however weak: its support is its next chunks' again
    helper = _scored("helper", 0.1, 0.0, "warden/strategies.rb", "Warden.Strategies.clear!", "function")
    assert rank_code([*proxy, strategies, helper, *fillers], question)[0].id == "p0"
    # Ruby only: the same files in Python keep the support of their next candidates alone
    for c in [*proxy, strategies, *fillers]:
        c.file = c.file.replace(".rb", ".py")
    assert rank_code([*proxy, strategies, *fillers], question)[0].id == "p0"


def _candidates_ranked(index: SemanticIndex, monkeypatch: pytest.MonkeyPatch, question: str) -> list[Scored]:
    """The candidates a search of `question` hands to the ranker (service's rank_code), as the search builds them."""
    seen: list[Scored] = []
    ranked = service.rank_code

    def spy(candidates: list[Scored], *args: object, **kwargs: object) -> list[Scored]:
        seen.extend(candidates)
        return ranked(candidates, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "rank_code", spy)
    index.semantic_search(question, 10)
    return seen


def _overload(name: str, doc_lines: int) -> str:
    doc = "".join(f"     * Paragraph {k} about {name}: what each flag of this overload changes and why.\n"
                  for k in range(doc_lines))
    return f"    /**\n{doc}     */\n    public Object {name}(String input) {{\n        return input;\n    }}\n\n"


def test_each_overloads_windows_stand_for_its_own_declaration() -> None:
    # two overloads of `read` in one file, both split: the doc window of the second must not lift the first
    source = "class Reader {\n" + _overload("read", 90) + _overload("read", 90) + "}\n"
    chunks = Chunker().chunk("Reader.java", source, "java")
    declarations = [c for c in chunks if c.kind == "function" and c.symbol == "Reader.read"]
    parts = [c for c in chunks if c.kind == "part" and c.symbol == "Reader.read"]
    assert len(declarations) == 2 and parts
    for part in parts:  # each part names the line of its own overload's declaration, inside that window
        owner = [d for d in declarations if d.start_line <= part.decl_line <= d.end_line]
        assert len(owner) == 1 and (owner[0].start_line > part.end_line) == (part.start_line < owner[0].start_line)

    def scored(cid: str, dense: float, chunk: Chunk) -> Scored:
        return Scored(cid, dense, 2.0, chunk.file, chunk.symbol, [chunk.symbol], chunk.kind, "implementation",
                      lines=(chunk.start_line, chunk.end_line), decl_line=chunk.decl_line)

    second_doc = next(p for p in parts if p.decl_line > declarations[0].end_line)
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run", "function") for n in range(20)]
    ranked = rank_code([scored("first", 0.40, declarations[0]), scored("second", 0.50, declarations[1]),
                        scored("doc", 0.90, second_doc), *fillers], "read the input")
    ids = [c.id for c in ranked]
    assert ids[0] == "second" and "doc" not in ids and ids.index("first") > ids.index("second")
    first, second = (next(c for c in ranked if c.id == x) for x in ("first", "second"))
    assert second.score > first.score + 0.1  # the doc's score went to the second overload, not the first


def test_the_declaration_of_a_part_is_fetched_by_its_line() -> None:
    memory = MemoryIndex()
    metas = {"a": {"file": "R.java", "symbol": "R.read", "kind": "function", "start_line": 10, "end_line": 40},
             "b": {"file": "R.java", "symbol": "R.read", "kind": "function", "start_line": 90, "end_line": 120}}
    memory.add(list(metas), [[1.0, 0.0]] * 2, ["", ""], list(metas.values()))
    assert memory.declarations([("R.java", "R.read", 95)]) == ["b"]
    assert sorted(memory.declarations([("R.java", "R.read", 0)])) == ["a", "b"]


def test_a_method_without_a_body_takes_no_part_in_file_support() -> None:
    # jackson-core's "pretty printer with two-space indentation": the interface PrettyPrinter's declarations share the
    # question's words and backed its header above DefaultPrettyPrinter, the class that does the indenting
    contract = [_scored("printer", 0.62, 8.0, "PrettyPrinter.java", "PrettyPrinter", "class"),
                *[_scored(f"decl{n}", 0.60 - n * 0.01, 6.0, "PrettyPrinter.java", f"PrettyPrinter.write{n}", "function")
                  for n in range(4)]]
    default = [_scored("default", 0.66, 8.0, "util/DefaultPrettyPrinter.java", "DefaultPrettyPrinter", "class"),
               _scored("indent", 0.50, 3.0, "util/DefaultPrettyPrinter.java", "DefaultPrettyPrinter.indent", "function")]
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run", "function") for n in range(20)]
    question = "printer indenting with two spaces"

    def ranked() -> list[Scored]:
        return rank_code(copy.deepcopy([*contract, *default, *fillers]), question)

    before = ranked()
    assert before[0].file == "PrettyPrinter.java"
    for c in contract[1:]:
        c.bodiless = True
    after = ranked()
    assert after[0].file == "util/DefaultPrettyPrinter.java"
    score = {c.id: c.score for c in before}
    assert all(c.score < score[c.id] for c in after if c.id.startswith("decl"))  # nor is a declaration backed


def test_a_search_knows_which_java_methods_have_no_body(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 (the fixture)
    source = ("package p;\n\n/** Writes values. */\npublic interface Writer {\n"
              + "".join(f"    /**\n     * Writes a {n} value of the {k}th kind to the output, escaping what it must,\n"
                        f"     * and reports where the output fails or the value holds another type.\n     */\n"
                        f"    void write{n.title()}{k}(Object value) throws IOException;\n\n"
                        for n in ("string", "number", "boolean", "array", "object", "null") for k in range(6))
              + "    default void flush() {\n        System.out.flush();\n    }\n}\n")
    write_files(static_index.root.path, {"p/Writer.java": source})
    static_index.sync()
    seen = _candidates_ranked(static_index, monkeypatch, "writing a string value to the output")
    flags = {c.symbol: c.bodiless for c in seen if c.kind == "function"}
    assert flags.get("Writer.writeString0") is True and flags.get("Writer.flush") is False, flags


def test_a_search_knows_which_java_methods_are_accessors(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 (the fixture)
    source = ("package p;\n\n/** Reads records. */\npublic class Reader {\n    private boolean ignoreEmptyLines;\n\n"
              "    /**\n     * Gets whether empty lines between records are ignored when parsing input.\n     */\n"
              "    public boolean getIgnoreEmptyLines() {\n        return ignoreEmptyLines;\n    }\n\n"
              "    /**\n     * Reads the next record, skipping empty lines between records when asked to.\n     */\n"
              "    public String nextRecord(java.io.BufferedReader in) throws java.io.IOException {\n"
              "        String line = in.readLine();\n        while (ignoreEmptyLines && line != null && line.isEmpty()) {\n"
              "            line = in.readLine();\n        }\n        return line;\n    }\n"
              + "".join(f"\n    /** Counts the {k}th kind of record read so far, for the report. */\n"
                        f"    public int count{k}(int[] counts) {{\n        int sum = 0;\n"
                        f"        for (int n : counts) {{\n            sum += n * {k};\n        }}\n        return sum;\n    }}\n"
                        for k in range(30))
              + "}\n")
    write_files(static_index.root.path, {"p/Reader.java": source})
    static_index.sync()
    seen = _candidates_ranked(static_index, monkeypatch, "skipping empty lines between records")
    flags = {c.symbol: c.accessor for c in seen if c.kind == "function"}
    assert flags.get("Reader.getIgnoreEmptyLines") is True and flags.get("Reader.nextRecord") is False, flags
