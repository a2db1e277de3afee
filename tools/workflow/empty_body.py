"""Is a span of source lines an empty implementation? A small, language-aware lexical judge.

The span is split into statements (comments removed, strings kept whole). Signature lines, block
braces, decorators and docstrings do not count; what is left must contain at least one statement
that is not a placeholder. A span that only declares types (a class, struct or interface with an
empty body, e.g. `class InvalidToken(AuthError): pass`) is a real declaration, not a stub. So is a
Python signature whose `...` body is the whole point: a type stub (`.pyi`), a method of a `Protocol`
class, an `@abstractmethod` of an ABC, an `@overload` of a function implemented in the same file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Family = Literal["hash", "c", "rust"]  # rust: C-style, but 'a is a lifetime, not a char

# Languages whose comments start with '#' and blocks are indentation or keywords.
_HASH_LANGUAGES = frozenset({"python", "ruby", "bash"})
# Languages with // and /* */ comments and brace blocks (the C family and its descendants).
_C_LANGUAGES = frozenset({
    "javascript", "typescript", "tsx", "go", "java", "kotlin", "c", "cpp", "csharp",
    "php", "swift", "scala",
})

_NOT_IMPLEMENTED_TEXT = r"(?:not\s+(?:yet\s+)?implemented|unimplemented|not\s+supported\s+yet|implement\s+me|\btodo\b|\bfixme\b)"
# The same, stricter, for error values (`errors.New("...")`, `Err("...")`): a bare "todo" counts only
# when the message is about the code ("TODO", "todo: later"), not in "todo not found" of a to-do app.
_NOT_IMPLEMENTED_MESSAGE = (r"(?:not\s+(?:yet\s+)?implemented|unimplemented|not\s+supported\s+yet|implement\s+me"
                            r"|\b(?:todo|fixme)\b(?=\s*[\"'`:!.\-]))")
# A constant a placeholder hands back: literals, empty collections, default values, in each language's spelling.
_CONSTANT_ATOM = (
    r"(?:None|null|nil|undefined|NULL|nullptr|true|false|True|False|-?\d+(?:\.\d+)?|0[xX]0|\"\"|''|``|\[\]|\{\}|\(\)"
    r"|(?:[A-Z]\w*(?:<[^<>()]*>)?::)+(?:new|default)\(\)"  # Vec::new(), Default::default(), Self::default()
    r"|(?:empty|listOf|mapOf|setOf|arrayOf|mutableListOf)\w*\(\)|Collections\.empty\w*\(\)|Optional\.empty\(\)"
    r"|new\s+[\w.]+(?:<[^<>()]*>)?\(\)|default(?:\([\w.<>\[\]?]*\))?|[Ss]tring\.Empty|Task\.CompletedTask)"
)
# One level of wrapping: Ok(()), Some(Default::default()), Task.FromResult(0), Promise.resolve(null).
_CONSTANT = rf"(?:(?:Ok|Some|Box::new|Task\.FromResult|Promise\.resolve)\(\s*{_CONSTANT_ATOM}?\s*\)|{_CONSTANT_ATOM})"
_CONSTANTS = rf"{_CONSTANT}(?:\s*,\s*{_CONSTANT})*"  # Go returns several: `return nil, nil`
# An error value whose message says the code is missing: errors.New("not implemented"), Err("TODO".into()).
_NOT_IMPLEMENTED_VALUE = (r"(?:new\s+)?[\w.:]+!?\s*\(\s*(?:(?:new\s+)?[\w.:]+!?\s*\(\s*)?[\"'`][^\"'`]*"
                          + _NOT_IMPLEMENTED_MESSAGE + r".*\)")
_PLACEHOLDERS = [re.compile(p, re.IGNORECASE | re.DOTALL) for p in (
    r"pass",
    r"\.\.\.",
    r"\?\?\?",  # Scala
    r"raise\s+NotImplemented(?:Error)?(?:\s*\(.*\))?",
    r"raise\s+[\w.]+\s*\(\s*[rbuf]*[\"'].*" + _NOT_IMPLEMENTED_TEXT + r".*\)",
    r"throw\s+new\s+NotImplemented\w*\s*\(.*\)",
    r"throw\s+(?:new\s+)?[\w.:]+\s*\(\s*[\"'`@]*.*" + _NOT_IMPLEMENTED_TEXT + r".*\)",
    r"throw\s+[\"'`][^\"'`]*" + _NOT_IMPLEMENTED_TEXT + r".*",  # JS: throw "not implemented"
    r"(?:todo|unimplemented)!\s*[\(\[{].*[\)\]}]",
    r"panic!?\s*\(\s*(?:[\w.:]+\s*\(\s*)?[\"'`].*" + _NOT_IMPLEMENTED_TEXT + r".*\)",  # also panic(errors.New("..."))
    r"throw\s+(?:new\s+)?(?:java\.lang\.|kotlin\.)?UnsupportedOperationException\s*\(.*\)",
    r"(?:kotlin\.)?TODO\s*\(.*\)",  # Kotlin's TODO("reason")
    r"return\s+NotImplemented",
    rf"(?:return\s+(?:{_CONSTANTS}\s*,\s*)?)?{_NOT_IMPLEMENTED_VALUE}",  # Go's (nil, errors.New(..)), Rust's Err(..)
)]
# Comments that say the code around them is unfinished.
_UNFINISHED_COMMENT = re.compile(r"\b(?:TODO|FIXME|XXX|HACK)\b|" + _NOT_IMPLEMENTED_TEXT, re.IGNORECASE)
# `return <constant>` or a bare constant (a Rust tail expression, an expression body): a stand-in
# value, a placeholder when a comment in the span says the work is unfinished.
_STAND_IN = re.compile(rf"(?:return\s+{_CONSTANTS}|return|{_CONSTANTS})", re.DOTALL)
# Kotlin / Scala declarations whose body may follow `=`: `override fun f(): Int = TODO()`, `def f = ???`.
_EXPRESSION_BODIED = re.compile(r"^(?:@[\w.]+(?:\([^()]*\))?\s+|[a-z]+\s+)*(?:fun|def)\b")
# A line ending in `=>` or a lone `=`: the expression goes on on the next line.
_CONTINUED = re.compile(r"(?:=>|(?<![=!<>+\-*/%&|^:])=)$")
_PYTHON_DEF = re.compile(r"^(?:async\s+)?def\b")
_PYTHON_CLASS = re.compile(r"^class\b")
# Decorators that make a Python def a declaration: its body is `...`, `pass` or a NotImplementedError on purpose.
_OVERLOAD = re.compile(r"^@(?:[\w.]+\.)?overload\b")
_ABSTRACT = re.compile(r"^@(?:[\w.]+\.)?(?:abstractmethod|abstractproperty|abstractclassmethod|abstractstaticmethod)\b")
_DEF_NAME = re.compile(r"^(?:async\s+)?def\s+(\w+)")
# A class header that makes @abstractmethod mean something: ABC or ABCMeta among its bases, or a Protocol.
_ABSTRACT_CLASS = re.compile(r"^class\s+\w+\s*(?:\[[^\]]*\])?\s*\(.*\b(?:ABC|ABCMeta|Protocol)\b")
# A class header whose bases name typing's Protocol (`class P(Protocol):`, `class P(typing.Protocol[T]):`).
_PROTOCOL_CLASS = re.compile(r"^class\s+\w+\s*(?:\[[^\]]*\])?\s*\((?:[^()]*[,(\s])?(?:[\w.]+\.)?Protocol\b")
# Before the first '(' of a block header: a keyword that declares a type rather than code.
_TYPE_HEADER = re.compile(
    r"^[^(]*\b(?:class|struct|interface|enum|trait|impl|union|record|namespace|object|type|module|extension|protocol)\b"
)
_CALLABLE_HEADER = re.compile(r"=>|\bfunction\b|\bfunc\b|\bfn\b")
_VALUE_HEADER = re.compile(r"(?<![=!<>+\-*/%&|^])=(?![=>])|:=|^return\b|^yield\b")
_STRING_LITERAL = re.compile(r"^[rRbBuUfF]{0,2}(?:\"\"\".*\"\"\"|'''.*'''|\"[^\"\n]*\"|'[^'\n]*'|`[^`]*`)$", re.DOTALL)


def family_for(language: str | None) -> Family | None:
    """How the language writes comments and blocks; None for data and markup files."""
    if language in _HASH_LANGUAGES:
        return "hash"
    if language == "rust":
        return "rust"
    if language in _C_LANGUAGES:
        return "c"
    return None


@dataclass
class _Segment:
    kind: Literal["code", "string", "comment"]
    text: str


def _string_end(text: str, i: int, family: Family) -> int:
    """Index just past the string literal that opens at text[i]."""
    quote = text[i]
    if family == "hash" and text.startswith(quote * 3, i):
        close = text.find(quote * 3, i + 3)
        return len(text) if close < 0 else close + 3
    j = i + 1
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == quote:
            return j + 1
        if ch == "\n" and quote != "`":
            return j  # unterminated on this line: stop so one stray quote cannot swallow the file
        j += 1
    return len(text)


def _segments(text: str, family: Family) -> Iterator[_Segment]:
    """Code, string and comment pieces of the text, in order."""
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        comment_end = -1
        braces = family != "hash"
        if ch == "#" and not braces or braces and text.startswith("//", i):
            newline = text.find("\n", i)
            comment_end = n if newline < 0 else newline
        elif braces and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            comment_end = n if close < 0 else close + 2
        elif ch in "\"'" or ch == "`" and braces:
            if ch == "'" and family == "rust" and not re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:i + 12]):
                i += 1  # a Rust lifetime ('a) or a stray apostrophe, not a char literal
                continue
            if i > start:
                yield _Segment("code", text[start:i])
            end = _string_end(text, i, family)
            yield _Segment("string", text[i:end])
            i = start = end
            continue
        if comment_end >= 0:
            if i > start:
                yield _Segment("code", text[start:i])
            yield _Segment("comment", text[i:comment_end])
            i = start = comment_end
            continue
        i += 1
    if start < n:
        yield _Segment("code", text[start:])


@dataclass
class _Chunk:
    text: str
    ends_with: str  # "\n", ";", "{", "}" or "" at the end of the span


def _chunks(text: str, family: Family) -> list[_Chunk]:
    """Statements of the span, split at newlines and ';' outside brackets (and at braces in the C family)."""
    chunks: list[_Chunk] = []
    buf: list[str] = []
    depth = 0
    continued = False
    openers, closers = ("([{", ")]}") if family == "hash" else ("([", ")]")
    for seg in _segments(text, family):
        if seg.kind == "string":
            buf.append(seg.text)
            continue
        if seg.kind == "comment":
            continue
        for ch in seg.text:
            if ch in openers:
                depth += 1
            elif ch in closers:
                depth = max(0, depth - 1)
            if continued and ch == "\n":
                continued = False
                continue  # a backslash-continued line joins the next one
            continued = ch == "\\" and family == "hash"
            if continued:
                continue
            if depth == 0 and (ch in "\n;" or family != "hash" and ch in "{}"):
                chunks.append(_Chunk("".join(buf).strip(), ch))
                buf = []
                continue
            buf.append(ch)
    chunks.append(_Chunk("".join(buf).strip(), ""))
    return chunks


def _python_header_split(statement: str) -> tuple[str, str]:
    """`def f(x) -> T: body` -> (header, inline body); the header ends at the first ':' outside brackets."""
    depth = 0
    for i, ch in enumerate(statement):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            return statement[: i + 1], statement[i + 1 :].strip()
    return statement, ""


def _is_placeholder(statement: str) -> bool:
    flat = statement.strip().rstrip(";").strip()
    return any(p.fullmatch(flat) for p in _PLACEHOLDERS)


@dataclass
class _Verdict:
    real_code: bool = False
    callable_headers: int = 0
    type_headers: int = 0
    unfinished: bool = False  # a TODO/FIXME comment in the span: a constant return is a stand-in

    def statement(self, text: str) -> None:
        text = text.strip().rstrip(";").strip()
        if not text or text == "end" or _is_placeholder(text) or _STRING_LITERAL.fullmatch(text):
            return  # blank, a stub statement, or a docstring / directive string
        if self.unfinished and _STAND_IN.fullmatch(text):
            return  # `return None  # TODO`, `Ok(()) // TODO`, `= emptyList() // FIXME`: a placeholder value
        self.real_code = True


@dataclass(frozen=True)
class Declarations:
    """Where a Python signature with a `...` body is a declaration rather than a stub.

    `everything`: the span declares (a `.pyi` stub, the body of a Protocol class). `abstract`: an
    `@abstractmethod` here means something (its class is an ABC or a Protocol). `implemented`: names with a
    def that is not an `@overload` in the file, so an overload of one of them is only a signature."""

    everything: bool = False
    abstract: bool = True
    implemented: frozenset[str] | None = None  # None: any overload counts (a span judged without its file)


def _judge_hash(chunks: list[_Chunk], unfinished: bool, declarations: Declarations) -> _Verdict:
    verdict = _Verdict(unfinished=unfinished)
    everything, abstract_ok = declarations.everything, declarations.abstract
    overload = abstract = False  # decorators seen since the last statement
    for chunk in chunks:
        text = chunk.text
        if text.startswith("@"):
            overload = overload or bool(_OVERLOAD.match(text))
            abstract = abstract or bool(_ABSTRACT.match(text))
            continue  # a decorator belongs to the signature
        if _PYTHON_DEF.match(text) or _PYTHON_CLASS.match(text):
            header, inline_body = _python_header_split(text)
            name = _DEF_NAME.match(header)
            if _PYTHON_CLASS.match(header):
                verdict.type_headers += 1
                everything = everything or bool(_PROTOCOL_CLASS.match(header))
                abstract_ok = abstract_ok or bool(_ABSTRACT_CLASS.match(header))
            elif (everything or abstract and abstract_ok
                  or overload and name is not None and (declarations.implemented is None
                                                        or name[1] in declarations.implemented)):
                verdict.type_headers += 1  # a stub, overload, abstract or Protocol method: a declaration
            else:
                verdict.callable_headers += 1
            overload = abstract = False
            verdict.statement(inline_body)
            continue
        if text:
            overload = abstract = False
        verdict.statement(text)
    return verdict


_HEADER_CONTINUATIONS = ("throws", ":", "where", "->", "extends", "implements", "const", "override", "noexcept")


def _classify_header(verdict: _Verdict, header: str) -> None:
    """A line that opens a `{` block: a callable or control-flow header, a type declaration, or a value."""
    if not header:
        return
    outer = header
    while True:  # drop parenthesised parts so default arguments and conditions are not read as assignments
        inner = re.sub(r"\([^()]*\)", "()", outer)
        if inner == outer:
            break
        outer = inner
    if _CALLABLE_HEADER.search(outer):
        verdict.callable_headers += 1
    elif _VALUE_HEADER.search(outer):
        verdict.real_code = True  # `x = {...}`, `m := map[K]V{...}`, `return Foo{...}`: a value, not a block
    elif _TYPE_HEADER.match(outer):
        verdict.type_headers += 1
    else:
        verdict.callable_headers += 1


def _expression_body(text: str) -> str | None:
    """The body of an expression-bodied callable, else None: what follows the first top-level `=>`
    (arrow functions, C# members: `int F() => throw ...`), or the first top-level `=` of a Kotlin /
    Scala `fun` / `def` declaration (`fun f(x: Int = 0) = TODO()`)."""
    assigns = _EXPRESSION_BODIED.match(text) is not None
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'`":
            i = _string_end(text, i, "c")
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "=" and depth == 0:
            before, after = text[i - 1:i], text[i + 1:i + 2]
            if after == ">" and before not in ("=", "!", "<", ">"):
                return text[i + 2:].strip()
            if assigns and after not in ("=", ">") and before not in ("=", "!", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", ":"):
                return text[i + 1:].strip()
        i += 1
    return None


def _c_statement(verdict: _Verdict, text: str, family: Family) -> None:
    """A statement of the C family; an expression-bodied callable counts as its header plus its body."""
    body = _expression_body(text) if family == "c" else None  # Rust's `=>` are match arms, not bodies
    if body is None:
        verdict.statement(text)
        return
    verdict.callable_headers += 1
    if _STRING_LITERAL.fullmatch(body.rstrip(";").strip()) and not (verdict.unfinished and _STAND_IN.fullmatch(body)):
        verdict.real_code = True  # `= "Point($x)"` returns the string; it is not a docstring
        return
    verdict.statement(body)


def _judge_c(chunks: list[_Chunk], unfinished: bool, family: Family) -> _Verdict:
    verdict = _Verdict(unfinished=unfinished)
    pending: str | None = None  # a line that may be the signature of a `{` on the next line (Allman style)
    for chunk in chunks:
        text = chunk.text
        if chunk.ends_with == "{":
            header = text
            if pending is not None and (not text or text.startswith(_HEADER_CONTINUATIONS)):
                header = f"{pending} {text}".strip()
            elif pending is not None:
                _c_statement(verdict, pending, family)
            pending = None
            _classify_header(verdict, header)
            continue
        if text.startswith("@") and re.fullmatch(r"@[\w.]+(?:\(.*\))?", text, re.DOTALL):
            continue  # an annotation / decorator belongs to the signature
        if pending is not None and (text.startswith(_HEADER_CONTINUATIONS) or _CONTINUED.search(pending)):
            text = f"{pending} {text}"  # `throws X` on its own line, or the body after `=>`, continues it
        elif pending is not None:
            _c_statement(verdict, pending, family)
        pending = text if chunk.ends_with == "\n" and text else None
        if pending is None:
            _c_statement(verdict, text, family)
    if pending is not None:
        _c_statement(verdict, pending, family)
    return verdict


def is_empty_body(lines: list[str], language: str | None, *, declarations: Declarations | None = None) -> bool:
    """True when the lines hold no implementation: only signatures, comments, braces and placeholders.

    `declarations` says where a Python signature with a `...` body is a real declaration (a type stub,
    a Protocol, an abstract method, an overload); by default, wherever the span itself shows it.
    """
    text = "\n".join(lines)
    if not text.strip():
        return True
    family = family_for(language)
    if family is None:
        return False  # data or markup: any content counts
    chunks = _chunks(text, family)
    unfinished = any(seg.kind == "comment" and _UNFINISHED_COMMENT.search(seg.text) for seg in _segments(text, family))
    verdict = (_judge_hash(chunks, unfinished, declarations or Declarations()) if family == "hash"
               else _judge_c(chunks, unfinished, family))
    if verdict.real_code:
        return False
    # Only type declarations (an exception subclass, a marker struct): a real declaration.
    return not (verdict.type_headers and not verdict.callable_headers)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def decorated_start(lines: list[str], start: int, family: Family | None) -> int:
    """The index of the first decorator line right above lines[start] (a Python def or class), else `start`.

    A span that starts at `def f` is judged with its decorators, which may make it a declaration."""
    if family != "hash" or start >= len(lines) or not re.match(r"\s*(?:async\s+)?(?:def|class)\b", lines[start]):
        return start
    indent = _indent(lines[start])
    j = start
    while j > 0 and lines[j - 1].strip().startswith("@") and _indent(lines[j - 1]) == indent:
        j -= 1
    return j


def _enclosing_header(lines: list[str], start: int) -> str:
    """The first line above lines[start] with less indentation (its class or def header), stripped; '' at top level."""
    if start >= len(lines) or not lines[start].strip():
        return ""
    indent = _indent(lines[start])
    for j in range(start - 1, -1, -1):
        line = lines[j]
        if line.strip() and _indent(line) < indent:
            return line.strip()
    return ""


def python_declarations(lines: list[str], start: int, *, stub_file: bool) -> Declarations:
    """Where, for a span of a Python file starting at lines[start], a `...` body is a declaration."""
    header = _enclosing_header(lines, start)
    implemented = set()
    for j, line in enumerate(lines):
        name = _DEF_NAME.match(line.strip())
        if name is not None and not any(_OVERLOAD.match(lines[i].strip())
                                        for i in range(decorated_start(lines, j, "hash"), j)):
            implemented.add(name[1])
    return Declarations(everything=stub_file or bool(_PROTOCOL_CLASS.match(header)),
                        abstract=bool(_ABSTRACT_CLASS.match(header)), implemented=frozenset(implemented))


def block_end(lines: list[str], start: int, end: int, family: Family | None) -> int:
    """When lines[start:end] stops at a block opener, the index just past that block; else `end`.

    Lets `file.py:42` on a `def` line be judged with its body rather than as a bare signature; in the
    brace languages a span also runs on to close the brackets it opened, and past a trailing `=>` or
    `=` to the expression body on the following lines.
    """
    if family is None or end <= start:
        return end
    last = lines[end - 1].rstrip()
    if family == "hash":
        if not last.endswith(":"):
            return end
        header_indent = _indent(lines[end - 1])
        j = end
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > header_indent):
            j += 1
        while j > end and not lines[j - 1].strip():
            j -= 1
        return j
    while True:
        before = end
        if family == "c" and _CONTINUED.search(_code_of(lines[end - 1], family).rstrip()):
            # `const f = (x) =>` / `fun f(): Int =`: the expression body starts on the next line with code
            j = end
            while j < len(lines) and not _code_of(lines[j], family).strip():
                j += 1
            end = min(j + 1, len(lines))
        depth = _open_brackets("\n".join(lines[start:end]), family)
        line_no = end
        while line_no < len(lines) and depth > 0:
            depth += _open_brackets(lines[line_no], family)
            line_no += 1
        if line_no == before:
            return before
        end = line_no  # a signature over several lines may end in `=>` only now: look again


def _code_of(text: str, family: Family) -> str:
    """`text` without its strings and comments."""
    return "".join(seg.text for seg in _segments(text, family) if seg.kind == "code")


def _open_brackets(text: str, family: Family) -> int:
    """Brackets the code of `text` opens minus those it closes (strings and comments left out)."""
    code = _code_of(text, family)
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
