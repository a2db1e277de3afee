"""Questions that name a symbol: its definition is a candidate and comes first (semble's symbol questions, #41)."""

from __future__ import annotations

import pytest

from code_intel.index import service
from code_intel.index.bm25 import LexicalIndex
from code_intel.index.chunker import Chunk, Chunker, addition, deprecated, deprecated_types, supertypes
from code_intel.index.memory import MemoryIndex
from code_intel.index.retrieval import (
    Scored,
    file_words,
    kind_named,
    member_owners,
    named_identifiers,
    named_in_words,
    older_versions,
    other_platform_copies,
    rank_code,
    spelled_names,
    used_names,
    word_starts,
)
from code_intel.index.service import SemanticIndex
from code_intel.index.sync import chunk_metadata, stored_chunk
from code_intel.index.text import lexical_tokens
from tests.conftest import write_files
from tests.index.test_static_index import static_index  # noqa: F401 (the fixture)


def _meta(file: str, symbol: str, kind: str, symbols: list[str] | None = None) -> dict[str, object]:
    return {"file": file, "symbol": symbol, "kind": kind, "symbols": ",".join(symbols or [symbol])}


def test_definitions_of_a_name_as_written_come_before_other_spellings_and_parts() -> None:
    memory = MemoryIndex()
    metas = {
        "fn": _meta("flow/Builders.kt", "flow", "function"),
        "part": _meta("flow/Flow.kt", "Flow", "part"),
        "iface": _meta("flow/Flow.kt", "Flow", "class", ["Flow", "Flow.collect"]),
        "lister": _meta("flow/Shared.kt", "SharedFlow", "class", ["SharedFlow", "SharedFlow.Flow"]),
    }
    memory.add(list(metas), [[1.0, 0.0]] * len(metas), [""] * len(metas), list(metas.values()))
    # the name as written: the definition, then the split definition's later part, then a class listing it;
    # `flow` (another case) is left out because `Flow` itself is defined
    assert memory.defining(["Flow"], 10) == ["iface", "part", "lister"]
    assert memory.defining(["Flow"], 1) == ["iface"]
    # nothing defines `FLOW` as written: every spelling of it, own definitions first
    assert memory.defining(["FLOW"], 10) == ["fn", "iface", "part", "lister"]


@pytest.fixture
def decoys(request: pytest.FixtureRequest) -> SemanticIndex:
    # short functions that say `Flow` often, and its definition saying it once among ten lines of documentation:
    # BM25 ranks every mention above the definition
    files = {f"flow/use_{n}.go": f"package streams\n\nfunc consume{n}(f Flow) Flow {{\n\treturn Flow(f) // Flow\n}}\n"
             for n in range(12)}
    files["flow/flow.go"] = "package streams\n\ntype Flow interface {\n" + "".join(
        f"\t// Values are emitted lazily, one at a time, to a collector; step {k} may suspend.\n\tStep{k}()\n"
        for k in range(10)) + "}\n"
    index: SemanticIndex = request.getfixturevalue("static_index")  # test_static_index's small project, not synced
    write_files(index.root.path, files)
    return index


def test_the_definition_of_a_written_name_is_a_candidate_when_mentions_fill_the_lexical_top(
        decoys: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    decoys.sync()
    monkeypatch.setattr(service, "CANDIDATES", 3)
    monkeypatch.setattr(MemoryIndex, "nearest", lambda self, vector, limit: [])  # the dense side finds nothing here
    first = decoys.semantic_search("Flow", 1)["results"]  # once a candidate, its file name helps it
    assert first[0]["file"] == "flow/flow.go" and first[0]["symbol"] == "Flow"


def test_a_class_the_question_spells_as_words_is_a_definition_candidate(
        static_index: SemanticIndex) -> None:  # noqa: F811 (the fixture)
    # "mutable JSON object node" is jackson's ObjectNode spelled as words: the class a sentence spells joins the
    # candidates like a name written in code, whatever the two sides' top lists hold; a function of that name
    # (a factory's `objectNode()`) does not. Two words only: three (vitest's "built-in reporters", ecto's
    # "many-to-many") lifted classes named like the phrase above the answer, and no dev question needed them
    assert spelled_names("mutable JSON object node") == {"mutablejson", "jsonobject", "objectnode"}
    assert spelled_names("ObjectNode") == set()
    write_files(static_index.root.path, {
        "tree/mutable.go": "package tree\n\n// A map from keys to values in insertion order.\ntype ObjectNode struct {\n"
                           + "".join(f"\tentry{k} Value\n" for k in range(8)) + "}\n",
        "tree/factory.go": "package tree\n\nfunc objectNode() *ObjectNode {\n\treturn &ObjectNode{}\n}\n"})
    static_index.sync()
    parts = static_index._get_parts()
    found = [parts.memory.entry(cid).meta for cid in static_index._definitions(  # type: ignore[union-attr]
        parts, service.ForestQuery("mutable object node with named fields"))]
    assert [(m["file"], m["symbol"]) for m in found] == [("tree/mutable.go", "ObjectNode")]


def test_a_java_type_whose_name_words_a_sentence_writes_is_a_definition_candidate(
        static_index: SemanticIndex) -> None:  # noqa: F811 (the fixture)
    # msgpack-java's "the type system of decoded values: nil, boolean, numbers, raw strings ...": `NumberValue` and
    # `RawValue` were no candidates, their chunks saying "value" and "number" as a hundred others do. Every word of the
    # file's name is in the question, anywhere and in another form (numbers, values); Java's role words (Abstract,
    # Base, Default, Impl) need not be. A name with a word the question lacks is not, nor a Python module, nor a
    # question of one word
    terms = set(lexical_tokens("the type system of decoded values: numbers and raw strings, read by a reader"))

    def named(file: str) -> bool:
        return named_in_words(terms, word_starts(terms), file)

    assert named("core/value/NumberValue.java") and named("value/AbstractValue.java") and named("value/RawReader.java")
    assert not named("value/MapValue.java") and not named("value/Impl.java") and not named("value/Rawest.java")
    # a name's word that starts a question's (`read` for "reading") or that one starts (`deserializer`, stemmed
    # `deserializ`); not two words that merely begin alike (`confirm` and "configure")
    forms = set(lexical_tokens("reading, deserializing and configuring"))

    def written(file: str) -> bool:
        return named_in_words(forms, word_starts(forms), file)

    assert written("Read.java") and written("Deserializer.java") and written("ConfigReader.java")
    assert not written("Confirm.java") and not written("TypeDeserializer.java")
    # the agent noun a type is named by and the action a question writes, neither the start of the other
    # (jackson-databind's BeanSerializer for "bean serialization of Java object fields to JSON"); two words that
    # part earlier are not forms of one word
    actions = set(lexical_tokens("bean serialization and registered ids"))

    def derived(file: str) -> bool:
        return named_in_words(actions, word_starts(actions), file)

    assert derived("ser/BeanSerializer.java") and derived("Registration.java")
    assert not derived("BeanSerialiser.java") and not derived("Regulation.java")
    write_files(static_index.root.path, {
        f"value/{name}.java": f"package value;\n\n/** A decoded {name}. */\npublic class {name} {{\n"
                              + "".join(f"    int field{k};\n" for k in range(4)) + "}\n"
        for name in ("NumberValue", "RawValue", "MapValue", "AbstractValue")} | {
        "value/number_value.py": "class NumberValue:\n    pass\n"})
    static_index.sync()
    parts = static_index._get_parts()

    def found(question: str) -> set[tuple[str, str]]:
        return {(m["file"], m["symbol"]) for m in (parts.memory.entry(cid).meta  # type: ignore[union-attr]
                                                     for cid in static_index._definitions(parts, service.ForestQuery(question)))}

    assert found("the type system of decoded values: numbers and raw strings") == {
        ("value/NumberValue.java", "NumberValue"), ("value/RawValue.java", "RawValue"),
        ("value/AbstractValue.java", "AbstractValue")}
    assert found("values") == set()


def test_the_class_a_sentence_spells_ranks_above_methods_that_share_its_words() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.java", f"helper{n}") for n in range(20)]
    getter = _scored("get", 0.50, 16.3, "databind/JsonNode.java", "JsonNode.get")
    factory = _scored("factory", 0.53, 8.4, "node/JsonNodeFactory.java", "JsonNodeFactory.objectNode")
    header = _scored("header", 0.35, 8.0, "node/ObjectNode.java", "ObjectNode", kind="class")
    ranked = [c.id for c in rank_code([getter, factory, header, *fillers],
                                      "mutable JSON object node with named field operations")]
    assert ranked[0] == "header" and ranked.index("factory") > ranked.index("get")  # a method gets nothing


def test_a_spelled_java_class_that_a_longer_one_extends_with_the_questions_words_takes_no_bonus() -> None:
    # failsafe: "exception thrown when the circuit breaker is open" spells `CircuitBreaker`, whose header took the
    # spelled bonus and the first place above `CircuitBreakerOpenException`, a class whose name adds the question's
    # other words (open, exception) to it. In Java the longer class stands; elsewhere the spelled class keeps it
    def candidates(ext: str) -> list[Scored]:
        fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.{ext}", f"helper{n}") for n in range(20)]
        return [_scored("breaker", 0.50, 11.0, f"CircuitBreaker.{ext}", "CircuitBreaker", kind="class"),
                _scored("acquire", 0.48, 10.0, f"CircuitBreaker.{ext}", "CircuitBreaker.acquirePermit"),
                _scored("open", 0.52, 10.0, f"CircuitBreaker.{ext}", "CircuitBreaker.open"),
                _scored("exception", 0.60, 13.0, f"CircuitBreakerOpenException.{ext}", "CircuitBreakerOpenException",
                        kind="class"), *fillers]

    query = "exception thrown when the circuit breaker is open"
    assert "circuitbreaker" in spelled_names(query)
    assert rank_code(candidates("java"), query)[0].id == "exception"
    assert rank_code(candidates("kt"), query)[0].id == "breaker"
    # a longer class whose other words the question does not write leaves the spelled one its bonus
    kept = [c for c in candidates("java") if c.id != "exception"] + [
        _scored("stats", 0.60, 13.0, "CircuitBreakerStats.java", "CircuitBreakerStats", kind="class")]
    assert rank_code(kept, query)[0].id == "breaker"


def test_a_java_class_whose_name_a_question_opens_with_in_another_form_takes_the_spelled_bonus() -> None:
    # jackson-databind: "bean deserialization from JSON properties" opens with `BeanDeserializer` in another form
    # (deserialization, deserializer); its sibling `BeanAsArrayDeserializer`, sharing the question's words, stood
    # first. In Java the class the question opens with takes the spelled bonus; elsewhere, or further into the
    # question, it does not
    def candidates(ext: str) -> list[Scored]:
        fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.{ext}", f"helper{n}") for n in range(20)]
        return [_scored("bean", 0.55, 12.0, f"BeanDeserializer.{ext}", "BeanDeserializer", kind="class"),
                _scored("object", 0.50, 10.0, f"BeanDeserializer.{ext}", "BeanDeserializer.deserializeFromObject"),
                _scored("array", 0.60, 13.0, f"BeanAsArrayDeserializer.{ext}", "BeanAsArrayDeserializer",
                        kind="class"),
                _scored("deserialize", 0.58, 12.0, f"BeanAsArrayDeserializer.{ext}",
                        "BeanAsArrayDeserializer.deserialize"), *fillers]

    query = "bean deserialization from JSON properties"
    assert "beandeserializer" not in spelled_names(query)
    assert rank_code(candidates("java"), query)[0].id == "bean"
    # elsewhere the sibling's file stands first, led by its method: the class's header, which lists the method's
    # name but not its code, goes after it (CodeRanking.class_no_function)
    assert rank_code(candidates("kt"), query)[0].id == "deserialize"
    assert rank_code(candidates("java"), "JSON properties read by bean deserialization")[0].id == "deserialize"


def test_a_snake_case_name_a_question_writes_spells_no_class() -> None:
    # ecto: the question writes the `order_by` macro of query.ex; its parts are not the words of the builder class
    # `Ecto.Query.Builder.OrderBy`, whose header came first with the bonus of a spelled class (candidates as captured)
    query = "from where select and order_by query expressions"
    assert "orderby" not in spelled_names(query) and "queryexpressions" in spelled_names(query)
    builder = "query/builder/order_by.ex"
    candidates = [_scored("header", 0.504, 9.71, builder, "Ecto.Query.Builder.OrderBy", kind="class"),
                  _scored("bang", 0.571, 11.42, builder, "Ecto.Query.Builder.OrderBy.order_by!"),
                  _scored("apply", 0.569, 9.08, builder, "Ecto.Query.Builder.OrderBy.apply"),
                  _scored("update", 0.510, 9.06, builder, "Ecto.Query.Builder.OrderBy.update_order_bys"),
                  _scored("build", 0.408, 13.2, builder, "Ecto.Query.Builder.OrderBy.build"),
                  _scored("escape", 0.356, 12.07, builder, "Ecto.Query.Builder.OrderBy.escape"),
                  _scored("field", 0.267, 12.03, builder, "Ecto.Query.Builder.OrderBy.field!"),
                  _scored("macro", 0.569, 14.04, "query.ex", "Ecto.Query.order_by"),
                  _scored("distinct", 0.560, 18.04, "query.ex", "Ecto.Query.distinct")]
    assert rank_code(candidates, query)[0].file == "query.ex"


def test_a_rust_impl_block_is_named_after_its_type_without_generics_or_path() -> None:
    text = ("impl<'de, I, E> MapDeserializer<'de, I, E> {\n    pub fn end(self) -> Result<(), E> { Ok(()) }\n}\n\n"
            "impl<T, E> Deserialize for Result<T, E> {\n    fn deserialize(d: D) -> Self { todo!() }\n}\n\n"
            "impl<'a> Serializer for &mut fmt::Formatter<'a> {\n    fn serialize_unit(self) -> fmt::Result { Ok(()) }\n}\n")
    named = {(c.symbol, tuple(c.symbols)) for c in Chunker().chunk("src/de.rs", text, "rust") if c.kind == "class"}
    # `Result<T, E>` was stored as "Result<T, E>" and split at its comma into two names when read back
    assert named == {("MapDeserializer", ("MapDeserializer", "MapDeserializer.end")),
                     ("Result", ("Result", "Result.deserialize")),
                     ("Formatter", ("Formatter", "Formatter.serialize_unit"))}


def test_a_rust_impl_of_a_trait_names_the_trait_and_is_found_for_its_implementations() -> None:
    text = ("pub trait SeqAccess<'de> {\n    fn next_element_seed(&mut self) -> Option<u8>;\n}\n\n"
            "impl<'de, E> de::SeqAccess<'de> for SeqDeserializer<'de, E> {\n"
            "    fn next_element_seed(&mut self) -> Option<u8> { None }\n}\n")
    chunks = {c.symbol: c for c in Chunker().chunk("src/de/value.rs", text, "rust") if c.kind == "class"}
    impl = chunks["SeqDeserializer"]  # the trait is not among the names it defines: it implements it
    assert impl.symbols == ["SeqDeserializer", "SeqDeserializer.next_element_seed"] and impl.implements == ["SeqAccess"]
    assert chunks["SeqAccess"].implements == []
    memory = MemoryIndex()
    metas = [chunk_metadata(c, "") for c in chunks.values()]
    assert [stored_chunk("", m).implements for m in metas] == [[], ["SeqAccess"]]  # read back for re-embedding
    memory.add(list(chunks), [[1.0, 0.0]] * len(chunks), [""] * len(chunks), metas)
    assert memory.defining(["SeqAccess"], 5) == ["SeqAccess"]  # the impl does not define the trait
    assert memory.implementing({"SeqAccess"}, 5) == ["SeqDeserializer"]  # a candidate when its uses are asked for
    memory.remove(["SeqDeserializer"])
    assert memory.implementing({"SeqAccess"}, 5) == []
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rs", f"helper{n}") for n in range(20)]

    def candidates() -> list[Scored]:
        # the impl block resembles the question less than the trait does (serde: 0.02 against 0.12)
        return [Scored(c.symbol, dense, 3.0, c.file, c.symbol, c.symbols, c.kind, "implementation",
                       implements=c.implements)
                for c, dense in ((chunks["SeqAccess"], 0.70), (chunks["SeqDeserializer"], 0.30))] + fillers

    # implementing the trait is not defining it: the trait itself comes first for its name (and a sentence about
    # it), the impl for its implementations
    assert [c.id for c in rank_code(candidates(), "SeqAccess")][0] == "SeqAccess"
    assert [c.id for c in rank_code(candidates(), "how SeqAccess yields elements")][0] == "SeqAccess"
    assert [c.id for c in rank_code(candidates(), "implementations of SeqAccess")][0] == "SeqDeserializer"


def _scored(cid: str, dense: float, lexical: float, file: str, symbol: str, kind: str = "function") -> Scored:
    return Scored(cid, dense, lexical, file, symbol, [symbol], kind, "implementation")


def test_another_spelling_of_a_name_gets_nothing_once_a_candidate_defines_it_as_written() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.kt", f"helper{n}") for n in range(20)]
    rank_fn = _scored("fn", 0.80, 1.0, "core/WindowFunctionBuilder.kt", "rank")
    rank_class = _scored("cls", 0.45, 1.0, "core/WindowFunction.kt", "Rank", kind="class")
    assert [c.id for c in rank_code([rank_fn, rank_class, *fillers], "Rank")][0] == "cls"
    # with no `Rank` among the candidates, `rank` is still the nearest thing to the name
    ranked = rank_code([rank_fn, *fillers], "Rank")
    assert ranked[0].id == "fn" and ranked[0].score > rank_code([rank_fn, *fillers], "Frank")[0].score


def test_a_class_asked_bare_ranks_above_a_class_listing_it() -> None:
    # sequel's `module Associations` header lists the classes nested in it, and its member names say
    # "AssociationReflection" many times over (ManyToOneAssociationReflection, ...): both sides score it a little
    # above the class asked for, whose own chunk is the same file's and would then decay as its second
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rb", f"helper{n}") for n in range(20)]
    lister = Scored("lister", 0.82, 2.2, "model/associations.rb", "Sequel.Associations",
                    ["Sequel.Associations", "Sequel.Associations.AssociationReflection"], "class", "implementation")
    own = _scored("own", 0.50, 1.0, "model/associations.rb", "Sequel.Associations.AssociationReflection",
                  kind="class")
    assert [c.id for c in rank_code([lister, own, *fillers], "AssociationReflection")][0] == "own"


def test_a_name_written_with_its_owner_prefers_the_definition_under_that_owner() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.go", f"helper{n}") for n in range(20)]
    builders = [_scored("sinatra", 0.80, 2.0, "sinatra/builder.rb", "Sinatra.Builder", kind="class"),
                _scored("rack", 0.75, 2.0, "rack/builder.rb", "Rack.Builder", kind="class"), *fillers]
    assert [c.id for c in rank_code(builders, "Rack::Builder")][0] == "rack"
    # a top-level definition has no owner to contradict the one written: it may be the module's name
    modules = [_scored("sem", 0.70, 2.0, "sync/semaphore.rs", "Semaphore", kind="class"),
               _scored("use", 0.80, 2.0, "task/spawn.rs", "spawn_blocking"), *fillers]
    assert [c.id for c in rank_code(modules, "tokio::sync::Semaphore")][0] == "sem"
    # in a sentence the owner may be context: an override of InspectLoader.get_code in another class answers it (the
    # name two files define is no cue in a sentence: _Cues.distinctive)
    override = [_scored("over", 0.80, 2.0, "bootstrap.py", "SourceLoader.get_code"),
                _scored("abstract", 0.70, 2.0, "abc.py", "InspectLoader.get_code"), *fillers]
    assert [c.id for c in rank_code(override, "Concrete implementation of InspectLoader.get_code.")][0] == "over"


def test_a_constructor_named_like_its_class_is_not_the_class_definition() -> None:
    # jackson's ObjectMapper: five constructors `ObjectMapper.ObjectMapper`, each nearer the bare name than the
    # class's header chunk (its fields and member list); the header is where the class is defined
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.java", f"helper{n}") for n in range(20)]
    constructors = [_scored(f"ctor{n}", 0.68 - n * 0.02, 13.9, "databind/ObjectMapper.java", "ObjectMapper.ObjectMapper")
                    for n in range(3)]
    header = _scored("header", 0.48, 10.0, "databind/ObjectMapper.java", "ObjectMapper", kind="class")
    builder = _scored("builder", 0.50, 4.0, "json/JsonMapper.java", "JsonMapper.Builder.Builder")
    ranked = rank_code([*constructors, header, builder, *fillers], "ObjectMapper")
    assert ranked[0].id == "header"
    # a method that merely shares the class's name in another case is still near it
    near = rank_code([_scored("m", 0.6, 5.0, "Foo.java", "Other.objectMapper"), *fillers], "ObjectMapper")
    assert near[0].score > rank_code([_scored("m", 0.6, 5.0, "Foo.java", "Other.objectMapper"), *fillers],
                                     "ObjectFrapper")[0].score


def test_the_header_of_the_class_a_file_is_named_after_stands_for_the_file() -> None:
    # commons-lang: "null-safe object utility methods" asks for ObjectUtils.java, whose class header scores a little
    # below a method of MethodUtils; the header of the class the file is named after represents the file
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.java", f"helper{n}") for n in range(20)]
    method = _scored("method", 0.47, 5.3, "lang3/reflect/MethodUtils.java", "MethodUtils.invokeMethod")
    header = _scored("header", 0.40, 6.5, "lang3/ObjectUtils.java", "ObjectUtils", kind="class")
    question = "null-safe object utility methods and identity helpers"
    assert [c.id for c in rank_code([method, header, *fillers], question)][0] == "header"
    # a nested class, or a class in a file named otherwise, is not the file's type
    for symbol, file in (("ObjectUtils.Null", "lang3/ObjectUtils.java"), ("ObjectUtils", "lang3/Helpers.java")):
        other = _scored("header", 0.40, 6.5, file, symbol, kind="class")
        assert [c.id for c in rank_code([method, other, *fillers], question)][0] == "method"


def test_a_type_qualified_by_its_namespace_is_the_type_its_file_is_named_after() -> None:
    # messagepack-csharp: `MessagePackSerializer` is a partial class over MessagePackSerializer.cs,
    # MessagePackSerializer.NonGeneric.cs and .Json.cs; its symbol is qualified by the namespace, and the part in
    # NonGeneric.cs ranked above the main file's header
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.cs", f"helper{n}") for n in range(20)]

    def header(id_: str, file: str, symbol: str = "MessagePack.MessagePackSerializer") -> Scored:
        return _scored(id_, 0.40, 6.5, file, symbol, kind="class")

    main = header("main", "MessagePack/MessagePackSerializer.cs")
    part = _scored("part", 0.45, 6.5, "MessagePack/MessagePackSerializer.NonGeneric.cs",
                   "MessagePack.MessagePackSerializer", kind="class")
    assert [c.id for c in rank_code([part, main, *fillers], "MessagePackSerializer")][0] == "main"
    # a C++ type under its namespace (the chunker writes `fmt::Serializer` as `fmt.Serializer`); a type of another
    # name in the file is not its type
    assert [c.id for c in rank_code([part, header("main", "fmt/Serializer.h", "fmt.Serializer"), *fillers],
                                    "serializer")][0] == "main"
    assert [c.id for c in rank_code([part, header("main", "MessagePack/Other.cs"), *fillers],
                                    "MessagePackSerializer")][0] == "part"


def test_in_a_sentence_another_spelling_of_a_written_name_gets_nothing() -> None:
    # got's "what does parsing a JSON response give back when the body is empty?": the `json` getter beside the
    # answer took the near bonus and came first; jsoup's "HTML sanitizer that removes tags ..." lifted every `html()`
    # method above the Cleaner. An all-caps, capitalised or CamelCase word of a sentence is as often English as a name
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.ts", f"helper{n}") for n in range(20)]

    def getter(name: str) -> Scored:
        return _scored("getter", 0.60, 1.0, "core/options.ts", f"Options.{name}")

    answer = _scored("answer", 0.65, 1.0, "as-promise/parse-body.ts", "parseBody")
    question = "what does parsing a JSON response give back when the body is empty?"
    assert [c.id for c in rank_code([answer, getter("json"), *fillers], question)][0] == "answer"
    for name, sentence in (("html", "HTML sanitizer that removes tags"), ("router", "how does the Router match a path?")):
        named = rank_code([answer, getter(name), *fillers], sentence)
        plain = rank_code([answer, getter("walker"), *fillers], sentence)
        assert next(c.score for c in named if c.id == "getter") == next(c.score for c in plain if c.id == "getter")
    # the question that is only the name still lifts another spelling of it (`router` for `Router`)
    assert [c.id for c in rank_code([answer, getter("json"), *fillers], "JSON")][0] == "getter"
    assert rank_code([getter("router"), *fillers], "Router")[0].score > rank_code([getter("walker"), *fillers],
                                                                                 "Router")[0].score


def test_a_copy_under_an_older_version_folder_ranks_below_the_current_one() -> None:
    def candidates() -> list[Scored]:
        return [_scored("v3", 0.80, 2.0, "src/v3/types.ts", "ZodObject", kind="class"),
                _scored("v4", 0.75, 2.0, "src/v4/classic/schemas.ts", "ZodObject", kind="class"),
                *[_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"src/v4/other_{n}.ts", f"helper{n}") for n in range(20)]]

    assert [c.id for c in rank_code(candidates(), "ZodObject")][0] == "v4"
    assert older_versions(["a/v2/x.py", "b/v3/y.py", "lib/v1.py"]) == set()  # no sibling, no version folder
    only_old = [_scored("old", 0.70, 2.0, "src/v3/types.ts", "ZodUnknownDef", kind="class"),
                _scored("new", 0.80, 2.0, "src/v4/core/schemas.ts", "$ZodUnknownDef", kind="class"),
                *[_scored(f"sib{k}", 0.75, 1.5, "src/v4/core/schemas.ts", f"$ZodX{k}", kind="class") for k in range(3)],
                *[_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"src/v4/other_{n}.ts", f"helper{n}") for n in range(20)]]
    assert [c.id for c in rank_code(only_old, "ZodUnknownDef")][0] == "old"  # a name only the old version defines


def test_the_windows_copy_of_a_c_file_ranks_below_its_posix_twin() -> None:
    """libuv keeps src/unix/tcp.c and src/win/tcp.c: a question naming no platform asks for the POSIX one."""
    def candidates() -> list[Scored]:
        return [_scored("win", 0.80, 2.0, "win/tcp.c", "uv__tcp_accept"),
                _scored("unix", 0.72, 2.0, "unix/tcp.c", "uv__server_io"),
                *[_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.c", f"helper{n}") for n in range(20)]]

    assert [c.id for c in rank_code(candidates(), "TCP accept implementation")][0] == "unix"
    assert [c.id for c in rank_code(candidates(), "TCP accept on Windows")][0] == "win"  # the platform asked for
    assert [c.id for c in rank_code(candidates(), "uv__tcp_accept")][0] == "win"  # a name only Windows defines
    assert other_platform_copies(["src/win/fs.c", "src/unix/fs.c", "src/win/only.h"], "fs") == {
        "src/win/fs.c", "src/win/only.h"}
    assert other_platform_copies(["src/win/fs.c", "lib/unix/fs.c"], "fs") == set()  # no POSIX sibling folder
    assert other_platform_copies(["net/windows/mod.rs", "net/unix/mod.rs"], "x") == set()  # C and C++ only
    assert other_platform_copies(["src/win/a.c", "src/unix/linux/b.c"], "x") == {"src/win/a.c"}  # nested POSIX folders


def test_a_capitalised_word_joined_by_a_hyphen_is_a_term_not_a_name() -> None:
    # `Set-Cookie` is an HTTP header: rack-test's `Cookie` class took the definition bonus above `Cookie#initialize`,
    # which parses the header; the same word written alone is still a name
    assert named_identifiers("parsing a Set-Cookie string into a cookie's name, value, domain and path") == []
    assert named_identifiers("revalidating with the cached ETag and Last-Modified") == ["ETag"]
    assert named_identifiers("JSON-specific mapper builder") == named_identifiers("a non-GET request") == []
    assert named_identifiers("the Cookie class beside Set-Cookie") == ["Cookie"]
    assert named_identifiers("the max_age-based expiry") == ["max_age"]  # only capitalised words
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"lib/other_{n}.rb", f"helper{n}") for n in range(20)]
    header = _scored("class", 0.62, 2.0, "rack/test/cookie_jar.rb", "Rack.Test.Cookie", kind="class")
    parse = _scored("init", 0.64, 2.2, "rack/test/cookie_jar.rb", "Rack.Test.Cookie.initialize")
    ranked = rank_code([header, parse, *fillers], "parsing a Set-Cookie string into a cookie's name, value and path")
    assert ranked[0].id == "init"


def test_owner_hash_member_and_dollar_names_are_read_as_names() -> None:
    # Ruby's and Javadoc's `Owner#method` qualifies like `.` and `::`; `$` is a letter of JS/TS names (zod's
    # `$constructor`), not punctuation: a `$` name alone, or with its kind, is a name
    assert named_identifiers("Proxy#authenticate") == ["authenticate"]
    assert named_identifiers("`$constructor`") == ["$constructor"] and named_identifiers("the $ZodType class") == [
        "$ZodType"]
    assert named_identifiers("e.g. the Node.js way") == []
    assert member_owners("SerializationFeature.INDENT_OUTPUT") == {"INDENT_OUTPUT": "SerializationFeature"}
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"plugins/other_{n}.rb", f"helper{n}") for n in range(20)]
    zod = [_scored("class", 0.60, 0.0, "v4/mini/schemas.ts", "Class", kind="class"),
           _scored("ctor", 0.50, 0.0, "v4/core/core.ts", "$constructor"), *fillers]
    assert [c.id for c in rank_code(zod, "`$constructor`")][0] == "ctor"


def test_a_member_defined_nowhere_stands_for_its_owner() -> None:
    # jackson's `SerializationFeature.INDENT_OUTPUT`: an enum constant is no chunk of its own, so the enum is what
    # the question names; methods that read the flag share more words with it
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.java", f"helper{n}") for n in range(20)]
    reader = _scored("reader", 0.60, 9.0, "databind/SerializationContext.java", "SerializationContext.hasPrettyPrinter")
    enum = _scored("enum", 0.45, 7.0, "databind/SerializationFeature.java", "SerializationFeature", kind="class")
    assert [c.id for c in rank_code([reader, enum, *fillers], "SerializationFeature.INDENT_OUTPUT")][0] == "enum"
    # a member some candidate defines keeps the question to itself
    member = _scored("member", 0.40, 5.0, "databind/Other.java", "Other.INDENT_OUTPUT")
    assert [c.id for c in rank_code([reader, enum, member, *fillers], "SerializationFeature.INDENT_OUTPUT")][0] != "enum"


def test_the_owner_of_a_member_defined_nowhere_is_found_by_the_words_it_shares_with_the_question(
        static_index: SemanticIndex) -> None:  # noqa: F811 (the fixture)
    # no definitions search for the owner: the lexical side holds the file that writes both names
    write_files(static_index.root.path, {
        "cfg/SerializationFeature.java": "package cfg;\n\npublic enum SerializationFeature {\n    INDENT_OUTPUT(false),\n"
                                         "    WRAP_ROOT_VALUE(false);\n\n    private final boolean on;\n}\n",
        "cfg/Writer.java": "package cfg;\n\npublic class Writer {\n    void write(String text) {\n"
                           "        System.out.println(text.trim());\n    }\n}\n"})
    static_index.sync()
    found = static_index.semantic_search("SerializationFeature.INDENT_OUTPUT")["results"]
    assert (found[0]["file"], found[0]["symbol"]) == ("cfg/SerializationFeature.java", "SerializationFeature")


def test_a_question_for_the_uses_of_a_name_finds_the_implementations_beside_the_definition() -> None:
    assert used_names("implementations of SeqAccess") == used_names("classes implementing SeqAccess") == {"SeqAccess"}
    assert used_names("how the Cleaner uses a Safelist") == {"Safelist"}  # the Cleaner is where the answer is
    # asking for a name's own API, or for something done by means of it, is asking for the definition
    for question in ("how to use TypeAdapter", "validating data without a model using TypeAdapter",
                     "Implementing a custom TypeAdapter", "SeqAccess"):
        assert used_names(question) == set(), question
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.ts", f"helper{n}") for n in range(20)]

    def candidates() -> list[Scored]:
        return [_scored("iface", 0.70, 6.0, "sequencers/types.ts", "TestSequencer", kind="class"),
                _scored("base", 0.60, 4.0, "sequencers/BaseSequencer.ts", "BaseSequencer", kind="class"),
                _scored("random", 0.55, 3.0, "sequencers/RandomSequencer.ts", "RandomSequencer", kind="class"),
                *fillers]

    ranked = [c.id for c in rank_code(candidates(), "classes implementing TestSequencer")]
    # the implementations take their bonus; the interface's own definition takes the definition's and stays among them
    assert set(ranked[:3]) == {"base", "iface", "random"}
    assert [c.id for c in rank_code(candidates(), "TestSequencer")][0] == "iface"


def test_a_legacy_copy_of_a_name_a_current_file_defines_gets_no_definition_bonus() -> None:
    # pydantic keeps its old API under `v1/`: `Field` is defined there too, and the old copy can
    # be nearer the question than the current one; the legacy penalty alone (0.1) is less than the gap
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"pydantic/other_{n}.py", f"helper{n}") for n in range(20)]

    def copies(kind: str, name: str) -> list[Scored]:
        return [_scored("old", 0.60, 2.0, "pydantic/v1/fields.py", name, kind=kind),
                _scored("new", 0.35, 1.9, "pydantic/fields.py", name, kind=kind), *fillers]

    assert [c.id for c in rank_code(copies("function", "Field"), "Field")][0] == "new"
    # a name only the old copy defines is still its definition
    assert [c.id for c in rank_code(copies("function", "Field")[:1] + fillers, "Field")][0] == "old"


def test_a_question_that_is_only_a_defined_name_puts_its_definition_above_lookalikes() -> None:
    # exposed's `Between`: an English function word, so BM25 drops it and the lexical side scores nothing; the
    # dense side puts functions near the word (`less`, `between`) far above the class, whose bonus must outweigh
    # any fused score
    fillers = [_scored(f"f{n}", 0.2 + n * 0.005, 0.0, f"core/other_{n}.kt", f"helper{n}") for n in range(20)]
    less = _scored("less", 0.33, 0.0, "core/SQLExpressionBuilder.kt", "ISqlExpressionBuilder.less")
    between = _scored("cls", 0.145, 0.0, "core/Op.kt", "Between", kind="class")
    assert [c.id for c in rank_code([less, between, *fillers], "Between")][0] == "cls"


def test_a_kotlin_extension_function_is_named_after_its_receiver() -> None:
    text = ("package x\n\npublic fun <T> CoroutineScope.launch(block: () -> T): Job {\n    return start(block)\n}\n\n"
            "fun <T> Flow<T>.collect() {\n    emit()\n}\n\nfun String?.orEmptyText(): String = this ?: \"\"\n\n"
            "fun launch(block: () -> Unit): Job {\n    throw UnsupportedOperationException()\n}\n\n"
            "class Scope {\n    fun String.shout() = uppercase()\n}\n")
    named = [c.symbol for c in Chunker().chunk("Builders.kt", text, "kotlin") if c.kind in ("function", "class")]
    # a member extension inside a class stays the class's member
    assert named == ["CoroutineScope.launch", "Flow.collect", "String.orEmptyText", "launch", "Scope"]


def test_a_top_level_namesake_yields_to_the_definition_under_the_owner_written() -> None:
    # kotlinx-coroutines: `CoroutineScope.launch` (an extension) and a deprecated top-level `launch` that only says
    # to call it on a scope; the question names the first
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.kt", f"helper{n}") for n in range(20)]
    guidance = _scored("guide", 0.70, 5.0, "Guidance.kt", "launch")
    builder = _scored("builder", 0.55, 4.0, "Builders.common.kt", "CoroutineScope.launch")
    assert [c.id for c in rank_code([guidance, builder, *fillers], "CoroutineScope.launch")][0] == "builder"
    # with no candidate under that owner, the top-level one keeps its bonus (`tokio::sync::Semaphore`)
    assert [c.id for c in rank_code([guidance, *fillers], "CoroutineScope.launch")][0] == "guide"


def test_a_definition_marked_deprecated_is_flagged_from_its_doc_and_annotations_only() -> None:
    kotlin = ('@Deprecated("Passing NonCancellable breaks structured concurrency")\n'
              "public fun CoroutineScope.launch(context: NonCancellable): Job = launch(context)\n\n"
              "public fun CoroutineScope.launch(context: CoroutineContext): Job {\n    return start(context)\n}\n")
    go = ("package cobra\n\n// ExactValidArgs checks the count.\n//\n// Deprecated: use MatchAll(ExactArgs(n), "
          "OnlyValidArgs) instead\nfunc ExactValidArgs(n int) PositionalArgs {\n\treturn nil\n}\n\n"
          "func MatchAll(pargs ...PositionalArgs) PositionalArgs {\n\treturn nil\n}\n")
    java = ("class Mapper {\n    /** @deprecated since 3.0 */\n    @Deprecated\n    public TypeFactory getTypeFactory() {\n"
            "        return null;\n    }\n\n    public Mapper copy() {\n        // the @Deprecated getter is not used\n"
            "        return this;\n    }\n}\n")
    python = 'class Deprecated:\n    """A mapping that warns on access."""\n    warned = True\n'  # its name, not a mark
    flagged = {(c.symbol, c.start_line): deprecated(c) for language, file, text, size in (
        ("kotlin", "Guidance.kt", kotlin, 512), ("go", "args.go", go, 512), ("java", "Mapper.java", java, 40),
        ("python", "compat.py", python, 512))
        for c in Chunker(max_tokens=size).chunk(file, text, language) if c.kind in ("function", "class")}
    assert flagged == {("CoroutineScope.launch", 1): True, ("CoroutineScope.launch", 4): False,
                       ("ExactValidArgs", 3): True, ("MatchAll", 10): False,
                       ("Mapper", 1): False, ("Mapper.getTypeFactory", 2): True, ("Mapper.copy", 8): False,
                       ("Deprecated", 1): False}


def test_the_methods_of_a_java_type_declared_deprecated_are_stored_as_deprecated() -> None:
    # truth's `Truth8`: only the class says @Deprecated, its `assertThat` methods hand on to `Truth`'s
    java = ("/** @deprecated use {@link Truth} */\n@Deprecated\npublic final class Truth8 {\n"
            "    public static OptionalSubject assertThat(Optional<?> actual) {\n        return Truth.assertThat(actual);\n"
            "    }\n}\n")
    current = java.split("@Deprecated\n", 1)[1].replace("Truth8", "Truth9")  # the same class, not marked
    kotlin = ('@Deprecated("use Truth")\nclass Truth8 {\n    fun assertThat(actual: Optional<*>?): OptionalSubject {\n'
              "        return Truth.assertThat(actual)\n    }\n}\n")

    def flagged(file: str, text: str, language: str) -> dict[str, bool]:
        chunks = Chunker(max_tokens=40).chunk(file, text, language)
        retired = deprecated_types(chunks)
        return {c.symbol: bool(chunk_metadata(c, "", retired).get("deprecated")) for c in chunks
                if c.kind == "function"}

    assert flagged("Truth8.java", java, "java") == {"Truth8.assertThat": True}
    assert flagged("Truth9.java", current, "java") == {"Truth9.assertThat": False}
    assert flagged("Truth8.kt", kotlin, "kotlin") == {"Truth8.assertThat": False}  # Java only, as _idle reads it


def test_a_name_that_several_files_define_is_no_definition_cue_in_a_sentence() -> None:
    # org.json's "letting a class supply its own JSON text instead of toString": the `toString` of eight classes took
    # the definition bonus and the first places, above the one-method interface `JSONString` that answers (the
    # fillers share some words, so that no override's lexical score stands out and the fusion's weights stay put)
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, n * 0.2, f"other_{n}.java", f"helper{n}") for n in range(20)]
    overrides = [_scored(f"ts{n}", 0.45, 4.0, f"{owner}.java", f"{owner}.toString")
                 for n, owner in enumerate(("JSONObject", "JSONArray", "XML", "CDL"))]
    answer = _scored("answer", 0.55, 3.0, "JSONString.java", "JSONString", kind="class")
    question = "letting a class supply its own JSON text instead of toString"
    assert rank_code([answer, *overrides, *fillers], question)[0].id == "answer"
    # one file's definition of the name is still what the sentence points at, and so is a keyword the agent passes

    def override_score(candidates: list[Scored], keywords: tuple[str, ...] = ()) -> float:
        return next(c.score for c in rank_code(candidates, question, keywords) if c.id == "ts0")

    shared = override_score([answer, *overrides, *fillers])
    assert override_score([answer, overrides[0], *fillers]) == pytest.approx(shared + 0.3)
    assert override_score([answer, *overrides, *fillers], ("toString",)) == pytest.approx(shared + 0.3)
    # the question that is only the name still lifts every definition of it
    assert {c.id for c in rank_code([answer, *overrides, *fillers], "toString")[:4]} == {"ts0", "ts1", "ts2", "ts3"}
    # and so does a one-word question that names it among other names (a PHP namespace): laravel's
    # `Illuminate\\Contracts\\Cache\\Repository`, where the class and the contract both define `Repository`
    repositories = [_scored("contract", 0.4, 2.0, "Contracts/Cache/Repository.php", "Repository", kind="class"),
                    _scored("cache", 0.4, 2.0, "Cache/Repository.php", "Repository", kind="class")]
    token_store = _scored("tokens", 0.45, 2.2, "Auth/Passwords/CacheTokenRepository.php", "CacheTokenRepository",
                          kind="class")
    ranked = rank_code([token_store, *repositories, *fillers], "Illuminate\\Contracts\\Cache\\Repository")
    assert ranked[0].id in ("contract", "cache")


def test_a_deprecated_namesake_gets_no_definition_bonus_beside_a_current_one() -> None:
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.kt", f"helper{n}") for n in range(20)]
    old = _scored("old", 0.70, 6.0, "Guidance.kt", "CoroutineScope.launch")
    old.deprecated = True
    current = _scored("new", 0.55, 5.0, "Builders.common.kt", "CoroutineScope.launch")
    assert [c.id for c in rank_code([old, current, *fillers], "CoroutineScope.launch")][0] == "new"
    assert [c.id for c in rank_code([old, *fillers], "CoroutineScope.launch")][0] == "old"  # the only one
    # a question describing a deprecated function still asks for it: no penalty (importlib.resources' `@deprecated`
    # read_text answers its own docstring)
    described = "Return the decoded string of the resource."

    def read_text(flag: bool) -> Scored:
        c = _scored("read", 0.50, 3.0, "resources/_legacy.py", "read_text")
        c.deprecated = flag
        return c

    assert rank_code([read_text(True), *fillers], described)[0].score == rank_code(
        [read_text(False), *fillers], described)[0].score


def _fillers() -> list[Scored]:
    return [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.go", f"helper{n}") for n in range(20)]


def test_a_name_and_its_kind_ask_for_the_definition_as_the_name_alone_does() -> None:
    # go-playground/validator: the unexported `validate` struct beside the method `Validate.Struct`, which the
    # dense side puts first for "validate struct"
    assert kind_named("validate struct") == "validate" and kind_named("trait Resolve") == "Resolve"
    assert kind_named("struct class") == kind_named("validate the struct") == kind_named("Route") == ""
    assert named_identifiers("validate struct") == ["validate"] and named_identifiers("validate input") == []
    method = _scored("method", 0.83, 3.2, "validator_instance.go", "Validate.Struct")
    struct = _scored("struct", 0.68, 3.1, "validator.go", "validate", kind="class")
    assert [c.id for c in rank_code([method, struct, *_fillers()], "validate struct")][0] == "struct"


def test_a_free_function_asked_bare_comes_before_methods_of_the_same_name() -> None:
    # reqwest: `basic_auth` in util.rs beside `RequestBuilder.basic_auth` in three request files
    methods = [_scored(f"m{n}", 0.60, 19.9, f"{d}/request.rs", "RequestBuilder.basic_auth")
               for n, d in enumerate(("async_impl", "blocking", "wasm"))]
    free = _scored("free", 0.33, 17.2, "util.rs", "basic_auth")
    assert [c.id for c in rank_code([*methods, free, *_fillers()], "basic_auth")][0] == "free"
    # with no free function, the methods keep their bonus; written with the owner, the method is asked for
    assert rank_code([*methods, *_fillers()], "basic_auth")[0].id.startswith("m")
    assert rank_code([*methods, free, *_fillers()], "RequestBuilder.basic_auth")[0].id.startswith("m")


def test_a_deprecated_type_keeps_its_bonus_beside_nested_namesakes() -> None:
    # commons-text: the deprecated interface `Builder` (Builder.java) and current nested `X.Builder` classes are
    # other definitions, not a newer copy of it
    nested = [_scored(f"n{n}", 0.38, 2.2, f"{o}.java", f"{o}.Builder", kind="class")
              for n, o in enumerate(("StringEscapeUtils", "RandomStringGenerator", "DoubleFormat"))]
    top = _scored("top", 0.53, 2.2, "Builder.java", "Builder", kind="class")
    top.deprecated = True
    assert [c.id for c in rank_code([*nested, top, *_fillers()], "Builder")][0] == "top"


def test_a_member_a_class_chunk_holds_is_defined_there() -> None:
    # http-rb: `class JSON < Adapter` is small enough to stay in its module's chunk, named `HTTP.MimeType`; the
    # question is not read as `MimeType` (mime_type.rb's module)
    module = Scored("module", 0.40, 16.6, "http/mime_type.rb", "HTTP.MimeType", ["HTTP.MimeType"], "class",
                    "implementation")
    nested = Scored("json", 0.57, 21.8, "http/mime_type/json.rb", "HTTP.MimeType",
                    ["HTTP.MimeType", "HTTP.MimeType.JSON"], "class", "implementation")
    assert [c.id for c in rank_code([module, nested, *_fillers()], "MimeType::JSON")][0] == "json"
    # mime_type.rb's methods back its module's header: the owner's definitions that do not hold the member take no
    # bonus for it (both did, and the registry stood first)
    methods = [_scored(name, 0.35 + k * 0.05, 15.0 + k, "http/mime_type.rb", f"HTTP.MimeType.{name}")
               for k, name in enumerate(("normalize", "adapters", "register_adapter", "[]"))]
    assert [c.id for c in rank_code([module, nested, *methods, *_fillers()], "MimeType::JSON")][0] == "json"


def test_a_class_kept_whole_defines_the_member_asked_with_its_owner_beside_other_owners_namesakes() -> None:
    # rack-session: `Pool` is one chunk of 55 lines holding its five methods; the abstract store's and the cookie
    # store's `delete_session` have chunks of their own and read more like the name, but belong to other owners
    pool = Scored("pool", 0.53, 11.0, "lib/rack/session/pool.rb", "Rack.Session.Pool",
                  ["Rack.Session.Pool", "Rack.Session.Pool.find_session", "Rack.Session.Pool.delete_session"],
                  "class", "implementation")
    persisted = _scored("persisted", 0.75, 9.2, "lib/rack/session/abstract/id.rb",
                        "Rack.Session.Abstract.Persisted.delete_session")
    cookie = _scored("cookie", 0.76, 9.1, "lib/rack/session/cookie.rb", "Rack.Session.Cookie.delete_session")
    candidates = [pool, persisted, cookie, *_fillers()]
    assert [c.id for c in rank_code(candidates, "Rack::Session::Pool#delete_session")][0] == "pool"
    # asked for the cookie store's, the whole `Pool` is no answer
    assert [c.id for c in rank_code(candidates, "Rack::Session::Cookie#delete_session")][0] == "cookie"
    # a split class's header lists a member whose own chunk is a candidate: that chunk is the definition
    header = Scored("header", 0.70, 12.0, "lib/rack/session/cookie.rb", "Rack.Session.Cookie",
                    ["Rack.Session.Cookie", "Rack.Session.Cookie.delete_session"], "class", "implementation")
    assert [c.id for c in rank_code([header, *candidates], "Rack::Session::Cookie#delete_session")][0] == "cookie"


def _class(cid: str, dense: float, lexical: float, file: str, symbol: str, bases: list[str]) -> Scored:
    c = Scored(cid, dense, lexical, file, symbol, [symbol], "class", "implementation")
    c.implements = bases
    return c


def test_a_method_asked_by_name_is_followed_by_the_methods_of_its_class_it_calls() -> None:
    # rack-attack: `Cache#count` delegates to `key_and_expiry` and `do_count`; the class's header, its `reset_count`
    # and the middleware's `cache` read more like the name than the two methods that do the work
    count = _scored("count", 0.60, 12.0, "rack/attack/cache.rb", "Rack.Attack.Cache.count")
    count.calls = frozenset({"key", "expires_in", "key_and_expiry", "unprefixed_key", "period", "do_count"})
    header = _class("header", 0.55, 10.0, "rack/attack/cache.rb", "Rack.Attack.Cache", [])
    reset = _scored("reset", 0.50, 9.0, "rack/attack/cache.rb", "Rack.Attack.Cache.reset_count")
    cache = _scored("cache", 0.50, 8.0, "rack/attack.rb", "Rack.Attack.cache")
    expiry = _scored("expiry", 0.30, 2.0, "rack/attack/cache.rb", "Rack.Attack.Cache.key_and_expiry")
    do_count = _scored("do_count", 0.25, 2.0, "rack/attack/cache.rb", "Rack.Attack.Cache.do_count")
    # a method of that name in another class is not the one called
    other = _scored("other", 0.40, 2.0, "rack/attack/throttle.rb", "Rack.Attack.Throttle.do_count")
    ranked = [c.id for c in rank_code([count, header, reset, cache, expiry, do_count, other, *_fillers()],
                                      "Cache#count")]
    assert ranked[:3] == ["count", "expiry", "do_count"] and ranked.index("other") > ranked.index("reset"), ranked
    # a function of no class is no method: the functions of its file it names do not follow it (zig-clap's `Clap`)
    clap = _scored("clap", 0.60, 12.0, "clap.zig", "Clap")
    clap.calls = frozenset({"parseParam", "Diagnostic"})
    helper = _scored("helper", 0.20, 1.0, "clap.zig", "parseParam")
    use = _scored("use", 0.50, 8.0, "example/usage.zig", "main")
    assert [c.id for c in rank_code([clap, helper, use, *_fillers()], "Clap")][:2] == ["clap", "use"]
    # without the body's words (a sentence: the service reads them only for a question that is one name) as before
    count.calls = frozenset()
    ranked = [c.id for c in rank_code([count, header, reset, cache, expiry, do_count, other, *_fillers()],
                                      "Cache#count")]
    assert ranked.index("expiry") > ranked.index("reset"), ranked


def test_implementations_are_found_by_what_their_declaration_extends() -> None:
    java = ("/** Hamming. */\npublic class HammingDistance\n        implements EditDistance<Integer> {\n"
            "    public Integer apply(CharSequence l, CharSequence r) {\n        return 0;\n    }\n}\n")
    ruby = "module HTTP\n  module Features\n    class RaiseError < Feature\n      def wrap_response(r)\n        r\n"\
           "      end\n    end\n  end\nend\n"
    rust = ("impl<T, U> Buf for Chain<T, U>\nwhere\n    T: Buf,\n{\n    fn remaining(&self) -> usize {\n        0\n    }\n}\n\n"
            "impl<B: BufMut + Sized> io::Write for Writer<B> {\n    fn flush(&mut self) {}\n}\n")
    # guzzle's Client: a PHP name's namespace path is not a supertype (it gave `Psr` and `Http`)
    php = ("<?php\n\nnamespace GuzzleHttp;\n\nclass Client extends \\Base implements ClientInterface,\n"
           "    \\Psr\\Http\\Client\\ClientInterface, Promise\\PromisorInterface\n{\n"
           "    public function send(): void\n    {\n    }\n}\n")
    # dapper's type handlers: C#'s outer type or namespace before the name is none either (it gave `SqlMapper`)
    csharp = ("namespace Dapper\n{\n    internal sealed class DataTableHandler : SqlMapper.ITypeHandler,\n"
              "        global::System.IDisposable\n    {\n        public void Dispose() { }\n    }\n}\n")
    found = {c.symbol: supertypes(c) for language, file, text in (
        ("java", "HammingDistance.java", java), ("ruby", "raise_error.rb", ruby), ("rust", "chain.rs", rust),
        ("php", "src/Client.php", php), ("csharp", "DataTableHandler.cs", csharp))
        for c in Chunker(max_tokens=40).chunk(file, text, language) if c.kind == "class"}
    assert found["HammingDistance"] == ["EditDistance"] and found["Chain"] == ["Buf"]
    assert found["Client"] == ["Base", "ClientInterface", "PromisorInterface"]
    # the traits a PHP class body uses are mixed into it (laravel's Collection: EnumeratesValues); a closure's `use` is not
    mixed = php.replace("{\n    public", "{\n    use Macroable, Concerns\\EnumeratesValues;\n\n    public").replace(
        "{\n    }\n}", "{\n        $f = function () use ($x) { return $x; };\n    }\n}")
    client = next(c for c in Chunker().chunk("src/Client.php", mixed, "php") if c.kind == "class")
    assert supertypes(client) == ["Base", "ClientInterface", "PromisorInterface", "Macroable", "EnumeratesValues"]
    assert found["Dapper.DataTableHandler"] == ["ITypeHandler", "IDisposable"]
    assert found["HTTP.Features.RaiseError"] == ["Feature"] and found["Writer"] == ["Write"]
    minified = "class Big extends " + ", ".join(f"Base{n}" for n in range(50)) + " { run() {} }\n"
    big = next(c for c in Chunker().chunk("big.js", minified, "javascript") if c.kind == "class")
    assert supertypes(big) == [f"Base{n}" for n in range(8)]
    interface = _scored("iface", 0.40, 20.0, "EditDistance.java", "EditDistance", kind="class")
    near = _scored("from", 0.55, 23.0, "EditDistanceFrom.java", "EditDistanceFrom", kind="class")
    impls = [_scored(f"i{n}", 0.30, 11.0, f"{name}.java", name, kind="class")
             for n, name in enumerate(("JaccardDistance", "CosineDistance"))]
    for c in impls:
        c.implements = ["EditDistance", "Double"]
    ranked = [c.id for c in rank_code([interface, near, *impls, *_fillers()], "implementations of EditDistance")]
    assert {"i0", "i1", "iface"} <= set(ranked[:4])  # the implementations beside the interface they extend
    for c in impls:
        c.implements = []
    ranked = [c.id for c in rank_code([interface, near, *impls, *_fillers()], "implementations of EditDistance")]
    assert ranked.index("i1") > ranked.index("iface")


def test_the_impl_blocks_of_a_trait_are_candidates_when_its_implementations_are_asked_for(
        static_index: SemanticIndex, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 (the fixture)
    write_files(static_index.root.path, {
        "src/de/mod.rs": "pub trait SeqAccess<'de> {\n    fn next_element(&mut self) -> Option<u8>;\n}\n",
        "src/de/value.rs": "impl<'de> de::SeqAccess<'de> for SeqDeserializer {\n"
                           "    fn next_element(&mut self) -> Option<u8> { None }\n}\n"})
    static_index.sync()
    # neither side finds anything: the candidates are the definitions of the names the question writes
    monkeypatch.setattr(LexicalIndex, "scores", lambda self, query: {})
    monkeypatch.setattr(MemoryIndex, "nearest", lambda self, vector, limit: [])

    def files(question: str) -> list[str]:
        return [r["file"] for r in static_index.semantic_search(question, 3)["results"]]

    # and the impl blocks of a trait whose implementations are asked for
    assert files("how SeqAccess yields elements") == ["src/de/mod.rs"]  # a question about the trait itself
    assert sorted(files("implementations of SeqAccess")) == ["src/de/mod.rs", "src/de/value.rs"]


def test_a_two_letter_name_asked_alone_or_with_its_kind_is_a_name() -> None:
    # ky's `Ky` class beside `KyError`, whose file name and doc carry the word: "Ky class" asked for no name at all
    assert named_identifiers("Ky class") == named_identifiers("Ky") == ["Ky"]
    assert named_identifiers("If it is on") == named_identifiers("Go to the IO loop") == []
    error = _scored("error", 0.51, 5.4, "errors/KyError.ts", "KyError", kind="class")
    ky = _scored("ky", 0.17, 3.3, "core/Ky.ts", "Ky", kind="class")
    assert [c.id for c in rank_code([error, ky, *_fillers()], "Ky class")][0] == "ky"


def test_the_name_a_question_calls_a_function_is_asked_for_as_the_name_alone() -> None:
    # node-fetch: "the fetch function" is `export default async function fetch` in index.js, not `consumeBody`
    assert kind_named("the fetch function") == kind_named("fetch function") == "fetch"
    assert kind_named("the fetch method") == "fetch" and kind_named("the function") == kind_named("a fetch") == ""
    consume = _scored("consume", 0.39, 1.95, "body.js", "consumeBody")
    fetch = _scored("fetch", 0.35, 1.97, "index.js", "fetch")
    assert [c.id for c in rank_code([consume, fetch, *_fillers()], "the fetch function")][0] == "fetch"


def test_a_defined_name_asked_alone_comes_first_whatever_a_busy_file_adds_to_its_other_chunks() -> None:
    # marshmallow: `ValidationError` in exceptions.py; validate.py's validators all raise it, and the support of
    # their file lifted the `And` validator above the exception's class
    raising = [_scored(f"v{n}", 0.66 - n * 0.02, 6.7 - n * 0.1, "validate.py", f"Validator{n}", kind="class")
               for n in range(5)]
    error = _scored("error", 0.40, 5.9, "exceptions.py", "ValidationError", kind="class")
    assert [c.id for c in rank_code([*raising, error, *_fillers()], "ValidationError")][0] == "error"
    # in a sentence the definition has no such precedence
    assert rank_code([*raising, error, *_fillers()], "where ValidationError is raised by validators")[0].id != "error"


def test_a_block_comment_of_prose_lines_is_not_read_as_the_declaration() -> None:
    # ky's KyError.ts: a JSDoc without leading stars names the class; its supertypes come from `extends Error`
    text = ("/**\nBase class for all Ky errors. `HTTPError` and `TimeoutError` extend this class.\n\n"
            "You can use `instanceof KyError` to check it.\n*/\nexport class KyError extends Error {\n"
            "\toverride name = 'KyError';\n\n\tget isKyError(): true {\n\t\treturn true;\n\t}\n}\n")
    chunk = next(c for c in Chunker().chunk("errors/KyError.ts", text, "typescript") if c.kind == "class")
    assert chunk.symbol == "KyError" and supertypes(chunk) == ["Error"]


def test_a_type_asked_bare_is_its_definition_not_an_impl_of_a_trait_for_it() -> None:
    # ureq: `impl AsSendBody for Body` (send_body.rs) is named after Body, shorter and denser in the word than
    # `pub struct Body` (body/mod.rs), and took the same bare-name bonus; a type's definition goes before the impl
    # blocks named after it (retrieval._backed_by_additions)
    impls = Chunker().chunk("src/send_body.rs", "impl Private for Body {}\nimpl AsSendBody for Body {\n"
                            "    fn as_body(&mut self) -> SendBody {\n        (None, self.as_reader()).into()\n"
                            "    }\n}\n", "rust")
    structs = Chunker().chunk("src/body/mod.rs", "pub struct Body {\n    source: BodyDataSource,\n}\n\nimpl Body {\n"
                              "    pub fn builder() -> BodyBuilder {\n        BodyBuilder::new()\n    }\n}\n", "rust")
    assert [(c.symbol, addition(c)) for c in [*impls, *structs] if c.kind == "class"] == [
        ("Body", True), ("Body", True), ("Body", False), ("Body", True)]  # only the struct defines Body

    def candidates() -> list[Scored]:
        return [Scored(f"{c.file}:{c.start_line}", dense, lexical, c.file, c.symbol, c.symbols, c.kind,
                       "implementation", implements=c.implements, addition=addition(c))
                for c, dense, lexical in ((impls[-1], 0.62, 9.0), (structs[0], 0.58, 6.0))] + _fillers()

    assert rank_code(candidates(), "Body")[0].id == "src/body/mod.rs:1"
    assert rank_code(candidates(), "Body struct")[0].id == "src/body/mod.rs:1"
    # in a sentence the impl keeps the bonus of a chunk named as the question writes
    assert rank_code(candidates(), "how a Body is sent as a request")[0].id == "src/send_body.rs:2"


def test_an_owner_written_before_a_ruby_method_matches_it_with_its_bang_or_question_mark() -> None:
    # warden: `authenticate`, `authenticate?` and `authenticate!` are three methods of `Warden::Proxy`; the owner form
    # of "Warden::Proxy#authenticate!" is compared without the suffix, so every one of them is defined under the owner
    # written (the suffixed method lost the bonus to its plain namesake before)
    plain = _scored("plain", 0.62, 3.1, "warden/proxy.rb", "Warden.Proxy.authenticate")
    asking = _scored("asking", 0.58, 3.0, "warden/proxy.rb", "Warden.Proxy.authenticate?")
    bang = _scored("bang", 0.55, 2.9, "warden/proxy.rb", "Warden.Proxy.authenticate!")
    busy = _scored("busy", 0.70, 3.5, "warden/manager.rb", "Warden.Manager.call")  # closer, but defines nothing asked
    for question in ("Warden::Proxy#authenticate!", "Proxy#authenticate!", "Warden::Proxy#authenticate"):
        ranked = [c.id for c in rank_code([busy, plain, asking, bang, *_fillers()], question)]
        assert set(ranked[:3]) == {"plain", "asking", "bang"}, question
    plain_empty = _scored("plain", 0.62, 3.1, "errors.rb", "Errors.blank")
    empty = _scored("empty", 0.50, 2.9, "errors.rb", "Errors.empty?")
    assert [c.id for c in rank_code([plain_empty, empty, *_fillers()], "Errors#empty")][0] == "empty"


def test_a_name_with_a_test_part_does_not_push_test_files_down() -> None:
    # poem: `TestClient` is the public test client in poem/src/test/client.rs (a folder named `test`, read as tests)
    # and a crate-private helper of the same name in session/test_harness.rs, which ranked first
    fillers = [_scored(f"f{n}", 0.2 + n * 0.01, 0.0, f"other_{n}.rs", f"helper{n}") for n in range(20)]
    public = Scored("public", 0.80, 3.0, "test/client.rs", "TestClient", ["TestClient"], "class", "test")
    harness = Scored("harness", 0.70, 2.5, "session/test_harness.rs", "TestClient", ["TestClient"], "class",
                     "implementation")
    assert [c.id for c in rank_code([harness, public, *fillers], "TestClient")][:2] == ["public", "harness"]
    assert [c.id for c in rank_code([harness, public, *fillers], "test_client")][:2] == ["public", "harness"]
    spec = Scored("spec", 0.80, 3.0, "spec/method_spec.rb", "MethodSpec", ["MethodSpec"], "class", "test")
    lib = Scored("lib", 0.70, 2.5, "lib/method_spec.rb", "MethodSpec", ["MethodSpec"], "class", "implementation")
    assert [c.id for c in rank_code([spec, lib, *fillers], "MethodSpec")][:2] == ["lib", "spec"]  # a specification


def test_a_rust_type_comes_before_the_impl_blocks_named_after_it() -> None:
    # serde_json: `pub enum Value` (a list of variants) in value/mod.rs, and 33 `impl ... for Value` blocks in
    # from.rs, de.rs, partial_eq.rs... that the question's one word matches as well; the enum was 38th
    source = ("/// A JSON value.\n#[derive(Clone, Eq, PartialEq)]\npub enum Value {\n    Null,\n    Bool(bool),\n}\n\n"
              "impl Default for Value {\n    fn default() -> Value {\n        Value::Null\n    }\n}\n\n"
              "#[cfg(feature = \"std\")]\nimpl<'de> serde::Deserializer<'de> for &'de Value {\n    type Error = Error;\n}\n"
              "\npub(crate) unsafe impl Value {\n    fn is_null(&self) -> bool {\n        true\n    }\n}\n")
    chunks = Chunker(max_tokens=30).chunk("src/value/mod.rs", source, "rust")
    assert [(c.symbol, addition(c)) for c in chunks if c.kind == "class"] == [
        ("Value", False), ("Value", True), ("Value", True), ("Value", True)]
    assert not addition(Chunk("a.rs", 1, 3, "Value", "class", "rust", "// impl Value\nstruct Value {\n}"))
    enum_chunk, default_chunk = (c for c in chunks if c.kind == "class" and c.start_line in (3, 8))
    assert chunk_metadata(default_chunk, "sha")["addition"] and "addition" not in chunk_metadata(enum_chunk, "sha")
    # the index lists the type's definition among the candidates before the impl blocks, whatever their ids
    memory = MemoryIndex()
    metas = {f"a{n}": {**_meta(f"src/value/from{n}.rs", "Value", "class"), "addition": True} for n in range(5)}
    metas["0enum"] = _meta("src/value/mod.rs", "Value", "class")
    memory.add(list(metas), [[1.0, 0.0]] * len(metas), [""] * len(metas), list(metas.values()))
    assert memory.defining(["Value"], 1) == ["0enum"]
    # the definition, backed by the best impl block of its own file, before the others
    impls = [_scored(f"from{n}", 0.60 - n * 0.01, 1.1, "src/value/from.rs", "Value", kind="class") for n in range(6)]
    impls.append(_scored("default", 0.64, 1.1, "src/value/mod.rs", "Value", kind="class"))
    for c in impls:
        c.addition = True
    enum = _scored("enum", 0.08, 0.9, "src/value/mod.rs", "Value", kind="class")
    assert rank_code([*impls, enum, *_fillers()], "Value")[0].id == "enum"
    # tokio: the real `RwLock`, whose own impl blocks score best, before loom's mock of it in a file of its own
    mock = _scored("mock", 0.50, 1.0, "loom/std/rwlock.rs", "RwLock", kind="class")
    real = _scored("real", 0.30, 0.9, "sync/rwlock.rs", "RwLock", kind="class")
    real_impl = _scored("real_impl", 0.70, 1.0, "sync/rwlock.rs", "RwLock", kind="class")
    real_impl.addition = True
    assert [c.id for c in rank_code([mock, real, real_impl, *_fillers()], "RwLock")][:3] == ["real", "mock", "real_impl"]
    # in a sentence nothing changes: the impl block that fits the question stays first
    assert rank_code([*impls, enum, *_fillers()], "how a Value defaults to null")[0].id != "enum"


def test_a_short_question_names_a_file_by_its_folder_and_its_stem() -> None:
    # axios: "the fetch adapter" is lib/adapters/fetch.js (an unnamed default export), and the registry
    # adapters/adapters.js, which imports every adapter and is named after its file, stood first
    assert file_words("lib/adapters/fetch.js") == ["fetch", "adapter"]
    registry = _scored("registry", 0.48, 3.5, "lib/adapters/adapters.js", "adapters", kind="class")
    fetch = _scored("fetch", 0.42, 7.1, "lib/adapters/fetch.js", "", kind="module")
    http = _scored("http", 0.11, 2.5, "lib/adapters/http.js", "httpAdapter")
    assert [c.id for c in rank_code([registry, fetch, http, *_fillers()], "the fetch adapter")][0] == "fetch"


def test_a_sentence_matches_a_files_folder_as_well_as_its_stem() -> None:
    # kweb-core: "DOM event listeners sent to the server" is events/OnReceiver.kt, whose stem shares no word of the
    # question; Element.kt, which the fused score put first, shares none either (t-folder: the folder for every
    # question, not only one of three words or fewer)
    element = _scored("element", 0.80, 3.0, "src/main/kotlin/kweb/Element.kt", "Element.on")
    receiver = _scored("receiver", 0.78, 3.0, "src/main/kotlin/kweb/html/events/OnReceiver.kt", "OnReceiver.call")
    ranked = rank_code([element, receiver, *_fillers()], "DOM event listeners sent to the server")
    assert [c.id for c in ranked][:2] == ["receiver", "element"]
