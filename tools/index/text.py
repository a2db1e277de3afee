"""How chunks become text for the embedding model and tokens for the lexical ranking.

Identifiers are split (`parseHTTPResponse` -> parse http response, `max_file_bytes` -> max file bytes)
because both the embedding model and BM25 match words, and code hides words inside names. BM25 tokens
are also lightly stemmed (`parses`, `parsed`, `parsing` -> `pars`) and English function words are
dropped, on the query and on the chunk alike.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Sequence

from code_intel.index.chunker import Chunk

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+|[0-9]++")  # possessive: the same words, matched with less bookkeeping
_WORD_SPLIT = re.compile(f"({_WORD.pattern})")  # split() keeps the words: text, word, text, word, ..., text
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Words so common in code that they rank nothing (keywords and very short noise).
STOP_WORDS = frozenset({
    "self", "cls", "this", "def", "return", "if", "else", "elif", "for", "in", "is", "not", "and", "or",
    "the", "a", "an", "of", "to", "none", "true", "false", "null", "var", "let", "const", "function",
    "import", "from", "as", "new", "public", "private", "protected", "static", "void", "int", "str",
    "with", "be", "it", "on", "at", "by", "that", "then", "end", "do", "func", "fn", "pass",
})
# English function words: requests are prose ("Return the list of all the headers that ..."), and these
# words say nothing about which code is meant.
ENGLISH_STOP_WORDS = frozenset("""
    about above after again against all am any are because been before being below between both but can
    could did does doing down during each few further had has have having he her here hers him his how
    i into its itself just me more most my no nor now off once only other our ours out over own same she
    should so some such than their theirs them there these they those through too under until up very
    was we were what when where which while who whom why will would you your also given whether returns
    returned otherwise may might must shall
""".split())
# Distinct words each cache below keeps: code repeats few words often; three full caches of 65,536 words held
# about 50 MB on sympy, for about 10% less time than these.
WORD_CACHE = 1 << 14
# The symbol name counts this many times in a chunk's BM25 text (a cheap BM25F field boost).
SYMBOL_BOOST = 3


def split_identifier(word: str) -> list[str]:
    """`getHTTPResponse_code2` -> ['get', 'http', 'response', 'code', '2'] (lower-cased)."""
    return list(_split(word))


@functools.lru_cache(maxsize=WORD_CACHE)
def _split(word: str) -> tuple[str, ...]:
    """Cached: code repeats its identifiers, and splitting them was most of the cost of indexing a file."""
    return tuple(map(str.lower, _CAMEL.findall(word)))  # `_`, like any character _CAMEL does not match, separates


@functools.lru_cache(maxsize=WORD_CACHE)
def _word_tokens(word: str, stemmed: bool, english: bool) -> tuple[str, ...]:
    """The BM25 tokens of one identifier (see lexical_tokens), cached per word."""
    parts = _split(word)
    out = [stem(p) if stemmed else p for p in parts
           if len(p) > 1 and p not in STOP_WORDS and not (english and p in ENGLISH_STOP_WORDS)]
    whole = word.lower()
    if len(parts) > 1 and whole not in STOP_WORDS:
        out.append(whole)
    return tuple(out)


@functools.lru_cache(maxsize=WORD_CACHE)
def _spelled(word: str) -> str:
    return " ".join(_split(word)) or word


def stem(word: str) -> str:
    """A light suffix stripper (plural, -ing, -ed, final e): 'headers' -> 'header', 'parsing' -> 'pars'."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def lexical_tokens(text: str, *, stemmed: bool = True, english: bool = True) -> list[str]:
    """Tokens for BM25: identifier parts (stemmed) plus whole identifiers, minus stop words and one-letter
    noise. `stemmed=False, english=False` gives the plain identifier-split tokens."""
    words = _WORD.findall(text)
    if stemmed and english:  # the index's and the queries' form: no Python call per word
        return list(itertools.chain.from_iterable(map(_index_tokens, words)))
    return [token for word in words for token in _word_tokens(word, stemmed, english)]


@functools.lru_cache(maxsize=WORD_CACHE)
def _index_tokens(word: str) -> tuple[str, ...]:
    return _word_tokens(word, True, True)


# body_words: a comment (a hash-comment language's `#`, else `//` and `/* */`; a Python docstring counts as one) or a
# string literal, whichever opens first
_HASH_COMMENTS = frozenset({"python", "ruby", "bash", "elixir"})
_STRING = r"""\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`"""
_SPOKEN = {True: re.compile(r"(?=[#\"'`])(?:(#[^\n]*)|(" + _STRING + "))"),  # the lookahead skips the other
           False: re.compile(r"(?=[/\"'`])(?:(//[^\n]*|/\*[\s\S]*?\*/)|(" + _STRING + "))")}  # characters at once
_CALL = re.compile(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*+)\s*\(")  # from a name's first letter only (possessive: a name
# that no `(` follows is not tried again one letter shorter)


def body_words(code: str, language: str | None, symbol: str) -> frozenset[str]:
    """The lexical tokens a function's code writes in what it does: the names it calls and its string literals (the
    errors it raises, the messages it logs, the headers and keys it reads), less the words of its own name and of
    its comments and docstring, which say what it is rather than what it does (rank_code's `subject`)."""
    spoken: list[str] = []
    strings: list[str] = []
    rest: list[str] = []
    at = 0
    for match in _SPOKEN[language in _HASH_COMMENTS].finditer(code):
        rest.append(code[at : match.start()])
        at = match.end()
        text = match.group(0)
        (spoken if match.group(1) or text.startswith(('"""', "'''")) else strings).append(text)
    rest.append(code[at:])
    written = _token_set(" ".join(_CALL.findall(" ".join(rest)) + strings))
    return frozenset(written - _token_set(" ".join(spoken)) - _token_set(symbol))


def _token_set(text: str) -> set[str]:
    """set(lexical_tokens(text)), each distinct word's tokens taken once."""
    return set(itertools.chain.from_iterable(map(_index_tokens, set(_WORD.findall(text)))))


def readable_words(names: Iterable[str]) -> str:
    """Names rewritten as words: 'UserStore.get_by_id' -> 'user store get by id'."""
    words: list[str] = []
    for name in names:
        for match in _WORD.finditer(name):
            words.extend(split_identifier(match.group(0)))
    return " ".join(words)


def written_name(symbol: str) -> str:
    """The last part of a qualified name as a question writes it, without Ruby's `?`, `!` or `=` suffix
    (`Errors.empty?` -> `empty`, `Model.save!` -> `save`; an operator such as `==` stays as it is)."""
    last = symbol.rsplit(".", 1)[-1]
    return last.rstrip("?!=") or last


def member_names(symbol: str, symbols: Sequence[str]) -> list[str]:
    """The last parts of the definitions a class chunk holds besides the class itself (`Cache.get` -> `get`)."""
    return list(dict.fromkeys(s.rsplit(".", 1)[-1] for s in symbols if s != symbol and s.startswith(symbol + ".")))


# Languages whose class headers list their members' names as words (`TryDeserializeFromMemoryStream` -> `try deserialize
# from memory stream`): the model's word pieces split a long CamelCase name into fragments that mean nothing, and a
# large C# or PHP class's header is mostly that list
SPELLED_MEMBERS = frozenset({"csharp", "php"})


def chunk_header(chunk: Chunk) -> str:
    """The line put in front of a chunk: path, kind and qualified name, the name also as plain words; a class
    also lists its members' names (a split class's header chunk holds none of their code)."""
    name = chunk.symbol or ""
    if not name:
        return f"{chunk.file}: {chunk.kind}"
    members = member_names(name, chunk.symbols) if chunk.kind == "class" else []
    spelled = chunk.language in SPELLED_MEMBERS
    listed = f" members: {readable_words(members) if spelled else ' '.join(members)}" if members else ""
    return f"{chunk.file}: {chunk.kind} {name} ({readable_words([name])}){listed}"


def spelled_out(code: str) -> str:
    """Code with compound names spelled as words (`max_file_bytes` -> `max file bytes`), punctuation kept."""
    parts = _WORD_SPLIT.split(code)
    parts[1::2] = map(_spelled, parts[1::2])  # no Python call per word: most of the cost of a regex sub
    return "".join(parts)


def embedding_text(chunk: Chunk) -> str:
    """What the model sees: the header, then the code with compound names spelled as words."""
    return f"{chunk_header(chunk)}\n{spelled_out(chunk.content)}"


def lexical_text(file: str, symbol: str, content: str, members: Sequence[str] = ()) -> str:
    """What BM25 sees: the path and the qualified name (boosted) count as words of the chunk, and so do the
    names of a class's members."""
    names = " ".join([symbol] * SYMBOL_BOOST) if symbol else ""
    return f"{file} {names} {' '.join(members)} {content}"


def indexed_texts(chunk: Chunk) -> tuple[str, list[str]]:
    """The chunk's embedding text and its BM25 tokens (`lexical_tokens` of its `lexical_text`), from one pass of the
    word pattern over its code: both need the code's words, the one spelled out, the other as tokens."""
    parts = _WORD_SPLIT.split(chunk.content)
    words = parts[1::2]
    parts[1::2] = map(_spelled, words)
    names = lexical_text(chunk.file, chunk.symbol, "", member_names(chunk.symbol, chunk.symbols))
    tokens = lexical_tokens(names)
    tokens += itertools.chain.from_iterable(map(_index_tokens, words))
    return f"{chunk_header(chunk)}\n{''.join(parts)}", tokens
