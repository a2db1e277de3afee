"""tree-sitter adapter: parsed files (cached by size and mtime), symbol names, and what a word in a file is.

Parsing is the costly step of find_references and the outline tools, so trees are kept in a small LRU
bounded by the bytes of source they hold, and reused until the file changes on disk.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_intel.core.errors import InvalidArgument
from code_intel.core.fsutil import is_racy
from code_intel.languages.grammar import (
    GRAMMARS,
    KEYWORD_NAMED,
    Grammar,
    computed_property,
    defined_name,
    haskell_operator,
    instance_type,
    is_identifier_type,
    keyword_name,
    macro_wrapped,
    scala_extended_type,
)
from code_intel.languages.table import language_for, read_tree, script_file_language

Node = Any  # tree_sitter.Node: typed loosely because the binding ships no stubs for every attribute

_DECLARATOR_NAMES = frozenset({"qualified_identifier", "destructor_name", "operator_name", "template_function"})
_NAME_CHILD_TYPES = ("simple_identifier", "type_identifier", "identifier", "constant", "name")


@dataclass
class ParsedFile:
    path: Path
    language: str
    source: bytes
    tree: Any

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @property
    def grammar(self) -> Grammar | None:
        return GRAMMARS.get(self.language)

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def is_binary(sample: bytes) -> bool:
    return b"\x00" in sample[:8192]


class ParseCache:
    """Thread-safe LRU of parsed files, invalidated by (mtime_ns, size), bounded by total source bytes. A file
    modified just before it was parsed is compared with the parsed source on its next use, until it is old
    enough for its stamp to be trusted (code_intel.core.fsutil.is_racy)."""

    def __init__(self, max_bytes: int = 96 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        # path -> (stamp, parsed, racy)
        self._items: OrderedDict[Path, tuple[tuple[int, int], ParsedFile, bool]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, path: Path, language: str | None = None, *, store: bool = True) -> ParsedFile:
        """Parse (or reuse) a file; refuses binary files and languages without a grammar.
        `store=False` parses without keeping the tree (bulk work that would flush the cache)."""
        lang = language or language_for(path) or script_file_language(path)  # a `#!` script without a suffix
        if lang is None:
            raise InvalidArgument(
                f"{path.name}: no parser for this file type",
                hint="send a source file (e.g. .py, .ts, .go, .rs, .java, .c, .cpp, .cs, .rb, .php, .kt)",
            )
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            hit = self._items.get(path)
            # a header asked for as C may have been read as C++ (read_tree)
            if hit is not None and (hit[0] != stamp or hit[1].language not in (lang, "cpp" if lang == "c" else lang)):
                hit = None
            elif hit is not None and not hit[2]:
                self._items.move_to_end(path)
                return hit[1]
        source = path.read_bytes()
        if hit is not None and source == hit[1].source:
            with self._lock:  # a racy entry whose content is unchanged: kept, and trusted once old enough
                if self._items.get(path) is hit:
                    self._items[path] = (stamp, hit[1], is_racy(stat.st_mtime_ns))
                    self._items.move_to_end(path)
            return hit[1]
        if is_binary(source):
            raise InvalidArgument(f"{path.name} is a binary file", hint="send a text source file")
        try:
            read_as, tree = read_tree(lang, source, header=path.suffix.lower() == ".h")
        except LookupError:
            raise InvalidArgument(f"{path.name}: no tree-sitter grammar for {lang}") from None
        parsed = ParsedFile(path, read_as, source, tree)
        if not store:
            return parsed
        with self._lock:
            old = self._items.pop(path, None)
            if old:
                self._bytes -= len(old[1].source)
            self._items[path] = (stamp, parsed, is_racy(stat.st_mtime_ns))
            self._bytes += len(source)
            while self._bytes > self.max_bytes and len(self._items) > 1:
                _, (_, dropped, _) = self._items.popitem(last=False)
                self._bytes -= len(dropped.source)
        return parsed

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


# ------------------------------------------------------------------ names
def declarator_name(node: Node) -> Node | None:
    """C/C++: follow `declarator` fields (pointers, references, function declarators) down to the name."""
    current = node
    for _ in range(12):
        if current is None:
            return None
        if is_identifier_type(current.type) or current.type in _DECLARATOR_NAMES:
            return current
        nxt = current.child_by_field_name("declarator")
        if nxt is None and current.named_child_count:
            # reference_declarator and parenthesized_declarator keep the inner declarator unnamed
            nxt = next((c for c in current.named_children if "declarator" in c.type or is_identifier_type(c.type)), None)
        current = nxt
    return None


def symbol_name_node(node: Node, language: str) -> Node | None:
    """The node holding a definition's name, or None for anonymous definitions."""
    if node.type == "impl_item":
        implemented = node.child_by_field_name("type")
        if implemented is not None and implemented.type == "generic_type":  # impl<T> Trait for Wrapper<T>
            return implemented.child_by_field_name("type") or implemented
        return implemented
    if language in ("c", "cpp") and node.type in ("function_definition", "type_definition"):
        declarator = node.child_by_field_name("declarator")
        declarator = macro_wrapped(declarator) or declarator  # `UV_UNUSED(static void f(int x)) {`: f
        found = declarator_name(declarator) if declarator is not None else None
        if found is None and node.type == "type_definition":
            # `typedef struct {...} name;` may list several declarators; the last is the alias
            names = node.children_by_field_name("declarator")
            found = declarator_name(names[-1]) if names else None
        return found
    if language == "elixir":
        return defined_name(node)
    if node.type == "command":  # bash: a bats `@test "title" {`, named by its title (outline.symbol_kind)
        return node.named_children[1] if node.named_child_count > 1 else None
    if node.type in KEYWORD_NAMED:  # Swift's `subscript(...)` and `deinit`
        return keyword_name(node)
    if node.type == "extension_definition":  # Scala 3: `extension (s: String)` is named by the type it extends
        return scala_extended_type(node)
    if node.type == "instance":  # Haskell: named by its type, as a Rust impl
        return instance_type(node) or node.child_by_field_name("name")
    named = node.child_by_field_name("name")
    if named is not None or language == "haskell":  # Haskell: a `function` without a name is a type (`Int -> Int`)
        return named or haskell_operator(node)  # or an operator defined infix (`p --> f = ...`)
    if node.type == "Decl":  # Zig: `pub fn parse(...)`, `const Parser = struct {...}` name their prototype or constant
        inner = next((c for c in node.named_children if c.type in ("FnProto", "VarDecl")), None)
        return next((c for c in inner.named_children if c.type == "IDENTIFIER"), None) if inner is not None else None
    if node.type == "companion_object":
        return None
    for child in node.named_children:
        if child.type in _NAME_CHILD_TYPES:
            return child
    return None


def _python_targets(target: Node) -> list[Node]:
    if target.type == "identifier":
        return [target]
    if target.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        return [n for c in target.named_children for n in _python_targets(c)]
    return []


def variable_names(node: Node, language: str) -> list[tuple[Node, str, Node | None]]:
    """(name node, kind, value node) for each variable a declaration statement introduces."""
    out: list[tuple[Node, str, Node | None]] = []
    if language == "python":
        for assignment in [node] if node.type == "assignment" else node.named_children:
            current = assignment
            while current is not None and current.type == "assignment":
                left = current.child_by_field_name("left")
                for name in _python_targets(left) if left is not None else []:
                    out.append((name, "variable", current.child_by_field_name("right")))
                current = current.child_by_field_name("right")
        return out
    if language == "lua":  # `local M = {}`, `M.setup = function(opts) ... end`, `local a, b = 1, 2`
        if node.type == "variable_declaration" and node.named_child_count == 1:
            node = node.named_children[0]
        names = next((c for c in node.named_children if c.type == "variable_list"), None)
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        if node.type != "assignment_statement" or names is None:
            return out
        given = values.named_children if values is not None else []
        for i, name in enumerate(names.named_children):
            value = given[i] if i < len(given) else None
            out.append((name, "function" if value is not None and value.type == "function_definition" else "variable",
                        value))
        return out
    if language == "ruby":
        left = node.child_by_field_name("left")
        if left is not None and left.type == "constant":
            out.append((left, "constant", node.child_by_field_name("right")))
        return out
    if language in ("c", "cpp"):
        for decl in node.children_by_field_name("declarator"):
            name = declarator_name(decl)
            if name is None:
                continue
            if _declares_function(decl):
                kind = "prototype"  # headers and class bodies declare functions defined elsewhere
            else:
                kind = "field" if node.type == "field_declaration" else "variable"
            out.append((name, kind, None))
        return out
    if language == "swift":  # `let x = 1` (a variable), `var session: Session { ... }` (a property, computed)
        pattern = node.child_by_field_name("name")
        name = next((c for c in pattern.named_children if c.type == "simple_identifier"), None) if pattern else None
        if name is not None:
            out.append((name, "property" if computed_property(node) else "variable", node.child_by_field_name("value")))
        return out
    if language == "scala":  # `val x: Int = 1`, `implicit val instance: Monad[Id] = ...`; a tuple pattern defines no name
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "identifier":
            out.append((pattern, "variable", node.child_by_field_name("value")))
        return out
    if node.type == "assignment_expression":
        return _member_assignment(node)
    if node.type in ("field_definition", "public_field_definition"):
        name = node.child_by_field_name("property") or node.child_by_field_name("name")
        if name is not None:
            out.append((name, "field", node.child_by_field_name("value")))
        return out
    for child in _declarators(node):
        name = child.child_by_field_name("name")
        if name is None:
            name = next((c for c in child.named_children if c.type in _NAME_CHILD_TYPES), None)
        if name is None or not is_identifier_type(name.type):
            continue
        value = child.child_by_field_name("value")
        kind = "function" if value is not None and value.type in ("arrow_function", "function_expression", "function") else "variable"
        if kind == "variable" and node.type in ("const_declaration", "constant_declaration"):
            kind = "constant"
        if kind == "variable" and node.type in ("field_declaration", "property_declaration") and language != "kotlin":
            kind = "field"
        out.append((name, kind, value))
    return out


_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_COMMONJS_EXPORTS = frozenset({b"exports", b"module.exports"})


def _member_assignment(node: Node) -> list[tuple[Node, str, Node | None]]:
    """A JavaScript assignment that defines a name: `obj.name = function () {...}` and `name = function () {...}`
    (a function set on an object, `exports` or a prototype, or on a name) and `exports.name = value` /
    `module.exports.name = value` (a CommonJS module's public name, whatever its value). Any other assignment
    defines nothing."""
    left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is not None and left.type == "identifier" and value is not None and value.type in _FUNCTION_VALUES:
        return [(left, "function", value)]
    if left is None or value is None or left.type != "member_expression":
        return []
    name, target = left.child_by_field_name("property"), left.child_by_field_name("object")
    if name is None or target is None or name.type != "property_identifier":
        return []
    if value.type in _FUNCTION_VALUES:
        return [(name, "function", value)]
    return [(name, "variable", value)] if target.text in _COMMONJS_EXPORTS else []


def _declares_function(declarator: Node) -> bool:
    current = declarator
    for _ in range(6):
        if current is None:
            return False
        if current.type == "function_declarator":
            return True
        current = current.child_by_field_name("declarator")
    return False


_DECLARATOR_TYPES = frozenset({
    "variable_declarator", "const_spec", "var_spec", "const_element", "property_element", "variable_declaration",
})


def _declarators(node: Node) -> list[Node]:
    """Declarator children, looking through one level of wrappers (Go spec lists, C# variable_declaration)."""
    found: list[Node] = []
    for child in node.named_children:
        if child.type in _DECLARATOR_TYPES:
            inner = [c for c in child.named_children if c.type == "variable_declarator"]
            found.extend(inner or [child])
        elif child.type in ("var_spec_list", "const_spec_list"):
            found.extend(c for c in child.named_children if c.type in _DECLARATOR_TYPES)
    if node.type == "property_element":
        found.append(node)
    return found
