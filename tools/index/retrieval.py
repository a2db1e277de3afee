"""Fusing the dense (embedding) ranking with the lexical (BM25) ranking.

The default is a convex combination of scores normalised per query: each side's scores are min-max
scaled to 0..1 over the candidates (the union of both top lists, every candidate scored by both sides),
then `dense_weight * dense + (1 - dense_weight) * lexical`. On benchmarks/semantic.py it ranked the
right function higher than weighted reciprocal rank fusion (benchmarks/semantic.py keeps it for comparison):
rank fusion throws away how far ahead the best candidate of each side is.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from code_intel.core.errors import InvalidArgument

# Share of the dense side in the convex fusion: lower weights help the developer questions and cost the docstrings,
# higher ones the reverse; this is where neither loses much (docs/benchmarks.md has the figures)
DENSE_WEIGHT = 0.75


def _min_max(scores: list[float]) -> list[float]:
    low, high = min(scores), max(scores)
    if high > low:
        return [(s - low) / (high - low) for s in scores]
    return [1.0 if high > 0 else 0.0 for _ in scores]


def fuse(
    dense: Mapping[str, float],
    lexical: Mapping[str, float],
    *,
    dense_weight: float = DENSE_WEIGHT,
) -> list[tuple[str, float]]:
    """(id, fused score in 0..1), best first.

    `dense` maps every candidate to its cosine similarity, `lexical` maps candidates to BM25 scores (a
    candidate missing there scores 0: it shares no word with the query). Candidates are the keys of
    `dense` plus those of `lexical`; one missing from `dense` is left out (the caller scores both sides).
    """
    ids = list(dense)
    if not ids:
        return []
    weight = min(max(dense_weight, 0.0), 1.0)
    dense_norm = _min_max([dense[i] for i in ids])
    lexical_raw = [lexical.get(i, 0.0) for i in ids]
    lexical_norm = _min_max(lexical_raw) if any(lexical_raw) else [0.0] * len(ids)
    fused = [weight * d + (1 - weight) * lx for d, lx in zip(dense_norm, lexical_norm, strict=True)]
    order = sorted(range(len(ids)), key=lambda k: (-fused[k], -dense[ids[k]]))
    return [(ids[k], round(fused[k], 4)) for k in order]


# --------------------------------------------------------------------------- ranking signals
@dataclass
class Signals:
    """Adjustments to the fused score of each candidate (scores are 0..1 after fusion) in the opt-in full model's
    ranking (`rerank`), and the code hint's share of the question's vector in every search. Chosen on the
    question benchmark's dev set (#15); docs/semantic-index.md has the figures."""

    role_penalty: dict[str, float] = field(default_factory=lambda: {"test": 0.5, "doc": 0.5, "generated": 1.0})
    module_penalty: float = 0.05  # loose module code (imports, constants) and continuation windows
    keyword_weight: float = 0.2  # a chunk defining a name the caller passed in `keywords`
    hint_weight: float = 0.5  # the code hint's vector, added to the question's before renormalising


SIGNALS = Signals()
# words that say the question is about tests or docs: those roles are then not pushed down
ROLE_WORDS = {"test": frozenset({"test", "tests", "testing", "spec", "specs", "unittest", "fixture", "fixtures"}),
              "doc": frozenset({"doc", "docs", "documentation", "example", "examples", "readme", "guide", "tutorial"})}


@dataclass
class ForestQuery:
    """A question plus the optional `keywords` and `code_hint` of semantic_search, as the two sides see them."""

    query: str
    keywords: list[str] = field(default_factory=list)
    code_hint: str | None = None

    @property
    def lexical_text(self) -> str:
        """BM25 query: the question, the keywords and the hint's identifiers, each counted."""
        return " ".join([self.query, *self.keywords, self.code_hint or ""])

    def vector(self, embed: Callable[[list[str]], list[list[float]]], question_vector: list[float] | None) -> list[float]:
        """The question's vector (keywords appended as words), plus the code hint's vector, renormalised."""
        from code_intel.index.text import readable_words, spelled_out

        texts = []
        if question_vector is None or self.keywords:
            texts.append(self.query + (" " + readable_words(self.keywords) if self.keywords else ""))
        if self.code_hint:
            texts.append(spelled_out(self.code_hint))
        vectors = embed(texts) if texts else []
        base = question_vector if question_vector is not None and not self.keywords else vectors.pop(0)
        if not vectors:
            return base
        combined = [a + SIGNALS.hint_weight * b for a, b in zip(base, vectors[0], strict=True)]
        norm = math.sqrt(sum(x * x for x in combined)) or 1.0
        return [x / norm for x in combined]


_CAMEL_TEST = re.compile(r"Test(?:s|ing)?(?![a-z])")


def asked_roles(query: str) -> set[str]:
    """The roles (tests, docs) a question asks for by its words, in any case; a CamelCase name's Test part counts,
    as a snake_case name's (`bats_test_function`) already is a word of its own: `TestClient` asks for the code of
    tests (poem's test client, under `src/test/`). `Spec` stays inside its name: Java's `MethodSpec` is a
    specification."""
    words = {x.lower() for x in re.findall(r"[A-Za-z]+", query)} | {m.group(0).lower() for m in _CAMEL_TEST.finditer(query)}
    return {role for role, vocabulary in ROLE_WORDS.items() if words & vocabulary}


def rerank(candidates: list[Scored], query: str, keywords: Sequence[str] = (),
           signals: Signals | None = None) -> list[Scored]:
    """The candidates with their scores adjusted by role (unless the question asks for it), kind and keywords,
    best first."""
    s = signals or SIGNALS
    wanted = asked_roles(query)
    names = {k.lower() for k in keywords}
    out: list[Scored] = []
    for c in candidates:
        score = c.score
        if c.role not in wanted:
            score -= s.role_penalty.get(c.role, 0.0)
        if c.kind in ("module", "part"):
            score -= s.module_penalty
        if names and any(n.lower() in names or n.rsplit(".", 1)[-1].lower() in names for n in c.symbols or [c.symbol]):
            score += s.keyword_weight
        out.append(dataclasses.replace(c, score=score))
    out.sort(key=lambda c: -c.score)
    return out


MAX_KEYWORDS = 20
MAX_CODE_HINT_CHARS = 2000


def check_keywords(keywords: Any) -> list[str]:
    if keywords is None:
        return []
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise InvalidArgument("keywords must be a list of strings",
                              hint="send identifiers you expect in the code, e.g. ['retry_after', 'Backoff']")
    clean = list(dict.fromkeys(k.strip() for k in keywords if k.strip()))
    if len(clean) > MAX_KEYWORDS or any(len(k) > 100 for k in clean):
        raise InvalidArgument(f"keywords: at most {MAX_KEYWORDS} names of at most 100 characters each",
                              hint="send the few identifiers you expect most")
    return clean


def check_code_hint(code_hint: Any) -> str | None:
    if code_hint is None:
        return None
    if not isinstance(code_hint, str):
        raise InvalidArgument("code_hint must be a string", hint="send a short sketch of the code you expect")
    if len(code_hint) > MAX_CODE_HINT_CHARS:
        raise InvalidArgument(f"code_hint is {len(code_hint)} characters (at most {MAX_CODE_HINT_CHARS})",
                              hint="send a few lines: a signature and the key calls")
    return code_hint.strip() or None


# --------------------------------------------------------------------------- the code-aware ranker
# a name, qualified by `.`, `::` or `#` (Ruby's and Javadoc's `Owner#method`); `$` is a letter in JS/TS (`$constructor`)
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*")
_MEMBER_OF = re.compile(r"\.|::|#")


@dataclass
class CodeRanking:
    """Weights of `rank_code`, each chosen on development data and confirmed on data it was not chosen on
    (docs/benchmarks.md has how and the figures)."""

    dense_weight: float = 0.6  # share of the (min-max scaled) dense side in the fused score
    lexical_lead: float = 3.5  # a candidate whose BM25 score stands this many standard deviations above the
    lead_dense_weight: float = 0.5  # candidates' mean: one chunk shares the question's words as no other does, and
    # the dense side's share falls to this
    definition: float = 0.3  # the chunk defines a name the question writes (exact case): a type, function or method;
    # in a sentence it lifts the definition's file, not the definition among its file's chunks (rank_code's merit)
    bare_definition: float = 1.0  # the same when the question is only that name and a candidate defines it: above any
    # fused score, so what merely resembles the name (`less` for `Between`, whose word BM25 drops) comes after it
    implementation: float = 0.6  # the chunk implements a trait whose implementations the question asks for (as
    # `definition` does for the name's own definition; not tuned)
    near_definition: float = 0.3  # the same name in another case (`router` for `Router`), for a question that is
    # only the name: in a sentence the word is as often English (`HTML` lifted every `html()` method)
    path: float = 0.3375  # times the share of the question's words in the file's name (or a start of them: path_words;
    # its stem's and its folder's: file_words)
    spelled: float = 0.3  # a class whose name the question spells as words ("json object" -> JsonObject)
    name_length: float = 0.02  # taken off per word of a file's name beyond its first (_name_words): a file named by one
    # word is its module's own file (rxswift's Zip.swift, commons-lang's Pair.java, phoenix's socket.ex), each further
    # word names a variant, helper or part of it (Zip+arity.swift, ImmutablePair.java, websocket.ex, poolRunner.ts)
    file_support: float = 0.5  # times the mean of a file's next three candidates (a file that answers often); a
    # file's later chunks take it only in the leading file (_backing_files)
    lone_file: float = 0.5  # a Ruby file with one candidate: its chunk stands in for the next ones at this share of
    # its score (a small file that answers beside a large file whose many chunks share the question's words; Ruby
    # only, LONE_LANGUAGES, as measured: Java lost with it)
    file_type: float = 0.2  # the header of the type a file is named after (`ObjectUtils` in ObjectUtils.java): in
    # Java and Kotlin it stands for the whole file, which a question describing the class asks for; the last part of a
    # qualified name counts (C#'s `MessagePack.MessagePackSerializer`, not its partial `MessagePackSerializer.Json.cs`)
    lead_uses: float = 0.05  # added to the candidates of the first other file whose name a leading Java file's text
    # writes (a type it uses, not one it extends or implements), up to the leading chunk's score: a Java question's
    # further answer is more often the next file the first one uses than its siblings (t-multi's rule, Java only,
    # one file; t-java17, chosen on fold A between 0.05 and 0.08); for a topic in every language (t-whole2)
    repeat_decay: float = 0.7  # a file's second chunk keeps this share of its score, the third its square...
    repeat_from: int = 1  # ...counting from the file's chunk after this many (2: the third chunk decays first)
    how_decay: float = 0.5  # repeat_decay for a heading that names how something works (asks_how), outside
    # SPAN_LANGUAGES: semble's halving of a file's every further chunk; such a heading asks for the files that do the
    # work, and its second target lost its place to a placed file's third and fourth chunks (t-replay)
    repeat_share: float = 1.0  # the decay weakens as the file holds more of the candidates: repeat_decay ** (1 -
    # this * share); a central file that holds most of them (sequel's base.rb) is where the answers are
    function_support: float = 0.2  # file_support for a description of one function (describes_function, not a
    # topic), which also takes no name_length: it asks for a function, not for the file that answers most often
    topic_decay: float = 0.5  # repeat_decay below the first topic_kept places for a topic (is_topic: a short
    topic_kept: int = 2  # question without a sentence's marks, "absl::Status and StatusOr for error propagation"),
    topic_words: int = 8  # which asks for files rather than one function; the first places stay as they were (5
    # until t-sem: places 3 to 5 held a busy file's further chunks above a topic's second answer file)
    role_penalty: dict[str, float] = field(default_factory=lambda: {"test": 0.625, "doc": 0.625, "generated": 1.0})
    module_penalty: float = 0.0375
    idle: float = 0.1  # taken off a Java method whose work is done elsewhere (_idle: a getter or setter, a deprecated
    # method): its doc comment says in the question's words what the code it stands for does
    legacy_penalty: float = 0.2  # a path under deprecated/, legacy/, compat/, v1/ or a version folder older than a
    # sibling one (v3/ beside v4/): kept for old callers
    name: float = 0.2  # times Scored.name_similarity, only in ordering one file's chunks among the places they hold;
    # none for a question asked as a sentence (asks_a_question)
    no_function: float = 0.15  # taken off a module chunk (imports, constants, loose code), only in ordering one
    # file's chunks: the file's functions say what it does
    class_no_function: float = 0.3  # the same for what a class holds outside its methods' code (_holds_no_function):
    # the header of a class cut into a chunk per method, which lists their names but not their code, a type of fields
    # alone, a window of its body between its methods (0.25 until the forty-first round: 0.3 gained the developer
    # question dev folders, 13 up and none down, and the held question set)
    length: float = 0.05  # times log2 of a Java or Rust chunk's lines (_span, LENGTH_LANGUAGES), only in ordering
    # one file's chunks: the method that does what a sentence describes is most often the long one, while its
    # class's short members say the same words in their doc comments
    valueless: float = 0.3  # taken off a function that returns no value (chunker.valueless) for a description that
    # says it returns something (asks_a_value), only in ordering one file's chunks
    subject: float = 0.1  # times the share of the question's words a function's code writes in its calls and string
    # literals (Scored.body_words: not in its name or comments), for a question that names what the code does
    # (names_behaviour), only in ordering one file's chunks: a developer asking what happens names what the function
    # does, the error it raises or the header it reads, while its siblings share the file's words in their names and
    # doc comments (oak's path parameters decoded when a route matches: the function that calls `decodeComponent`)
    callee: float = 0.15  # added to a Java method that its file's leading method calls on itself, only in ordering
    # that file's chunks after the leading one (_called_by, _within_files); a larger amount lifts the lead's small
    # helpers above methods that answer


CODE_RANKING = CodeRanking()
SHORT_OVERLOAD = 15  # lines (with its doc comment) of an overload that _decay_repeats reads as a door to its family's
# work (msgpack-java's factory overloads)
LONE_LANGUAGES = frozenset({"ruby"})  # where a file's one candidate backs itself (CodeRanking.lone_file)
SPAN_LANGUAGES = frozenset({"ruby"})  # where a "how" heading still asks for spans of a central file (_decay_repeats)
LENGTH_LANGUAGES = frozenset({"java", "rust"})  # where a longer chunk goes first among its file's chunks (_span)
FILE_TOPIC_LANGUAGES = frozenset({"java", "kotlin"})  # where a topic asks for whole files, as a "how" heading does
# (_decay_repeats: a class a file, named after it)
PATH_PREFIX = 4  # the shortest word of a file's name or a question that matches the start of a longer one
_LEGACY = re.compile(r"(^|/)(deprecated|legacy|compat|_compat|v1)(/|$)", re.IGNORECASE)
_VERSION_FOLDER = re.compile(r"(^|.*/)v(\d+)/")


def older_versions(files: Sequence[str]) -> set[str]:
    """Files under a version folder older than a sibling one among them (zod's v3/ beside v4/): the copy kept for
    old callers."""
    found = {file: (m.group(1), int(m.group(2))) for file in files if (m := _VERSION_FOLDER.match(file))}
    newest: dict[str, int] = {}
    for parent, version in found.values():
        newest[parent] = max(newest.get(parent, version), version)
    return {file for file, (parent, version) in found.items() if version < newest[parent]}


# C and C++ keep one implementation per platform in sibling folders (libuv's src/unix/tcp.c and src/win/tcp.c): the
# Windows copy, beside a POSIX one among the candidates, is the other platform's unless the question names Windows
_WINDOWS_FOLDERS = frozenset({"win", "win32", "win64", "windows"})
_POSIX_FOLDERS = frozenset({"unix", "posix", "linux", "darwin", "macos", "bsd"})
_NAMES_WINDOWS = re.compile(r"\b(?:win(?:dows|32|64|api)?|msvc|mingw)\b", re.IGNORECASE)


def _platform_parents(file: str, folders: frozenset[str]) -> set[str]:
    """The folders holding one of `folders` on the way to `file` (`src/win/fs.c` -> {"src"} for a Windows folder)."""
    parts = file.split("/")[:-1]
    return {"/".join(parts[:i]) for i, part in enumerate(parts) if part.lower() in folders}


def other_platform_copies(files: Sequence[str], query: str) -> set[str]:
    """C/C++ files under a Windows folder whose parent also holds a POSIX folder among `files`, unless the question
    names Windows: the platform a question that names none is seldom about (as older_versions' copies)."""
    from code_intel.languages.table import language_for

    if _NAMES_WINDOWS.search(query):
        return set()
    posix = set().union(*(_platform_parents(file, _POSIX_FOLDERS) for file in files))
    return {file for file in files if _platform_parents(file, _WINDOWS_FOLDERS) & posix
            and language_for(file) in ("c", "cpp")}


@dataclass
class Scored:
    """A candidate chunk with both sides' raw scores and what the ranker reads from its metadata."""

    id: str
    dense: float
    lexical: float
    file: str
    symbol: str
    symbols: list[str]
    kind: str
    role: str
    score: float = 0.0
    deprecated: bool = False  # marked as kept for old callers (chunker.deprecated)
    addition: bool = False  # adds to a type defined elsewhere: a Rust impl block (chunker.addition)
    bodiless: bool = False  # a method declared without a body: an interface's or abstract one (chunker.bodiless)
    accessor: bool = False  # a method that does no work: a Java getter or setter, a short Ruby method (chunker.accessor)
    valueless: bool = False  # a function with work of its own that returns no value (chunker.valueless)
    lines: tuple[int, int] = (0, 0)  # first and last line (a declaration window ends with the window of its body whose
    # score it took: _one_per_definition)
    decl_line: int = 0  # a part of a split function: the line of its declaration (Chunk.decl_line)
    implements: list[str] = field(default_factory=list)  # what the class extends or implements (Chunk.implements)
    command: str = ""  # the command line a shell dispatcher's branch runs (chunker.command_line)
    calls: frozenset[str] = frozenset()  # the words of a method's body below its declaration, read at search time
    # for a question that is one name (service._read_windows): the names it calls
    self_calls: frozenset[str] = frozenset()  # the methods a Java method calls on its own object, a name written bare
    # or after `this.` and opening a call, read at search time for any question (service._read_windows)
    body_words: frozenset[str] = frozenset()  # the tokens a function's code writes in its calls and string literals,
    # less its name's and its comments' (text.body_words), stored at indexing (sync.chunk_metadata)
    name_similarity: float = 0.0  # the question's cosine with the chunk's qualified name as words (a class: the best
    # of its own and its members'), which tells a file's functions apart where their code reads alike


_RETURN = re.compile(r"\s*returns?\b|.*?\band\s+returns?\b", re.IGNORECASE)


def is_topic(query: str, most_words: int) -> bool:
    """A short question of more than one word (one is a name, asked for its definition) that ends without
    punctuation and writes no code ("clear(): ...", "data -> gzip encoded data"): a topic to find files for, not a
    sentence describing one function. Semble's questions are such topics; docstrings end in a period, and half of
    our own questions in a question mark."""
    words = query.split()
    return 1 < len(words) <= most_words and words[-1][-1] not in ".?!" and not re.search(r"[()'\"<>=]|: ", query)


def asks_a_value(query: str) -> bool:
    """The question is a description that says its function returns something: it opens with "Return" ("Return the
    result this future represents.", "Returns True if ...") or joins "and return" to another verb ("Remove and return
    an item pair", "Remove *key* and return its value", "Creates and returns a SAX parser"). What it describes gives a
    value back, so a function that returns none is not it (chunker.valueless)."""
    return bool(_RETURN.match(query))


_QUESTION_WORD = re.compile(r"(?:what|how|why|when|where|which|who|whose|does|do|is|are|can|should|will)\b",
                            re.IGNORECASE)


def asks(query: str) -> bool:
    """The question is asked as one: it ends with a question mark or opens with a question word ("what happens when
    a route function panics?", "how is the application told that the client went away"). A developer asking what
    the code does names what it does; a description of a function ("Return the result this future represents.",
    "running a synchronous view function in a thread executor") reads like its doc comment and its name."""
    return query.rstrip().endswith("?") or bool(_QUESTION_WORD.match(query.strip()))


def names_behaviour(query: str) -> bool:
    """The question names what the code does, as a developer asks it: asked as one (asks), or a short phrase of ten
    words or fewer without final punctuation (is_topic: "second ctrl+c kills the job that is running", "response
    body is not written for HEAD requests"). A description of one function is written as its doc comment, a
    sentence ending in a period ("Mark the future done and set an exception."), or runs longer ("running a
    synchronous view function in a thread executor so it does not block the event loop"); it reads like the
    function's name and doc comment, which the ranker already follows."""
    return asks(query) or is_topic(query, 10)


def asks_how(query: str) -> bool:
    """The question names how something works as a heading ("how the parser pulls tokens from the lexer ..."): its
    answer is most often the files that do the work, each as a whole, rather than one span of a long class. A "how"
    asked with a question mark ("how is a path parameter taken from the URL?") is a developer's question about one
    behaviour, most often a span of one function."""
    text = query.strip().lower()
    return text.startswith("how ") and not text.endswith("?")


# Verbs that say what code does, in their base form: a question that opens with one, imperative or third person
# ("Return the loop", "Parses a header and returns ..."), is a description of one function (describes_function).
_CODE_VERBS = frozenset("""
    accept acquire add adjust allocate append apply assign attach await bind build calculate call cancel check clean
    clear close collect combine compare compile compute configure connect construct consume convert copy count create
    decode decorate define delete deliver detach determine disable disconnect dispatch emit enable encode ensure
    enqueue escape evaluate execute expand extend extract feed fetch fill filter find finish flush format free
    generate get handle hash ignore import increment initialize initialise insert install invoke iterate join keep
    list load lock log look make mark match merge modify move normalize normalise notify open parse pass pause perform
    poll pop prepare print process produce put queue quote raise read receive record register release reload remove
    rename render replace report request reset resolve restore resume retrieve return reverse run save schedule
    search send serialize set setup shut shutdown skip sort split start stop store strip submit swap take terminate
    test throw trigger try unbind undo unlock unpack unregister unwrap update upgrade validate verify wait wake walk
    wrap write yield""".split())
_FILE_NAMED = re.compile(r"[\w-]+\.[a-z]{1,4}\b(?!\()|/|\b(?:module|package|file)\s+[`'\"]?\w+[`'\"]?", re.IGNORECASE)


def _base_form(word: str) -> str:
    """`word` as the verb list writes it: "returns" -> "return", "applies" -> "apply", "pushes" -> "push"."""
    if word in _CODE_VERBS or not word.endswith("s"):
        return word
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(cut) and word[:-len(cut)] + add in _CODE_VERBS:
            return word[:-len(cut)] + add
    return word


def describes_function(query: str) -> bool:
    """The question reads as a one-line description of what one function does: it opens with a verb that says what
    code does (_CODE_VERBS, imperative or third person: "Return the loop", "Parses a header and returns ...",
    "Check whether ..."), asks no question and names no file or module. An agent describing the function it needs
    writes the same way."""
    words = query.split()
    return (len(words) > 1 and words[0].isalpha() and _base_form(words[0].lower()) in _CODE_VERBS
            and not query.rstrip().endswith("?") and not _FILE_NAMED.search(query))


def asks_a_question(query: str) -> bool:
    """The question is a sentence of five words or more that ends with a question mark ("what happens when a GET
    request has a body?"), not a short one that names what it looks for ("where is call_soon?") nor a Ruby name
    (`Route#match?`). It describes behaviour in its own words, which the names of the functions that answer it
    seldom repeat: how like the question a chunk's name is says little about which of a file's chunks answers it."""
    return query.rstrip().endswith("?") and len(query.split()) > 4


_KIND_WORDS = {"class", "struct", "interface", "trait", "enum", "type", "module", "protocol", "record", "function",
               "method"}  # not "object": "JSON object" spells JsonObject as often as it names a `JSON` object


def kind_named(query: str) -> str:
    """The name of a question that is a name and the kind of its definition ("validate struct", "Resolve trait",
    "module Helpers", "the fetch function"), which asks for that definition as a question of the name alone does;
    "" otherwise."""
    words = query.strip("?. ").split()
    if words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    if len(words) != 2 or (words[0].lower() in _KIND_WORDS) == (words[1].lower() in _KIND_WORDS):
        return ""
    return (words[1] if words[0].lower() in _KIND_WORDS else words[0]).strip("`")


def _hyphen_joined(query: str, start: int, end: int) -> bool:
    """The word at query[start:end] is joined to another by a hyphen (`Set-Cookie`, `JSON-specific`, `non-GET`)."""
    return (start > 1 and query[start - 1] == "-" and query[start - 2].isalnum()) or (
        query[end : end + 1] == "-" and query[end + 1 : end + 2].isalpha())


def named_identifiers(query: str) -> list[str]:
    """Names a question writes: CamelCase, snake_case and capitalised names, alone or as the last part of a dotted or
    `::` name (`Rack::Builder`), and a question that is one word (or one word and its kind: kind_named). A sentence's
    lower-case last part is a word (`app.call`, `std::ostream`, `openapi.json`): as often a file's or another
    library's name as one the repository defines. A capitalised word joined to another by a hyphen is part of a
    term, not a name (`Set-Cookie`, `Last-Modified`, `X-Forwarded-For`: HTTP headers; "JSON-specific"): no language
    with capitalised names writes a hyphen in one, and `Set-Cookie` gave webrick's and curl's `Cookie` the
    definition bonus above the function that parses the header."""
    words = query.split()
    alone = kind_named(query)
    found = []
    for match in _IDENTIFIER.finditer(query):
        name = _MEMBER_OF.split(match.group(0))[-1]
        if name[:1].isupper() and _hyphen_joined(query, match.start(), match.end()):
            continue
        codeish = (any(c.isupper() for c in name[1:]) or "_" in name.strip("_") or name[:1].isupper()
                   or len(words) == 1 or match.group(0) == alone)
        alone_two = len(name) == 2 and (len(words) == 1 or match.group(0) == alone) and name[:1].isupper()  # `Ky`
        if (len(name) >= 3 or alone_two) and codeish:
            found.append(name)  # a two-letter word in a sentence is English (`on`, `If`)
    return list(dict.fromkeys(found))


def member_owners(query: str) -> dict[str, str]:
    """The owner written before each qualified name's last part (`SerializationFeature.INDENT_OUTPUT` ->
    {"INDENT_OUTPUT": "SerializationFeature"}): what the question names when nothing defines the member itself (an
    enum constant, a field), which the index holds no definition of."""
    owners: dict[str, str] = {}
    for match in _IDENTIFIER.finditer(query):
        parts = _MEMBER_OF.split(match.group(0))
        if len(parts) > 1:
            owners.setdefault(parts[-1], parts[-2])
    return owners


def spelled_names(query: str) -> set[str]:
    """Two consecutive words of a sentence joined and lower-cased ("mutable JSON object node" -> mutablejson,
    jsonobject, objectnode): a type's name that a question spells as words. Only class names are matched
    against them (a type is named by a noun phrase; `get value` would match every getter). A snake_case name is one
    word: the question writes that name, not the words of a class (ecto's `order_by` is `Ecto.Query.order_by`, and
    the builder class `OrderBy` took the place of query.ex)."""
    words = re.findall(r"[A-Za-z]+(?:_[A-Za-z]+)*", query)
    return {(first + second).lower() for first, second in zip(words, words[1:], strict=False)}


ROLE_WORDS_OF_NAMES = frozenset({"abstract", "base", "default", "impl"})  # Java's conventional words for a type's
# place in its family (`AbstractJsonProvider`, `TypeDeserializerBase`, `DefaultPrettyPrinter`), not what it does


def named_in_words(terms: set[str], starts: set[str], file: str) -> bool:
    """Every word of a file's name, but for ROLE_WORDS_OF_NAMES, is among a question's words (`terms`, its
    lexical_tokens; `starts`, word_starts of them), in the forms path_words joins: "recycling raw byte and char
    buffers" writes BufferRecycler.java, "how the unpacker pulls its input buffer by buffer ..."
    ArrayBufferInput.java. In Java a file is named after the type it holds, so its name is the author's own summary
    of the file, which BM25 reads only diluted among the chunk's code. A name's word may also be another form of a
    question's word (same_root: `BeanSerializer` for "bean serialization ..."). Read for every file at each search:
    set lookups, and the first word missing ends it."""
    words = _name_words(file)
    for w in words:
        if w not in starts and not any(w[:n] in terms for n in range(PATH_PREFIX, len(w))) and not (
                w[:DERIVED_ROOT] in starts and any(same_root(w, t) for t in terms)):
            return False
    return bool(words)


DERIVED_ROOT = 6  # the shortest root two forms of a word share (same_root)
DERIVED_ENDING = 2  # the most letters of the shorter form past that root


def same_root(a: str, b: str) -> bool:
    """Two forms of one word with different endings, neither the start of the other: the agent noun a Java type is
    named by and the action a question writes (`serializer` and "serialization", `registration` and "registered",
    stemmed `register`): they share all but DERIVED_ENDING letters of the shorter, at least DERIVED_ROOT."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    shared = next((n for n, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return shared >= DERIVED_ROOT and len(short) - shared <= DERIVED_ENDING


def word_starts(terms: set[str]) -> set[str]:
    """A question's words and their starts of PATH_PREFIX letters or more: a name's word among them is a question's
    word or the start of one (`read` for "reading", as path_words joins them); one that a question's word starts
    (`deserializer` for "deserializing", stemmed `deserializ`) is found by its own starts among the words."""
    return terms | {t[:n] for t in terms for n in range(PATH_PREFIX, len(t))}


@functools.lru_cache(maxsize=1 << 16)
def _name_words(file: str) -> tuple[str, ...]:
    from code_intel.index.text import lexical_tokens

    stem = PurePosixPath(file).stem
    tokens = lexical_tokens(stem)
    return tuple(w for w in dict.fromkeys(tokens) if (w != stem.lower() or len(tokens) == 1)
                 and w not in ROLE_WORDS_OF_NAMES)


_USES_OF = re.compile(r"\b(?:implementations?|implementers?|implementors?|subclasses|subtypes|callers|usages?|uses|users"
                      r"|instances)\s+of\s+(?:the\s+|an?\s+)?`?([A-Za-z_$][\w$.:#]*)", re.IGNORECASE)
_USING = re.compile(r"\b(?:implements?|implementing|extends?|extending|subclassing|calls|calling|uses|wraps"
                    r"|instantiates?|instantiating)\s+(?:the\s+|an?\s+)?`?([A-Za-z_$][\w$.:#]*)", re.IGNORECASE)


def used_names(query: str) -> set[str]:
    """The names whose uses a question asks for, not their definition: "implementations of SeqAccess", "classes
    implementing TestSequencer", "how the Cleaner uses a Safelist" (Safelist; the Cleaner is where the answer is)."""
    names = set(named_identifiers(query))
    return {name for pattern in (_USES_OF, _USING) for match in pattern.finditer(query)
            if (name := _MEMBER_OF.split(match.group(1))[-1]) in names}


def rank_code(candidates: list[Scored], query: str, keywords: Sequence[str] = (),
              weights: CodeRanking | None = None, file_text: Callable[[str], str] | None = None) -> list[Scored]:
    """Fuse both sides and adjust by what the chunk is: the definition of a name the question writes (exact,
    then in another case), a file named like the question, its role (tests and docs lower unless asked), loose
    module code; then files that several candidates come from rise, the first file a leading Java file (any leading
    file, for a topic) uses by name follows it (`file_text`: a file's text, when the caller can read it), and a
    file's later chunks decay."""
    w = weights or CODE_RANKING
    if not candidates:
        return []
    topic = is_topic(query, w.topic_words)
    if describes_function(query) and not topic:
        w = dataclasses.replace(w, file_support=w.function_support, name_length=0.0)
    elif asks_a_question(query):
        w = dataclasses.replace(w, name=0.0)
    ordered, merit, cues = _supported(candidates, query, keywords, w)
    if file_text is not None:
        _used_by_lead(ordered, file_text, w.lead_uses, anywhere=topic)
    if not topic:
        return _placed(ordered, merit, cues, query, w)
    # a topic: the first places as usual, the rest ordered again from the same scores with the topic's decay (the
    # decay and what follows it change only scores and order, so a copy of each candidate keeps the two apart)
    spare = [copy.copy(c) for c in ordered]
    head = _placed(ordered, merit, cues, query, w)[:w.topic_kept]
    kept = {c.id for c in head}
    rest = _placed(spare, merit, cues, query, dataclasses.replace(w, repeat_decay=w.topic_decay))
    return head + [c for c in rest if c.id not in kept]


def _supported(candidates: list[Scored], query: str, keywords: Sequence[str],
               w: CodeRanking) -> tuple[list[Scored], dict[str, float], _Cues]:
    """rank_code's first part: each candidate's fused and adjusted score with its file's support, best first; each
    one's merit among its file's chunks (_within_files); the question's cues."""
    cues = _Cues.of(query, keywords).owner_if_undefined(candidates).held_whole(candidates).spelled_as_defined(
        candidates).distinctive(candidates).spelled_in_forms(candidates).spelled_outgrown(candidates)
    files = sorted({c.file for c in candidates})
    cues = dataclasses.replace(cues, older=older_versions(files) | other_platform_copies(files, query))
    cues = dataclasses.replace(cues, current=_current_definitions(candidates, cues), matched={
        own for c in candidates if (own := _own_name(c)) in cues.qualified
        and any(_ends_with(c.symbol, form) for form in cues.qualified[own])})
    dense = _min_max([c.dense for c in candidates])
    lexical_raw = [c.lexical for c in candidates]
    lexical = _min_max(lexical_raw) if any(lexical_raw) else [0.0] * len(candidates)
    share = w.lead_dense_weight if _stands_out(lexical_raw, w.lexical_lead) else w.dense_weight
    written: dict[str, float] = {}  # the definition bonus each took, for a name the question writes
    for c, d, lx in zip(candidates, dense, lexical, strict=True):
        c.score, written[c.id] = _adjusted(c, share * d + (1 - share) * lx, cues, w)
    ordered = sorted(_one_per_definition(candidates), key=lambda c: -c.score)
    # before file support and decay
    value, subject = asks_a_value(query), w.subject if names_behaviour(query) else 0.0
    cut = _split_classes(candidates)
    # a name a sentence writes says which file to read, not which of its functions the sentence describes ("Like
    # call_soon(), but thread-safe", "Wait until feed_data() is called"): its definition's bonus orders files only
    # (a short question naming one function, "where is Errors#empty?", finds it by the name's similarity)
    merit = {c.id: c.score - written[c.id] + w.name * c.name_similarity
             - ((w.no_function if c.kind == "module" else w.class_no_function) if _holds_no_function(c, cut) else 0.0)
             + w.length * _span(c)
             - (w.valueless if c.valueless and value else 0.0) + subject * _subject_share(c, cues) for c in ordered}
    _add_file_support(ordered, w)
    ordered.sort(key=lambda c: -c.score)
    return ordered, merit, cues


_IDENTIFIER_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _used_by_lead(ordered: list[Scored], file_text: Callable[[str], str], bonus: float,
                  anywhere: bool = False) -> None:
    """The candidates of the first other file whose name (its stem) a leading Java file's text writes gain `bonus`,
    never above the leading chunk: a question with several answers names a part of the work, and the next part is
    more often a type the first one uses than its siblings (jackson-core's `CharacterEscapes` naming `CharTypes` for
    "escaping string values ... for JSON output"). Not a type the leading file extends or implements (the
    Scored.implements of its candidates): a contract its every sibling names as well (mustache-java's `Guard` under
    `DotGuard` for a question about one guard's work). One file, the best placed: t-multi's form, which lifted every
    file named, lost semble's Java questions where the leading file does not answer (truth's `Subject` names most of
    the library). Java only (BODILESS_LANGUAGES), but for a topic (`anywhere`) in every language: a short question
    without a sentence's marks asks for the files that do a piece of work, and the next is more often one the first
    names than its siblings (t-multi3, t-whole2: the semble-manner dev sets gain on both folds, the developer
    questions lose none); t-multi's form for every question cost the developer questions."""
    if not bonus or not ordered or not (anywhere or in_java(ordered[0])):
        return
    lead = ordered[0]
    own = PurePosixPath(lead.file).stem
    text = file_text(lead.file)
    extended = {name for c in ordered if c.file == lead.file for name in c.implements}
    used = next((c.file for c in ordered[1:] if c.file != lead.file
                 and (stem := PurePosixPath(c.file).stem) != own and stem not in extended
                 and _IDENTIFIER_WORD.fullmatch(stem) and stem in text
                 and re.search(rf"(?<!\w){re.escape(stem)}(?!\w)", text, re.ASCII)), None)
    if used is None:
        return
    for c in ordered[1:]:
        if c.file == used:
            c.score = min(c.score + bonus, lead.score)
    ordered.sort(key=lambda c: -c.score)


def _placed(ordered: list[Scored], merit: dict[str, float], cues: _Cues, query: str, w: CodeRanking) -> list[Scored]:
    """rank_code's second part: a file's later chunks decay, then the definitions of a name asked alone come first,
    or each file's chunks take the places it holds in the order of their merit."""
    _decay_repeats(ordered, w, share=not cues.bare, how=asks_how(query), topic=is_topic(query, w.topic_words))
    ordered.sort(key=lambda c: -c.score)
    if cues.defined:  # a question that is only a name some candidate defines: the definitions first, whatever
        # support the other chunks of a busy file add (marshmallow's `And` validator, whose doc and body raise
        # `ValidationError`, above the exception's class)
        named = {c.id for c in ordered if _names(c, cues, _own_name(c), _in_old_copy(c, cues))}
        _backed_by_additions(ordered, named)
        callees = _callees(ordered, named)
        ordered.sort(key=lambda c: (c.id not in named, c.id not in callees, c.addition))
    else:
        ordered = _within_files(ordered, merit, w.callee)
    return ordered


def _subject_share(c: Scored, cues: _Cues) -> float:
    """The share of the question's words (its lexical tokens) that the chunk's code writes in its calls and string
    literals (Scored.body_words)."""
    return len(c.body_words & cues.terms) / len(cues.terms) if cues.terms else 0.0


def _stands_out(scores: Sequence[float], lead: float) -> bool:
    """The best score is `lead` standard deviations or more above the mean of `scores`: on the lexical side, one
    chunk shares the question's rarer words as no other candidate does (rack-session's `Pool`, the one class that
    keeps sessions in a hash guarded by a mutex, against the session hash's short methods the static vectors put
    first). Such a match is evidence the dense side's nearness should not overrule as easily."""
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    return spread > 0 and (max(scores) - mean) / spread >= lead


def _split_classes(candidates: Sequence[Scored]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """The classes among the candidates, as (file, qualified name): those whose methods are chunks of their own (a
    method of theirs is a candidate), then those and the classes with a chunk of their own."""
    methods = {(c.file, c.symbol) for c in candidates if c.kind == "function"}
    split = {(c.file, c.symbol) for c in candidates if c.kind == "class"
             and any((c.file, s) in methods for s in c.symbols if s != c.symbol)}
    owners = {(file, symbol.rpartition(".")[0]) for file, symbol in methods if "." in symbol}
    return split, split | owners | {(c.file, c.symbol) for c in candidates if c.kind == "class"}


def _holds_no_function(c: Scored, cut: tuple[set[tuple[str, str]], set[tuple[str, str]]]) -> bool:
    """A module chunk (imports, constants, loose statements); a class chunk that holds none of its methods' code: a
    type of fields alone, or the header of a class cut into a chunk per method, which lists its methods' names
    (`chunk_header`) but not their code; and a window of a class's body outside its methods (fields, a TypeScript
    overload's signatures and their doc). `cut` is _split_classes of the candidates: a header is known by a method
    it lists being a candidate of its own, a window by its class being a candidate's."""
    from code_intel.index.text import member_names

    split, classes = cut
    if c.kind == "class":
        return not member_names(c.symbol, c.symbols) or (c.file, c.symbol) in split
    return c.kind == "module" or c.kind == "part" and (c.file, c.symbol) in classes


def in_java(c: Scored) -> bool:
    """The chunk's file is in a language whose rules here were measured on Java alone (BODILESS_LANGUAGES)."""
    return _java_file(c.file)


@functools.lru_cache(maxsize=1 << 16)
def _java_file(file: str) -> bool:  # read for every candidate at each search
    from code_intel.index.chunker import BODILESS_LANGUAGES
    from code_intel.languages.table import language_for

    return language_for(file) in BODILESS_LANGUAGES


def _span(c: Scored) -> float:
    """log2 of the lines a Java or Rust chunk spans (LENGTH_LANGUAGES; 0 elsewhere): among one file's chunks that
    score alike, the longer one holds the work a question describes. A long Java class is cut into many short
    members, an accessor, an overload that forwards to the one that works (`DefaultUsageFormatter.wrapDescription(out,
    indent, description)`), a small helper, a constant, and each has a doc comment in the words of the behaviour; the
    static vectors, a mean over few tokens, put them above the long method they serve (kryo's `Output.writeAscii`
    above `writeString` for "writing a string, with a faster path for short ASCII strings", commons-csv's
    `CSVRecord.isSet` above `get`). A Rust file's short constructors and trait impls do the same (warp's seven-line
    `not_found()` in reject.rs above the `CombineRejection` impls that pick which rejection to report; salvo's
    range.rs helpers above the parser of a Range header). Only ordering within a file: which files answer does not
    change. Not in the other languages, as measured: the docstring and developer-question sets, whose answers are
    often short functions, lose in Python, Go and TypeScript; Ruby and Kotlin line spans move both ways (t-span)."""
    if not _long_first(c.file):
        return 0.0
    return math.log2(max(c.lines[1] - c.lines[0] + 1, 1))


@functools.lru_cache(maxsize=1 << 16)
def _long_first(file: str) -> bool:  # read for every candidate at each search
    from code_intel.languages.table import language_for

    return language_for(file) in LENGTH_LANGUAGES


def _within_files(ordered: list[Scored], merit: dict[str, float], callee: float = 0.0) -> list[Scored]:
    """Each file keeps the places its chunks hold, and its chunks take them in the order of `merit` (the chunk's
    score before file support and decay, without the bonus for a name the sentence writes, plus its name's
    similarity): which files answer stays as it was, and among one file's functions the one whose name reads like
    the question comes first (`Future.exception` for "return the exception that was set on this future", above
    `Future.set_exception`, whose code holds the same words). A chunk that holds no function (_holds_no_function)
    comes after the functions that score nearly as well: its constants or fields bring the file up, and the question
    asks what the code there does (express's `createETagGenerator` below utils.js's block of requires for "how is an
    ETag produced", resty's `clientTrace.createContext` below the `TraceInfo` struct for a timing breakdown). A
    place keeps its score, so the scores still fall down the list. After a Java file's leading method come the
    methods of its class that it calls, by `callee` (_called_by)."""
    places: dict[str, list[int]] = {}
    for i, c in enumerate(ordered):
        places.setdefault(c.file, []).append(i)
    out = list(ordered)
    for where in places.values():
        if len(where) > 1:
            scores = [ordered[i].score for i in where]
            lead, *rest = sorted((ordered[i] for i in where), key=lambda c: -merit[c.id])
            rest.sort(key=lambda c: -merit[c.id] - (callee if _called_by(lead, c) else 0.0))
            for i, c, score in zip(where, [lead, *rest], scores, strict=True):
                c.score = score
                out[i] = c
    return out


def _called_by(lead: Scored, c: Scored) -> bool:
    """`c` is a Java method of the class `lead`, also a method, calls on its own object (Scored.self_calls: not a
    call on another object of the class, jcommander's `jc.parse` for a sub-command, nor a constructor, which Java
    calls as `new` or `this`): the reader of a long class's method reads next what it hands its work to, which the
    question's words describe less often than the sibling members that share them (zt-zip's `archiveEqualsInternal`
    and `metaDataEquals` after `archiveEquals` for "deciding whether two zip files hold the same entries even when
    their bytes differ", above three `entryEquals` overloads; kryo's `Output.writeVarInt` after `writeInt`;
    commons-csv's private `CSVFormat.print` after `printRecord`)."""
    owner, _, name = c.symbol.rpartition(".")
    return (lead.kind == c.kind == "function" and bool(owner) and lead.symbol.rpartition(".")[0] == owner
            and name in lead.self_calls and in_java(c))


def _backed_by_additions(ordered: list[Scored], named: set[str]) -> None:
    """A type's definition takes the best score of the impl blocks named after it in its own file (its methods and
    traits back it, as a file's chunks do), and goes before them: serde_json's `enum Value`, a list of variants,
    scored below 33 `impl ... for Value` blocks that the question's one word matches as well. The definition in the
    file whose impl blocks score best comes first (tokio's `RwLock` in sync/rwlock.rs, before loom's mock of it)."""
    best: dict[tuple[str, str], float] = {}
    for c in ordered:
        if c.id in named and c.addition:
            best[c.file, c.symbol] = max(best.get((c.file, c.symbol), c.score), c.score)
    for c in ordered:
        if c.id in named and not c.addition:
            c.score = max(c.score, best.get((c.file, c.symbol), c.score))
    ordered.sort(key=lambda c: -c.score)


def _callees(ordered: Sequence[Scored], named: set[str]) -> set[str]:
    """For a method asked for by name: the methods of its own class that its body calls, which follow it (a reader
    of rack-attack's `Cache#count` reads the `key_and_expiry` and `do_count` it delegates to; of warden's
    `Proxy#authenticate!`, its `_perform_authentication`). Not for a function of no class: zig-clap's `Clap`, a
    function that returns the type asked for, names every helper of its file, and the type's uses come next."""
    heads = [c for c in ordered if c.id in named and c.kind == "function" and "." in c.symbol]
    return {c.id for c in ordered if c.kind == "function" and c.id not in named and any(
        h.file == c.file and h.symbol.rpartition(".")[0] == c.symbol.rpartition(".")[0] and _own_name(c) in h.calls
        for h in heads)}


@dataclass(frozen=True)
class _Cues:
    """What rank_code reads from the question once, rather than once per candidate."""

    names: list[str]
    keywords: Sequence[str]
    lowered: set[str]  # names whose other spellings are near them (`router` for `Router`), when the question is one
    bare: bool  # the question is one name: a file named like it is probably the answer
    terms: set[str]
    wanted: set[str]
    qualified: dict[str, set[str]]  # a name asked with its owner (`Rack::Builder`, `Router.Route`) -> "Rack.Builder"
    older: set[str] = field(default_factory=set)  # candidates' files under an older version folder (older_versions), or
    # another platform's copy (other_platform_copies)
    defined: bool = False  # a question that is only a name, which some candidate defines as written
    spelled: set[str] = field(default_factory=set)  # spelled_names of a sentence
    formed: set[str] = field(default_factory=set)  # Java class names the question opens with, in some form (spelled_in_forms)
    owners: dict[str, str] = field(default_factory=dict)  # member_owners of the question
    current: set[str] = field(default_factory=set)  # written names a file outside legacy folders defines
    matched: set[str] = field(default_factory=set)  # qualified names some candidate defines under the owner written
    used: set[str] = field(default_factory=set)  # used_names: names whose uses are asked for, not where defined
    free: set[str] = field(default_factory=set)  # bare names a candidate defines at the top level, not as a member
    holders: set[str] = field(default_factory=set)  # ids of whole-class chunks holding a member asked with its owner
    lowered_query: str = ""  # the question in lower case
    held: dict[str, str] = field(default_factory=dict)  # an owner standing for its member (owner_if_undefined) -> the
    # member's qualified name, when a candidate's chunk holds it (`HTTP.MimeType` holding `HTTP.MimeType.JSON`)

    @classmethod
    def of(cls, query: str, keywords: Sequence[str]) -> _Cues:
        from code_intel.index.text import lexical_tokens

        names = named_identifiers(query)
        qualified: dict[str, set[str]] = {}  # a sentence that names an owner as context ("the implementation of
        # InspectLoader.get_code", another class's override) names a member two files define: distinctive drops it
        for match in _IDENTIFIER.finditer(" ".join([query, *keywords])):
            parts = _MEMBER_OF.split(match.group(0))
            if len(parts) > 1 and parts[-1] in names + list(keywords):
                qualified.setdefault(parts[-1], set()).add(".".join(parts))
        return cls(names=names, keywords=keywords,
                   lowered={n.lower() for n in names} | {k.lower() for k in keywords},
                   bare=len(names) == 1 and (len(query.split()) == 1 or kind_named(query) == names[0]),
                   terms=set(lexical_tokens(query)),
                   wanted=asked_roles(query), qualified=qualified,
                   spelled=spelled_names(query), owners=member_owners(query), used=used_names(query),
                   lowered_query=query.lower())

    def owner_differs(self, own: str, symbol: str) -> bool:
        """The question writes `own` with an owner and the chunk defines it under another (`Sinatra.Builder` for
        `Rack::Builder`); a top-level definition has no owner to differ (`sync::Semaphore` may name a module) unless
        another candidate is defined under the owner written (Kotlin's `CoroutineScope.launch` beside a top-level
        `launch`)."""
        forms = self.qualified.get(own, set())
        return (bool(forms) and (symbol != own or own in self.matched)
                and not any(_ends_with(symbol, form) for form in forms))

    def writes(self, name: str) -> bool:
        """The question (or a keyword) writes this name as it is spelled."""
        return name in self.names or name in self.keywords

    def owner_if_undefined(self, candidates: Sequence[Scored]) -> _Cues:
        """A qualified name whose member no candidate defines (`SerializationFeature.INDENT_OUTPUT`: an enum
        constant is no chunk of its own) names its owner: the owner takes the member's place among the names. When
        a candidate's chunk holds the member (http-rb's `class JSON`, small enough to stay in the chunk of the module
        `HTTP.MimeType` that its file reopens), the owner's definitions that do not hold it are not named (`held`):
        `MimeType::JSON` asks for mime_type/json.rb, not the registry in mime_type.rb."""
        undefined = {m: o for m, o in self.owners.items() if m in self.names}
        if not undefined or any(_own_name(c) in undefined for c in candidates):
            return self
        names = list(dict.fromkeys(undefined.get(n, n) for n in self.names))
        held = {o: f"{o}.{m}" for m, o in undefined.items()
                if any(_ends_with(s, f"{o}.{m}") for c in candidates for s in c.symbols)}
        return dataclasses.replace(self, names=names, lowered=self.lowered | {n.lower() for n in names},
                                   qualified={k: v for k, v in self.qualified.items() if k not in undefined}, held=held)

    def held_whole(self, candidates: Sequence[Scored]) -> _Cues:
        """A class kept whole in one chunk defines its methods: asked for `Rack::Session::Pool#delete_session`, the
        chunk of `Pool` (55 lines, its five methods inside) is that definition, not the `delete_session` of the other
        stores, which have chunks of their own. Not a split class's header, which lists a member whose own chunk is
        a candidate."""
        forms = [form for owned in self.qualified.values() for form in owned]
        own_chunks = {(c.file, c.symbol) for c in candidates}
        return dataclasses.replace(self, holders={c.id for c in candidates if c.kind == "class" and any(
            s != c.symbol and (c.file, s) not in own_chunks and _ends_with(s, form) for s in c.symbols for form in forms)})

    def spelled_as_defined(self, candidates: Sequence[Scored]) -> _Cues:
        """For a question that is only a name some candidate defines as written: the definition's bonus raised to
        bare_definition, above what merely resembles the name (`between` and `rank` functions beside the `Between`
        and `Rank` classes asked for)."""
        if not self.bare:
            return self
        written = {own for c in candidates if (own := _own_name(c)) and self.writes(own)}
        if not written:
            return self
        free = {own for c in candidates if (own := _own_name(c)) in written and c.symbol == own
                and own not in self.qualified}
        return dataclasses.replace(self, defined=True, free=free)

    def spelled_in_forms(self, candidates: Sequence[Scored]) -> _Cues:
        """The Java classes among the candidates whose whole name (two words or more) a question opens with, its
        words in order, each as written or in another form (the stem, one the start of the other, same_root): "class
        utility methods for reflection ..." is about `ClassUtils`, "bean deserialization from JSON properties" about
        `BeanDeserializer`, where a sibling sharing a word of the name (`MethodUtils`, `BeanAsArrayDeserializer`)
        stood first. Only at the question's start: further in, a name in words is as often context ("tests of event
        listeners for each policy"). Names spelled_names finds as written are left to it (and spelled_outgrown)."""
        from code_intel.index.text import split_identifier

        opening = [w.lower() for w in re.findall(r"[A-Za-z]+(?:_[A-Za-z]+)*", self.lowered_query)]
        formed = {own.lower() for c in candidates if c.kind == "class" and (own := _own_name(c))
                  and own.lower() not in self.spelled and in_java(c) and _opens_with_name(split_identifier(own), opening)}
        return dataclasses.replace(self, formed=formed) if formed else self

    def spelled_outgrown(self, candidates: Sequence[Scored]) -> _Cues:
        """A spelled name that a longer Java class among the candidates extends with words the question also writes
        is the longer one's context, not its subject: "exception thrown when the circuit breaker is open" spells
        `CircuitBreaker` and means `CircuitBreakerOpenException`; "bursty rate limiter ..." `BurstyRateLimiterStats`."""
        if not self.spelled:
            return self
        from code_intel.index.text import split_identifier

        asked = set(re.findall(r"[a-z]+", self.lowered_query))
        outgrown = set()
        for c in candidates:
            own = _own_name(c)
            if c.kind != "class" or not own or not in_java(c):
                continue
            words = [w.lower() for w in split_identifier(own)]
            for i in range(len(words) - 1):
                pair = words[i] + words[i + 1]
                if pair in self.spelled and any(w in asked for w in words[:i] + words[i + 2:]):
                    outgrown.add(pair)
        return dataclasses.replace(self, spelled=self.spelled - outgrown) if outgrown else self

    def distinctive(self, candidates: Sequence[Scored]) -> _Cues:
        """A sentence's names without those that candidates in two or more files define: an override or an
        interface's method (org.json's "instead of toString": eight files define `toString`; zod's `superRefine` in
        three schema files) points at none of them, and its definition bonus lifted them all above the answer. A question
        that is only the name (one word, even a namespaced one that reads as several: PHP's
        `Illuminate\\Contracts\\Cache\\Repository`), and a keyword the agent passes, keep it."""
        if self.bare or not self.names or len(self.lowered_query.split()) == 1:
            return self
        files: dict[str, set[str]] = {}
        for c in candidates:
            if (own := _own_name(c)) in self.names:
                files.setdefault(own, set()).add(c.file)
        shared = {name for name, where in files.items() if len(where) > 1}
        return dataclasses.replace(self, names=[n for n in self.names if n not in shared]) if shared else self


def _opens_with_name(name: Sequence[str], words: Sequence[str]) -> bool:
    """A name's words (two or more) are a question's first words, in order, each in some form (_same_word)."""
    return 1 < len(name) <= len(words) and all(_same_word(a, b) for a, b in zip(name, words, strict=False))


def _same_word(a: str, b: str) -> bool:
    """Two forms of one word: the same stem, one stem the start of the other (`utils`, "utility"), same_root."""
    from code_intel.index.text import stem

    x, y = stem(a), stem(b)
    return x == y or _same_start(x, y) or same_root(a, b)


def _current_definitions(candidates: Sequence[Scored], cues: _Cues) -> set[str]:
    """The definitions (_definition_key) of names the question writes that a candidate outside legacy and
    older version folders, and not marked deprecated, holds: their copies under pydantic's `v1/` or zod's `v3/`, and
    deprecated overloads, then get no definition bonus, only the near bonus at most (a name only the old copy
    defines keeps its bonus, and so does a deprecated `Builder` beside the current `Option.Builder`: another
    definition, not a newer copy of it)."""
    out: set[str] = set()
    for c in candidates:
        own = _own_name(c)
        if own and cues.writes(own) and not (c.deprecated or _in_old_copy(c, cues)):
            out.add(_definition_key(c))
    return out


def _definition_key(c: Scored) -> str:
    """A definition's qualified name as its copies share it (`Field`, `CoroutineScope.launch`), lower-cased."""
    return c.symbol.replace("::", ".").lower()


def _in_old_copy(c: Scored, cues: _Cues) -> bool:
    """The chunk's file is a copy kept for old callers: under a legacy folder, or an older version folder."""
    return bool(_LEGACY.search(c.file) or c.file in cues.older)


def _own_name(c: Scored) -> str:
    """The name a class or function chunk defines (the last part of its symbol); "" for a part or module code,
    which define nothing, and for a constructor (`ObjectMapper.ObjectMapper` in Java, C#, C++): it bears the class's
    name but is not where the class is defined, and a large class has several of them to crowd out its header."""
    from code_intel.index.text import written_name

    if c.kind not in ("class", "function"):
        return ""
    owner, _, own = c.symbol.rpartition(".")
    return "" if c.kind == "function" and owner.rpartition(".")[2] == own else written_name(own)


def _ends_with(symbol: str, qualified: str) -> bool:
    """`Rack.Builder` ends with `Builder` and `Rack.Builder`, not with `Sinatra.Builder`; `::` reads as `.`. The owner
    is what is compared, not a Ruby suffix (`Errors.empty` ends `Errors.empty?`)."""
    from code_intel.index.text import written_name

    owner, dot, last = symbol.replace("::", ".").rpartition(".")
    symbol = owner + dot + written_name(last)
    return symbol == qualified or symbol.endswith("." + qualified)


def _adjusted(c: Scored, score: float, cues: _Cues, w: CodeRanking) -> tuple[float, float]:
    """The fused score moved by what the chunk is, and the bonus it took for defining a name the question writes
    (rank_code's merit leaves it out); the steps keep their order so the sums stay bit-identical."""
    written = 0.0
    if c.role not in cues.wanted:
        score -= w.role_penalty.get(c.role, 0.0)
    if c.kind in ("module", "part"):
        score -= w.module_penalty
    old = _in_old_copy(c, cues)
    if old:
        score -= w.legacy_penalty
    if _idle(c):
        score -= w.idle
    own = _own_name(c)
    if cues.used.intersection(c.implements):
        score += w.implementation  # `impl SeqAccess for X`, `class Hamming implements EditDistance`, for their uses
    elif _names(c, cues, own, old):
        written = w.bare_definition if cues.defined else w.definition
        score += written
    elif own and cues.bare and own.lower() in cues.lowered:
        score += w.near_definition
    elif c.kind == "class" and (own.lower() in cues.spelled or own.lower() in cues.formed and in_java(c)):
        score += w.spelled
    elif c.command and re.search(rf"(?<![\w-]){re.escape(c.command)}(?![\w-])", cues.lowered_query):
        score += w.spelled  # the question writes the command line a shell dispatcher's branch runs (`nvm use`)
    if names_its_file(c.kind, c.symbol, c.file):
        score += w.file_type
    if cues.terms:
        score += w.path * path_words(cues.terms, file_words(c.file)) / len(cues.terms)
    score -= w.name_length * max(len(_name_words(c.file)) - 1, 0)
    return score, written


def file_words(file: str) -> list[str]:
    """The words of a file's name that a question's words are matched against: its stem's and its folder's (the
    parent's alone, as semble matches it), which says what kind of thing the stem names: "the fetch adapter" is
    axios' adapters/fetch.js, not the registry adapters/adapters.js beside it, "defaults" its defaults/index.js, and
    "how guards decide whether a route matches a request" actix-web's guard/mod.rs above route.rs. For every
    question, not only a short one (t-folder: the semble-manner dev sets and the developer questions gain)."""
    from code_intel.index.text import lexical_tokens

    path = PurePosixPath(file)
    return lexical_tokens(path.stem) + lexical_tokens(path.parent.name)


def _idle(c: Scored) -> bool:
    """A Java method whose work is done elsewhere: an accessor (chunker.accessor: commons-csv's `getIgnoreEmptyLines`,
    "Gets whether empty lines between records are ignored when parsing input", beside the lexer that skips them), or
    a deprecated method kept for old callers beside its replacement (`CSVFormat.withQuote`, which builds a copy
    through `Builder.setQuote`). Java only (BODILESS_LANGUAGES), as measured: Python's deprecated functions are asked
    for by their own docstrings. In Ruby the accessor mark is a method of one line or of a body with no condition,
    loop or block (chunker._idle_ruby): a reader, a predicate over a field, a call handed on (hanami-controller's
    `session_enabled?` above the methods that write the session), arguments stored or prepared for the method that
    does the work (thor's `create_link`)."""
    return c.accessor or (c.deprecated and c.kind == "function" and in_java(c))


def names_its_file(kind: str, symbol: str, file: str) -> bool:
    """The chunk is the header of the type its file is named after (`ObjectUtils` in ObjectUtils.java); the last
    part of a qualified name counts (C#'s and C++'s types are qualified by their namespace: `MessagePack.Serializer`)."""
    return kind == "class" and symbol.rpartition(".")[2] == PurePosixPath(file).stem


def _names(c: Scored, cues: _Cues, own: str, old: bool) -> bool:
    """The chunk defines a name the question writes (under the owner written, if any), and is not shadowed: a copy
    kept for old callers (`old`), or a deprecated overload, of a name a current definition defines (a deprecated
    definition takes no penalty otherwise: a question describing it is still asking for it). A class kept whole
    defines the member asked with its owner that it holds (`_Cues.held_whole`)."""
    shadowed = (old or c.deprecated) and _definition_key(c) in cues.current
    if own in cues.held and not any(_ends_with(s, cues.held[own]) for s in c.symbols):
        return False  # the owner asked for a member some chunk of it holds: its other definitions are not named
    return not shadowed and (c.id in cues.holders or bool(own and cues.writes(own) and not cues.owner_differs(
        own, c.symbol) and not (own in cues.free and c.symbol != own)))  # `basic_auth` asked bare: the free function


def _one_per_definition(candidates: list[Scored]) -> list[Scored]:
    """A function too long for one chunk is cut into windows: the one holding its declaration (`def eager`, kind
    `function`) and parts (its long doc comment above, the rest of its body below). The parts stand for the
    declaration window, which takes the best of their scores: the answer is the definition, not a page of its doc
    (sequel's `eager`: the first window of its 75-line doc ranked first, the `def` under it nowhere). A part goes to
    the window holding its declaration's line, so two overloads of one name in a file keep their own scores. The
    declaration window that takes the score of a window of its body reaches down to it (`Scored.lines`): the result
    runs from the declaration through the lines that matched (got's `create`, 250 lines whose window on pagination
    limits was the match, had answered with its first 55 lines); a doc window above leaves the declaration's lines."""
    declarations: dict[tuple[str, str], list[Scored]] = {}
    for c in candidates:
        if c.kind == "function":
            declarations.setdefault((c.file, c.symbol), []).append(c)
    kept = []
    reach: dict[str, tuple[Scored, Scored]] = {}
    for c in candidates:
        owner = next((d for d in declarations.get((c.file, c.symbol), []) if d.lines[0] <= c.decl_line <= d.lines[1]),
                     None) if c.kind == "part" else None
        if owner is None:
            kept.append(c)
        elif c.score > owner.score:
            owner.score = c.score
            reach[owner.id] = (owner, c)
    for owner, part in reach.values():  # after the loop: the owner lookup above reads the declarations' own lines
        owner.lines = (owner.lines[0], max(owner.lines[1], part.lines[1]))
    return kept


def path_words(terms: set[str], words: Sequence[str]) -> int:
    """How many of the question's words a file's name carries, in the same form or another one: one word the start
    of the other, at least PATH_PREFIX letters (`select` -> Selector.java, `serialize` -> serializers.py,
    `configuration` -> config.py), which the light stemmer does not join; shorter ones only as they are (`de`)."""
    names = set(words)
    return sum(1 for t in terms if t in names or any(_same_start(t, n) for n in names))


def _same_start(a: str, b: str) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= PATH_PREFIX and long.startswith(short)


def _add_file_support(ordered: list[Scored], w: CodeRanking) -> None:
    """A file whose second to fourth candidates also score rises: several hits in one file back each other. A method
    without a body takes no part: an interface's or abstract class's declarations share the words of every
    implementation, and backed the contract's file above the class that does the work (jackson-core's `PrettyPrinter`
    above `DefaultPrettyPrinter`, `TokenStreamFactory` above `JsonFactory`). A Ruby file with one candidate backs it
    with `lone_file` of its score: a small file's other methods rarely share the question's words, and without it a
    large file's many candidates lifted its best above the small file that answers (warden's `Strategies.add` below
    `Proxy`'s methods for "registering a custom strategy"). Ruby only (LONE_LANGUAGES), as measured: the Java dev
    sets lose with it. The support lifts each file's best chunk; its later chunks only in the leading file
    (_backing_files)."""
    from code_intel.languages.table import language_for

    by_file: dict[str, list[float]] = {}
    for c in ordered:
        if not c.bodiless:
            by_file.setdefault(c.file, []).append(c.score)
    support = {f: w.lone_file * max(v[0], 0.0) if len(v) == 1 and language_for(f) in LONE_LANGUAGES
               else sum(max(s, 0.0) for s in v[1:4]) / 3 for f, v in by_file.items()}
    lift = {c.id: w.file_support * support[c.file] for c in ordered if not c.bodiless}
    backed = _backing_files(ordered, lift)
    seen: set[str] = set()
    for c in ordered:
        if not c.bodiless:
            if c.file not in seen or c.file in backed:
                c.score += lift[c.id]
            seen.add(c.file)


def _backing_files(ordered: list[Scored], lift: dict[str, float]) -> set[str]:
    """The files whose later chunks file support lifts as well as their best: the file that leads (its best chunk
    with its support scores highest: a question about one function of the right file finds it among its siblings).
    Any other file's support lifts its best chunk alone: its second and third chunks compete on their own scores
    with the next files' best, which a question about how several files fit together asks for (pydantic's
    `types.py` for "how are model fields declared and constrained" was 11th, behind the second chunks of `main.py`
    and `mypy.py`, each lifted by its file's support)."""
    head: dict[str, float] = {}
    for c in ordered:
        if not c.bodiless and c.file not in head:
            head[c.file] = c.score + lift[c.id]
    best = max(head.values(), default=0.0)
    return {f for f, score in head.items() if score >= best}


def _decay_repeats(ordered: list[Scored], w: CodeRanking, share: bool, how: bool = False, topic: bool = False) -> None:
    """A file's later chunks decay so that one file does not fill the answer; less so for a file that holds a large
    share of the candidates (a central file of thousands of lines, beside a few small ones: with the full decay, its
    third chunk fell below every small file's best, relevant or not). The share is counted over the implementation
    candidates: a central file's tests and docs do not dilute it (nvm.sh beside one test script per function). Not
    for a question that is only a name (`share` False): it asks for the definition, and the rest of its file answers
    less than other files do (the subclass, the configuration beside `Rails::Engine`). A short overload of a function
    its file already placed (the same qualified name, SHORT_OVERLOAD lines or fewer) takes the full decay however
    central its file: it is one more way into work the answer already shows, most often a forwarder to the overload
    that does it, and a central file's family of overloads otherwise fills the answer (msgpack-java's `MessagePack`,
    whose `newDefaultUnpacker` and `newUnpacker` overloads for streams, channels and arrays held seven of the ten
    for "how packers and unpackers are created ...", leaving out the packer and unpacker themselves). A heading that
    names how something works (`how`, asks_how) gives a file's later chunks the full decay too, and a stronger one
    (`how_decay`, semble's halving): it mostly wants the files that do the work, each as a whole, not a long file's
    further functions; not in Ruby (SPAN_LANGUAGES), whose "how" questions ask for a central file's methods about as
    often as for whole files. A topic (`topic`, is_topic: "JSON-specific mapper builder", "observable mutable state
    container") takes the full decay in Java and Kotlin (FILE_TOPIC_LANGUAGES): a file holds one class named after
    it, and a topic names classes, each asked for whole, not a central class's further methods (t-java, thirty-fourth
    round; in every language it cost the developer questions, t-repshare2)."""
    from code_intel.languages.table import language_for

    code = [c.file for c in ordered if c.role == "implementation"]
    held = Counter(code)
    seen: dict[str, int] = {}
    placed: set[tuple[str, str]] = set()
    for c in ordered:
        n = seen.get(c.file, 0)
        seen[c.file] = n + 1
        overload = (c.kind == "function" and (c.file, c.symbol) in placed
                    and c.lines[1] - c.lines[0] < SHORT_OVERLOAD)
        placed.add((c.file, c.symbol))
        if n >= w.repeat_from and c.score > 0:
            language = language_for(c.file) if how or topic else ""  # looked up only where it decides
            heading = how and language not in SPAN_LANGUAGES
            whole = heading or topic and language in FILE_TOPIC_LANGUAGES
            central = 0.0 if overload or whole else (share * w.repeat_share * held[c.file] / max(len(code), 1))
            decay = min(w.repeat_decay, w.how_decay) if heading else w.repeat_decay
            c.score *= (decay ** (1.0 - central)) ** (n - w.repeat_from + 1)
