"""The default index: the static code model only, searchable from memory before Chroma stores it, ranked by
what a chunk is (rank_code); chunks that carry meaning; sync_index answering at once with progress."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from code_intel.core.config import load_config
from code_intel.core.project import ProjectRoot
from code_intel.index import sync as sync_module
from code_intel.index.chunker import Chunk, Chunker, hollow, valueless
from code_intel.index.manifest import Manifest
from code_intel.index.memory import MemoryIndex
from code_intel.index.retrieval import CodeRanking, Scored, named_identifiers, rank_code
from code_intel.index.service import STATIC_THRESHOLDS, TRANSFORMER_THRESHOLDS, SemanticIndex, thresholds_for
from code_intel.index.static import MAX_TOKENS, StaticEmbedder, token_ids
from code_intel.index.store import FOREST
from code_intel.index.text import embedding_text, lexical_text, member_names
from tests.conftest import write_files

RUBY_BUILDER = "module Rack\n  class Builder\n    attr_reader :options\n\n" + "".join(
    f"    # Step {n} of the middleware stack.\n    def step_{n}(app, env)\n"
    + "".join(f"      env['rack.step.{n}.{k}'] = app.call(env) * {k}\n" for k in range(12))
    + "    end\n\n" for n in range(6)) + "    private\n\n    def helper\n      1\n    end\n  end\nend\n"

JAVA_ADAPTER = "package demo;\n\npublic final class TypeAdapter<T> extends Base {\n  private final int size;\n\n" + "".join(
    f"  /** Reads part {n}. */\n  public T read{n}(JsonReader in) throws IOException {{\n"
    + "".join(f"    in.skip({k}); in.value({n}, {k});\n" for k in range(12)) + "    return null;\n  }\n\n"
    for n in range(6)) + "}\n"


@pytest.mark.parametrize(("path", "text", "language", "cls"), [
    ("lib/rack/builder.rb", RUBY_BUILDER, "ruby", "Rack.Builder"),
    ("src/TypeAdapter.java", JAVA_ADAPTER, "java", "TypeAdapter"),
])
def test_a_split_class_has_no_hollow_chunk_and_its_header_names_the_members(
        path: str, text: str, language: str, cls: str) -> None:
    chunks = Chunker(max_tokens=256).chunk(path, text, language)
    assert len([c for c in chunks if c.kind == "function"]) >= 6  # the class was split into its methods
    for c in chunks:
        assert not hollow(c.content), (c.start_line, c.content)
        assert c.content.strip() not in ("}", "end", "private")
    header = next(c for c in chunks if c.symbol == cls and c.kind == "class")
    assert header.start_line <= text.splitlines().index(next(line for line in text.splitlines()
                                                             if cls.rsplit(".", 1)[-1] in line)) + 1
    members = member_names(header.symbol, header.symbols)
    assert {"step_0", "step_5"} <= set(members) or {"read0", "read5"} <= set(members)
    assert "members:" in embedding_text(header) and members[0] in embedding_text(header)
    assert members[-1] in lexical_text(header.file, header.symbol, header.content, members)


def test_a_csharp_or_php_header_lists_its_members_as_words() -> None:
    # a long CamelCase name is word pieces that mean nothing to the model: C# and PHP headers spell their members
    from code_intel.index.chunker import Chunk

    symbols = ["Demo.Serializer", "Demo.Serializer.TryDeserializeFromStream", "Demo.Serializer.Serialize"]
    for language, spelled in (("csharp", True), ("php", True), ("java", False)):
        header = Chunk("src/Serializer.x", 1, 3, "Demo.Serializer", "class", language, "class Serializer {", symbols)
        text = embedding_text(header)
        assert ("members: try deserialize from stream serialize" in text) is spelled, text
        assert ("members: TryDeserializeFromStream Serialize" in text) is not spelled, text
        assert "TryDeserializeFromStream" in lexical_text(header.file, header.symbol, header.content,
                                                          member_names(header.symbol, header.symbols))


def test_the_leftover_lines_of_a_split_class_are_a_part_not_its_definition() -> None:
    # a section banner between two methods is left between them: it names no definition and must not rank as one
    banner = "  /*\n  /**********************\n  /* Reading helpers\n  /**********************\n   */\n\n"
    text = JAVA_ADAPTER.replace("  /** Reads part 3. */", banner + "  /** Reads part 3. */")
    chunks = Chunker(max_tokens=256).chunk("src/TypeAdapter.java", text, "java")
    leftover = next(c for c in chunks if "Reading helpers" in c.content)
    assert leftover.kind == "part" and leftover.symbol == "TypeAdapter"
    assert [c.kind for c in chunks if c.symbol == "TypeAdapter"].count("class") == 1  # the header alone
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.java", f"helper{n}") for n in range(20)]
    ranked = rank_code([_scored("banner", 0.8, 4.0, "src/TypeAdapter.java", "TypeAdapter", kind="part"),
                        _scored("header", 0.6, 3.0, "src/TypeAdapter.java", "TypeAdapter", kind="class",
                                symbols=["TypeAdapter", "TypeAdapter.read0"]), *fillers], "TypeAdapter")
    assert [c.id for c in ranked][:2] == ["header", "banner"]


def test_hollow_text_is_only_closing_words_and_punctuation() -> None:
    assert hollow("}") and hollow("  end\nend") and hollow("private\n") and hollow("});") and hollow("")
    assert not hollow("end_time = now()") and not hollow("class Builder") and not hollow("} else { retry(); }")


def test_names_a_question_writes() -> None:
    assert named_identifiers("Router") == ["Router"]
    assert named_identifiers("how does parseHTTPResponse handle max_file_bytes") == ["parseHTTPResponse",
                                                                                     "max_file_bytes"]
    # a lower-case name after a dot or `::` is a word in a sentence (fmtlib's std::ostream is the standard library's),
    # and a name when it is the question
    assert named_identifiers("Rack::Builder and app.call") == ["Builder"]
    assert named_identifiers("ostream integration for writing to std::ostream") == []
    assert named_identifiers("app.call") == ["call"]
    assert named_identifiers("how are requests retried") == []


def _scored(cid: str, dense: float, lexical: float, file: str, symbol: str = "", kind: str = "function",
            role: str = "implementation", symbols: list[str] | None = None) -> Scored:
    return Scored(cid, dense, lexical, file, symbol, symbols or ([symbol] if symbol else []), kind, role)


def test_rank_code_puts_the_definition_of_a_written_name_first() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.go", f"helper{n}") for n in range(20)]
    candidates = [
        _scored("use", 0.9, 5.0, "middleware/route_headers.go", "RouteHeaders"),
        _scored("def", 0.7, 3.0, "chi.go", "Router", kind="class"),
        _scored("test", 0.95, 6.0, "mux_test.go", "TestRouter", role="test"),
        *fillers,
    ]
    ranked = rank_code(candidates, "Router")
    assert [c.id for c in ranked][:2] == ["def", "use"]
    assert [c.id for c in ranked].index("test") == 2  # below the implementation: tests lose 0.5 unless asked for
    asked = rank_code([_scored("impl", 0.9, 5.0, "mux.go", "Mux.route"),
                       _scored("test", 0.9, 5.0, "mux_test.go", "TestMux", role="test")], "tests for the router")
    assert {c.id for c in asked[:2]} == {"impl", "test"} and asked[0].score == pytest.approx(asked[1].score, abs=0.2)


def test_rank_code_lifts_files_named_like_the_question_and_decays_a_files_repeats() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.go", f"helper{n}") for n in range(20)]
    named = [_scored("cmd", 0.80, 1.0, "command.go", "Command.run"), _scored("bash", 0.78, 1.0, "bash_completions.go",
                                                                           "genBash"), *fillers]
    assert [c.id for c in rank_code(named, "bash completion generation")][0] == "bash"
    assert [c.id for c in rank_code(named, "bash completion generation", weights=CodeRanking(path=0.0))][0] == "cmd"
    repeats = [_scored(f"cmd{n}", 0.80 - n * 0.01, 1.0, "command.go", f"Command.m{n}") for n in range(3)]
    repeats.append(_scored("help", 0.775, 1.0, "help.go", "usage"))
    ranked = [c.id for c in rank_code([*repeats, *fillers], "usage template")]
    assert ranked.index("help") < ranked.index("cmd1")  # a file's second chunk decays below another file's first
    flat = CodeRanking(path=0.0, file_support=0.0, repeat_decay=1.0, topic_decay=1.0)
    assert [c.id for c in rank_code([*repeats, *fillers], "usage template", weights=flat)][:3] == ["cmd0", "cmd1",
                                                                                                   "cmd2"]


def test_file_support_lifts_a_files_later_chunks_only_in_the_leading_file() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(30)]
    lead = [_scored("a0", 0.90, 2.0, "fields.py", "Field"), _scored("a1", 0.74, 2.0, "fields.py", "Field.validate"),
            _scored("a2", 0.70, 2.0, "fields.py", "Field.merge")]
    busy = [_scored(f"b{n}", 0.80 - n * 0.03, 2.0, "main.py", f"Model.m{n}") for n in range(4)]
    small = _scored("types", 0.73, 2.0, "types.py", "conint")
    # asked with "?": a heading's later chunks are halved (how_decay), which would put types.py above a1 as well
    question = "how are model fields declared and constrained?"
    ranked = [c.id for c in rank_code([*lead, *busy, small, *fillers], question)]
    assert ranked[:2] == ["a0", "b0"]
    # another file's best chunk before main.py's second, which its file's support no longer lifts
    assert ranked.index("types") < ranked.index("b1")
    assert ranked.index("a1") < ranked.index("types")  # the leading file's sibling keeps it: the next place to look
    # so does a busy file that is not the leading one (main.py: 4 of 18 implementation candidates)
    busier = [c.id for c in rank_code([*lead, *busy, small, *fillers[:10]], question)]
    assert busier.index("types") < busier.index("b1")


def test_rank_code_lifts_files_named_with_another_form_of_the_questions_words() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    for question, named in [("how to serialize models to JSON", "pydantic/functional_serializers.py"),
                            ("how select() finds the elements matching a CSS query", "select/Selector.java"),
                            ("model configuration and settings", "pydantic/config.py")]:
        pair = [_scored("other", 0.80, 1.0, "pydantic/main.py", "BaseModel.method"),
                _scored("named", 0.79, 1.0, named, "Thing.method"), *fillers]
        assert [c.id for c in rank_code(pair, question)][0] == "named", question
    # a short word matches only as it is: `de` (serde's deserialisation folder) is not the start of `define`
    short = [_scored("other", 0.80, 1.0, "src/main.rs", "run"), _scored("de", 0.79, 1.0, "src/de.rs", "visit"),
             *fillers]
    assert [c.id for c in rank_code(short, "how fields are defined")][0] == "other"


def test_rank_code_puts_legacy_copies_below_the_current_code() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    pair = [_scored("old", 0.81, 2.0, "pydantic/deprecated/decorator.py", "validate_arguments"),
            _scored("new", 0.80, 2.0, "pydantic/validate_call_decorator.py", "validate_call"), *fillers]
    assert [c.id for c in rank_code(pair, "validate a function's arguments")][0] == "new"


def test_rank_code_orders_a_files_functions_by_their_names_within_the_places_the_file_holds() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    setter = _scored("set", 0.80, 3.0, "tasks.py", "Future.set_exception")
    getter = _scored("get", 0.79, 2.9, "tasks.py", "Future.exception")
    between = _scored("base", 0.795, 2.95, "_base.py", "Future.set_exception")
    setter.name_similarity, getter.name_similarity, between.name_similarity = 0.5, 0.7, 0.5
    question = "return the exception that was set on this future"
    unnamed = [c.id for c in rank_code([setter, getter, between, *fillers], question, weights=CodeRanking(name=0.0))]
    ranked = [c.id for c in rank_code([setter, getter, between, *fillers], question)]
    assert unnamed[:3] == ["set", "base", "get"]
    assert ranked[:3] == ["get", "base", "set"]  # the file keeps its first and third places; the other file its second
    scores = [c.score for c in rank_code([setter, getter, between, *fillers], question)]
    assert scores == sorted(scores, reverse=True)
    # a question that is only a name asks for that definition: its file's order is the definition's
    assert [c.id for c in rank_code([setter, getter, *fillers], "set_exception")][0] == "set"


def test_a_name_a_sentence_writes_lifts_its_file_but_not_its_definition_among_the_files_functions() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    soon = _scored("soon", 0.70, 2.6, "base_events.py", "BaseEventLoop.call_soon")
    safe = _scored("safe", 0.72, 2.8, "base_events.py", "BaseEventLoop.call_soon_threadsafe")
    other = _scored("other", 0.90, 3.2, "events.py", "Handle._run")
    question = "Like call_soon(), but thread-safe."
    # the written name's bonus puts its file first: the file keeps the first place, which its other function takes
    assert [c.id for c in rank_code([other, soon, safe, *fillers], question)][:3] == ["safe", "other", "soon"]
    assert [c.id for c in rank_code([other, soon, safe, *fillers], question, weights=CodeRanking(definition=0.0))][
        :3] == ["other", "safe", "soon"]
    # a question that is only the name asks for that definition; one short enough to name one thing finds it
    # among the file's functions by the name's similarity, as a sentence does
    assert [c.id for c in rank_code([other, soon, safe, *fillers], "call_soon")][0] == "soon"
    soon.name_similarity, safe.name_similarity = 0.9, 0.5
    assert [c.id for c in rank_code([other, soon, safe, *fillers], "where is call_soon?")][0] == "soon"


def test_a_files_chunk_that_holds_no_function_takes_its_place_after_the_functions_that_score_nearly_as_well() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.js", f"helper{n}") for n in range(20)]
    requires = _scored("mod", 0.80, 3.0, "utils.js", "", kind="module")
    etag = _scored("etag", 0.76, 2.7, "utils.js", "createETagGenerator")
    struct = _scored("info", 0.80, 3.0, "trace.go", "TraceInfo", kind="class", symbols=["TraceInfo"])
    trace = _scored("ctx", 0.76, 2.7, "trace.go", "clientTrace.createContext")
    whole = _scored("cls", 0.80, 3.0, "trace.go", "Client", kind="class", symbols=["Client", "Client.Do"])
    question = "how is an ETag produced for a response body"
    before = [c.id for c in rank_code([requires, etag, *fillers], question, weights=CodeRanking(no_function=0.0))]
    assert before[:2] == ["mod", "etag"]
    assert [c.id for c in rank_code([requires, etag, *fillers], question)][:2] == ["etag", "mod"]
    assert [c.id for c in rank_code([struct, trace, *fillers], "request timing breakdown")][:2] == ["ctx", "info"]
    # a class chunk that holds its methods is code: it keeps its order
    assert [c.id for c in rank_code([whole, trace, *fillers], "request timing breakdown")][:2] == ["cls", "ctx"]


def test_a_split_classs_header_and_the_windows_between_its_methods_come_after_its_functions() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    # waitress's OverflowableBuffer: its header lists the methods (for the embedding), a method is a chunk of its own
    header = _scored("head", 0.80, 3.0, "buffers.py", "OverflowableBuffer", kind="class",
                     symbols=["OverflowableBuffer", "OverflowableBuffer.append", "OverflowableBuffer._set_large_buffer"])
    method = _scored("large", 0.76, 2.7, "buffers.py", "OverflowableBuffer._set_large_buffer")
    question = "spool a large request body to a temporary file instead of memory"
    assert [c.id for c in rank_code([header, method, *fillers], question, weights=CodeRanking(no_function=0.0,
                                                                                   class_no_function=0.0))][
        :2] == ["head", "large"]
    assert [c.id for c in rank_code([header, method, *fillers], question)][:2] == ["large", "head"]
    # oak's Response: the doc comments of `redirect`'s overload signatures are a window of the class body
    overloads = _scored("sigs", 0.80, 3.0, "response.ts", "Response", kind="part")
    redirect = _scored("impl", 0.76, 2.7, "response.ts", "Response.redirect")
    question = "redirect back to the referring page, or a fallback"
    assert [c.id for c in rank_code([overloads, redirect, *fillers], question)][:2] == ["impl", "sigs"]
    # a function's window is no class's: it keeps its order (a part of `send`, whose declaration is no candidate)
    window = _scored("win", 0.80, 3.0, "send.ts", "send", kind="part")
    other = _scored("other", 0.76, 2.7, "send.ts", "isHidden")
    assert [c.id for c in rank_code([window, other, *fillers], "serve precompressed files")][:2] == ["win", "other"]
    # a class chunk that holds its methods' code, beside a method of the class that is a chunk of its own (a Rust
    # type's second impl block): it keeps its order
    whole = _scored("impl1", 0.80, 3.0, "conn.rs", "Conn", kind="class", symbols=["Conn", "Conn.read"])
    write = _scored("write", 0.76, 2.7, "conn.rs", "Conn.write")
    assert [c.id for c in rank_code([whole, write, *fillers], "read from the connection")][:2] == ["impl1", "write"]

def test_a_class_chunk_or_window_that_holds_no_function_comes_after_its_files_functions_by_more_than_module_code() -> None:
    # xmlrpc's "Set the name of the generated HTML server documentation": the header of `XMLRPCDocGenerator`, cut into
    # a chunk per method, lists `set_server_name` among its members' names and led the file above the method itself
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    header = _scored("head", 0.84, 3.0, "xmlrpc/server.py", "XMLRPCDocGenerator", kind="class",
                     symbols=["XMLRPCDocGenerator", "XMLRPCDocGenerator.set_server_name",
                              "XMLRPCDocGenerator.set_server_title"])
    method = _scored("setter", 0.76, 2.2, "xmlrpc/server.py", "XMLRPCDocGenerator.set_server_name")
    question = "Set the name of the generated HTML server documentation"
    assert [c.id for c in rank_code([header, method, *fillers], question,
                                    weights=CodeRanking(class_no_function=0.15))][:2] == ["head", "setter"]
    ranked = rank_code([header, method, *fillers], question)
    assert [c.id for c in ranked][:2] == ["setter", "head"]
    assert ranked[0].score > ranked[1].score > max(c.score for c in ranked[2:])  # the file keeps both places
    # a type of fields alone (a Go struct) is a class chunk that holds no function too
    struct = _scored("struct", 0.84, 3.0, "trace.go", "TraceInfo", kind="class", symbols=["TraceInfo"])
    trace = _scored("ctx", 0.76, 2.2, "trace.go", "clientTrace.createContext")
    assert [c.id for c in rank_code([struct, trace, *fillers], "request timing breakdown")][:2] == ["ctx", "struct"]
    # and so is a window of a class's body between its methods (oak's `Response`: `redirect`'s overload signatures)
    overloads = _scored("sigs", 0.84, 3.0, "response.ts", "Response", kind="part")
    redirect = _scored("impl", 0.76, 2.2, "response.ts", "Response.redirect")
    assert [c.id for c in rank_code([overloads, redirect, *fillers], "redirect back to the referring page")][:2] == [
        "impl", "sigs"]
    # a file's module code as far ahead keeps its place: its imports and constants are the file's own lines
    module = _scored("mod", 0.84, 3.0, "xmlrpc/server.py", "", kind="module")
    assert [c.id for c in rank_code([module, method, *fillers], question)][:2] == ["mod", "setter"]


def test_a_class_header_named_after_its_file_takes_no_file_type_bonus_among_its_files_chunks() -> None:
    # kryo's "writing a string, with a faster path for short ASCII strings": Output.java's header led the file by the
    # file_type bonus, and the method asked for (`Output.writeString`) fell to the file's later, decayed places
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(20)]
    header = _scored("header", 0.78, 2.8, "io/Output.java", "Output", kind="class", symbols=["Output"])
    method = _scored("method", 0.80, 3.0, "io/Output.java", "Output.writeString")
    ranked = rank_code([header, method, *fillers], "writing a string with a faster path for ASCII")
    assert [c.id for c in ranked][:2] == ["method", "header"]
    assert ranked[0].score > max(c.score for c in rank_code([method, *fillers], "writing a string"))  # file first still
    # the header of a class its file is not named after was never lifted: the order is the same as before
    other = _scored("other", 0.78, 2.8, "io/Output.java", "Buffer", kind="class", symbols=["Buffer"])
    assert [c.id for c in rank_code([other, method, *fillers], "writing a string with a faster path")][:2] == [
        "method", "other"]


def test_a_split_header_named_after_its_file_follows_its_methods_only_as_a_header() -> None:
    # commons-lang's "reflection equals builder internals" asks for EqualsBuilder's header (its class doc on
    # reflection); the header holds no function (its methods are chunks of their own): that is taken off among its
    # file's chunks, and being its file's type is not taken off again
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(20)]
    question = "comparing two objects field by field through reflection"

    def first_two(header_dense: float, method_dense: float) -> list[str]:
        header = _scored("header", header_dense, 3.4, "builder/EqualsBuilder.java", "EqualsBuilder", kind="class",
                         symbols=["EqualsBuilder", "EqualsBuilder.reflectionAppend"])
        method = _scored("method", method_dense, 3.0, "builder/EqualsBuilder.java", "EqualsBuilder.reflectionAppend")
        return [c.id for c in rank_code([header, method, *fillers], question)][:2]

    assert first_two(0.84, 0.78) == ["header", "method"]  # the sum of both put the method first
    assert first_two(0.80, 0.86) == ["method", "header"]  # a method as near as the header still goes first


def test_a_java_accessor_or_deprecated_method_ranks_lower_but_not_below_its_name() -> None:
    # commons-csv's "rejecting a header that names the same column twice" and kryo's "creating objects without
    # calling a constructor": the getter and setter of the option (`Kryo.setInstantiatorStrategy`) above the code
    # that does the work (`DefaultInstantiatorStrategy.newInstantiatorOf`)
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(20)]
    setter = _scored("setter", 0.82, 3.0, "Kryo.java", "Kryo.setInstantiatorStrategy")
    work = _scored("work", 0.78, 2.8, "DefaultInstantiatorStrategy.java",
                   "DefaultInstantiatorStrategy.newInstantiatorOf")
    question = "creating objects without calling a constructor"
    assert [c.id for c in rank_code([setter, work, *fillers], question)][:2] == ["setter", "work"]
    setter.accessor = True
    assert [c.id for c in rank_code([setter, work, *fillers], question)][:2] == ["work", "setter"]
    assert [c.id for c in rank_code([setter, work, *fillers], question, weights=CodeRanking(idle=0.0))][:2] == [
        "setter", "work"]
    assert [c.id for c in rank_code([setter, work, *fillers], "setInstantiatorStrategy")][0] == "setter"
    # a question of one name that neither defines lowers it too: only the definition of the name asked goes first
    assert [c.id for c in rank_code([setter, work, *fillers], "ObjectCreation")][:2] == ["work", "setter"]
    # commons-csv's deprecated `CSVFormat.withHeader(ResultSet)` (a copy made through its builder) above the printer
    # that writes a result set; a deprecated Python function is asked for by its own docstring
    for file, lower in (("CSVFormat.java", True), ("resources/_legacy.py", False)):
        old = _scored("old", 0.82, 3.0, file, "CSVFormat.withHeader")
        old.deprecated = True
        ranked = [c.id for c in rank_code([old, work, *fillers], question)]
        assert ranked[:2] == (["work", "old"] if lower else ["old", "work"]), file


def test_a_class_bodys_part_holds_no_function_when_a_method_of_its_class_is_a_candidate() -> None:
    # the fields between a class's methods (commons-csv's `CSVParser`: `lexer`, `reusableToken`, `recordList`) come
    # after a method of that class that scores nearly as well; with no method of its class among the candidates the
    # part is ordered by its score, in Java as in Ruby (whose class body may define methods itself). A window of a
    # split method (`decl_line` set, the method's name) is that method's code
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(20)]
    question = "how the parser pulls tokens from the lexer and assembles them into records"
    for file, part, window, method_name, first in (
            ("CSVParser.java", "CSVParser", 0, "CSVParser.nextRecord", "method"),
            ("CSVParser.java", "CSVParser", 0, "Lexer.nextToken", "fields"),
            ("CSVParser.java", "CSVParser.parse", 40, "CSVParser.nextRecord", "fields"),
            ("csv_parser.rb", "CSVParser", 0, "Lexer.next_token", "fields"),
            ("csv_parser.rb", "CSVParser", 0, "CSVParser.next_record", "method")):
        fields = _scored("fields", 0.80, 3.0, file, part, kind="part")
        fields.decl_line = window
        method = _scored("method", 0.76, 2.7, file, method_name)
        assert [c.id for c in rank_code([fields, method, *fillers], question)][:2] == [
            first, "method" if first == "fields" else "fields"], (file, part, method_name)


def test_a_description_opening_with_return_puts_the_files_functions_that_return_no_value_after_the_others() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    setter = dataclasses.replace(_scored("set", 0.80, 3.0, "futures.py", "Future.set_result"), valueless=True)
    result = _scored("result", 0.76, 2.8, "futures.py", "Future.result")
    question = "Return the result this future represents."
    assert [c.id for c in rank_code([setter, result, *fillers], question, weights=CodeRanking(valueless=0.0))][:2] == [
        "set", "result"]
    assert [c.id for c in rank_code([setter, result, *fillers], question)][:2] == ["result", "set"]
    assert [c.id for c in rank_code([setter, result, *fillers], "Returns the result of the future")][:2] == [
        "result", "set"]
    # a question that does not open with "Return" keeps the order, and so does a function of another file: which
    # files hold the places does not change
    assert [c.id for c in rank_code([setter, result, *fillers], "Set the future's result")][:2] == ["set", "result"]
    elsewhere = dataclasses.replace(result, id="elsewhere", file="tasks.py")
    assert [c.id for c in rank_code([setter, elsewhere, *fillers], question)][:2] == ["set", "elsewhere"]


def test_a_description_joining_and_return_to_its_verb_puts_the_files_functions_that_return_no_value_after_the_others(
) -> None:
    # "Remove and return ...", "Remove *key* and return its value": the function gives a value back, as one opening
    # with "Return" does (collections' `ChainMap.popitem` below `__delitem__`, which removes and returns nothing)
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.py", f"helper{n}") for n in range(20)]
    remover = dataclasses.replace(_scored("del", 0.80, 3.0, "maps.py", "ChainMap.__delitem__"), valueless=True)
    popper = _scored("pop", 0.76, 2.8, "maps.py", "ChainMap.popitem")
    for question in ("Remove and return an item pair from maps[0].", "Remove *key* from maps[0] and return its value.",
                     "Looks up and returns the value of a property."):
        assert [c.id for c in rank_code([remover, popper, *fillers], question)][:2] == ["pop", "del"], question
    # "return" as a noun, or a verb not said of this function, keeps the order
    for question in ("Sets the return value of the item pair.", "Remove an item pair; the caller returns it."):
        assert [c.id for c in rank_code([remover, popper, *fillers], question)][:2] == ["del", "pop"], question


def _indexed(file: str, chunks: list[Chunk]) -> tuple[Manifest, MemoryIndex, dict[str, Scored]]:
    """A manifest and an index in memory holding `chunks` as the sync stores them, and each chunk as a candidate
    (keyed by symbol and kind, the first of each)."""
    from code_intel.index.manifest import ChunkEntry, FileEntry
    from code_intel.index.service import _scored
    from code_intel.index.sync import chunk_metadata

    ids = [f"c{n}" for n in range(len(chunks))]
    metas = [chunk_metadata(c, "s") for c in chunks]
    entry = FileEntry(sha256="s", size=1, mtime_ns=1, language=chunks[0].language, chunks=[
        ChunkEntry(cid, c.start_line, c.end_line, c.symbol, c.symbols, c.kind) for cid, c in zip(ids, chunks, strict=True)])
    memory = MemoryIndex()
    memory.add(ids, np.eye(len(chunks), 8), [c.content for c in chunks], metas)
    manifest = Manifest(files={file: entry})
    scored: dict[str, Scored] = {}
    for cid, c, meta in zip(ids, chunks, metas, strict=True):
        scored.setdefault(c.symbol + c.kind, _scored(cid, 0.5, 1.0, meta, manifest))
    return manifest, memory, scored


def test_a_functions_first_window_is_not_read_as_returning_no_value_when_a_later_window_may_return() -> None:
    from code_intel.index.service import _read_windows
    from code_intel.index.sync import chunk_metadata

    long = "def spec(name, location):\n" + "".join(f"    step_{n} = prepare(name, location, {n})\n" for n in range(40)) + (
        "    return build(name, location)\n\n\ndef store(self, value):\n    self.value = value\n    self.notify()\n")
    chunks = Chunker(max_tokens=64).chunk("external.py", long, "python")
    first = next(c for c in chunks if c.kind == "function" and c.symbol == "spec")
    assert any(c.kind == "part" and c.symbol == "spec" for c in chunks) and "return" not in first.content
    manifest, memory, scored = _indexed("external.py", chunks)
    _read_windows(list(scored.values()), manifest, memory, Path("/nonexistent"), {}, False)
    assert chunk_metadata(first, "s").get("valueless") and not scored["specfunction"].valueless
    assert scored["storefunction"].valueless


def test_a_propertys_setter_is_not_read_through_its_getters_windows() -> None:
    from code_intel.index.service import _read_windows

    # the getter and the setter share a qualified name; only the getter is too long for one chunk, and the windows
    # below it are its own, not the setter's, which returns no value
    text = ("class Future:\n    @property\n    def result(self):\n" + "".join(
        f"        step_{n} = self.prepare({n})\n" for n in range(40)) + "        return self._result\n\n"
        "    @result.setter\n    def result(self, value):\n        self._result = value\n        self.notify()\n")
    chunks = Chunker(max_tokens=64).chunk("futures.py", text, "python")
    assert [c.kind for c in chunks if c.symbol == "Future.result"].count("function") == 2
    assert any(c.kind == "part" and c.symbol == "Future.result" for c in chunks)
    manifest, memory, _ = _indexed("futures.py", chunks)
    candidates = [dataclasses.replace(_scored(f"c{n}", 0.5, 1.0, "futures.py", c.symbol), lines=(c.start_line, c.end_line),
                                      valueless=bool(valueless(c)))
                  for n, c in enumerate(chunks) if c.kind == "function"]
    _read_windows(candidates, manifest, memory, Path("/nonexistent"), {}, False)
    getter, setter = sorted(candidates, key=lambda c: c.lines)
    assert setter.valueless and not getter.valueless


def test_a_chunks_name_similarity_is_its_qualified_name_as_words_and_a_class_takes_its_best_member() -> None:
    from code_intel.index.service import _name_similarity

    model = StaticEmbedder()
    question = model.embed_queries(["return the exception that was set on this future"])[0]
    getter = _scored("get", 0.5, 1.0, "tasks.py", "Future.exception")
    other = _scored("put", 0.5, 1.0, "queues.py", "Queue.put_nowait")
    holder = _scored("cls", 0.5, 1.0, "queues.py", "Queue", kind="class",
                     symbols=["Queue", "Queue.put_nowait", "Queue.exception"])
    loose = _scored("mod", 0.5, 1.0, "queues.py", "", kind="module")
    _name_similarity([getter, other, holder, loose], model, question)
    words = model.embed(["future exception", "queue put nowait", "queue", "queue exception"]) @ np.asarray(question)
    assert getter.name_similarity == pytest.approx(float(words[0]), abs=1e-5)
    assert other.name_similarity == pytest.approx(float(words[1]), abs=1e-5)
    assert holder.name_similarity == pytest.approx(float(max(words[2:])), abs=1e-5)
    assert holder.name_similarity > other.name_similarity
    assert loose.name_similarity == 0.0


@pytest.fixture
def static_index(project_dir: Path) -> Iterator[SemanticIndex]:
    write_files(project_dir, {
        "src/mailer.py": "import smtplib\n\n\ndef send_welcome_email(address, name):\n"
                         "    message = f'Hello {name}'\n    smtplib.SMTP('localhost').sendmail('x', [address], message)\n",
        "src/invoices.py": "class InvoiceCalculator:\n    def total_with_tax(self, amounts, rate):\n"
                           "        return round(sum(amounts) * (1 + rate), 2)\n",
        "src/router.go": "package web\n\n// Router dispatches requests to handlers.\ntype Router interface {\n"
                         "\tHandle(pattern string, h Handler)\n}\n",
        "src/use_router.go": "package web\n\nfunc mount(r Router) {\n\tr.Handle(\"/\", nil)\n}\n",
        "tests/test_mailer.py": "def test_send_welcome_email():\n    assert send_welcome_email('a@b', 'A')\n",
    })
    (project_dir / ".code-intel").mkdir()
    (project_dir / ".code-intel" / "config.json").write_text('{"sync_on_start": false}')
    root = ProjectRoot.from_args(project_dir)
    index = SemanticIndex(root, lambda: load_config(root.state_dir))
    yield index
    index.close()


def test_the_default_index_is_the_static_model_alone_and_ranks_code(static_index: SemanticIndex) -> None:
    report = static_index.sync()
    assert report["complete"] is True and report["model"] == "code-static" and report["chunks_full_embedded"] == 0
    parts = static_index._get_parts()
    assert parts.fast_store is None and isinstance(parts.embedder, StaticEmbedder)
    assert report["index"]["quality"] == "full" and report["index"]["searchable"] is True
    assert parts.store.count(FOREST) == report["chunks_total"] == len(parts.memory)
    assert static_index.semantic_search("Router", 3)["results"][0]["file"] == "src/router.go"
    assert static_index.semantic_search("InvoiceCalculator", 3)["results"][0]["symbol"] == "InvoiceCalculator"
    first = static_index.semantic_search("send a welcome email", 3)["results"][0]
    assert first["file"] == "src/mailer.py" and first["role"] == "implementation"


def test_chroma_is_released_once_written_and_reopened_by_the_next_sync(static_index: SemanticIndex,
                                                                        project_dir: Path) -> None:
    static_index.sync()
    parts = static_index._get_parts()
    assert parts.store._client is None  # written: searches read memory, Chroma's memory is handed back
    assert static_index.semantic_search("welcome email", 3)["results"][0]["file"] == "src/mailer.py"
    assert parts.store._client is None  # a search of the default index never opens it
    (project_dir / "src" / "refunds.py").write_text("def refund_order(order):\n    return order.total * -1\n")
    report = static_index.sync()
    assert report["complete"] is True and parts.store._client is None
    assert parts.store.count(FOREST) == len(parts.memory) == report["chunks_total"]
    assert static_index.semantic_search("refund_order", 3)["results"][0]["file"] == "src/refunds.py"


@pytest.mark.parametrize("wait", [True, False])
def test_a_sync_of_the_default_index_saves_its_manifest_once_at_its_end(
    static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch, wait: bool
) -> None:
    # nothing awaits a second model: the save after the last batch is the one that marks the index complete
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 2)
    monkeypatch.setattr(sync_module, "MANIFEST_SAVE_S", 3600.0)  # the writer's batches save once at most
    saves: list[tuple[int, bool]] = []
    save = sync_module.save_manifest
    monkeypatch.setattr(sync_module, "save_manifest",
                        lambda file, manifest: (saves.append((len(manifest.files), manifest.complete)),
                                                save(file, manifest)))
    report = static_index.sync(wait=wait)
    assert report["complete"] is True and report["files_added"] == 5
    assert [s for s in saves if s[0] == 5] == [(5, True)]  # not also an incomplete one just before it
    assert static_index._get_parts().store._client is None  # released once written


def test_validate_symbol_relevance_judges_on_the_static_models_own_scale(static_index: SemanticIndex) -> None:
    # the static table's similarities have a scale of their own: its own thresholds, matched on dev data
    static_index.sync()
    answer = static_index.validate_symbol_relevance("send a welcome email to new users",
                                                    ["send_welcome_email", "InvoiceCalculator"])
    relevant, weak = STATIC_THRESHOLDS
    assert answer["thresholds"] == {"relevant": relevant, "weak": weak}
    assert thresholds_for("code-static") == STATIC_THRESHOLDS != TRANSFORMER_THRESHOLDS
    assert thresholds_for("all-MiniLM-L6-v2-code") == TRANSFORMER_THRESHOLDS
    verdicts = {r["symbol"]: r["verdict"] for r in answer["results"]}
    assert verdicts == {"send_welcome_email": "relevant", "InvoiceCalculator": "unrelated"}


def test_a_new_process_searches_the_stored_index_without_a_sync(static_index: SemanticIndex) -> None:
    static_index.sync()
    root = static_index.root
    again = SemanticIndex(root, lambda: load_config(root.state_dir))
    try:
        answer = again.semantic_search("InvoiceCalculator", 3)
        assert answer["index"]["state"] == "complete" and answer["results"][0]["symbol"] == "InvoiceCalculator"
        assert len(again._get_parts().memory) == static_index.status()["chunks"]
    finally:
        again.close()


def test_sync_answers_before_the_files_are_indexed_and_relays_progress(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 2)
    gate = threading.Event()
    original = sync_module.ForestSync._index_batch

    def held(self: sync_module.ForestSync, batch: list[object]) -> object:
        assert gate.wait(60)
        return original(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_module.ForestSync, "_index_batch", held)
    events: list[tuple[float, float | None, str]] = []
    started = time.perf_counter()
    early = static_index.sync_answering(progress=lambda *e: events.append(e), answer_within=2.0)
    assert time.perf_counter() - started < 10
    assert early["complete"] is False and early["index"]["state"] == "syncing"
    assert early["index"]["searchable"] is False and early["index"]["total_chunks"] is None
    assert "background" in early["note"] and events and events[0][1] == 5  # "5 files scanned, 5 to index"
    during = static_index.semantic_search("welcome email", 3)
    assert during["index_complete"] is False and during["index"]["state"] == "syncing"
    gate.set()
    deadline = time.monotonic() + 120
    while static_index.index_state()["state"] != "complete":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    done = static_index.sync_answering(progress=lambda *e: events.append(e), wait=True)  # no change: a quick sync, but
    # on a loaded machine it may outlast the answer window
    assert done["complete"] is True and done["files_unchanged"] == 5
    assert static_index.semantic_search("welcome email", 3)["results"][0]["file"] == "src/mailer.py"


def test_sync_answers_as_soon_as_every_file_is_searchable(static_index: SemanticIndex,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The call does not sit out its answer window once the file pass is done: the agent can search while the
    index is stored behind it (held here where the writer is handed the end of the file pass)."""
    gate = threading.Event()
    original = sync_module._Writer.close

    def held(writer: sync_module._Writer, discard: bool = False) -> None:
        assert gate.wait(60)
        original(writer, discard)

    monkeypatch.setattr(sync_module._Writer, "close", held)
    started = time.perf_counter()
    early = static_index.sync_answering(answer_within=30.0)
    try:
        assert time.perf_counter() - started < 20
        assert early["complete"] is False and early["index"]["searchable"] is True
        assert early["index"]["state"] == "syncing" and "every file is searchable" in early["note"]
        hit = static_index.semantic_search("welcome email", 3)
        assert hit["results"][0]["file"] == "src/mailer.py" and hit["index_complete"] is False
    finally:
        gate.set()
    deadline = time.monotonic() + 120
    while static_index.index_state()["state"] != "complete":
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.mark.slow
def test_the_static_model_is_sentence_transformers_static_embedding() -> None:
    texts = ["send a welcome email to a new user", "def resize_thumbnail(image, width): return scale(image)",
             "Router dispatches requests"]
    model = StaticEmbedder()
    ours = model.embed(texts)
    theirs = model.sentence_transformer().encode(texts, convert_to_numpy=True)
    assert ours.shape == theirs.shape
    for a, b in zip(ours, theirs, strict=True):
        assert float(a @ b) > 0.9999


def test_token_ids_are_the_tokenizers_own_for_any_text() -> None:
    """Pieces are tokenized once each (printable ASCII ones by WordPieces), yet every text gets the tokenizer's
    ids: accents, CJK, control characters (which BERT deletes and Python's split() splits at), punctuation runs,
    words with no vocabulary split or over the length limit, texts past MAX_TOKENS and empty ones."""
    from tokenizers import Tokenizer

    tokenizer, _table, words = StaticEmbedder()._parts()
    assert words is not None  # the packaged tokenizer is BERT's: printable ASCII never reaches it
    reference = Tokenizer.from_str(tokenizer.to_str())
    reference.enable_truncation(MAX_TOKENS)
    texts = ["", "  \n ", "def naïve_café(x): return Ünïcode + İstanbul  # ﬁle", "中文字符 mixed中文text",
             "a\x1cb c\x1fd \x0be\x0cf g\x85h i\u2028j k\xa0l m\u200bn \x00o \ufffdp q\u3000r s\u2029t 6\xad7",
             "x" * 150 + " " + "y_" * 80 + " " + "z" * 100 + " " + "q" * 101, "def f(a, b):\n\treturn a+b\r\n",
             "word(s) " * 900, "🙂 x‘q’ — dash", "a\x7fb [UNK] x[cls]y [MASK]s ##ing Zyzzyva xqzkv ->>= {}[]`~^|\\ 'x' \"y\" 3.14e-10",
             "parseHTTPResponse getURLForID __init__ self.assertEqual(0x1F, np.float32) #include <stdio.h>"]
    texts += texts[2:4] + texts[-2:]  # repeated pieces across texts
    expected = [e.ids for e in reference.encode_batch(texts, add_special_tokens=False)]
    assert token_ids(tokenizer, texts, words) == expected
    assert token_ids(tokenizer, texts) == expected  # every piece through the tokenizer
    assert len(expected[7]) == MAX_TOKENS and words.unknown in expected[5] and words.unknown in expected[9]


def test_token_sums_add_each_texts_rows_across_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from code_intel.index import static

    monkeypatch.setattr(static, "SUM_TOKENS", 5)  # groups of a few texts, and texts longer than a group
    table = np.arange(40, dtype=np.float32).reshape(10, 4) - 7
    ids = [[], [3, 3, 1], [9], [], [0, 0, 0, 0, 0, 0, 0, 2], [5, 6, 5], []]
    expected = np.array([table[i].sum(axis=0) if i else np.zeros(4) for i in ids], dtype=np.float32)
    assert np.array_equal(static.token_sums(ids, table), expected)
    assert static.token_sums([], table).shape == (0, 4)


async def test_sync_index_through_mcp_answers_with_the_state_and_sends_progress(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from code_intel.server.app import CodeIntelApp
    from code_intel_server import build_server

    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 1)
    app = CodeIntelApp.for_path(static_index.root.path)
    notes: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total))

    try:
        async with Client(build_server(app)) as client:
            result = await client.call_tool("sync_index", {"force": True}, progress_callback=on_progress)
            data = result.structured_content
            assert data is not None and data["success"] is True
            assert data["index"]["state"] in ("syncing", "complete") and "searchable" in data["index"]
            assert notes and notes[0] == (0, 5)  # "5 files scanned, 5 to index", relayed while the call was open
            assert [p for p, _ in notes] == sorted(p for p, _ in notes)  # progress only grows
            deadline = time.monotonic() + 120
            while app.index.index_state()["state"] != "complete":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            found = (await client.call_tool("semantic_search", {"query": "Router", "n_results": 3})).structured_content
            assert found is not None and found["results"][0]["file"] == "src/router.go"
            assert found["index"]["searchable"] is True and found["index_complete"] is True
    finally:
        app.close()


def _watch_writes(index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """Each Chroma write of the sync as (phase, files indexed into memory, files recorded in the manifest)."""
    from code_intel.index.store import VectorStore

    writes: list[tuple[str, int, int]] = []
    original = VectorStore.upsert

    def upsert(self: VectorStore, kind: str, ids: list[str], *args: object) -> None:
        state, manifest = index._state, index._get_parts().manifest
        writes.append((state.phase, state.files_done, len(manifest.files)))
        original(self, kind, ids, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorStore, "upsert", upsert)
    return writes


def test_chroma_stores_nothing_before_every_file_is_searchable(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(static_index.root.path, {f"src/shape_{n}.py": f"def area_{n}(w, h):\n    return w * h * {n}\n"
                                         for n in range(12)})
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 1)
    writes = _watch_writes(static_index, monkeypatch)
    report = static_index.sync()
    assert report["complete"] is True and report["files_added"] == 17
    assert len(writes) == 17 and {phase for phase, _, _ in writes} == {"persist"}
    assert static_index._get_parts().store.count(FOREST) == len(static_index._get_parts().memory)


def test_the_text_waiting_for_chroma_is_bounded(static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(static_index.root.path, {f"src/shape_{n}.py": f"def area_{n}(w, h):\n    return w * h * {n}\n"
                                         for n in range(12)})
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 1)
    monkeypatch.setattr(sync_module, "PERSIST_BACKLOG_CHARS", 1)  # any waiting batch starts the writer
    writes = _watch_writes(static_index, monkeypatch)
    report = static_index.sync()
    assert report["complete"] is True and len(writes) == 17
    # each batch was written while the file pass ran, and the pass waited for it before it indexed the next: no
    # more than the batch being written was ever waiting
    assert [(phase, recorded) for phase, _, recorded in writes] == [("files", n) for n in range(17)]
    assert all(recorded == done - 1 for _, done, recorded in writes)


def test_a_stopped_sync_leaves_the_files_it_did_not_store_to_the_next_one(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 1)
    original = sync_module.ForestSync._index_batch
    batches: list[int] = []

    def stop_after_two(self: sync_module.ForestSync, batch: list[object]) -> object:
        batches.append(len(batch))
        if len(batches) == 2:
            self.stop.set()  # as a server shutdown does
        return original(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_module.ForestSync, "_index_batch", stop_after_two)
    writes = _watch_writes(static_index, monkeypatch)
    static_index.sync()
    assert writes == [] and static_index.status()["files"] == 0  # stopped at once: nothing waited for Chroma
    static_index._stop.clear()
    monkeypatch.setattr(sync_module.ForestSync, "_index_batch", original)
    report = static_index.sync()
    assert report["complete"] is True and report["files_added"] == 5
    assert static_index._get_parts().store.count(FOREST) == report["chunks_total"]


def test_chroma_is_written_a_bounded_number_of_chunks_at_a_time(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    from chromadb.api.models.Collection import Collection

    from code_intel.index import store as store_module

    monkeypatch.setattr(store_module, "UPSERT_CHUNKS", 2)  # the 5 files' chunks are one file batch
    calls: list[int] = []
    original = Collection.upsert

    def upsert(self: Collection, ids: list[str], **kwargs: object) -> None:
        calls.append(len(ids))
        original(self, ids, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Collection, "upsert", upsert)
    report = static_index.sync()
    assert report["complete"] is True and report["chunks_total"] > 2
    assert len(calls) >= 2 and max(calls) <= 2 and sum(calls) == report["chunks_total"]
    assert static_index._get_parts().store.count(FOREST) == report["chunks_total"]


def test_a_small_file_pass_is_searchable_without_a_garbage_collection(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    released: list[bool] = []
    monkeypatch.setattr(sync_module, "release_freed_memory", lambda: released.append(True))
    report = static_index.sync()
    assert report["complete"] is True and 0 < report["chunks_added"] < sync_module.RELEASE_AFTER_CHUNKS
    assert released == []


def test_freed_memory_is_released_once_every_file_is_searchable_before_chroma_stores(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_module, "RELEASE_AFTER_CHUNKS", 1)  # as on a large project
    events: list[str] = []
    original = sync_module.release_freed_memory

    def release() -> None:
        events.append(f"release {static_index._state.phase}")
        original()

    monkeypatch.setattr(sync_module, "release_freed_memory", release)
    writes = _watch_writes(static_index, monkeypatch)
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 1)
    original_persist = sync_module.ForestSync.persist

    def persist(self: sync_module.ForestSync, batch: object) -> None:
        events.append("write")
        original_persist(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_module.ForestSync, "persist", persist)
    report = static_index.sync()
    assert report["complete"] is True and len(writes) == 5
    assert events == ["release persist"] + ["write"] * 5


LONGER_CHUNK_CASES = [
    # kryo's "writing a string, with a faster path for short ASCII strings": `Output.writeAscii` (29 lines) above
    # `Output.writeString` (48 lines), the method asked for (and jcommander's one-statement overload
    # `ParameterDescription.addValue(value, isDefault)`, 8 lines, above the 46 lines of the one that works)
    ("writing a string, with a faster path for short ASCII strings", "java",
     ("Output.writeAscii", (733, 761)), ("Output.writeString", (684, 731)),
     (("io/Output.java", "long"), ("io/output.py", "short"), ("io/output.go", "short"))),
    # warp's "picking which rejection to report when several alternative routes all refused the request": the
    # seven lines of `not_found()` in reject.rs held the file's second place above the `CombineRejection` impls
    # (31 lines) that pick the rejection (t-span); a Ruby or Kotlin file keeps its order
    ("picking which rejection to report when several alternative routes all refused the request", "rs",
     ("not_found", (78, 84)), ("sealed.CombineRejection", (625, 655)),
     (("src/reject.rs", "long"), ("lib/reject.rb", "short"), ("src/Reject.kt", "short"))),
]


@pytest.mark.parametrize(("question", "suffix", "short_chunk", "long_chunk", "files"), LONGER_CHUNK_CASES)
def test_a_longer_java_or_rust_chunk_goes_first_among_its_files_chunks(
        question: str, suffix: str, short_chunk: tuple[str, tuple[int, int]], long_chunk: tuple[str, tuple[int, int]],
        files: tuple[tuple[str, str], ...]) -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.{suffix}", f"run{n}") for n in range(20)]

    def ranked(file: str, weights: CodeRanking | None = None) -> list[str]:
        short = _scored("short", 0.80, 3.0, file, short_chunk[0])
        short.lines = short_chunk[1]
        long = _scored("long", 0.78, 3.0, file, long_chunk[0])
        long.lines = long_chunk[1]
        return [c.id for c in rank_code([short, long, *fillers], question, weights=weights)]

    for file, first in files:
        order = ranked(file)
        assert order[0] == first, file
        assert set(order[:2]) == {"short", "long"}, file  # the file keeps its places
    assert ranked(files[0][0], CodeRanking(length=0.0))[0] == "short"


def test_a_java_files_leading_method_is_followed_by_the_methods_of_its_class_it_calls() -> None:
    # zt-zip's "deciding whether two zip files hold the same entries even when their bytes differ": `archiveEquals`
    # leads ZipUtil.java and hands its work to `archiveEqualsInternal`, which the question's words describe less than
    # the `entryEquals` overloads beside it
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(20)]
    question = "deciding whether two zip files hold the same entries even when their bytes differ"

    def ranked(file: str, weights: CodeRanking | None = None, internal: str = "ZipUtil.archiveEqualsInternal") -> list[str]:
        lead = _scored("lead", 0.80, 3.0, file, "ZipUtil.archiveEquals")
        lead.self_calls = frozenset({"archiveEqualsInternal", "isSameZip"})
        entry = _scored("entry", 0.72, 3.0, file, "ZipUtil.entryEquals")
        called = _scored("called", 0.70, 3.0, file, internal)
        for n, c in enumerate((lead, entry, called)):
            c.lines = (100 * n + 1, 100 * n + 20)
        return [c.id for c in rank_code([lead, entry, called, *fillers], question, weights=weights)][:3]

    assert ranked("zip/ZipUtil.java") == ["lead", "called", "entry"]
    assert ranked("zip/ZipUtil.java", CodeRanking(callee=0.0)) == ["lead", "entry", "called"]
    assert ranked("zip/zip_util.py") == ["lead", "entry", "called"]  # Java only, as measured
    # a method of another class the lead names is not its own class's work (a constructor never is a self call:
    # test_a_java_methods_calls_on_itself_are_read_for_a_sentence)
    assert ranked("zip/ZipUtil.java", internal="Zips.archiveEqualsInternal") == ["lead", "entry", "called"]


def test_a_java_methods_calls_on_itself_are_read_for_a_sentence(tmp_path: Path) -> None:
    from code_intel.index.service import _read_windows

    # jcommander's `parseValues` hands a sub-command's arguments to `jc.parse`: another object's work, not its own
    java = ("class Cache {\n  int count(String key, int period) {\n    String full = keyAndExpiry(key, period);\n"
            "    child.reset(full);\n    Cache other = new Cache();\n    return this.doCount(full);\n  }\n\n"
            "  int reset(String key) {\n    return clearAll(key);\n  }\n}\n")
    ruby = ("class Cache\n  def count(key, period)\n    full = key_and_expiry(key, period)\n    do_count(full)\n"
            "  end\n\n  def reset(key)\n    clear_all(key)\n  end\nend\n")
    for file, text, language, expected in (("Cache.java", java, "java", {"keyAndExpiry", "doCount"}),
                                           ("cache.rb", ruby, "ruby", set())):
        (tmp_path / file).write_text(text)
        chunks = Chunker(max_tokens=40).chunk(file, text, language)
        manifest, memory, scored = _indexed(file, chunks)
        count, reset = scored["Cache.countfunction"], scored["Cache.resetfunction"]
        _read_windows([count, reset], manifest, memory, tmp_path, {}, False)  # a sentence, not one name
        assert count.self_calls == expected, file
        assert not count.calls  # the words of its body are read for a question that is one name
        alone = dataclasses.replace(count, self_calls=frozenset())
        _read_windows([alone], manifest, memory, tmp_path, {}, False)
        assert not alone.self_calls  # no other method of its class is a candidate: none could follow it


_EVENT = (
    "class Event:\n"
    "    def __init__(self):\n        self._waiters = collections.deque()\n        self._value = False\n\n"
    "    def is_set(self):\n        return self._value\n\n"
    "    def set(self):\n        if not self._value:\n            self._value = True\n"
    "            for fut in self._waiters:\n                if not fut.done():\n                    fut.set_result(True)\n\n"
    "    def clear(self):\n        self._value = False\n\n"
    "    async def wait(self):\n        if self._value:\n            return True\n"
    "        fut = self._get_loop().create_future()\n        self._waiters.append(fut)\n        try:\n"
    "            await fut\n            return True\n        finally:\n            self._waiters.remove(fut)\n"
)


def test_a_class_kept_whole_scores_as_its_best_method_would_as_a_chunk_of_its_own(tmp_path: Path) -> None:
    from code_intel.index.chunker import Chunk
    from code_intel.index.service import _member_similarity
    from code_intel.index.sync import chunk_metadata

    (tmp_path / "locks.py").write_text(_EVENT)
    [chunk] = Chunker().chunk("locks.py", _EVENT, "python")
    assert chunk.kind == "class"
    assert [name for name, _, _ in chunk.members] == ["Event.__init__", "Event.is_set", "Event.set", "Event.clear",
                                                      "Event.wait"]
    assert chunk.members[1][1:] == (6, 7)  # `def is_set` and its one line
    meta = chunk_metadata(chunk, "sha")
    model = StaticEmbedder()
    question = model.embed_queries(["Reset the internal flag to false."])[0]
    whole = float(model.embed([embedding_text(chunk)])[0] @ np.asarray(question))
    methods = [Chunk("locks.py", start, end, name, "function", "python", "\n".join(_EVENT.splitlines()[start - 1 : end]))
               for name, start, end in chunk.members]
    alone = model.embed([embedding_text(m) for m in methods]) @ np.asarray(question)
    best = float(alone.max())
    assert best == float(alone[3]) > whole  # `Event.clear` as a chunk of its own is nearer than the whole class
    event = _scored("event", whole, 0.0, "locks.py", "Event", kind="class", symbols=chunk.symbols)
    _member_similarity([event], {"event": meta}, model, question, tmp_path, {})
    assert event.dense == pytest.approx(best, abs=1e-5)
    # the file changed since it was indexed: the lines no longer hold the class's text, which keeps its own cosine
    (tmp_path / "locks.py").write_text("import collections\n\n" + _EVENT)
    stale = _scored("event", whole, 0.0, "locks.py", "Event", kind="class", symbols=chunk.symbols)
    _member_similarity([stale], {"event": meta}, model, question, tmp_path, {})
    assert stale.dense == whole


def test_a_methods_calls_are_the_words_of_its_body_below_its_declaration(tmp_path: Path) -> None:
    from code_intel.index.service import _read_windows

    ruby = ("class Cache\n  # Adds one to the count; unlike reset_count, it keeps the key.\n  def count(unprefixed_key, period)\n"
            "    key, expires_in = key_and_expiry(unprefixed_key, period)\n    do_count(key, expires_in)\n  end\nend\n")
    (tmp_path / "cache.rb").write_text(ruby)
    chunks = Chunker(max_tokens=56).chunk("cache.rb", ruby, "ruby")
    manifest, memory, scored = _indexed("cache.rb", chunks)
    count, header = scored["Cache.countfunction"], scored["Cacheclass"]
    assert count.lines == (2, 6) and header.lines[0] == 1
    _read_windows([count, header], manifest, memory, tmp_path, {}, True)
    assert {"key_and_expiry", "do_count"} <= count.calls and not {"reset_count", "count"} & count.calls
    assert not header.calls  # a class's chunk calls nothing: its methods do


def test_a_methods_calls_are_not_read_from_a_file_changed_since_it_was_indexed(tmp_path: Path) -> None:
    from code_intel.index.service import _read_windows

    ruby = ("class Cache\n  def count(unprefixed_key, period)\n    key, expires_in = key_and_expiry(unprefixed_key, period)\n"
            "    do_count(key, expires_in)\n  end\n\n  def reset(key)\n    clear_all(key)\n  end\nend\n")
    chunks = Chunker(max_tokens=40).chunk("cache.rb", ruby, "ruby")
    manifest, memory, scored = _indexed("cache.rb", chunks)
    count = scored["Cache.countfunction"]
    assert count.lines == (2, 5)
    # edited since the sync: the lines the index holds for `count` now say something else
    (tmp_path / "cache.rb").write_text(ruby.replace("key, expires_in = key_and_expiry", "key, expires_in = clear_all"))
    _read_windows([count], manifest, memory, tmp_path, {}, True)
    assert not count.calls  # not the indexed method's lines: none of its calls is known, and none invented


def test_a_long_methods_calls_are_read_through_its_later_windows(tmp_path: Path) -> None:
    from code_intel.index.service import _read_windows

    # a method cut into windows hands its work on in its last lines; a later overload of the same name, cut into
    # windows too, is another method and its calls are not this one's
    ruby = ("class Cache\n  def count(key, period)\n" + "".join(f"    step_{n} = prepare(key, {n})\n" for n in range(30))
            + "    full, expires_in = key_and_expiry(key, period)\n    do_count(full, expires_in)\n  end\n\n"
            "  def count(key)\n" + "".join(f"    step_{n} = prepare(key, {n})\n" for n in range(30))
            + "    reset_all(key)\n  end\nend\n")
    (tmp_path / "cache.rb").write_text(ruby)
    chunks = Chunker(max_tokens=64).chunk("cache.rb", ruby, "ruby")
    manifest, memory, _ = _indexed("cache.rb", chunks)
    counts = [dataclasses.replace(_scored(f"c{n}", 0.5, 0.0, "cache.rb", c.symbol), lines=(c.start_line, c.end_line))
              for n, c in enumerate(chunks) if c.kind == "function" and c.symbol == "Cache.count"]
    assert len(counts) == 2
    _read_windows(counts, manifest, memory, tmp_path, {}, True)
    first, second = sorted(counts, key=lambda c: c.lines)
    assert {"key_and_expiry", "do_count"} <= first.calls and "reset_all" not in first.calls
    assert "reset_all" in second.calls and "do_count" not in second.calls


def test_a_class_whose_method_names_hold_a_comma_still_scores_by_its_methods(tmp_path: Path) -> None:
    from code_intel.index.service import _member_similarity
    from code_intel.index.sync import chunk_metadata

    source = ("impl ToListener for (String, u16) {\n    fn to_listener(self) -> TcpListener {\n"
              "        TcpListener::bind((self.0.as_str(), self.1)).expect(\"bind the address\")\n    }\n\n"
              "    fn describe(&self) -> String {\n        format!(\"{}:{}\", self.0, self.1)\n    }\n}\n")
    (tmp_path / "listener.rs").write_text(source)
    [chunk] = Chunker().chunk("listener.rs", source, "rust")
    assert [name for name, _, _ in chunk.members] == ["(String, u16).to_listener", "(String, u16).describe"]
    model = StaticEmbedder()
    question = model.embed_queries(["bind a TCP listener to a host and port"])[0]
    impl = _scored("impl", -1.0, 0.0, "listener.rs", chunk.symbol, kind="class", symbols=chunk.symbols)
    _member_similarity([impl], {"impl": chunk_metadata(chunk, "sha")}, model, question, tmp_path, {})
    assert impl.dense > 0.0  # both methods read back whole, at their own lines


def test_a_short_overload_of_a_placed_function_takes_the_full_repeat_decay_in_a_central_file() -> None:
    # msgpack-java's "how packers and unpackers are created from streams, channels, byte arrays and ByteBuffers":
    # `MessagePack` holds most of the candidates, and its `newUnpacker` overloads (one line forwarding to the one that
    # works, with their doc comments) kept the softened decay of a central file and filled the answer before
    # `MessagePacker` and `MessageUnpacker`
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"Other{n}.java", f"Other{n}.run") for n in range(8)]
    question = "packers and unpackers created from streams, channels and byte arrays"

    def ranked(lines: int) -> list[str]:
        central = []
        for n in range(8):
            c = _scored(f"new{n}", 0.80 - n * 0.01, 3.0, "core/MessagePack.java", "MessagePack.UnpackerConfig.newUnpacker")
            c.lines = (500 + 20 * n, 500 + 20 * n + lines - 1)
            central.append(c)
        config = _scored("config", 0.79, 3.0, "core/MessagePack.java", "MessagePack.UnpackerConfig.withBufferSize")
        config.lines = (700, 712)
        packer = _scored("packer", 0.55, 2.0, "core/MessagePacker.java", "MessagePacker.MessagePacker")
        unpacker = _scored("unpacker", 0.54, 2.0, "core/MessageUnpacker.java", "MessageUnpacker.MessageUnpacker")
        return [c.id for c in rank_code([*central, config, packer, unpacker, *fillers], question)]

    short = ranked(12)
    assert short[:5] == ["new0", "config", "new1", "packer", "unpacker"]  # another method of the file keeps its place
    long = ranked(40)  # overloads that each do work of their own are no doors: the central file's decay as before
    assert long[:4] == ["new0", "new1", "new2", "new3"] and long.index("packer") == 5
