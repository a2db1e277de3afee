"""A test body as a formatter cannot change it: a body a formatter laid out anew compares equal to what it was,
a changed expectation does not (code_intel.verify.test_edits reads rewritten tests with it)."""

from __future__ import annotations

import re
from collections import Counter

# A pattern, not a grammar: a body is lines cut from a test in any of the languages test_edits reads, with no file
# around them to parse. A string literal (its quotes told apart from code), a run of whitespace, a bracket, a
# semicolon, or a run of anything else
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\s+|[()\[\]{};]|[^\s\"'()\[\]{};]+|[\"']")
_PAIRS = {")": "(", "]": "[", "}": "{"}
_WORD = re.compile(r"[\w$]")
# `(x)=>` or `(x)->` once whitespace is gone, not after a name (`f(x)->T` is a Rust signature)
_LONE_PARAMETER = re.compile(r"(?<![\w$)\]])\(([A-Za-z_$][\w$]*)\)(=>|->)")
# words after which a parenthesis opens an expression, not a call's arguments
_KEYWORDS = frozenset("assert return yield await in not and or if else elif is lambda case throw".split())


def shape(body: list[str]) -> str:
    """A body as a formatter cannot change it: either quote for a string; whitespace and semicolons outside string
    literals gone (one space kept between two words: `foo; bar()` is not `foobar()`), so that statements split
    over lines or joined on one are the same; neither the parentheses a formatter puts around an expression it
    splits over lines nor the comma it adds after the last item of a list split over lines (_layout); and a
    lambda's one parameter without parentheses (prettier's `arrowParens`: `(x) => x` is `x => x`; Java's
    `(x) -> x`)."""
    tokens = [token.group(0) for token in _TOKEN.finditer("\n".join(body))]
    parentheses, commas = _layout(tokens)
    parts: list[str] = []
    gap = False  # whitespace or a semicolon since the last part
    for at, token in enumerate(tokens):
        if at in parentheses:
            continue
        if token.isspace() or token == ";":
            gap = True
            continue
        if len(token) > 1 and token[0] in "\"'" and token[-1] == token[0]:
            inner = token[1:-1].replace("\\'", "'").replace('\\"', '"')
            token = f"\0{inner}\0"
        elif at in commas:
            token = token[:-1]
        if gap and parts and _WORD.match(parts[-1][-1:]) and _WORD.match(token[:1]):
            parts.append(" ")
        parts.append(token)
        gap = False
    return _LONE_PARAMETER.sub(r"\1\2", "".join(parts))


def _layout(tokens: list[str]) -> tuple[set[int], set[int]]:
    """What a formatter adds or takes away around items split over lines, as token indexes:

    - parentheses that only lay out an expression: `(` ending a line and its `)` starting one, around no comma at
      their level (not a tuple), with no call before them (`x = (`, `assert (`, `lambda n: (`, `=> (`);
    - tokens ending in a comma that ends a line before a closing bracket starting the next ("magic trailing
      comma"), except in parentheses that are no call and hold no other comma: `(\n    1,\n)` is a tuple."""
    opened: list[int] = []
    commas: Counter[int] = Counter()  # commas at each opening bracket's own level
    parentheses: set[int] = set()
    trailing: set[int] = set()
    for at, token in enumerate(tokens):
        if token in ("(", "[", "{"):
            opened.append(at)
        elif token in _PAIRS:
            if not opened or tokens[opened[-1]] != _PAIRS[token]:
                continue  # unbalanced (a bracket in a comment): nothing taken here
            start = opened.pop()
            starts_line = "\n" in _space(tokens, at - 1)
            call = token != ")" or _called(tokens, start)
            last = at - 2  # the token before the closing bracket, past the line break
            if starts_line and last > start and tokens[last].endswith(",") and (call or commas[start] > 1):
                trailing.add(last)
            if not call and not commas[start] and starts_line and "\n" in _space(tokens, start + 1):
                parentheses.update((start, at))
        elif opened and "," in token and token[0] not in "\"'":
            commas[opened[-1]] += token.count(",")
    return parentheses, trailing


def _space(tokens: list[str], at: int) -> str:
    return tokens[at] if 0 <= at < len(tokens) and tokens[at].isspace() else ""


def _called(tokens: list[str], start: int) -> bool:
    """Whether the `(` at `start` opens a call's (or a definition's or a macro's) arguments: a name, a closing
    bracket or `!` before it, other than a keyword."""
    before = start - 1 if not _space(tokens, start - 1) else start - 2
    if before < 0:
        return False
    last = tokens[before]
    if last[-1] in ")]!\"'":  # a call's result, or Rust's macro `assert!(`
        return True
    word = re.search(r"\w+$", last)
    return word is not None and word.group(0) not in _KEYWORDS
