"""Outlines from syntax trees: nested symbols, file structure (imports, classes, calls), enclosing function."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from code_intel.explore.ctags import split_dotted
from code_intel.explore.imports import read_imports
from code_intel.explore.models import CallInfo, ClassInfo, FunctionInfo, ImportInfo
from code_intel.explore.syntax import Node, ParsedFile, symbol_name_node, variable_names
from code_intel.languages.grammar import (
    FUNCTION_KINDS,
    GRAMMARS,
    TYPE_KINDS,
    Grammar,
    anonymous_class_body,
    bats_test,
    definition_word,
    exunit_block,
    implemented_for,
    lua_field_function,
    lua_function_table,
    lua_types,
    scala_given_name,
    scala_unquoted,
    subcommands,
    zig_decl_kind,
)
from code_intel.languages.table import get_language


@dataclass(slots=True)
class SymbolNode:
    name: str
    kind: str
    node: Node
    scope: str | None
    children: list[SymbolNode] = field(default_factory=list)
    last_row: int | None = None  # where it ends when its node does not say (a Lua type declared by comment lines)

    @property
    def line(self) -> int:
        return int(self.node.start_point[0]) + 1

    @property
    def end_line(self) -> int:
        return (self.last_row if self.last_row is not None else int(_end_point(self.node)[0])) + 1

    @property
    def full_node(self) -> Node:
        """The node with its decorators or annotations (Python's decorated_definition wraps the def)."""
        parent = self.node.parent
        return parent if parent is not None and parent.type == "decorated_definition" else self.node

    def data(self, file: str) -> dict[str, Any]:
        """The symbol and its children as an OutlineSymbol's fields (`file`: the file's path as answers give it):
        validating a whole outline of these at once makes the models in pydantic's core, about twice as fast as
        one model at a time."""
        start = self.node.start_point
        data = {"name": self.name, "kind": self.kind, "file": file, "line": start[0] + 1, "end_line": self.end_line,
                "children": [child.data(file) for child in self.children]}
        if self.node.type == "impl_item" and (trait := self.node.child_by_field_name("trait")) is not None:
            data["implements"] = (trait.text or b"").decode("utf-8", "replace")  # `impl fmt::Display for Version`
        return data


def _end_point(node: Node) -> Any:
    """Where a symbol ends: its node's end, or for Dart, whose grammar writes a function as its signature and then
    the body as the next sibling (of the signature, or of the `method_signature` around it), the body's end."""
    test = bats_test(node)
    if test is not None:  # a bats test's body runs to the `}` command after it
        return test[1].end_point
    anchor = node.parent if node.parent is not None and node.parent.type == "method_signature" else node
    body = anchor.next_named_sibling if node.type.endswith("_signature") else None
    return body.end_point if body is not None and body.type == "function_body" else node.end_point


# C-family type specifiers are definitions only when they carry a body.
_BODY_REQUIRED = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})


def symbol_kind(grammar: Grammar, node: Node) -> str | None:
    """The kind of symbol a node defines, or None: its type's, or for a grammar that defines with calls, the
    kind its word names (`def`, `@callback` in Elixir; a call made with another word defines nothing)."""
    if node.type == "Decl":  # Zig names a function, a type and a constant alike (zig_decl_kind)
        return zig_decl_kind(node)
    kind = grammar.symbols.get(node.type)
    if kind is not None and node.type == "command":  # bash: only a bats test's `@test "title" {` line
        return kind if bats_test(node) is not None else None
    if kind is not None and grammar.defining_calls:
        return grammar.defining_calls.get(definition_word(node))
    return kind


def _join(scope: str | None, name: str) -> str:
    return f"{scope}.{name}" if scope else name


@functools.cache
def _kind_ids(language: str, kinds: frozenset[str]) -> frozenset[int]:
    """Every node kind id of the language whose name is one of `kinds` (a name can have several ids)."""
    lang = get_language(language)
    return frozenset(i for i in range(lang.node_kind_count) if lang.node_kind_for_id(i) in kinds)


@functools.cache
def _reportable_query(language: str) -> Any:
    """One query for every node type the walk can report in this language (symbols and variable declarations)."""
    from tree_sitter import Query

    grammar = GRAMMARS[language]
    lang = get_language(language)
    named = {lang.node_kind_for_id(i) for i in range(lang.node_kind_count) if lang.node_kind_is_named(i)}
    kinds = sorted((set(grammar.symbols) | grammar.variables) & named)
    patterns = " ".join(grammar.patterns.get(k, f"({k})") for k in kinds)
    return Query(lang, "[" + patterns + "] @node") if kinds else None


def _paths_to_reportable(parsed: ParsedFile) -> dict[int, list[Node]]:
    """For every node that is, or holds, a node the walk can report: its children that are too, in document
    order. Every other subtree would yield nothing, so the walk never enters it: the query finds the
    candidates in C instead of a Python visit of every node of the tree."""
    from tree_sitter import QueryCursor

    query = _reportable_query(parsed.language)
    children: dict[int, list[Node]] = {}
    if query is None:
        return children
    found = QueryCursor(query).captures(parsed.root).get("node", [])
    seen: set[int] = set()
    # outer before inner and left before right, so each parent lists its children in document order
    for node in sorted(found, key=lambda n: (n.start_byte, -n.end_byte)):
        current = node
        while current.id not in seen:
            seen.add(current.id)
            parent = current.parent
            if parent is None:
                break
            children.setdefault(parent.id, []).append(current)
            current = parent
    return children


Children = Callable[[Node], Sequence[Node]]


class _Walk:
    """One outline walk: which children of a node it enters (`children`) and, for a grammar listing its symbols'
    keywords, where those keywords are in the source (`keyword_starts`), so that inside a function it enters
    only subtrees that can hold a symbol."""

    def __init__(self, parsed: ParsedFile, grammar: Grammar, *, query: bool) -> None:
        self.parsed, self.grammar = parsed, grammar
        self.children = _children_to_visit(parsed, grammar, query=query)
        use_keywords = grammar.keywords and grammar.opaque and not query
        self.keyword_starts = _keyword_starts(parsed.source, grammar.keywords) if use_keywords else None
        # an ExUnit test file, whose `describe "..."` blocks and `test "..."` calls are its definitions (as its chunks)
        self.exunit = parsed.language == "elixir" and parsed.path.name.endswith("_test.exs")

    def may_hold_symbols(self, node: Node, start: int) -> bool:
        """False when nothing from `start` to the end of `node` can be a symbol: the node has no parse error and
        that source none of the grammar's keywords."""
        starts = self.keyword_starts
        if starts is None or node.has_error:
            return True
        first = bisect.bisect_left(starts, start)
        return first < len(starts) and starts[first] < node.end_byte

    def symbols(self, node: Node, out: list[SymbolNode], scope: str | None, parent_kind: str | None,
                in_function: bool) -> None:
        parsed, grammar = self.parsed, self.grammar
        for child in self.children(node):
            child_type = child.type
            kind = symbol_kind(grammar, child)
            test = exunit_block(child) if self.exunit and kind is None and child_type == "call" else None
            if test is not None:  # named by its title, which holds no definition's name node
                kind = test[0]
                symbol = SymbolNode(test[1], kind, child, scope)
                out.append(symbol)
                self.symbols(child, symbol.children, _join(scope, test[1]), kind, in_function or kind in FUNCTION_KINDS)
                continue
            if kind is not None and child_type in _BODY_REQUIRED and child.child_by_field_name("body") is None:
                kind = None  # `struct s;` or `struct s *p`: a mention of the type, not its definition
            if kind is not None:
                name_node = symbol_name_node(child, parsed.language)
                # Scala 3's `given Ordering[User] with ...` is named as the compiler names it (given_Ordering_User)
                given = scala_given_name(child) if name_node is None and child_type == "given_definition" else None
                if name_node is None and given is None:  # anonymous class/struct: its members still belong to the outline
                    self.symbols(child, out, scope, parent_kind, in_function)
                    continue
                if kind == "function" and parent_kind in TYPE_KINDS:
                    kind = "method"
                if kind == "type" and child_type == "type_spec":
                    kind = _go_type_kind(child)
                if child_type == "class_declaration" and parsed.language == "swift":  # also struct, enum, actor...
                    kind = _swift_type_kind(child)
                name = given or parsed.text(name_node)
                if parsed.language == "elixir" and (implemented := implemented_for(child)) is not None:
                    name = f"{name}.{implemented}"  # as Elixir names the implementation's module (and the chunker)
                if parsed.language == "scala":  # ``object `Content-Type` `` is Content-Type
                    name = scala_unquoted(name)
                if child_type == "command":  # a bats test's title, without its quotes
                    name = name[1:-1]
                symbol = SymbolNode(name, kind, child, scope)
                out.append(symbol)
                inner = in_function or kind in FUNCTION_KINDS
                if not inner or self.may_hold_symbols(child, child.start_byte if name_node is None else name_node.end_byte):
                    self.symbols(child, symbol.children, _join(scope, name), kind, inner)
                if parsed.language == "bash" and (branches := subcommands(child)):  # nvm's `nvm install`: as its chunk
                    symbol.children.extend(SymbolNode(label, "function", item, _join(scope, name)) for label, item in branches)
                    symbol.children.sort(key=lambda c: c.line)
            elif child_type in grammar.variables and not in_function and node.type != "ERROR":
                declared = variable_names(child, parsed.language)
                if not declared and child_type == "assignment_expression":  # `a = b`: what its value holds
                    self.symbols(child, out, scope, parent_kind, in_function)
                for name_node, var_kind, value in declared:
                    # a function's span: its declarator, or the whole `exports.f = function () {...}`
                    # (Lua's `M.f = function ... end` and `local f = function ... end`: the whole statement)
                    whole = child_type == "assignment_expression" or parsed.language == "lua"
                    anchor = (child if whole else name_node.parent) if var_kind == "function" else name_node
                    text = parsed.text(name_node)
                    text = scala_unquoted(text) if parsed.language == "scala" else text
                    symbol = SymbolNode(text, var_kind, anchor if anchor is not None else name_node, scope)
                    if var_kind == "function" and parent_kind in TYPE_KINDS:
                        symbol.kind = "method"
                    out.append(symbol)
                    anonymous = anonymous_class_body(child) if len(declared) == 1 else None
                    if anonymous is not None:  # `val showInt: Show[Int] = new Show[Int] { def show ... }`: its methods
                        symbol.last_row = int(child.end_point[0])
                        self.symbols(anonymous, symbol.children, _join(scope, symbol.name), "class", False)
                    elif value is not None and (var_kind == "function" or value.type == "class"):
                        # `const f = () => {...}` and `const C = class {...}` hold nested definitions
                        inner_kind = "function" if var_kind == "function" else "class"
                        self.symbols(value, symbol.children, _join(scope, symbol.name), inner_kind, var_kind == "function")
                    elif value is not None and (wrapped := _wrapped_function(value)) is not None:
                        # `var runInContext = (function runInContext(context) {...})` (lodash) or an IIFE's value:
                        # a module pattern, so what its body declares, functions and variables alike (lodash's
                        # `var merge = createAssigner(...)`), are the module's real definitions
                        if _unparenthesized(value) is wrapped:  # the value is the function, not its result
                            symbol.kind = "method" if parent_kind in TYPE_KINDS else "function"
                        self.symbols(wrapped, symbol.children, _join(scope, symbol.name), "function", False)
            elif not in_function or self.may_hold_symbols(child, child.start_byte):
                self.symbols(child, out, scope, parent_kind, in_function)


_FUNCTION_VALUES = frozenset({"function_expression", "function", "arrow_function", "generator_function"})


def _unparenthesized(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count:
        node = node.named_children[0]
    return node


def _wrapped_function(value: Node) -> Node | None:
    """The function a JavaScript value is or runs: `(function () {...})`, `(function () {...}())`,
    `(function () {...})()` and `function () {...}.call(this)`; None for any other value."""
    node: Node | None = value
    for _ in range(6):
        if node is None:
            return None
        node = _unparenthesized(node)
        if node.type in _FUNCTION_VALUES:
            return node
        if node.type == "call_expression":
            node = node.child_by_field_name("function")
        elif node.type == "member_expression":  # `function () {...}.call(this)`
            node = node.child_by_field_name("object")
        else:
            return None
    return None


def _keyword_starts(source: bytes, words: tuple[str, ...]) -> list[int]:
    """Where each of `words` starts as a whole word in `source`, in order."""
    return sorted(match.start() for word in words for match in _keyword_pattern(word).finditer(source))


@functools.cache
def _keyword_pattern(word: str) -> re.Pattern[bytes]:
    """`word` where no ASCII letter, digit or underscore touches it: beside one of those its letters belong to a
    longer name. Any other byte, non-ASCII included, counts as a boundary, so every real keyword token is found
    (and sometimes more). The word comes first and the boundary checks after it, so the search looks for the
    word's bytes directly: several times faster than a pattern starting with a look-behind."""
    name_byte = rb"[0-9A-Za-z_]"
    literal = re.escape(word.encode())
    return re.compile(literal + rb"(?<!" + name_byte + literal + rb")(?!" + name_byte + rb")")


def _swift_type_kind(node: Node) -> str:
    """Swift writes a class, a struct, an enum, an actor and an extension as one `class_declaration`, told apart by
    its keyword (the `declaration_kind` field): 'struct' for `struct Session`, 'extension' for `extension Session`."""
    keyword = node.child_by_field_name("declaration_kind")
    text = (keyword.text or b"").decode("utf-8", "replace") if keyword is not None else ""
    return text if text in TYPE_KINDS else "class"


def _go_type_kind(spec: Node) -> str:
    value = spec.child_by_field_name("type")
    if value is None:
        return "type"
    return {"struct_type": "struct", "interface_type": "interface"}.get(value.type, "type")


def outline(parsed: ParsedFile, *, query: bool = False) -> list[SymbolNode]:
    """The file's symbols, nested. `query` finds them with the reportable-node query even where the grammar
    allows the pruned walk (the two give the same outline; tests compare them)."""
    grammar = parsed.grammar
    if grammar is None:
        return []
    out: list[SymbolNode] = []
    _Walk(parsed, grammar, query=query).symbols(parsed.root, out, None, None, False)
    return _lua_owned(parsed, out) if parsed.language == "lua" else out


def _lua_owned(parsed: ParsedFile, symbols: list[SymbolNode]) -> list[SymbolNode]:
    """A Lua outline as its tables hold it. The types LuaLS `---@class` (or `---@enum`) lines declare are classes:
    the table assigned right below the comment (`---@class LazySpecLoader` over `local Spec = {}`), or the comment
    lines alone. A function written with its owner (`function M.f()`, `M.f = function`, `function M:f()`) is the
    owner's member, named `f`, when the file defines that owner (`local M = {}`), and so is a value set on it
    (`M.timeout = 10`); else it keeps its whole name. A table holding functions (`H.filters = { prefix = function
    ... end }`) is a class with those functions as members, as the chunker reads it."""
    written = [s.name for s in symbols]
    by_row = {s.line - 1: s for s in symbols if s.kind == "variable"}
    owners: dict[str, SymbolNode] = {s.name: s for s in symbols if s.kind == "variable"}
    for symbol in owners.values():
        names = symbol.node.parent  # variable_list, under the assignment_statement
        table = lua_function_table(names.parent) if names is not None and names.parent is not None else None
        if table is not None and names is not None and names.parent is not None:
            symbol.kind, symbol.last_row = "class", int(names.parent.end_point[0])
            symbol.children.extend(SymbolNode(name, "function", field, symbol.name) for field in table[1].named_children
                                   if (name := lua_field_function(field)) is not None)
    declared: list[SymbolNode] = []
    run: list[Node] = []
    declares = b"@class" in parsed.source or b"@enum" in parsed.source  # else no comment run to read
    lines = parsed.source.decode("utf-8", "replace").split("\n") if declares else []
    for child in [*parsed.root.named_children, None] if declares else []:
        if child is not None and child.type == "comment" and (not run or child.start_point[0] == run[-1].end_point[0] + 1):
            run.append(child)
            continue
        if run:
            found = lua_types(lines, run[0].start_point[0], run[-1].end_point[0])
            below = by_row.get(run[-1].end_point[0] + 1) if child is not None else None
            for i, (row, last, name, _) in enumerate(found):
                if below is not None and i == len(found) - 1:  # the table below is the type, to its statement's end
                    statement = below.node.parent.parent if below.node.parent is not None else None
                    below.kind, below.name = "class", name
                    below.last_row = int(statement.end_point[0]) if statement is not None else below.last_row
                    continue
                node = next(n for n in run if n.start_point[0] <= row <= n.end_point[0])
                declared.append(SymbolNode(name, "class", node, None, last_row=last))
        run = [child] if child is not None and child.type == "comment" else []
    out: list[SymbolNode] = []
    for symbol, name in zip(symbols, written, strict=True):
        owner, short = split_dotted(name, "lua")
        holder = owners.get(owner)
        if holder is None or holder is symbol:
            out.append(symbol)
            continue
        # a member table a `---@class` line names otherwise is that type (`---@class LazyConfig` over `M.defaults = {`)
        symbol.name, symbol.scope = short if symbol.name == name else symbol.name, owner
        if name[len(owner)] == ":":
            symbol.kind = "method"
        holder.children.append(symbol)
    return sorted(out + declared, key=lambda s: s.line)


def _children_to_visit(parsed: ParsedFile, grammar: Grammar, *, query: bool = False) -> Children:
    """Which children of a node the walk enters: for a grammar that lists its opaque kinds, every named child
    but those; otherwise (or with `query`), the children on a path to a node the reportable query found."""
    if grammar.opaque and not query:
        opaque = _kind_ids(parsed.language, grammar.opaque)  # a node's kind_id costs less to read than its type
        return lambda node: [c for c in node.named_children if c.kind_id not in opaque]
    paths = _paths_to_reportable(parsed)
    return lambda node: paths.get(node.id, ())


def flatten(symbols: list[SymbolNode]) -> list[SymbolNode]:
    flat: list[SymbolNode] = []
    stack = list(reversed(symbols))
    while stack:
        current = stack.pop()
        flat.append(current)
        stack.extend(reversed(current.children))
    return flat


def enclosing_function(parsed: ParsedFile, line: int) -> SymbolNode | None:
    """The innermost function, method or constructor whose span holds the 1-based line."""
    best: SymbolNode | None = None
    for symbol in flatten(outline(parsed)):
        first = int(symbol.full_node.start_point[0]) + 1  # a decorator line belongs to its function
        if symbol.kind in FUNCTION_KINDS and first <= line <= symbol.end_line:
            if best is None or symbol.line >= best.line and symbol.end_line <= best.end_line:
                best = symbol
    return best


# ------------------------------------------------------------------ structure
def _callee_name(parsed: ParsedFile, call: Node, callee_field: str | None) -> str | None:
    target = call.child_by_field_name(callee_field) if callee_field else (call.named_children[0] if call.named_child_count else None)
    if target is None:
        return None
    # `a.b.c(...)` is reported as the last name, which is what find_definitions can look up
    for attr in ("attribute", "property", "field", "name", "method"):  # method: Lua's `obj:f()`
        inner = target.child_by_field_name(attr)
        if inner is not None and target.type not in ("identifier", "name"):
            target = inner
            break
    text = parsed.text(target).strip()
    for sep in ("::", "->", "."):
        text = text.rsplit(sep, 1)[-1]
    text = text.split("(", 1)[0].split("<", 1)[0].strip()
    return text if text.replace("_", "a").replace("$", "a").replace("!", "").isalnum() else None


def collect_calls(parsed: ParsedFile, node: Node, file: str) -> list[CallInfo]:
    """Calls made inside a node, skipping nested functions and classes (they report their own)."""
    grammar = parsed.grammar
    if grammar is None:
        return []
    calls: list[CallInfo] = []
    stack = list(reversed(node.named_children))
    while stack:
        current = stack.pop()
        kind = symbol_kind(grammar, current)
        if kind is not None and current is not node:
            continue
        if current.type in grammar.calls:
            name = _callee_name(parsed, current, grammar.calls[current.type])
            if name:
                calls.append(CallInfo(name=name, file=file, line=current.start_point[0] + 1))
        stack.extend(reversed(current.named_children))
    return calls


def collect_imports(parsed: ParsedFile, file: str) -> list[ImportInfo]:
    return [ImportInfo(module=spec.module, names=list(spec.names), file=file, line=spec.line)
            for spec in read_imports(parsed) if spec.kind != "package"]


_ONE_TYPE = frozenset({"type_identifier", "scoped_type_identifier", "generic_type"})


def _bases(parsed: ParsedFile, grammar: Grammar, node: Node) -> list[str]:
    if node.type not in grammar.bases:
        return []
    field_name = grammar.bases[node.type]
    holders = [node.child_by_field_name(field_name)] if field_name else [
        c for c in node.named_children
        if c.type in ("class_heritage", "superclass", "super_interfaces", "extends_interfaces", "base_class_clause",
                      "base_list", "base_clause", "class_interface_clause", "delegation_specifier",
                      "extends_clause", "implements_clause", "delegation_specifiers")
    ]
    names: list[str] = []
    for holder in holders:
        if holder is None:
            continue
        # a Rust impl's trait is one type (`fmt::Display`, `From<u8>`); a trait's bounds list one per child
        for child in [holder] if holder.type in _ONE_TYPE else holder.named_children or [holder]:
            if child.type in ("keyword_argument", "access_specifier", "comment", "lifetime", "removed_trait_bound"):
                continue
            text = parsed.text(child).strip()
            for prefix in ("extends ", "implements ", "<", ":"):
                text = text.removeprefix(prefix).strip()
            if text:
                names.extend(part.strip().removesuffix("()") for part in text.split(",") if part.strip())
    return names


def structure(parsed: ParsedFile, file: str) -> tuple[list[ImportInfo], list[ClassInfo], list[FunctionInfo]]:
    """The imports, classes and functions of a parsed file; `file` is its path as answers give it."""
    grammar = parsed.grammar
    if grammar is None:
        return [], [], []
    classes: list[ClassInfo] = []
    functions: list[FunctionInfo] = []
    for symbol in flatten(outline(parsed)):
        if symbol.kind in TYPE_KINDS:
            methods = [c.name for c in symbol.children if c.kind in FUNCTION_KINDS]
            classes.append(ClassInfo(name=symbol.name, file=file, line=symbol.line, end_line=symbol.end_line,
                                     bases=_bases(parsed, grammar, symbol.node), methods=methods))
        elif symbol.kind in FUNCTION_KINDS:
            functions.append(FunctionInfo(name=symbol.name, file=file, line=symbol.line, end_line=symbol.end_line,
                                          scope=symbol.scope, calls=collect_calls(parsed, symbol.node, file)))
    return collect_imports(parsed, file), classes, functions
