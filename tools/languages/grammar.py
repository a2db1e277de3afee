"""Per-language knowledge of tree-sitter grammars: which nodes are symbols, calls and names (imports: queries/<language>/imports.scm).

Node type names are those of tree-sitter-language-pack 0.13; every table here is data, read by syntax.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Kinds that hold methods: a function directly inside one of these is reported as a method.
TYPE_KINDS = frozenset({
    "class", "interface", "struct", "enum", "trait", "impl", "object", "record", "module", "union", "protocol",
    "extension", "actor",  # Swift
})
FUNCTION_KINDS = frozenset({"function", "method", "constructor"})


@dataclass(frozen=True)
class Grammar:
    symbols: dict[str, str]
    # nodes declaring module- or class-level variables (their names come from variable_names in syntax.py)
    variables: frozenset[str] = frozenset()
    # call node type -> field that holds the callee (None: the first named child)
    calls: dict[str, str | None] = field(default_factory=dict)
    # node type -> field with base classes (None: a child list scanned for type names)
    bases: dict[str, str | None] = field(default_factory=dict)
    # node types whose subtrees never hold a symbol or a variable declaration: an outline walks the tree and
    # skips them instead of querying every node (docs/benchmarks.md has the times). A kind left out is merely
    # entered, a kind wrongly listed loses symbols (tests/explore/test_outline_pruned.py compares both ways).
    opaque: frozenset[str] = frozenset()
    # words every symbol node holds as a token of its own (Python's `def` and `class`), for a grammar listing
    # `opaque`. Inside a function only symbols are reported, so there the walk skips a subtree free of parse
    # errors whose source has none of these words as a whole word: nothing in it can be reported (most function
    # bodies, which were three quarters of the nodes the walk entered). A word found in a string or a comment
    # only costs the walk of that subtree.
    keywords: tuple[str, ...] = ()
    # for a grammar that defines with calls (Elixir's `def f(x)`, `@callback f(x) :: t`): the word a node of a
    # `symbols` type is made with (definition_word) -> its kind; a node made with any other word is not a symbol
    # (defined_name finds the name)
    defining_calls: dict[str, str] = field(default_factory=dict)
    # node type -> the query pattern the outline's walk finds its candidates with, where only some nodes of that
    # type can be symbols (bash's commands: only a bats `@test` line), else `(type)`
    patterns: dict[str, str] = field(default_factory=dict)


# Elixir defines with macros: a `call` made with one of these words (`defmodule Plug.Conn do`, `def f(x)`,
# `defimpl Phoenix.Param, for: Integer`) is a definition; read by the outline and the chunker.
DEFINING_CALLS = {
    "defmodule": "module", "defprotocol": "protocol", "defimpl": "impl", "def": "function", "defp": "function",
    "defmacro": "function", "defmacrop": "function", "defguard": "function", "defguardp": "function",
    "defdelegate": "function",
}


def call_word(node: Any) -> str:
    """The word an Elixir call is made with (`def` in `def f(x)`, `doc` in `@doc "..."`), "" for other nodes."""
    target = node.child_by_field_name("target") if node.type == "call" else None
    return (target.text or b"").decode("utf-8", "replace") if target is not None and target.type == "identifier" else ""


# ExUnit's blocks in a test file (`test "title" do`, `describe "title" do`): a test is a function and a describe
# block a class holding its tests, each named by its title (the chunker reads them in `_test.exs` files)
EXUNIT_BLOCKS = {"test": "function", "describe": "class"}


def exunit_block(node: Any) -> tuple[str, str] | None:
    """(kind, title) of an ExUnit `test "title"` or `describe "title"` call; None for any other node."""
    word = call_word(node)
    if word not in EXUNIT_BLOCKS:
        return None
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return None
    return EXUNIT_BLOCKS[word], (first.text or b"").decode("utf-8", "replace")[1:-1]


# Elixir module attributes that declare a function: a behaviour's `@callback insert(struct, opts) :: result`.
DEFINING_ATTRIBUTES = {"callback": "function", "macrocallback": "function"}


def definition_word(node: Any) -> str:
    """The word that makes an Elixir node a definition: `def` of `def f(x)`, `callback` of `@callback f(x) :: t`;
    "" for any other node."""
    if node.type == "unary_operator":
        operand = node.child_by_field_name("operand")
        word = call_word(operand) if operand is not None else ""
        return word if word in DEFINING_ATTRIBUTES else ""
    word = call_word(node)
    return word if word in DEFINING_CALLS else ""


def defined_name(node: Any) -> Any:
    """The node naming what an Elixir definition defines: `run` in `def run(x) when is_atom(x)`, `inner` in `def
    inner, do: :ok`, `Phoenix.Router` in `defmodule Phoenix.Router do`, `insert` in `@callback insert(s) :: t`; None
    for any other node."""
    if not definition_word(node):
        return None
    call = node.child_by_field_name("operand") if node.type == "unary_operator" else node
    arguments = next((c for c in call.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    while first is not None and first.type == "binary_operator":  # `f(x) when guard`, `f(x) :: type`: the head
        operator = first.child_by_field_name("operator")
        if operator is None or operator.text not in (b"when", b"::"):
            break
        first = first.child_by_field_name("left")
    if first is not None and first.type == "call":
        first = first.child_by_field_name("target")
    return first if first is not None and first.type in ("identifier", "alias") else None


def anonymous_class_body(node: Any) -> Any:
    """The class body of a Java field initialised with an anonymous class (`static final TypeAdapter<Class> CLASS =
    new TypeAdapter<Class>() { ... }.nullSafe();`, a comparator, a visitor): a class in all but syntax, named by
    the field; None for any other node. Scala's the same: `implicit val catsAlignForId: Align[Id] = new Align[Id] {
    ... }`, a type class instance named by the val."""
    if node.type == "val_definition":
        value = node.child_by_field_name("value")
        if value is None or value.type != "instance_expression":
            return None
        return next((c for c in value.named_children if c.type == "template_body"), None)
    if node.type != "field_declaration":
        return None
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
    while value is not None and value.type == "method_invocation":  # `new X() {...}.nullSafe()`
        value = value.child_by_field_name("object")
    if value is None or value.type != "object_creation_expression":
        return None
    return next((c for c in value.named_children if c.type == "class_body"), None)


def implemented_for(node: Any) -> str | None:
    """The type an Elixir `defimpl Phoenix.Param, for: Integer` implements its protocol for (`Integer`: Elixir names the
    implementation's module Phoenix.Param.Integer); None for any other node."""
    if call_word(node) != "defimpl":
        return None
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    pairs = [p for c in arguments.named_children if c.type == "keywords" for p in c.named_children] if arguments else []
    for pair in pairs:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is not None and key.text.strip() == b"for:" and value is not None and value.type == "alias":
            return str(value.text.decode("utf-8", "replace"))
    return None


def macro_wrapped(declarator: Any) -> Any:
    """C/C++: the declarator of a function defined inside a macro call, `UV_UNUSED(static void uv__update_time(uv_loop_t*
    loop)) {...}`, which the grammar reads as a function named after the macro taking one parameter that is itself a
    function: that parameter's function declarator (uv__update_time's). None for any other declarator."""
    if declarator is None or declarator.type != "function_declarator":
        return None
    macro = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters")
    if macro is None or macro.type != "identifier" or not (macro.text or b"").isupper() or parameters is None \
            or parameters.named_child_count != 1 or parameters.named_children[0].type != "parameter_declaration":
        return None
    inner = parameters.named_children[0].child_by_field_name("declarator")
    while inner is not None and inner.type in ("pointer_declarator", "reference_declarator"):
        inner = inner.child_by_field_name("declarator") or next(
            (c for c in inner.named_children if c.type.endswith("declarator")), None)
    return inner if inner is not None and inner.type == "function_declarator" else None


# Haskell types with no constructor name: `instance FromJSON (a, b)`, `ToJSON [a]`, `Monoid ()`, `Category (->)`
_BUILTIN_TYPES = frozenset({"tuple", "list", "unit", "function", "prefix_tuple", "prefix_list", "prefix_unboxed_tuple",
                            "unboxed_tuple"})


def instance_type(node: Any) -> Any:
    """The type a Haskell `instance Foldable Stack` (or `instance (Eq a) => Eq (Maybe a)`) is for: `Stack`, `Maybe`;
    it names the instance as a Rust `impl Trait for Type` is named by its type. A tuple, list, unit or function type
    is its own name (`(a, b)`), not a name inside it nor the class's. None for any other node."""
    patterns = node.child_by_field_name("patterns") if node.type == "instance" else None
    for pattern in patterns.named_children if patterns is not None else []:
        while pattern.type in ("parens", "apply", "qualified") and pattern.named_children:
            # `(Maybe a)`: its head, `Maybe`; `BS.ByteString`: `ByteString`
            pattern = pattern.named_children[-1 if pattern.type == "qualified" else 0]
        if pattern.type == "name" or pattern.type in _BUILTIN_TYPES:
            return pattern
    return None


def haskell_operator(node: Any) -> Any:
    """The operator a Haskell function clause written infix defines (`p --> f = ...`: `-->`), else None: such a clause
    has no `name` field."""
    infix = node.named_children[0] if node.type == "function" and node.named_children else None
    return infix.child_by_field_name("operator") if infix is not None and infix.type == "infix" else None


def haskell_exports(node: Any) -> list[str]:
    """The names a Haskell module header exports (`module Data.Aeson.KeyMap (KeyMap, size, insert) where`): the
    module's own API, its header's members as a class's methods are. Empty for any other node."""
    exports = node.child_by_field_name("exports") if node.type == "header" else None
    names = (next((c for c in export.named_children if c.type in ("name", "variable")), None)
             for export in (exports.named_children if exports is not None else []) if export.type == "export")
    return [name.text.decode("utf-8", "replace") for name in names if name is not None]


def bats_test(node: Any) -> tuple[str, Any] | None:
    """A bats `@test "title" {` line (bash reads it as a command, and the test's body as the statements after it):
    its title and the `}` command that closes the body; None for any other node, or a test never closed."""
    name = node.child_by_field_name("name") if node.type == "command" else None
    if name is None or name.text != b"@test":
        return None
    arguments = node.named_children[1:]
    if len(arguments) < 2 or arguments[1].text != b"{" or arguments[0].type not in ("string", "raw_string"):
        return None
    closing = node.next_named_sibling
    while closing is not None:
        word = closing.child_by_field_name("name") if closing.type == "command" else None
        if word is not None and word.text == b"}":
            return (arguments[0].text or b"").decode("utf-8", "replace")[1:-1], closing
        closing = closing.next_named_sibling
    return None


# LuaLS (EmmyLua) annotations name a type in a `---` comment line: `---@class Name`, `---@class (exact) Name: Base, Other`,
# `---@enum Name`. The table assigned right below is that type, or nothing is (a type declared for annotations only).
_LUA_TYPE = re.compile(r"---[ \t]*@(?:class|enum)[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_][\w.-]*)[ \t]*(?::([^@#]*))?")
_LUA_BUILTIN_TYPES = frozenset({"table", "string", "number", "integer", "boolean", "any", "nil", "function", "fun",
                                "userdata", "thread"})


def lua_types(lines: list[str], start: int, end: int) -> list[tuple[int, int, str, list[str]]]:
    """The types a Lua comment run (rows start..end) declares with LuaLS `---@class` or `---@enum` lines: (row, last
    row, name, the types it extends) each, its rows running to the next such line or the run's end."""
    found = [(row, typed) for row in range(start, end + 1) if (typed := _LUA_TYPE.match(lines[row].strip()))]
    declared = []
    for i, (row, typed) in enumerate(found):
        bases = typed.group(2) or ""
        while (bare := re.sub(r"<[^<>]*>|\([^()]*\)", " ", bases)) != bases:  # `table<string, fun(string):string>`
            bases = bare
        last = found[i + 1][0] - 1 if i + 1 < len(found) else end
        declared.append((row, last, typed.group(1),
                         [b for b in re.findall(r"[A-Za-z_][\w.]*", bases) if b not in _LUA_BUILTIN_TYPES]))
    return declared


def lua_function_table(node: Any) -> tuple[str, Any] | None:
    """Lua's `H.filters = { prefix = function(...) ... end, ... }` or `local M = {...}` holding functions: a type with
    those members, as LuaLS reads it. (the name it is assigned to, the table_constructor), or None."""
    if node.type == "variable_declaration" and [c.type for c in node.named_children] == ["assignment_statement"]:
        node = node.named_children[0]
    if node.type != "assignment_statement":
        return None
    names, values = (next((c for c in node.named_children if c.type == kind), None)
                     for kind in ("variable_list", "expression_list"))
    if names is None or values is None or names.named_child_count != 1 or values.named_child_count != 1:
        return None
    table = values.named_children[0]
    if table.type != "table_constructor" or not any(lua_field_function(f) for f in table.named_children):
        return None
    return str(names.named_children[0].text.decode("utf-8", "replace")), table


def lua_field_function(node: Any) -> str | None:
    """The name of a Lua table field whose value is a function (`prefix = function(items) ... end`), else None."""
    if node.type != "field":
        return None
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None or value.type != "function_definition" or name.type != "identifier":
        return None
    return str(name.text.decode("utf-8", "replace"))


_SUBCOMMAND = re.compile(r"""["']?-{0,2}[A-Za-z][\w-]*["']?""")


def subcommands(function: Any) -> list[tuple[str, Any]]:
    """The branches of a shell command's dispatcher, each with the subcommand it handles: a `case` on a word that
    fills at least half of the function's body, whose branches are labelled by words, four or more of them not
    options (nvm's `nvm()`: `"install" | "i")`, `"use")`, `"--version" | "-v")`, ... over 1,500 lines), a default
    `*)` aside. Empty for any other function: a `case` on options (`-c)`), on platforms or on a few values is part of
    the function's own logic."""
    body = function.child_by_field_name("body")
    if function.type != "function_definition" or body is None:
        return []
    rows = function.end_point[0] - function.start_point[0] + 1
    for statement in body.named_children:
        if statement.type != "case_statement" or 2 * (statement.end_point[0] - statement.start_point[0] + 1) < rows:
            continue
        branches = []
        for item in statement.named_children:
            if item.type != "case_item":
                continue
            label = item.child_by_field_name("value")
            text = (label.text or b"").decode("utf-8", "replace") if label is not None else ""
            if text == "*":
                continue
            if not _SUBCOMMAND.fullmatch(text):
                return []
            branches.append((text.strip("\"'"), item))
        return branches if sum(not label.startswith("-") for label, _ in branches) >= 4 else []
    return []


_C_FAMILY_CALLS: dict[str, str | None] = {"call_expression": "function"}

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        symbols={"class_definition": "class", "function_definition": "function"},
        variables=frozenset({"expression_statement", "assignment"}),
        calls={"call": "function"},
        bases={"class_definition": "superclasses"},
        # expressions, parameters, decorators and the simple statements: a def, a class or an assignment
        # statement is never inside one (lambdas are anonymous and walrus targets are not reported)
        opaque=frozenset({
            "comment", "decorator", "parameters", "lambda_parameters", "argument_list", "keyword_argument", "type",
            "as_pattern", "boolean_operator", "comparison_operator", "conditional_expression", "lambda",
            "named_expression", "not_operator", "attribute", "await", "binary_operator", "call",
            "concatenated_string", "dictionary", "dictionary_comprehension", "ellipsis", "false", "float",
            "generator_expression", "identifier", "integer", "list", "list_comprehension", "list_splat", "none",
            "parenthesized_expression", "set", "set_comprehension", "string", "subscript", "true", "tuple",
            "unary_operator", "return_statement", "raise_statement", "import_statement", "import_from_statement",
            "future_import_statement", "pass_statement", "assert_statement", "delete_statement",
            "global_statement", "nonlocal_statement", "break_statement", "continue_statement", "print_statement",
            "exec_statement", "type_alias_statement",
        }),
        keywords=("def", "class"),
    ),
    "javascript": Grammar(
        symbols={
            "class_declaration": "class", "class": "class", "function_declaration": "function",
            "generator_function_declaration": "function", "method_definition": "method",
        },
        # assignment_expression: CommonJS's `exports.name = value` and `obj.name = function () {...}`
        variables=frozenset({"lexical_declaration", "variable_declaration", "field_definition", "assignment_expression"}),
        calls={"call_expression": "function", "new_expression": "constructor"},
        bases={"class_declaration": None, "class": None},
    ),
    "typescript": Grammar(
        symbols={
            "class_declaration": "class", "abstract_class_declaration": "class", "function_declaration": "function",
            "generator_function_declaration": "function", "method_definition": "method",
            "method_signature": "method", "abstract_method_signature": "method", "function_signature": "function",
            "interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum",
            "internal_module": "namespace", "module": "module",
        },
        variables=frozenset({"lexical_declaration", "variable_declaration", "public_field_definition"}),
        calls={"call_expression": "function", "new_expression": "constructor"},
        bases={"class_declaration": None, "abstract_class_declaration": None, "interface_declaration": None},
    ),
    "go": Grammar(
        symbols={"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
        variables=frozenset({"const_declaration", "var_declaration"}),
        calls=_C_FAMILY_CALLS,
    ),
    "rust": Grammar(
        symbols={
            "function_item": "function", "function_signature_item": "function", "struct_item": "struct",
            "enum_item": "enum", "union_item": "union", "trait_item": "trait", "impl_item": "impl",
            "mod_item": "module", "type_item": "type", "macro_definition": "macro",
            "const_item": "constant", "static_item": "variable",
        },
        calls={"call_expression": "function", "macro_invocation": "macro"},
        bases={"impl_item": "trait", "trait_item": "bounds"},  # impl Trait for Type; trait T: Super + Other
    ),
    "java": Grammar(
        symbols={
            "class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
            "record_declaration": "record", "annotation_type_declaration": "interface",
            "method_declaration": "method", "constructor_declaration": "constructor",
        },
        variables=frozenset({"field_declaration", "constant_declaration"}),
        calls={"method_invocation": "name", "object_creation_expression": "type"},
        bases={"class_declaration": None, "interface_declaration": None},
    ),
    "c": Grammar(
        symbols={
            "function_definition": "function", "struct_specifier": "struct", "union_specifier": "union",
            "enum_specifier": "enum", "type_definition": "type", "preproc_function_def": "macro",
        },
        variables=frozenset({"declaration"}),
        calls=_C_FAMILY_CALLS,
    ),
    "cpp": Grammar(
        symbols={
            "function_definition": "function", "struct_specifier": "struct", "union_specifier": "union",
            "enum_specifier": "enum", "type_definition": "type", "class_specifier": "class",
            "namespace_definition": "namespace", "alias_declaration": "type", "preproc_function_def": "macro",
        },
        variables=frozenset({"declaration", "field_declaration"}),
        calls=_C_FAMILY_CALLS,
        bases={"class_specifier": None, "struct_specifier": None},
    ),
    "csharp": Grammar(
        symbols={
            "class_declaration": "class", "interface_declaration": "interface", "struct_declaration": "struct",
            "enum_declaration": "enum", "record_declaration": "record", "method_declaration": "method",
            "constructor_declaration": "constructor", "property_declaration": "property",
            "namespace_declaration": "namespace", "file_scoped_namespace_declaration": "namespace",
            "delegate_declaration": "type", "local_function_statement": "function",
        },
        variables=frozenset({"field_declaration"}),
        calls={"invocation_expression": "function", "object_creation_expression": "type"},
        bases={"class_declaration": None, "interface_declaration": None, "struct_declaration": None},
    ),
    "ruby": Grammar(
        symbols={"class": "class", "module": "module", "method": "method", "singleton_method": "method",
                 "singleton_class": "class"},
        variables=frozenset({"assignment"}),
        calls={"call": "method"},
        bases={"class": "superclass"},
    ),
    "php": Grammar(
        symbols={
            "class_declaration": "class", "interface_declaration": "interface", "trait_declaration": "trait",
            "enum_declaration": "enum", "function_definition": "function", "method_declaration": "method",
            "namespace_definition": "namespace",
        },
        variables=frozenset({"const_declaration", "property_declaration"}),
        calls={"function_call_expression": "function", "member_call_expression": "name",
               "scoped_call_expression": "name", "object_creation_expression": None},
        bases={"class_declaration": None, "interface_declaration": None},
    ),
    "kotlin": Grammar(
        symbols={
            "class_declaration": "class", "object_declaration": "object", "companion_object": "object",
            "function_declaration": "function", "secondary_constructor": "constructor", "type_alias": "type",
        },
        variables=frozenset({"property_declaration"}),
        calls={"call_expression": None},
        bases={"class_declaration": None, "object_declaration": None},
    ),
    # ctags has no Swift or Dart parser: without these, their files had no definitions at all
    "swift": Grammar(
        # class_declaration is also a struct, an enum, an actor and an extension (named after the type it extends)
        symbols={
            "class_declaration": "class", "protocol_declaration": "protocol", "function_declaration": "function",
            "protocol_function_declaration": "function", "init_declaration": "constructor",
            "typealias_declaration": "type", "subscript_declaration": "function", "deinit_declaration": "function",
        },
        variables=frozenset({"property_declaration"}),  # `let`/`var`, stored or computed (syntax.variable_names)
        calls={"call_expression": None},
    ),
    # Lua's `function M.f()` is named `M.f` (its name field holds the whole dotted name); Bash's `f() {...}`
    "lua": Grammar(symbols={"function_declaration": "function"},
                   variables=frozenset({"assignment_statement", "variable_declaration"}),
                   calls={"function_call": "name"}),
    "bash": Grammar(symbols={"function_definition": "function", "command": "function"},  # command: a bats test
                    patterns={"command": '(command name: (command_name) @_name (#eq? @_name "@test"))'}),
    # Zig: a `Decl` is a function, a type or a constant (outline.py asks zig_decl_kind); `test "..."` blocks are
    # not definitions
    "zig": Grammar(symbols={"Decl": "function"}),
    "dart": Grammar(
        symbols={
            "class_definition": "class", "mixin_declaration": "class", "extension_declaration": "class",
            "enum_declaration": "enum", "function_signature": "function", "getter_signature": "function",
            "setter_signature": "function", "constructor_signature": "constructor",
        },
    ),
    "scala": Grammar(
        symbols={
            "class_definition": "class", "object_definition": "object", "trait_definition": "trait",
            "package_object": "object", "enum_definition": "enum", "function_definition": "function",
            "function_declaration": "function", "type_definition": "type",
            "given_definition": "object", "extension_definition": "extension",  # Scala 3
        },
        variables=frozenset({"val_definition", "var_definition"}),
        calls={"call_expression": "function"},
        bases={"class_definition": "extend", "object_definition": "extend", "trait_definition": "extend"},
    ),
    "elixir": Grammar(symbols={"call": "function", "unary_operator": "function"},
                      defining_calls={**DEFINING_CALLS, **DEFINING_ATTRIBUTES}),
    "haskell": Grammar(symbols={
        "function": "function", "bind": "function", "data_type": "type", "newtype": "type", "class": "class",
        "instance": "impl",
    }),
}
GRAMMARS["tsx"] = GRAMMARS["typescript"]

# tree-sitter node types that always mean "inside a comment" or "inside a string literal".
INTERPOLATION_TYPES = frozenset({
    "interpolation", "template_substitution", "interpolated_expression", "interpolated_identifier",
    "string_interpolation", "format_expression",
})
EXTRA_STRING_TYPES = frozenset({
    "char_literal", "character_literal", "rune_literal", "heredoc_body", "heredoc", "nowdoc", "encapsed_string",
    "system_lib_string", "regex", "regex_pattern", "escape_sequence",
})

def zig_container(node: Any) -> Any:
    """The body (ContainerDecl) of Zig's `const Parser = struct { ... }` (or enum, union, opaque): a type in all but
    syntax, named by the constant; None for any other node."""
    if node.type != "Decl":
        return None
    var = next((c for c in node.named_children if c.type == "VarDecl"), None)
    value = next((c for c in var.named_children if c.type == "ErrorUnionExpr"), None) if var is not None else None
    suffix = value.named_children[0] if value is not None and value.named_child_count else None
    container = suffix.named_children[0] if suffix is not None and suffix.named_child_count else None
    return container if container is not None and container.type == "ContainerDecl" else None


def zig_decl_kind(node: Any) -> str | None:
    """'function' for Zig's `fn` declarations, 'struct' for a constant holding a type (zig_container), else None
    (a plain constant or variable): the grammar names all three `Decl`."""
    if node.type != "Decl":
        return None
    if any(c.type == "FnProto" for c in node.named_children):
        return "function"
    return "struct" if zig_container(node) is not None else None


# Swift members named by their keyword alone (`subscript(key: String) -> Value?`, `deinit { }`): the grammar's
# `name` field of a subscript holds its result type
KEYWORD_NAMED = frozenset({"subscript_declaration", "deinit_declaration"})


def keyword_name(node: Any) -> Any:
    """The keyword token that names a KEYWORD_NAMED definition (`subscript`, `deinit`), else None."""
    if node.type not in KEYWORD_NAMED:
        return None
    return next((c for c in node.children if not c.is_named and c.type in ("subscript", "deinit")), None)


def computed_property(node: Any) -> bool:
    """Swift's `var session: Session { ... }`: a property whose value a body computes, a function in all but syntax
    (vapor's `Request+Session.swift` adds `req.session` so); a stored `let x = 1` is not one."""
    return node.type == "property_declaration" and node.child_by_field_name("computed_value") is not None


def scala_unquoted(name: str) -> str:
    """A Scala name without the backquotes that let it hold any character (``object `Content-Type` `` is
    Content-Type, the name an agent asks for)."""
    return name[1:-1] if len(name) > 2 and name[0] == name[-1] == "`" else name


def scala_given_name(node: Any) -> str:
    """A Scala 3 `given`'s name: its own (`given intCodec: Codec[Int] = ...`), else the one the compiler makes from
    its type (`given Ordering[User] with ...` is `given_Ordering_User`)."""
    named = node.child_by_field_name("name")
    if named is not None:
        return (named.text or b"").decode("utf-8", "replace")
    given_type = node.child_by_field_name("return_type")
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", (given_type.text or b"").decode("utf-8", "replace")) if given_type else []
    return "_".join(["given", *words])


def scala_extended_type(node: Any) -> Any:
    """The type a Scala 3 `extension (s: String)` adds its methods to (its first parameter's type, without type
    arguments: `extension [A](xs: List[A])` extends List), or None."""
    if node.type != "extension_definition":
        return None
    parameters = node.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters is not None and parameters.named_child_count else None
    extended = first.child_by_field_name("type") if first is not None else None
    while extended is not None and extended.type == "generic_type":
        extended = extended.child_by_field_name("type") or extended.named_children[0]
    return extended


def node_category(node_type: str) -> str | None:
    """'comment', 'string' or 'interpolation' for nodes that change what a word inside them means."""
    if node_type in INTERPOLATION_TYPES:
        return "interpolation"
    lower = node_type.lower()  # Zig's grammar writes STRINGLITERALSINGLE
    if "comment" in lower:
        return "comment"
    if "string" in lower or node_type in EXTRA_STRING_TYPES:
        return "string"
    return None


def is_identifier_type(node_type: str) -> bool:
    return node_type.endswith("identifier") or node_type in ("name", "constant", "simple_identifier")
