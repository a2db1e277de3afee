"""Is a span of source lines an empty implementation? Judged on its tree-sitter parse.

Each language's definitions are a query (tools/languages/queries/<language>/empty_body.scm) naming callables,
type declarations, their bodies, blocks and decorators; the Python here is the same for every language.
Signatures, braces, decorators, comments and docstrings do not count; what is left must hold a statement
that is not a placeholder. A span that only declares types (`class InvalidToken(AuthError): pass`) is a real
declaration, not a stub; so is a Python signature whose `...` body is the point: a type stub (`.pyi`), a
`Protocol` member, an `@abstractmethod` of an ABC, an `@overload` of a function the file implements.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from code_intel.languages.table import compiled_query, get_parser

Node = Any  # tree_sitter.Node

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
# What a placeholder statement says, matched on the text of a statement the tree found (not a lexer).
_PLACEHOLDERS = [re.compile(p, re.IGNORECASE | re.DOTALL) for p in (
    r"pass",
    r"\.\.\.",
    r"\?\?\?",  # Scala
    r"raise\s+NotImplemented(?:Error)?(?:\s*\(.*\))?",
    r"raise\s+[\w.]+\s*\(\s*[rbuf]*[\"'].*" + _NOT_IMPLEMENTED_TEXT + r".*\)",
    r"raise\s+(?:[\w.:]+\s*,\s*)?[\"'].*" + _NOT_IMPLEMENTED_TEXT + r".*[\"']",  # Ruby, Elixir: raise "not implemented"
    r"error\s+\".*" + _NOT_IMPLEMENTED_TEXT + r".*\"",  # Haskell: error "not implemented"
    r"throw\s+new\s+NotImplemented\w*\s*\(.*\)",
    r"throw\s+(?:new\s+)?[\w.:]+\s*\(\s*[\"'`@]*.*" + _NOT_IMPLEMENTED_TEXT + r".*\)",
    r"throw\s+[\"'`][^\"'`]*" + _NOT_IMPLEMENTED_TEXT + r".*",  # JS: throw "not implemented"
    r"(?:todo|unimplemented)!\s*[\(\[{].*[\)\]}]",
    r"@?panic!?\s*\(\s*(?:[\w.:]+\s*\(\s*)?[\"'`].*" + _NOT_IMPLEMENTED_TEXT + r".*\)",  # also panic(errors.New("...")), Zig's @panic
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
# Decorators that make a Python def a declaration: its body is `...`, `pass` or a NotImplementedError on purpose.
_OVERLOAD = re.compile(r"^@(?:[\w.]+\.)?overload\b")
_ABSTRACT = re.compile(r"^@(?:[\w.]+\.)?(?:abstractmethod|abstractproperty|abstractclassmethod|abstractstaticmethod)\b")
# A class header that makes @abstractmethod mean something: ABC or ABCMeta among its bases, or a Protocol.
_ABSTRACT_CLASS = re.compile(r"^class\s+\w+\s*(?:\[[^\]]*\])?\s*\(.*\b(?:ABC|ABCMeta|Protocol)\b")
# A class header whose bases name typing's Protocol (`class P(Protocol):`, `class P(typing.Protocol[T]):`).
_PROTOCOL_CLASS = re.compile(r"^class\s+\w+\s*(?:\[[^\]]*\])?\s*\((?:[^()]*[,(\s])?(?:[\w.]+\.)?Protocol\b")
_STRING_LITERAL = re.compile(r"^[rRbBuUfF]{0,2}(?:\"\"\".*\"\"\"|'''.*'''|\"[^\"\n]*\"|'[^'\n]*'|`[^`]*`)$", re.DOTALL)

# Snippets a grammar cannot parse alone (a method without its class, PHP without its opening tag) are parsed
# again inside this wrapper; the wrapping type is not counted.
_WRAPPERS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("java", "csharp", "javascript", "typescript", "tsx", "kotlin", "swift"), ("class W {\n", "\n}")),
    "scala": ("object W {\n", "\n}"),
    "cpp": ("struct W {\n", "\n};"),
    "php": ("<?php class W {\n", "\n}"),
}
_PREFIXES = {"php": "<?php\n"}
_ROLES = ("callable", "type", "body", "block", "decorator", "ignored")
_QUERY_FILE = "empty_body.scm"


def _query(language: str) -> Any:
    """The language's empty-body query, or None when it has none (data and markup files)."""
    return compiled_query(language, _QUERY_FILE)


def judged(language: str | None) -> bool:
    """Whether spans of this language are judged (a code language with a query); other files always count."""
    return language is not None and _query(language) is not None


@dataclass(frozen=True)
class Declarations:
    """Where a Python signature with a `...` body is a declaration rather than a stub.

    `everything`: the span declares (a `.pyi` stub, the body of a Protocol class). `abstract`: an
    `@abstractmethod` here means something (its class is an ABC or a Protocol). `implemented`: names with a
    def that is not an `@overload` in the file, so an overload of one of them is only a signature."""

    everything: bool = False
    abstract: bool = True
    implemented: frozenset[str] | None = None  # None: any overload counts (a span judged without its file)


@dataclass
class _Verdict:
    real_code: bool = False
    callable_headers: int = 0
    type_headers: int = 0
    unfinished: bool = False  # a TODO/FIXME comment in the span: a constant return is a stand-in

    def statement(self, text: str, *, expression: bool = False) -> None:
        text = text.strip().rstrip(";").strip()
        if not text or any(p.fullmatch(text) for p in _PLACEHOLDERS):
            return  # blank or a stub statement
        if self.unfinished and _STAND_IN.fullmatch(text):
            return  # `return None  # TODO`, `Ok(()) // TODO`, `= emptyList() // FIXME`: a placeholder value
        if not expression and _STRING_LITERAL.fullmatch(text):
            return  # a docstring or a directive string (`= "Point($x)"`, an expression body, returns it)
        self.real_code = True


@dataclass
class _Tree:
    """One parsed span: its source, the nodes each query role captured (by node id) and its comments."""

    source: bytes
    root: Node
    roles: dict[str, set[int]]
    holders: set[int]  # nodes holding a callable or a type below them
    comments: list[Node]
    wrapper: int | None  # the id of the wrapping type, when the span was parsed inside one

    def text(self, node: Node) -> str:
        """The node's source without the comments inside it."""
        start, pieces = node.start_byte, []
        for comment in self.comments:
            if comment.start_byte >= start and comment.end_byte <= node.end_byte:
                pieces.append(self.source[start:comment.start_byte])
                start = comment.end_byte
        pieces.append(self.source[start:node.end_byte])
        return b"".join(pieces).decode("utf-8", errors="replace")

    def has(self, role: str, node: Node) -> bool:
        return node.id in self.roles[role]

    def header(self, node: Node) -> str:
        """A definition's text before its body, on one line (`class P(Protocol):`)."""
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        return " ".join(self.source[node.start_byte:end].decode("utf-8", errors="replace").split())

    def root_descendants(self, node_type: str) -> list[Node]:
        found, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if node.type == node_type:
                found.append(node)
            stack.extend(node.named_children)
        return found


def _comments(node: Node, found: list[Node]) -> list[Node]:
    for child in node.children:
        if "comment" in child.type:
            found.append(child)
        elif child.child_count:
            _comments(child, found)
    return found


def _parse(language: str, text: str, wrapper: tuple[str, str] | None) -> _Tree:
    """The span's tree (inside `wrapper` when given) and the nodes the language's query captured."""
    from tree_sitter import QueryCursor

    before, after = wrapper or (_PREFIXES.get(language, ""), "")
    source = f"{before}{text}{after}".encode()
    root = get_parser(language).parse(source).root_node
    captured = QueryCursor(_query(language)).captures(root)
    roles = {role: {node.id for node in captured.get(role, [])} for role in _ROLES}
    holders: set[int] = set()
    for role in ("callable", "type"):
        for node in captured.get(role, []):
            parent = node.parent
            while parent is not None and parent.id not in holders:
                holders.add(parent.id)
                parent = parent.parent
    wrapping = root.named_children[0].id if wrapper and root.named_children else None
    return _Tree(source, root, roles, holders, sorted(_comments(root, []), key=lambda c: c.start_byte), wrapping)


@dataclass
class _Judge:
    tree: _Tree
    language: str
    declarations: Declarations
    verdict: _Verdict = field(default_factory=_Verdict)

    def visit(self, node: Node) -> None:
        tree = self.tree
        if "comment" in node.type or tree.has("decorator", node) or tree.has("ignored", node):
            return
        if tree.has("callable", node):
            self.callable(node)
        elif tree.has("type", node):
            self.type(node)
        elif node.type == "ERROR" or node.id == tree.root.id or tree.has("body", node) or tree.has("block", node):
            self.visit_children(node)
        elif node.id in tree.holders:  # `const f = () => ...`, `export function`: only the definitions inside count
            for child in node.named_children:
                if child.id in tree.holders or tree.has("callable", child) or tree.has("type", child):
                    self.visit(child)
        else:
            self.verdict.statement(tree.text(node))

    def bodies(self, node: Node) -> list[Node]:
        found = [child for child in node.named_children if self.tree.has("body", child)]
        following = node.next_named_sibling  # Dart: a function's body follows its signature as a sibling
        if not found and following is not None and self.tree.has("callable", node) and self.tree.has("body", following):
            found.append(following)
        return found

    def callable(self, node: Node) -> None:
        bodies = self.bodies(node)
        if not bodies or self.declared(node):
            self.verdict.type_headers += 1  # a signature without a body, or a declaring Python def
        else:
            self.verdict.callable_headers += 1
        for body in bodies:
            self.body(body)

    def body(self, body: Node) -> None:
        text = self.tree.text(body).strip()
        before = self.tree.source[:body.start_byte].decode("utf-8", errors="replace").rstrip()
        if not self.tree.has("block", body) and (before.endswith(("=", "=>")) or text.startswith(("=", "=>"))):
            # an expression body: `= TODO()`, `=> a + b`, whose value a string literal is
            for node in body.named_children if text.startswith(("=", "=>")) else [body]:
                if node.id in self.tree.holders or self.tree.has("callable", node):
                    self.visit(node)
                else:
                    self.verdict.statement(self.tree.text(node), expression=True)
        elif body.named_child_count or not text.strip("{}();: \t\n"):
            self.visit_children(body)
        else:
            self.verdict.statement(text)  # a body that is one token

    def visit_children(self, node: Node) -> None:
        for child in node.named_children:
            self.visit(child)

    def type(self, node: Node) -> None:
        if node.id != self.tree.wrapper:
            self.verdict.type_headers += 1
        saved = self.declarations
        if self.language == "python":
            header = self.tree.header(node) if node.type == "class_definition" else ""
            self.declarations = Declarations(
                everything=saved.everything or bool(_PROTOCOL_CLASS.match(header)),
                abstract=saved.abstract or bool(_ABSTRACT_CLASS.match(header)), implemented=saved.implemented)
        for body in self.bodies(node):
            self.visit_children(body)
        self.declarations = saved

    def declared(self, node: Node) -> bool:
        """A Python def that declares: in a stub or a Protocol, an abstract method, an overload."""
        if self.language != "python":
            return False
        decorators = [self.tree.text(d).strip() for d in _decorators(node)]
        if self.declarations.everything:
            return True
        if self.declarations.abstract and any(_ABSTRACT.match(d) for d in decorators):
            return True
        name = node.child_by_field_name("name")
        implemented = self.declarations.implemented
        return any(_OVERLOAD.match(d) for d in decorators) and name is not None and (
            implemented is None or self.tree.text(name) in implemented)


def _decorators(node: Node) -> list[Node]:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [child for child in parent.named_children if child.type == "decorator"]


def _parsed(language: str, text: str) -> _Tree:
    tree = _parse(language, text, None)
    if tree.root.has_error and language in _WRAPPERS:
        wrapped = _parse(language, text, _WRAPPERS[language])
        if not wrapped.root.has_error:
            return wrapped
    return tree


def is_empty_body(lines: list[str], language: str | None, *, declarations: Declarations | None = None) -> bool:
    """True when the lines hold no implementation: only signatures, comments, braces and placeholders.

    `declarations` says where a Python signature with a `...` body is a real declaration (a type stub,
    a Protocol, an abstract method, an overload); by default, wherever the span itself shows it.
    """
    text = textwrap.dedent("\n".join(lines))
    if not text.strip():
        return True
    if not judged(language):
        return False  # data or markup: any content counts
    assert language is not None
    tree = _parsed(language, text)
    unfinished = any(_UNFINISHED_COMMENT.search(tree.source[c.start_byte:c.end_byte].decode(errors="replace"))
                     for c in tree.comments)
    judge = _Judge(tree, language, declarations or Declarations(), _Verdict(unfinished=unfinished))
    judge.visit(tree.root)
    verdict = judge.verdict
    if verdict.real_code:
        return False
    # Only type declarations (an exception subclass, a marker struct): a real declaration.
    return not (verdict.type_headers and not verdict.callable_headers)


@dataclass(frozen=True)
class Span:
    """The lines of a file judged for a cited range, and what they declare."""

    start: int  # 0-based, inclusive
    end: int  # exclusive
    declarations: Declarations | None = None


def judged_span(lines: list[str], start: int, end: int, language: str | None, *, stub_file: bool = False) -> Span:
    """The span to judge for lines[start:end] of a file: widened to the end of each definition or statement that
    starts in it (a `def` line is judged with its body, an arrow with the expression on the next lines), and up
    to the decorators of a definition it starts at; for Python, where a `...` body declares."""
    if not judged(language) or end <= start:
        return Span(start, end)
    assert language is not None
    tree = _parse(language, "\n".join(lines), None)
    node, widened_end = tree.root, end
    stack = [tree.root]
    while stack:  # the outermost nodes starting inside the span: each one's end is the span's end at least
        node = stack.pop()
        for child in node.children:
            first, last = child.start_point[0], child.end_point[0]
            if last < start or first >= end:
                continue
            if first >= start:
                widened_end = max(widened_end, last + 1)
            elif child.child_count:
                stack.append(child)
    first_node = _first_named_at(tree.root, start)
    widened_start = start
    if first_node is not None:
        holder = first_node.parent
        if holder is not None and holder.start_point[0] < start and any(
                tree.has("decorator", child) for child in holder.named_children):
            widened_start = holder.start_point[0]  # the decorators above a definition the span starts at
    declarations = _python_declarations(tree, first_node, stub_file=stub_file) if language == "python" else None
    return Span(widened_start, min(widened_end, len(lines)), declarations)


def _first_named_at(root: Node, row: int) -> Node | None:
    """The outermost named node that starts on line `row` (after its indentation)."""
    node = root
    while True:
        inner = next((c for c in node.named_children if c.start_point[0] <= row <= c.end_point[0]), None)
        if inner is None:
            return None
        if inner.start_point[0] == row:
            return inner
        node = inner


def _python_declarations(tree: _Tree, node: Node | None, *, stub_file: bool) -> Declarations:
    """Where, for a span starting at `node`, a `...` body is a declaration: in a stub file or a Protocol class,
    an abstract method of an ABC, an overload of a function the file implements."""
    enclosing = node.parent if node is not None else None
    while enclosing is not None and enclosing.type not in ("class_definition", "function_definition"):
        enclosing = enclosing.parent
    header = tree.header(enclosing) if enclosing is not None and enclosing.type == "class_definition" else ""
    implemented = frozenset(
        tree.text(name) for definition in tree.root_descendants("function_definition")
        if (name := definition.child_by_field_name("name")) is not None
        and not any(_OVERLOAD.match(tree.text(d).strip()) for d in _decorators(definition)))
    return Declarations(everything=stub_file or bool(_PROTOCOL_CLASS.match(header)),
                        abstract=bool(_ABSTRACT_CLASS.match(header)), implemented=implemented)
