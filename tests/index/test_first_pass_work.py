"""Work the first pass skips: each shortcut gives what the longer way gave (the deprecation pattern run only on texts
that spell its words, identifier parts by one pattern, tokens taken once per distinct word, possessive patterns)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_intel.index import text
from code_intel.index.chunker import _DEPRECATED, _deprecated_mark

# code-ish text: identifiers in every case, digits, underscores, punctuation, marks and non-ASCII letters
CODE_TEXT = st.lists(st.sampled_from(list("aAbBzZ_09 \n\t.,;:()[]{}<>@#*/\"'`$-=+!?") + [
    "é", "Ü", "中", "\x0b", "Deprecated", "eprecated", "@deprecated", "Obsolete", "[Obsolete", "HTTPServer", "// "]),
    max_size=40).map("".join)


def _split_reference(word: str) -> tuple[str, ...]:
    """`text._split` as it was written before: each `_`-separated piece's camel-case parts, lower-cased."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(m.group(0).lower() for m in text._CAMEL.finditer(piece))
    return tuple(parts)


@settings(max_examples=300, deadline=None)
@given(CODE_TEXT)
def test_identifier_parts_and_words_are_those_of_the_longer_way(sample: str) -> None:
    assert text._split.__wrapped__(sample) == _split_reference(sample)  # type: ignore[attr-defined]
    assert text._WORD.findall(sample) == re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", sample)
    assert text._WORD_SPLIT.split(sample) == re.split(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+)", sample)
    assert text._token_set(sample) == set(text.lexical_tokens(sample))
    assert text._CALL.findall(sample) == re.findall(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*)\s*\(", sample)
    assert _deprecated_mark(sample) == (_DEPRECATED.search(sample) is not None)


def test_identifier_parts_of_every_shape() -> None:
    for word in ["getHTTPResponse_code2", "__init__", "max_file_bytes", "XMLHttpRequest", "ABC_Def", "x2y", "_", "",
                 "parseJSON5File", "AB_Cd", "a__b"]:
        assert text._split.__wrapped__(word) == _split_reference(word), word  # type: ignore[attr-defined]


def test_body_words_calls_are_found_as_before() -> None:
    code = 'def run(self):\n    """Runs it."""\n    helper_call (x)\n    self.other_call(y)\n    abc\n    log("sent mail")\n'
    reference = re.compile(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*)\s*\(")
    assert text._CALL.findall(code) == reference.findall(code)
    assert text.body_words(code, "python", "run") == frozenset({"helper", "call", "helper_call", "other_call", "log",
                                                                "sent", "mail"})  # "other": an English stop word


@pytest.mark.parametrize("marked", ["@Deprecated\nvoid f() {}", "/** @deprecated use g */ void f();",
                                    "#[deprecated]\nfn f() {}", "// Deprecated: use G\nfunc F() {}",
                                    "[Obsolete]\nvoid F() {}", "#  Deprecated: gone\ndef f(): pass"])
def test_each_deprecation_mark_still_counts(marked: str) -> None:
    assert _deprecated_mark(marked) and _DEPRECATED.search(marked)
