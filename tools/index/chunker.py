"""Split a file into search chunks: functions, methods and classes from the tree-sitter AST.

A class that fits in `max_tokens` is one chunk; a larger one becomes a header chunk plus one chunk per
method. Oversized functions are split into line windows; every function keeps its own chunk however
small (one vector per function ranked best; only MERGE_TINY_LANGUAGES merge runs of tiny definitions), while a
short run of loose code right above a definition joins it. A comment block that
touches a definition (a Go `//` doc, JSDoc, Rust `///`, Javadoc), however long, is part of that
definition's chunk. Code between definitions (imports, constants) becomes module chunks. Files without a
grammar get line windows.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from code_intel.languages.grammar import (
    DEFINING_ATTRIBUTES,
    DEFINING_CALLS,
    FUNCTION_KINDS,
    anonymous_class_body,
    bats_test,
    call_word,
    computed_property,
    defined_name,
    definition_word,
    exunit_block,
    haskell_exports,
    haskell_operator,
    implemented_for,
    instance_type,
    keyword_name,
    lua_field_function,
    lua_function_table,
    lua_types,
    macro_wrapped,
    scala_extended_type,
    scala_given_name,
    scala_unquoted,
    subcommands,
    zig_container,
    zig_decl_kind,
)
from code_intel.languages.table import CODE_LANGUAGES, read_tree

log = logging.getLogger(__name__)

FUNCTION_TYPES = frozenset({
    "function_definition", "function_declaration", "generator_function_declaration", "method_definition",
    "method_declaration", "constructor_declaration", "function_item", "method", "singleton_method",
    "function_signature_item", "local_function_statement", "operator_declaration", "destructor_declaration",
    "annotation_type_element_declaration",  # Java: `Class<?> value() default Void.class;` in an @interface
})
CLASS_TYPES = frozenset({
    "class_definition", "class_declaration", "abstract_class_declaration", "interface_declaration",
    "enum_declaration", "struct_item", "enum_item", "trait_item", "impl_item", "class_specifier",
    "struct_specifier", "class", "module", "struct_declaration", "record_declaration",
    "object_declaration", "object_definition", "trait_definition", "protocol_declaration",
    "type_declaration", "trait_declaration", "annotation_type_declaration",
    "enum_specifier", "union_specifier",  # C/C++: `enum class value_t : std::uint8_t {...}`, `union json_value`
    "mixin_declaration", "extension_declaration",  # Dart
    "package_object",  # Scala's `package object cats { ... }`: the package's own definitions
    "enum_definition",  # Scala 3's `enum Color:`
    "type_alias_declaration",  # TypeScript's `type Reducer<S> = (state: S, action: A) => S`, named as an interface is
})
# Dart writes a function as two siblings, its signature and then its body: the definition spans both
SIGNATURE_TYPES = frozenset({"function_signature", "method_signature"})
SIGNATURE_BODY = "function_body"
# Containers that only scope their children (no chunk of their own unless they hold loose code).
SCOPE_TYPES = frozenset({"namespace_definition", "namespace_declaration", "mod_item", "declaration_list",
                         "enum_body_declarations"})  # Java: the fields and methods after an enum's constants
# C/C++ conditional compilation (an include guard `#ifndef X_H` wraps a whole header): the definitions inside are
# the file's own, under no name of the condition's.
PREPROC_TYPES = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
_C_TYPES = frozenset({"class_specifier", "struct_specifier", "union_specifier", "enum_specifier"})
# Grammars where a definition the parser could not read (a macro it cannot expand: `FMT_BEGIN_NAMESPACE`,
# `NLOHMANN_JSON_NAMESPACE_BEGIN`, a C# `#if` between a type's modifiers) leaves an ERROR node around the
# definitions after it, which are still read inside.
ERROR_SCOPES = frozenset({"c", "cpp", "csharp"})
# Statements between definitions that hold definitions, per language: the definitions inside are the file's own,
# under no name. PHP's guards (Laravel's helpers.php: `if (! function_exists('blank')) { function blank($value) {...}
# }`) and braced namespaces (`namespace App\Models { ... }`: its types named as under the usual `namespace
# App\Models;`); a shell script wrapped in one `{ ... }` group so that a half-downloaded copy never runs (nvm.sh: 4,800
# lines, every function inside it) or defining its functions under an `if` (a different `flock` wrapper per platform).
GUARD_SCOPES = {"php": frozenset({"if_statement", "namespace_definition"}),
                "bash": frozenset({"compound_statement", "if_statement", "elif_clause", "else_clause"})}
# A C/C++ line holding only a macro (`FMT_BEGIN_NAMESPACE`, `NLOHMANN_JSON_NAMESPACE_BEGIN`, `G_BEGIN_DECLS`,
# `ABSL_DEPRECATE_AND_INLINE()`) opens or closes a scope the grammar cannot see or annotates the next definition, and
# the grammar reads that definition as a declaration of the macro: such lines are parsed as blank (the chunks keep the
# file's own text)
_MACRO_LINE = re.compile(r"^[ \t]*[A-Z_][A-Z0-9_]*(?:\([^()\n]*\))?[ \t]*$", re.M)
# So are annotation macros after a function's parameters (`void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();`), which the
# grammar reads as the function's name
_TRAILING_MACROS = re.compile(
    r"\)(?:[ \t]+const\b)?((?:[ \t]+[A-Z][A-Z0-9_]*[A-Z0-9](?:\([^()\n]*\))?)+)(?=[ \t]*(?:[;{=]|override\b|final\b|->))")
# So are the attribute and export macros between `class`/`struct` and the type's name (`class ABSL_LOCKABLE
# ABSL_ATTRIBUTE_WARN_UNUSED Mutex {`, `class FMT_API format_error`), which the grammar reads as the name
_CLASS_HEAD_MACROS = re.compile(
    r"\b(?:class|struct|union)((?:\s+[A-Z][A-Z0-9_]*[A-Z0-9](?:\([^()\n]*\))?)+)(?=\s+[A-Za-z_]\w*\s*(?:final\b|[:{<]))")
# A C/C++ function-like macro of this many lines or more is a function's chunk (`#define dictForEach(d, e, body) \\`,
# libuv's `UV_LOOP_WATCHER_DEFINE`, which defines functions); shorter ones (`#define listFirst(l) ((l)->head)`) stay in
# the module code around them.
MACRO_FUNCTION_ROWS = 3
# Elixir module attributes that document or annotate the definition below them as a doc comment does (`@doc`,
# `@spec`, `@impl true`, ExUnit's `@tag :slow` on a test); `@moduledoc` documents the module it opens and stays in its
# header.
LEAD_ATTRIBUTES = frozenset({"doc", "spec", "impl", "deprecated", "tag"})
# Definitions in grammars whose node type names mean something else in other grammars: language -> node type -> kind
# (Haskell's top-level `declarations` only scope them; a `function` there is one clause of a function).
LANGUAGE_DEFINITIONS = {
    "haskell": {"function": "function", "bind": "function", "data_type": "class", "newtype": "class",
                "class": "class", "instance": "class", "declarations": "scope", "header": "class"},
}
# Nodes that stand before a definition as its siblings and belong to it, as a doc comment does: Haskell's `-- |`
# and its type signature, Dart's `@override`.
LEAD_TYPES = {"haskell": frozenset({"haddock", "signature"}), "dart": frozenset({"annotation"})}
# C# directives that stand between a doc comment and the member it documents, or open a section above it
# (`#pragma warning disable`, `#region Reading`, `#nullable enable`): they belong to the run of comments above a
# definition as its lines do. tree-sitter ends each at column 0 of the next row; the run reads its own last row.
DIRECTIVE_LEADS = {"csharp": frozenset({
    "preproc_pragma", "preproc_nullable", "preproc_region", "preproc_endregion", "preproc_define", "preproc_undef",
    "preproc_warning", "preproc_error", "preproc_line",
})}
# The words a C# partial type's opening may hold besides its name (`public static partial class SqlMapper {`)
PARTIAL_SHELL_WORDS = frozenset({
    "public", "private", "protected", "internal", "static", "abstract", "sealed", "unsafe", "readonly", "ref", "new",
    "file", "partial", "class", "struct", "interface", "record",
})
# Languages whose split types keep only their opening (doc, attributes, declaration up to its `{`) in the header chunk
# that lists their members; the fields and properties after it are a part of the type. C#'s fields and properties
# come with pages of `///` doc (messagepack's `MessagePackSerializer` header was mostly `DefaultOptions`' remarks, and
# no candidate for "how objects are serialized"); PHP's properties are the class's configuration (a kernel's
# middleware lists), which its header reads better with (laravel and guzzle lost 0.016 and 0.025 without them).
HEADER_OPENING_LANGUAGES = frozenset({"csharp"})
# Doc comments that may end the last line of such a run and keep it (Haskell's `-- ^` after a signature's result).
TRAILING_DOCS = frozenset({"haddock"})
# Lead nodes that declare one definition: a second in the run means the first had none of its own (a type class's
# method signatures), so the run restarts at the second's own comments and the first stays with its class.
DECLARING_LEADS = frozenset({"signature"})
# Languages whose indented bodies run on over the comments and blank lines after them (Scala: `def f =` and its
# body hold the next definition's doc comment, and end in the indentation of that definition's line).
SWALLOWING_LANGUAGES = frozenset({"scala"})
# Languages that define a function by clauses, one definition each (`def f(0)`, `def f(n)`): a run of them is one
# function's chunk, as long as it fits.
CLAUSE_LANGUAGES = frozenset({"elixir", "haskell"})
# Languages whose tiny sibling definitions merge into one chunk naming them all
# (Haskell's one-line `instance ToJSON Int where` declarations would otherwise fill the top ten by the hundred).
MERGE_TINY_LANGUAGES = frozenset({"haskell"})
# JavaScript's line exporting the definition right above it (`export default throttle;`, `module.exports = Foo;`), a
# chunk of its own before: it joins that definition (or the last method of that class).
EXPORT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_EXPORT_OF = re.compile(r"(?:export\s+default|module\.exports\s*=)\s+([A-Za-z_$][\w$]*)\s*;?")
# ... and a file's directive alone above its first definition (`'use strict';`, `"use client";`) joins that definition
_DIRECTIVE = re.compile(r"""(['"])use [a-z ]+\1;?""")
# A TypeScript file of types alone compiles to no JavaScript: it describes code found elsewhere, as a `.d.ts` or a LuaLS
# `---@meta` file does, and its chunks are read as documentation (types_only)
_TYPE_DECLARATIONS = frozenset({"interface_declaration", "type_alias_declaration", "ambient_declaration"})
# Definitions that merge so in any language: a run of TypeScript's one-line `type X = A | B` aliases (zod's util.ts
# holds dozens) stays one chunk naming each, as the loose lines it was before aliases were named.
TINY_SIBLING_TYPES = frozenset({"type_alias_declaration"})
# Languages whose declaration line names no supertype (`defmodule Phoenix.Router do`: Phoenix is its namespace;
# `data Shape = Circle Double`: constructors; Lua's `local X = setmetatable({}, Base)`: a call).
NO_DECLARED_SUPERTYPES = frozenset({"elixir", "haskell", "lua"})  # Lua's come from its `---@class` line
# What a declaration writes besides its supertypes, per language, else type parameters in <...>: Scala's type
# parameters in [...] and constructor parameters and arguments in (...) (`abstract class HCursor(lastCursor:
# HCursor) extends ACursor(lastCursor)` extends ACursor); Java's and Kotlin's type parameters and, in (...), a
# record's components (`record StringKey(String name) implements IKey` implements IKey, not String), an enum
# constant's arguments (jimfs's `NFC(Pattern.CANON_EQ) {`), an anonymous class's constructor arguments (`new
# NumberStrategy(Calendar.YEAR) {`) and a Kotlin primary constructor's parameters (`class Response(private val
# response: HttpResponse) : Closeable {` implements Closeable, not HttpResponse).
_PARAMETERS = re.compile(r"<[^<>]*>|\([^()]*\)")
TYPE_PARAMETERS = {"scala": re.compile(r"\[[^\[\]]*\]|\([^()]*\)"), "java": _PARAMETERS, "kotlin": _PARAMETERS}
# Swift's initialisers (`init(routes:middleware:)`, where a type sets itself up: as a part of a split type it had no
# name) and a protocol's required methods (`func respond(to:chainingTo:)`: named among the protocol's members, and a
# chunk with its doc when the protocol is split)
SWIFT_FUNCTIONS = frozenset({"init_declaration", "protocol_function_declaration"})
# Wrappers whose span belongs to the definition inside them (decorators, `export`, templates).
WRAPPER_TYPES = frozenset({"decorated_definition", "export_statement", "template_declaration"})
BODY_FIELDS = ("body", "declaration_list", "class_body")
IDENTIFIER_TYPES = frozenset({
    "identifier", "type_identifier", "property_identifier", "field_identifier", "constant",
    "namespace_identifier", "simple_identifier", "name", "IDENTIFIER",  # Zig's grammar spells its nodes so
})

MAX_WINDOW_LINES = 80
# A line longer than this is no line a person wrote (a minified bundle: Laravel's 717 KB `dist/scripts.js` puts 638
# functions on lines of up to 490,000 characters); definitions sharing such a line are one chunk, or each of them would
# carry the whole line (649 chunks, 36.9 MB of text for that one file). The default excludes skip `dist/` and
# `*.min.js`; a bundle under another name (`public/js/app.js`) is indexed.
LONG_LINE_CHARS = 1_000
# Words that carry no meaning on their own: a piece made only of these (and punctuation) is a closing line or a
# modifier left over between the methods of a split class (`}`, `end`, `private`), never a chunk of its own.
HOLLOW_WORDS = frozenset({
    "end", "private", "public", "protected", "internal", "static", "final", "override", "else", "default",
    "module_function", "nocov", "begin", "rescue", "ensure", "fi", "done", "esac", "endif", "pass", "break",
})
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CLOSING_DIRECTIVE = re.compile(
    r"^[ \t]*(?:#[ \t]*(?:endif|else)[ \t]*(?:(?://|/\*).*)?|\}[ \t]*//[ \t]*namespace\b.*|end[ \t]+#.*)$", re.M)
# (and Ruby's or Elixir's `end # Warden`: the comment names what the `end` closes)


# Lines that are no chunk of their own when nothing but them and closing braces lies between two definitions:
# Swift's section banners (`// MARK: - Private`, Xcode's jump-bar entries; alone they were a chunk each, 76 of
# vapor's and alamofire's 2,708 chunks and 39 more inside split types), Scala 3's end markers (`end Deck`), which the
# grammar leaves outside the definition they close, and C#'s directives (`#endregion`, `#if HAVE_ASYNC`, `#pragma
# warning restore 618`, `#endif` then `}`)
MARKER_LINES = {"swift": re.compile(r"[ \t]*//[ \t]*MARK:"), "scala": re.compile(r"[ \t]*end(?:[ \t]+\S+)?[ \t]*$"),
                "csharp": re.compile(r"[ \t]*#")}


def _markers_only(text: str, language: str) -> bool:
    marker = MARKER_LINES.get(language)
    return marker is not None and hollow("\n".join(line for line in text.splitlines() if not marker.match(line)))


def hollow(text: str) -> bool:
    """True for text with no word but closing keywords and modifiers (`}`, `end`, `private`, `});`), or the end of
    a C/C++ conditional block or namespace (`#endif  // JSON_DISABLE_ENUM_SERIALIZATION`, `}  // namespace absl`)."""
    words = _WORDS.findall(_CLOSING_DIRECTIVE.sub("", text))
    return all(word.lower() in HOLLOW_WORDS for word in words)


def _comment_only(lines: list[str], p: _Piece) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in lines[p.start : p.end + 1])


# A definition marked as kept only for old callers: Java/Kotlin `@Deprecated`, Rust `#[deprecated]`, JSDoc/YARD/PHPDoc
# `@deprecated`, Go's `// Deprecated:` paragraph, C#'s `[Obsolete]`, Python's `@deprecated(...)` decorator
_DEPRECATED = re.compile(r"@[Dd]eprecated\b|#\[deprecated\b|(//|#|\*)\s*Deprecated:|\[Obsolete\b")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_GENERICS = re.compile(r"<[^<>]*>")
# The namespace or outer type written before a supertype's name, per language: PHP's `\Psr\Http\Client\` before
# ClientInterface, C#'s `SqlMapper.` before ITypeHandler and `System.Dynamic.` before IDynamicMetaObjectProvider (every
# type handler of Dapper's "implemented" SqlMapper, and a DapperRow part System and Dynamic); not supertypes
QUALIFIERS = {"php": re.compile(r"\\?(?:\w+\\)+(?=\w)"), "csharp": re.compile(r"(?:global::)?(?:\w+\.)+(?=\w)")}
_PHP_TRAIT_USE = re.compile(r"^[ \t]*use[ \t]+([\w\\, \t]+?)[ \t]*[;{]", re.M)  # in a class body: traits, not imports
SUPERTYPES = 8  # at most this many names kept from a declaration (a minified line holds thousands)


def _declaration(chunk: Chunk) -> tuple[list[str], int]:
    """The chunk's lines and the index of its declaration line: the first that writes its own name outside a
    comment or an annotation (len(lines) when none does). A block comment's lines need not start with `*` (ky's
    JSDoc is prose between `/**` and `*/`, which names the class and what extends it)."""
    lines = chunk.content.splitlines()
    own = chunk.symbol.rsplit(".", 1)[-1]
    in_comment = False
    for i, line in enumerate(lines):
        text = line.strip()
        if in_comment or text.startswith("/*"):
            in_comment = "*/" not in text[2:] if text.startswith("/*") else "*/" not in text
            continue
        if _writes_name(line, own) and not text.startswith(("*", "/", "#", "@", '"', "'")):
            return lines, i
    return lines, len(lines)


def _writes_name(line: str, name: str) -> bool:
    """`name` occurs in `line` as a whole word (no letter, digit, `_` or `$` either side). A string search, not a
    regular expression: one compiled per chunk's name was a tenth of the chunking of a large C++ project."""
    at = line.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or line[at - 1] not in _NAME_CHARS) and (end == len(line) or line[end] not in _NAME_CHARS):
            return True
        at = line.find(name, at + 1)
    return False


def types_only(root: Any) -> bool:
    """A TypeScript file whose statements are type declarations (interfaces, type aliases, `declare` blocks), imports
    and `export type` lists: nothing in it runs (elysia's `types.ts`, redux's `types/store.ts`, vitest's
    `node/types/config.ts`). Its interfaces' doc comments describe behaviour in a question's words, so they ranked
    above the code doing it. A side-effect import (`import './setup'`), a value re-export or any other statement runs."""
    declared = False
    for node in root.named_children:
        if node.type == "export_statement":
            node = node.child_by_field_name("declaration") or node
            if node.type == "export_statement" and not any(c.type == "type" for c in node.children):
                return False  # `export { x }`, `export * from`: values; `export type { X } from` is types
        if node.type in _TYPE_DECLARATIONS:
            declared = True
        elif not (node.type == "comment" or node.type == "export_statement"
                  or (node.type == "import_statement" and any(c.type == "import_clause" for c in node.children))):
            return False
    return declared


def deprecated(chunk: Chunk) -> bool:
    """The chunk's definition is marked deprecated in the lines above and on its declaration (its doc comment and
    annotations), not somewhere in its body (a class whose one method is deprecated is not)."""
    if chunk.kind not in ("class", "function") or not chunk.symbol or not _deprecated_mark(chunk.content):
        return False  # (a mark in the lines up to the declaration is a mark in the whole text)
    lines, at = _declaration(chunk)
    return bool(_DEPRECATED.search("\n".join(lines[: at + 1])))


def _deprecated_mark(text: str) -> bool:
    """_DEPRECATED.search, skipped when the text holds neither word every mark spells (a substring test is many times
    faster than the pattern's, which starts at every `*`, `/` and `#` of a doc comment)."""
    return ("eprecated" in text or "Obsolete" in text) and _DEPRECATED.search(text) is not None


def deprecated_types(chunks: list[Chunk]) -> frozenset[str]:
    """The Java types a file's chunks declare deprecated (`deprecated` on their header): their methods are kept for
    old callers too, though only the type's declaration says so (truth's `Truth8`, whose `assertThat` methods hand
    on to `Truth`'s). Java only (BODILESS_LANGUAGES), as `_idle` reads the mark."""
    return frozenset(c.symbol for c in chunks
                     if c.kind == "class" and c.language in BODILESS_LANGUAGES and deprecated(c))


def in_deprecated_type(chunk: Chunk, types: frozenset[str]) -> bool:
    """A method of a type of deprecated_types (or of a type nested in one)."""
    return chunk.kind == "function" and any(chunk.symbol.startswith(t + ".") for t in types)


_IMPL_BLOCK = re.compile(r"^\s*(?:(?:pub(?:\([^)]*\))?|unsafe|default)\s+)*impl\b")


def addition(chunk: Chunk) -> bool:
    """The chunk adds to a type defined elsewhere rather than defining it: a Rust `impl` block (`impl Default for
    Value`, `impl Value`) is named after its type, as the `enum Value` it adds methods or a trait to is."""
    if chunk.kind != "class" or chunk.language != "rust":
        return False
    lines, at = _declaration(chunk)
    return at < len(lines) and bool(_IMPL_BLOCK.match(lines[at]))


# Languages whose interface and abstract methods are written as a declaration ending in `;`, with no body. Measured
# on dev data for C# and PHP too (3 questions up and 1 down in all) and Kotlin, Scala, Swift and TypeScript (none up,
# 3 down): left to Java, whose libraries are built on such contracts (docs/benchmarks.md, t-java6)
BODILESS_LANGUAGES = frozenset({"java"})


def bodiless(chunk: Chunk) -> bool:
    """The chunk is a method declared without a body (`Decoder decode(JsonIterator iter) throws IOException;`): an
    interface's or an abstract method, a contract whose work is done in the classes implementing it."""
    if chunk.kind != "function" or chunk.language not in BODILESS_LANGUAGES or not chunk.content.rstrip().endswith(";"):
        return False
    lines, at = _declaration(chunk)
    return at < len(lines) and "{" not in "\n".join(lines[at:])  # from its name on: no body (a doc's `{@link}` is above)


# A statement of an accessor's body: it returns a field, a constant or `this`, or stores a name in a field
# (`return quoteMode;`, `return this.input;`, `return Constants.CR;`, `this.quote = quote;`, `_stringCtor = ctor;`)
_ACCESSOR_STATEMENT = re.compile(r"return\s+[\w$.]+|(?:this\.)?[\w$]+\s*=\s*[\w$.]+")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")


def accessor(chunk: Chunk) -> bool:
    """The chunk is a Java method that does no work: its body (one or two statements) only returns a field, a constant
    or `this`, or stores its argument in a field: a getter, a setter, a builder's setter returning `this`, a
    constructor that keeps its argument. Its doc comment describes the option it exposes in the words of the
    behaviour (commons-csv's `getIgnoreEmptyLines`: "Gets whether empty lines between records are ignored when parsing
    input"), while the code that does it is elsewhere (BODILESS_LANGUAGES: Java only, as measured). In Ruby, a method
    whose body is one line or runs straight through (_idle_ruby), and a class or module chunk that holds no code
    (_hollow_ruby)."""
    if chunk.language == "ruby":
        return _idle_ruby(chunk) if chunk.kind == "function" else chunk.kind == "class" and _hollow_ruby(chunk)
    if chunk.kind != "function" or chunk.language not in BODILESS_LANGUAGES:
        return False
    code = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", chunk.content))  # its doc's `{@link}` gone
    start, end = code.find("{"), code.rfind("}")
    if start < 0 or end < start:
        return False
    statements = [s.strip() for s in code[start + 1 : end].split(";") if s.strip()]
    return 0 < len(statements) <= 2 and all(_ACCESSOR_STATEMENT.fullmatch(s) for s in statements)


def _idle_ruby(chunk: Chunk) -> bool:
    """A Ruby method that does its work elsewhere: its body is one line (or none: `def name = value`, `def name;
    @name; end`), or runs straight through, with no condition, loop or block (_BRANCH). One line reads a field or a
    memo (`@request ||= Rack::Request.new(@env)`), answers a predicate over one, or hands the call on (cuba's `use`:
    `app.use(middleware, *args, &block)`); a straight body stores its arguments (`@app = app`, `@options = options`)
    or prepares them and hands them on (thor's `create_link` builds its config and passes it to `CreateLink.new`).
    Its name and its few words read like a question about the behaviour it names, while the work, the part that
    decides, is in the method it reads from or calls (hanami-controller's `session_enabled?`, `@session_enabled`,
    above the methods that write the session). Read by lines, not parsed: the body runs to the `end` indented as
    the `def`; the first window of a method too long for one chunk, which holds no such `end`, is neither."""
    body = _ruby_body(chunk)
    return body is not None and (len(body) <= 1 or not any(_BRANCH.search(line) for line in body))


def _hollow_ruby(chunk: Chunk) -> bool:
    """A Ruby class or module chunk that holds no code of its own: each of its lines opens or closes a class or
    module, mixes one in, declares attributes, a visibility or a constant, or requires a file (_RUBY_DECLARATION). It
    is the header of a class whose methods are chunks of their own, a namespace, or a class that only names a place
    in a hierarchy (faraday's `class SSLError < Error; end`, webrick's `ProxyBasicAuth`, which includes a module and
    inherits the rest). It says what the class is called and where it sits; the code a sentence describes is in
    its methods, its superclass or its modules, as a short method's is in what it calls."""
    code = [line.strip() for line in chunk.content.splitlines()]
    return not any(line and not line.startswith("#") and not _RUBY_DECLARATION.match(line) for line in code)


# a line of a Ruby class or module that declares and does nothing: its opening and `end`, a mixin, attributes, a
# visibility, a constant (`VERSION = "1.0"`, `class << self`), a require
_RUBY_DECLARATION = re.compile(r"(?:class|module|end|include|extend|prepend|attr_reader|attr_writer|attr_accessor|"
                               r"private|protected|public|private_constant|module_function|require|require_relative)"
                               r"(?![\w?!:])|[A-Z][A-Z0-9_]*\s*=(?!=)")


def _ruby_body(chunk: Chunk) -> list[str] | None:
    """The code lines of a Ruby method's body (no blank lines or comments; a signature or an expression over several
    lines counts as more than one), from its `def` to the `end` indented as it is; None when the chunk holds no such
    `end`. An endless `def name = value` or a `def name; value; end` is one line."""
    lines, at = _declaration(chunk)
    if at >= len(lines):
        return None
    if _ENDLESS_DEF.match(lines[at]):
        return [lines[at].strip()]
    indent = len(lines[at]) - len(lines[at].lstrip())
    body: list[str] = []
    for line in lines[at + 1:]:
        text = line.strip()
        if text == "end" and len(line) - len(line.lstrip()) == indent:
            return body
        if text and not text.startswith("#"):
            body.append(text)
    return None


# a line of a Ruby body that decides or repeats: a condition (`if`, `unless`, `case`, also as a modifier), a `rescue`,
# a loop, or a block (`do`, `{ |x|`, an iterator: `each`, `map`, ...); a name such as `do_GET` or `:if` is none
_BRANCH = re.compile(r"(?<![\w.:@$])(?:if|unless|case|while|until|rescue|for|loop)(?![\w?!:])|\bdo\b|\{\s*\||"
                     r"\.(?:each|map|select|reject|inject|reduce|find|each_with_object)(?![\w?!])")


# a method of one line, `def name = value` (endless) or `def name; value; end`: not a setter's name (`def body=(str)`)
# or an operator's (`def ==(o)`)
_ENDLESS_DEF = re.compile(r"\s*(?:(?:private|protected|public)\s+)?def\s+(?:(?:self\.)?[\w?!]+(?:\(.*\))?\s+=\s|.*;\s*end\s*$)")


# a line that gives a value back: `return` with a value other than None on the same line (a bare `return` is an early
# exit), or a `yield` (a generator's)
_VALUE_LINE = re.compile(r"^[ \t]*return\b[ \t]*(?!None\b[ \t]*(?:#.*)?$)[^\s#;]|\byield\b", re.M)
_SIGNATURE_END = re.compile(r":\s*(?:#.*)?$")
_DOCSTRING_OPEN = re.compile(r"[rRuUbB]?(\"\"\"|\'\'\'|\"|\')")


def valueless(chunk: Chunk) -> bool:
    """The chunk is a Python function with work of its own (two statements or more) that neither returns a value nor
    yields: what it does is its effect (`Future.set_result` stores the result and schedules the callbacks), so it is
    not what a description opening with "Return ..." names (`Future.result`). A body of one statement (`pass`, a
    `raise`, an abstract method's; its docstring is not counted) says nothing either way, and a function it defines
    that returns counts as its own return (read by lines, not parsed). The first window of a function too long for
    one chunk may be flagged: its `return` is in a later window, which service._read_windows reads. Python only: in Ruby, Rust or Kotlin a function's
    last expression is its value, and other languages were not measured."""
    if chunk.kind != "function" or chunk.language != "python" or _VALUE_LINE.search(chunk.content):
        return False
    lines = [line.strip() for line in chunk.content.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    opens = next((i for i, line in enumerate(lines) if line.startswith(("def ", "async def "))), None)
    if opens is None:
        return False
    body = next((i for i in range(opens, len(lines)) if _SIGNATURE_END.search(lines[i])), len(lines)) + 1
    if body < len(lines) and (quote := _DOCSTRING_OPEN.match(lines[body])):
        # skip the docstring: an abstract method documented "Return ..." that only raises has no effect to show
        mark, rest = quote.group(1), lines[body][quote.end():]
        body = body + 1 if mark in rest else next(
            (i + 1 for i in range(body + 1, len(lines)) if mark in lines[i]), len(lines))
    return len(lines) - body >= 2


# a shell line that prints a quoted string: `echo '...'`, `printf "..."`, a script's own `nvm_echo`/`nvm_err` wrappers,
# after any redirection (`>&2 echo`)
_PRINTED_LINE = re.compile(r"""^\s*(?:[0-9]*>&?[0-9]*\s*)?(?:command\s+)?(?:\w*echo\w*|printf|\w+_err)\s.*['"]""")
_HEREDOC = re.compile(r"^\s*(?:command\s+)?cat\b.*<<-?\s*['\"]?([\w-]+)['\"]?")  # text `cat` prints, not a script
# fed to python or osascript
HELP_TEXT_LINES = 8  # at least this many lines of code, most of them printed text


def command_line(chunk: Chunk) -> str:
    """The command line a shell dispatcher's branch runs (`nvm.use`, named by Chunker._dispatcher: "nvm use"), which a
    question writes as words; "" for any other chunk."""
    if chunk.language != "bash" or chunk.kind not in ("function", "part") or "." not in chunk.symbol:
        return ""
    return chunk.symbol.replace(".", " ", 1).lower()


def help_text(chunk: Chunk) -> bool:
    """A shell chunk that is mostly text printed to the user (a usage message of `echo` lines, or a heredoc): what the
    script says it does, read as documentation rather than as the code doing it (nvm's `--help` branch is 120 lines of
    `nvm_echo` that name every subcommand and option, and outranked the branches themselves)."""
    if chunk.language != "bash":
        return False
    code, printed, until = 0, 0, ""
    for line in chunk.content.splitlines():
        stripped = line.strip()
        if until:
            code, printed = code + 1, printed + 1
            until = "" if stripped == until else until
            continue
        if not stripped or stripped.startswith("#"):
            continue
        code += 1
        if heredoc := _HEREDOC.match(line):
            until = heredoc.group(1)
        elif _PRINTED_LINE.match(line):
            printed += 1
    return code >= HELP_TEXT_LINES and printed >= 0.6 * code


def supertypes(chunk: Chunk) -> list[str]:
    """The type names a class chunk's declaration writes besides its own: what it extends or implements (`class
    AutoDeflate < Feature`, `class HammingDistance implements EditDistance<Integer> {`, `impl Buf for Chain<T, U>`),
    read up to the opening brace or a `where` clause, over at most four lines (a brace on its own line after
    `extends` and `implements` lines: msgpack-java's ImmutableMapValueImpl), without type parameters (`impl<B:
    BufMut> Write for Writer<B>` implements `Write`); a question asking for the implementations of a name finds
    them by it."""
    if chunk.kind != "class" or not chunk.symbol or chunk.language in NO_DECLARED_SUPERTYPES:
        return []
    lines, at = _declaration(chunk)
    tail = lines[at : at + 4]
    # the body opens at a brace, or in Scala 3 at a line ending in a colon (`object Codecs:`)
    end = next((i for i, line in enumerate(tail)
                if "{" in line or (chunk.language == "scala" and line.rstrip().endswith(":"))), 0)
    text = re.split(r"\{|\bwhere\b", " ".join(tail[: end + 1]), maxsplit=1)[0]
    own = chunk.symbol.rsplit(".", 1)[-1]
    if chunk.language in EXPORT_LANGUAGES and (named := re.search(rf"(?<![\w$]){re.escape(own)}(?![\w$])", text)):
        text = text[named.end() :]  # what it extends follows its name: `internals.Response.Payload = class extends
        # Stream.Readable` extends Stream.Readable, not the `Response` that holds it
    if chunk.language == "php":  # the traits its body uses are mixed into it: `use EnumeratesValues, Macroable;`
        text += " " + " ".join(m.group(1) for m in _PHP_TRAIT_USE.finditer("\n".join(lines[at + 1 :])))
    generics = TYPE_PARAMETERS.get(chunk.language, _GENERICS)
    while (bare := generics.sub(" ", text)) != text:  # type parameters and their bounds are not supertypes
        text = bare
    if (qualifier := QUALIFIERS.get(chunk.language)) is not None:
        text = qualifier.sub("", text)
    if chunk.language == "scala":  # its own backquoted name (``class `Content-Type` ``) is not two supertypes
        text = text.replace(f"`{own}`", " ")
    return [w for w in dict.fromkeys(_NAME.findall(text)) if w != own and not w.islower()][:SUPERTYPES]


def estimate_tokens(text: str) -> int:
    """Rough subword count (about four characters a token for code): cheap and good enough for sizing."""
    return (len(text) + 3) // 4


@dataclass
class Chunk:
    file: str
    start_line: int  # 1-based, inclusive
    end_line: int
    symbol: str  # qualified name ("Class.method"), "" for loose module code
    kind: str  # function | class | module | part | lines
    language: str
    content: str
    symbols: list[str] = field(default_factory=list)  # every definition a merged chunk holds
    decl_line: int = 0  # a part of a split definition: the line of its declaration (`def`), 0 otherwise
    implements: list[str] = field(default_factory=list)  # what a class extends or implements (supertypes), and the
    # trait a Rust `impl Trait for Type` block implements
    documentation: bool = False  # read as documentation though in a code file: a shell script's help text
    # (help_text), a LuaLS definition file (`---@meta`: declarations for the language server, never run), a TypeScript
    # file of types alone (types_only: it compiles to no JavaScript)
    members: list[tuple[str, int, int]] = field(default_factory=list)  # a class kept whole: each method it holds, as
    # (qualified name, first line, last line), the chunk its method would be were the class split (service._member_similarity)

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class _Piece:
    start: int  # 0-based row, inclusive
    end: int
    symbol: str
    kind: str
    symbols: list[str] = field(default_factory=list)
    gap: bool = False  # loose lines between definitions (imports, comments, class attributes)
    header: bool = False  # the opening lines of a split class: its name, signature and members' names
    decl: int | None = None  # row of the definition's own first line, below its doc comment (start if None)
    implements: list[str] = field(default_factory=list)  # Chunk.implements
    opening: int | None = None  # a split class: the row of its own doc (Elixir's `@moduledoc`), which its header holds
    sibling: bool = False  # a tiny definition that merges with tiny neighbours of its kind (TINY_SIBLING_TYPES)
    members: list[tuple[str, int, int]] = field(default_factory=list)  # Chunk.members, in rows


def _scoped_name(node: Any) -> str:
    """A C++ name without template arguments, its scopes joined by dots: `formatter<T, Char>` is 'formatter',
    `basic_json<...>::parse` (a method defined outside its class) is 'basic_json.parse'."""
    if node.type == "qualified_identifier":
        parts = (node.child_by_field_name("scope"), node.child_by_field_name("name"))
        return ".".join(_scoped_name(part) for part in parts if part is not None and _scoped_name(part))
    if node.type in ("template_type", "template_function", "template_method"):
        inner = node.child_by_field_name("name")
        return _scoped_name(inner) if inner is not None else ""
    if node.type == "nested_namespace_specifier":  # `namespace absl::strings_internal {`
        return ".".join(_scoped_name(part) for part in node.named_children)
    return str(node.text.decode("utf-8", "replace"))


def _node_name(node: Any) -> str:
    named = node.child_by_field_name("name")
    if named is not None:
        return _scoped_name(named)
    declarator = node.child_by_field_name("declarator")
    declarator = macro_wrapped(declarator) or declarator  # `UV_UNUSED(static void f(int x)) {`: f
    while declarator is not None:  # C/C++: int *f(int x) -> function_declarator -> identifier
        if declarator.type in IDENTIFIER_TYPES or declarator.type.endswith(("identifier", "operator_name")) \
                or declarator.type == "destructor_name":
            return _scoped_name(declarator)
        inner = declarator.child_by_field_name("declarator")
        if inner is None:  # C++'s `T& operator[](...)`: a reference declarator holds the function's without a field
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
        if inner is None:
            found = next((c for c in declarator.named_children if c.type.endswith("identifier")), None)
            return _scoped_name(found) if found is not None else ""
        declarator = inner
    if node.type in ("impl_item",):
        target = node.child_by_field_name("type")
        # the type's own name: `impl<'de, E> MapDeserializer<'de, E>` and `impl Serializer for &mut fmt::Formatter`
        # define methods of MapDeserializer and Formatter (a name a question writes, and no comma in the name)
        while target is not None and target.type in ("generic_type", "reference_type", "scoped_type_identifier"):
            target = target.child_by_field_name("name" if target.type == "scoped_type_identifier" else "type")
        if target is not None:
            return str(target.text.decode("utf-8", "replace"))
    for child in node.named_children:
        if child.type in IDENTIFIER_TYPES:
            return str(child.text.decode("utf-8", "replace"))
        # Go: type X struct {...}; Dart: a method's signature holds the function's, getter's, constructor's...;
        # Zig: `pub fn parse(...)` and `const Parser = struct {...}` name their prototype or constant
        if child.type in ("type_spec", "FnProto", "VarDecl") or node.type == "method_signature":
            return _node_name(child)
    return ""


def _impl_trait(node: Any) -> list[str]:
    """The trait a Rust `impl Trait for Type` block implements (`SeqAccess`, without path or generics): kept apart
    from the names it defines, so "implementations of SeqAccess" finds the block, which stays named after the type
    and does not define the trait. Elixir's `defimpl` the same: the protocol it implements."""
    if node.type == "call":
        return _protocol(node)
    if node.type == "instance":  # Haskell: the class a `instance Foldable Stack` implements
        named = node.child_by_field_name("name")
        return [named.text.decode("utf-8", "replace")] if named is not None else []
    trait = node.child_by_field_name("trait") if node.type == "impl_item" else None
    while trait is not None and trait.type in ("generic_type", "scoped_type_identifier"):
        trait = trait.child_by_field_name("name" if trait.type == "scoped_type_identifier" else "type")
    return [str(trait.text.decode("utf-8", "replace"))] if trait is not None and trait.type == "type_identifier" else []


def _go_receiver(node: Any) -> str:
    """`func (s *Store) Get()` -> 'Store': Go methods live outside their type, the receiver names it."""
    if node.type != "method_declaration":
        return ""
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    for param in receiver.named_children:
        kind = param.child_by_field_name("type")
        while kind is not None and kind.type in ("pointer_type", "generic_type", "parenthesized_type"):
            kind = kind.child_by_field_name("type") or next(iter(kind.named_children), None)
        if kind is not None and kind.type == "type_identifier":
            return str(kind.text.decode("utf-8", "replace"))
    return ""


def _kotlin_receiver(node: Any) -> str:
    """`fun <T> CoroutineScope.launch(...)` -> 'CoroutineScope': a Kotlin extension function is called as a member of
    its receiver type (`scope.launch { }`), and a question names it so (`CoroutineScope.launch`)."""
    receiver = node.child_by_field_name("receiver") if node.type == "function_declaration" else None
    if receiver is None or receiver.type != "receiver_type":
        return ""
    pending = list(receiver.named_children)
    while pending:  # the first user type, through `String?` and parentheses; its type arguments left out
        child = pending.pop(0)
        if child.type == "user_type":
            parts = [c.text.decode("utf-8", "replace") for c in child.named_children if c.type == "type_identifier"]
            return ".".join(parts)
        pending.extend(child.named_children)
    return ""


def _arrow_function_name(node: Any) -> str | None:
    """`const f = (...) => ...` and `const f = function (...)`: a function in all but syntax; Lua's `M.setup =
    function(opts)` and `local f = function()` too (a module table's functions are written either way)."""
    if node.type == "variable_declaration" and [c.type for c in node.named_children] == ["assignment_statement"]:
        node = node.named_children[0]  # Lua: `local f = function() ... end`
    if node.type == "assignment_statement":  # Lua: one name, one function value
        names, values = (next((c for c in node.named_children if c.type == kind), None)
                         for kind in ("variable_list", "expression_list"))
        if names is None or values is None or names.named_child_count != 1 or values.named_child_count != 1:
            return None
        if values.named_children[0].type != "function_definition":
            return None
        return str(names.named_children[0].text.decode("utf-8", "replace"))
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return None
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    value = declarators[0].child_by_field_name("value")
    if value is not None and value.type in ("arrow_function", "function_expression", "function"):
        return _node_name(declarators[0])
    return None


def _exported_function(value: Any) -> Any:
    """The named function expression an `export default` value holds, as an operand of a condition or in
    parentheses (axios: `export default isHttpAdapterSupported && function httpAdapter(config) {...}`); None for
    any other value, or when it holds more than one."""
    found, stack = [], [value] if value is not None else []
    while stack:
        node = stack.pop()
        if node.type in ("function_expression", "function") and node.child_by_field_name("name") is not None:
            found.append(node)
        elif node.type in ("binary_expression", "ternary_expression", "parenthesized_expression"):
            stack.extend(node.named_children)
    return found[0] if len(found) == 1 else None


_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")


def _module_export(node: Any, stem: str) -> tuple[str, str, Any] | None:
    """(kind, name, node that defines it) for what a JavaScript file exports without naming it: `export default
    (config) => {...}`, `export default function (...) {...}` or `module.exports = function (...) {...}` is a function
    named after the file (`resolveConfig.js`: resolveConfig), as its importers name it. A `module.exports` function with
    a name of its own keeps it. None for anything else (a value, an object literal)."""
    value = None
    if node.type == "export_statement" and any(c.type == "default" for c in node.children):
        value = node.child_by_field_name("value")
    elif node.type == "expression_statement" and node.named_child_count == 1 \
            and node.named_children[0].type == "assignment_expression":
        assignment = node.named_children[0]
        left = assignment.child_by_field_name("left")
        if left is not None and left.text == b"module.exports":
            value = assignment.child_by_field_name("right")
    if value is None:
        return None
    if value.type in _FUNCTION_VALUES:
        named = value.child_by_field_name("name")
        return "function", _scoped_name(named) if named is not None else stem, value
    return None


def _assigned_definition(node: Any) -> tuple[str, str, Any] | None:
    """(kind, name, node that defines it) for a class a CommonJS module assigns to a property (hapi's `exports =
    module.exports = internals.Request = class {...}`, `internals.Info = class {...}`) and a function it exports so
    (`exports.isStream = function (stream) {...}`, `module.exports.drain = ...`): named by its own name if it has one,
    else by the property the innermost assignment of the chain sets. A function assigned to another object's property
    stays loose code (axios' `prototype.append = function ...` and `axios.all = ...`: three-line chunks of their own
    outranked the helpers that answer), and so does `module.exports = ...` (_module_export names that after the
    file). None for any other statement."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return None
    left, value = None, node.named_children[0]
    while value is not None and value.type == "assignment_expression":
        left, value = value.child_by_field_name("left"), value.child_by_field_name("right")
    if left is None or value is None or left.type != "member_expression" or left.text == b"module.exports":
        return None
    owner = left.child_by_field_name("object")
    exported = owner is not None and owner.text in (b"exports", b"module.exports")
    kind = "class" if value.type == "class" else "function" if value.type in _FUNCTION_VALUES and exported else ""
    named = value.child_by_field_name("name")
    prop = left.child_by_field_name("property")
    if not kind or (named is None and prop is None):
        return None
    return kind, _scoped_name(named) if named is not None else str(prop.text.decode("utf-8", "replace")), value


def _importer_name(path: str) -> str:
    """The name importers give a file's unnamed export: its stem (`lib/helpers/resolveConfig.js`: resolveConfig), or
    its folder's for an `index.js` (imported as the folder); "" when that is no identifier."""
    file = PurePosixPath(path.replace("\\", "/"))
    stem = file.stem.split(".")[0]  # `index.d.ts`, `config.test.js`
    name = file.parent.name if stem == "index" else stem
    return name if _NAME.fullmatch(name) else ""


DEFINITION_KINDS = {**DEFINING_CALLS, **DEFINING_ATTRIBUTES}


def _defining_call(node: Any) -> tuple[str, str] | None:
    """(kind, name) of an Elixir definition (grammar.definition_word), named as grammar.defined_name says, but a
    `defimpl Phoenix.Param, for: Integer` is Phoenix.Param.Integer (the module Elixir names the implementation).
    None for any other node."""
    found = defined_name(node)
    if found is None:
        return None
    kind = "function" if DEFINITION_KINDS[definition_word(node)] in FUNCTION_KINDS else "class"
    name = str(found.text.decode("utf-8", "replace"))
    implemented = implemented_for(node)
    return kind, name if implemented is None else f"{name}.{implemented}"


def _protocol(node: Any) -> list[str]:
    """The protocol an Elixir `defimpl Phoenix.Param, for: Integer` implements (`Param`), as Rust's impl trait."""
    if call_word(node) != "defimpl":
        return []
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return [first.text.decode("utf-8", "replace").rsplit(".", 1)[-1]] if first is not None and first.type == "alias" else []


def _own_rows(node: Any, lines: list[str]) -> tuple[int, tuple[int, int] | None]:
    """For a grammar of SWALLOWING_LANGUAGES: the last row of the definition's own code, and the rows of the comment
    run at its tail that documents what follows (None when there is none). The tail is followed down the last child
    while it ends where its parent ends."""
    current = node
    while current.named_children:
        named = current.named_children
        if named[-1].type.endswith("comment"):
            at = len(named)
            while at and named[at - 1].type.endswith("comment"):
                at -= 1
            if at:
                return _last_row(named[at - 1], lines), (named[at].start_point[0], named[-1].end_point[0])
            break
        if named[-1].end_byte != current.end_byte:
            break
        current = named[-1]
    return _last_row(node, lines), None


def _last_row(node: Any, lines: list[str]) -> int:
    """The node's last row, not counting a row it only reaches into the indentation of."""
    row, column = node.end_point
    if row > node.start_point[0] and (row >= len(lines) or not lines[row][:column].strip()):
        return int(row) - 1
    return int(row)


def _module_doc_row(body: Any) -> int | None:
    """The row of an Elixir module's `@moduledoc` among the statements of its body, None when it has none."""
    for child in body.named_children:
        operand = child.child_by_field_name("operand") if child.type == "unary_operator" else None
        if operand is not None and call_word(operand) == "moduledoc":
            return int(child.start_point[0])
    return None


def _lead_attribute(node: Any) -> bool:
    """An Elixir `@doc`, `@spec` or `@impl` line: it belongs to the definition below it, as a doc comment does."""
    operand = node.child_by_field_name("operand") if node.type == "unary_operator" else None
    return operand is not None and call_word(operand) in LEAD_ATTRIBUTES


def _blank_run(lines: list[str], row: int) -> int:
    """How many blank lines start at row."""
    count = 0
    while row + count < len(lines) and not lines[row + count].strip():
        count += 1
    return count


def _constant_block_body(node: Any) -> Any:
    """The block's body of a Ruby class made by a call (`Env = Options.new(:url) do ... end`, `Point =
    Struct.new(:x) { ... }`, `Options = Data.define(:path) do ... end`): a class in all but syntax, named by the
    constant, when the block defines methods; None for any other node."""
    if node.type != "assignment":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type != "constant" or right.type != "call":
        return None
    block = right.child_by_field_name("block")  # Options.new, Struct.new, Data.define, Class.new(Base) ...
    if block is None or block.type not in ("do_block", "block"):
        return None
    body = next((c for c in block.named_children if c.type in ("body_statement", "block_body")), None)
    if body is None or not any(c.type in ("method", "singleton_method") for c in body.named_children):
        return None
    return body


def _zig_definition(node: Any) -> str | None:
    """'function' for Zig's `fn` declarations and `test "name" {...}` blocks, 'class' for a constant holding a
    struct (zig_container), else None."""
    if node.type == "TestDecl":
        return "function"
    kind = zig_decl_kind(node)
    return "class" if kind == "struct" else kind


def _body(node: Any) -> Any:
    zig = zig_container(node)
    if zig is not None:
        return zig
    if node.type == "extension_definition":  # Scala 3: its methods are its own children (the `body` field is one)
        return node
    block_body = _constant_block_body(node)
    if block_body is not None:
        return block_body
    anonymous = anonymous_class_body(node)
    if anonymous is not None:
        return anonymous
    lua_table = lua_function_table(node)
    if lua_table is not None:
        return lua_table[1]
    for name in BODY_FIELDS:
        found = node.child_by_field_name(name)
        if found is not None:
            return found
    for child in node.named_children:
        if child.type in ("class_body", "declaration_list", "body_statement", "field_declaration_list",
                          "enum_body", "interface_body", "block", "extension_body", "do_block",
                          "class_declarations", "instance_declarations"):
            return child
    return node


def _comments_before(body: Any, node: Any) -> tuple[int, int] | None:
    """Rows of the comment run between a definition's header and its body: tree-sitter-ruby keeps the comments
    above a module's or class's first statement outside its body, and they document that statement. A comment on
    the header's own line (`module Coder # :nodoc:`) is the header's."""
    if body is node:
        return None
    run = []
    sibling = body.prev_named_sibling
    while sibling is not None and sibling.type.endswith("comment"):
        run.append(sibling)
        sibling = sibling.prev_named_sibling
    while run and sibling is not None and run[-1].start_point[0] <= sibling.end_point[0]:
        run.pop()
    return (run[-1].start_point[0], run[0].end_point[0]) if run else None


def _trailing_leads(node: Any, lead_types: frozenset[str]) -> tuple[int, int] | None:
    """Rows of the comment run that ends `node` touching the line below it: Haskell's grammar keeps the haddock of
    the first declaration inside the `imports` before it."""
    if node is None:
        return None
    start = end = None
    for child in reversed(node.named_children):
        lead = child.type.endswith("comment") or child.type in lead_types
        if not lead or child.end_point[0] + 1 < (start if start is not None else node.end_point[0]):
            break
        if end is None:
            end = child.end_point[0]
        start = child.start_point[0]
    previous = node.named_children[0] if start is not None else None
    return (start, end) if start is not None and end is not None and previous is not None \
        and previous.start_point[0] < start else None


def _namespace_only(node: Any) -> bool:
    """A Ruby module whose body holds only classes and modules (constant blocks included), or a class reopened
    only to hold them (`class Thor` around `class Options < Arguments`, no superclass): a namespace (it scopes their
    names, like a C# namespace), not a definition of its own."""
    if node.type == "class" and node.child_by_field_name("superclass") is not None:
        return False
    body = _body(node)
    inside = [c for c in body.named_children if not c.type.endswith("comment")] if body is not node else []
    return bool(inside) and all(c.type in ("class", "module") or _constant_block_body(c) is not None for c in inside)


def _partial_holder(node: Any) -> bool:
    """A C# partial type whose part in this file holds only nested types (Dapper's SqlMapper.ITypeHandler.cs): it
    scopes their names, as a namespace does; the type is defined where its members are."""
    if not any(c.type == "modifier" and c.text == b"partial" for c in node.children):
        return False
    body = _body(node)
    inside = [c for c in body.named_children if not c.type.endswith("comment")] if body is not node else []
    return bool(inside) and all(c.type in CLASS_TYPES or c.type in ("enum_declaration", "delegate_declaration")
                                for c in inside)


def _ruby_branches(node: Any) -> list[Any]:
    """The bodies of a Ruby `if` / `unless` / `elsif` / `begin`, or of a call's block (`class_methods do ... end`):
    where a class defines methods conditionally (`if RUBY_VERSION >= "2.4"; def f ... else def f ... end`) or
    through a DSL block. Their methods are the enclosing scope's own."""
    if node.type in ("if", "unless", "elsif"):
        out: list[Any] = []
        for child in node.named_children:
            if child.type in ("then", "else"):
                out.append(child)
            elif child.type == "elsif":
                out.extend(_ruby_branches(child))
        return out
    if node.type == "begin":
        return [node]
    if node.type == "call":
        block = node.child_by_field_name("block")
        if block is not None and block.type in ("do_block", "block"):
            body = next((c for c in block.named_children if c.type in ("body_statement", "block_body")), None)
            return [body] if body is not None else []
    return []


def _wrapped_method(node: Any) -> Any:
    """The method a Ruby call takes as its only argument (`private def token`, `private_class_method def
    self.normalize_paths(...)`, `memoize def rates`): `def` returns the method's name, so a modifier can wrap the
    definition. None for any other node."""
    if node.type != "call" or node.child_by_field_name("block") is not None:
        return None
    arguments = node.child_by_field_name("arguments")
    inside = [c for c in arguments.named_children if not c.type.endswith("comment")] if arguments is not None else []
    return inside[0] if len(inside) == 1 and inside[0].type in ("method", "singleton_method") else None


def _misread_class(node: Any) -> Any:
    """The C++ class a function definition was read around: a macro the grammar cannot expand inside a class body
    (`FMT_NO_UNIQUE_ADDRESS Allocator alloc_;`) can end the class early, and the parser then reads the class as the
    return type of the member defined after it; the class is the definition. None for any other node."""
    if node.type != "function_definition":
        return None
    kind = node.child_by_field_name("type")
    if kind is not None and kind.type in ("class_specifier", "struct_specifier", "union_specifier") \
            and kind.child_by_field_name("body") is not None:
        return kind
    return None


def _typedef_body(node: Any) -> Any:
    """The struct, union or enum a C `typedef struct uv_loop_s {...} uv_loop_t;` defines with its body (the type
    is named by its alias, the name its callers write); None for any other node."""
    if node.type != "type_definition":
        return None
    kind = node.child_by_field_name("type")
    return kind if kind is not None and kind.type in _C_TYPES and kind.child_by_field_name("body") is not None \
        else None


def _signature_body(node: Any) -> Any:
    """The body that follows a Dart function's or method's signature as its next sibling, or None (an abstract
    method, a signature ending in `;`)."""
    body = node.next_named_sibling
    return body if body is not None and body.type == SIGNATURE_BODY else None


def _classify(node: Any, own: dict[str, str]) -> tuple[str, str, Any] | None:
    """(kind, name, node that defines it) for definitions, unwrapping decorators and exports; `own` is the
    language's LANGUAGE_DEFINITIONS."""
    if node.type in own:
        # a Haskell instance is named by its type (`instance Foldable Stack`: Stack), a module header by its module
        named = instance_type(node) or node.child_by_field_name("module") or haskell_operator(node)
        name = named.text.decode("utf-8", "replace") if named is not None else _node_name(node)
        return own[node.type], name if own[node.type] != "scope" else "", node
    target = _wrapped_method(node) or node
    elixir = _defining_call(node)
    if elixir is not None:
        return elixir[0], elixir[1], node
    if node.type in WRAPPER_TYPES:
        inner = node.child_by_field_name("definition") or node.child_by_field_name("declaration")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in FUNCTION_TYPES | CLASS_TYPES), None)
        if inner is None:
            named = _exported_function(node.child_by_field_name("value"))
            return ("function", _node_name(named), named) if named is not None else None
        target = inner
    misread = _misread_class(target)
    if misread is not None:
        return "class", _node_name(misread), misread
    defined = _typedef_body(target)
    if defined is not None:
        alias = target.child_by_field_name("declarator")
        named = alias is not None and alias.type == "type_identifier"
        return "class", _scoped_name(alias) if named else _node_name(defined), defined
    if target.type in FUNCTION_TYPES or (target.type in SIGNATURE_TYPES and _signature_body(target) is not None):
        return "function", _node_name(target), target
    zig = _zig_definition(target)
    if zig == "function" and target.type == "TestDecl":  # `test "parses a flag" {...}`: named by its string
        label = next((c for c in target.named_children if c.type != "Block"), None)
        return "function", label.text.decode("utf-8", "replace").strip('"') if label is not None else "test", target
    if zig is not None:
        return zig, _node_name(target), target
    if target.type == "preproc_function_def" and target.end_point[0] - target.start_point[0] >= MACRO_FUNCTION_ROWS:
        return "function", _node_name(target), target
    if target.type in SWIFT_FUNCTIONS:
        return "function", _node_name(target), target
    keyword = keyword_name(target)  # Swift's `subscript(...)`, `deinit`
    if keyword is not None:
        return "function", keyword.type, target
    if target.type == "given_definition":  # Scala 3: `given Ordering[User] with ...` is an instance of its own
        body = target.child_by_field_name("body")
        return "class" if body is not None and body.type == "with_template_body" else "function", \
            scala_given_name(target), target
    extended = scala_extended_type(target)  # Scala 3's `extension (s: String)`: methods added to String
    if extended is not None:
        return "class", _node_name(extended) or extended.text.decode("utf-8", "replace"), target
    if target.type in _C_TYPES and target.child_by_field_name("body") is None:
        return None  # a declaration (`template <typename Context> class basic_format_args;`), defined elsewhere
    if target.type in PREPROC_TYPES:
        return "scope", "", target
    if target.type == "singleton_class":  # Ruby's `class << self`: its methods are the enclosing class's own
        return "scope", "", target
    if target.type in ("module", "class") and _namespace_only(target):
        return "scope", _node_name(target), target
    if target.type in CLASS_TYPES or _constant_block_body(target) is not None:
        return "class", _node_name(target), target
    # Java: an enum constant with a body of its own (a state machine's states: `Data { void read(...) {...} }`)
    if target.type == "enum_constant" and target.child_by_field_name("body") is not None:
        return "class", _node_name(target), target
    if anonymous_class_body(target) is not None:
        declarator = target.child_by_field_name("pattern") if target.type == "val_definition" else None
        if declarator is not None:
            return "class", str(declarator.text.decode("utf-8", "replace")), target
        declarator = next(c for c in target.named_children if c.type == "variable_declarator")
        return "class", _node_name(declarator), target
    if target.type in SCOPE_TYPES:
        return "scope", _node_name(target), target
    lua_table = lua_function_table(target)
    if lua_table is not None:
        return "class", lua_table[0], target
    field_function = lua_field_function(target)  # a function of such a table
    if field_function is not None:
        return "function", field_function, target
    arrow_name = _arrow_function_name(target)
    if arrow_name:
        return "function", arrow_name, target
    return None


def _sole_function(node: Any, inner: list[_Piece]) -> bool:
    """A Swift extension that adds one function (or overloads of one name) and nothing else: no conformance
    (`extension X: Codable`, which is about the protocol), no property, no nested type."""
    kind = node.child_by_field_name("declaration_kind")
    if kind is None or kind.type != "extension" or any(c.type == "inheritance_specifier" for c in node.named_children):
        return False
    body = node.child_by_field_name("body")
    members = [c for c in body.named_children if not c.type.endswith("comment")] if body is not None else []
    return bool(inner) and len(members) == len(inner) and all(p.kind == "function" for p in inner) \
        and len({p.symbol for p in inner}) == 1


def _property_members(qualified: str, body: Any) -> list[str]:
    """Swift's computed properties in a type's body (`Request.session`): they stay in the type's chunk (whole, or its
    header when split) and are named among its members there."""
    return [f"{qualified}.{_node_name(c)}" for c in body.named_children if computed_property(c)]


# Kotlin's `public class TypeSpec` with `private constructor(` on the line below (kotlinpoet's style for every Spec):
# tree-sitter-kotlin ends the class at the line break and reads the rest of the file as errors, so the whole file was
# loose lines. The break moves after `constructor(`, into the parameter list: every row stays where it was
_KOTLIN_CONSTRUCTOR_BELOW = re.compile(
    r"(\b(?:class|object)[ \t]+\w+(?:<[^\n]*>)?)[ \t]*\n"
    r"([ \t]*(?:(?:private|internal|protected|public)[ \t]+)?(?:@\w+(?:\([^)\n]*\))?[ \t]+)*constructor[ \t]*\()")


def _blank(match: re.Match[str]) -> str:
    """The matched text (its last group when it has one) as spaces, newlines kept: parsed as nothing, every position
    unchanged."""
    at = match.start(match.lastindex or 0) - match.start()
    return match.group()[:at] + re.sub(r"[^\n]", " ", match.group()[at:])


class Chunker:
    """Chunks one file's text; `max_tokens` bounds every chunk (config chunk_max_tokens)."""

    def __init__(self, max_tokens: int = 512, strategy: str = "ast") -> None:
        self.max_tokens = max_tokens
        self.min_tokens = max(24, max_tokens // 8)  # below this, a lead-in (or a tiny sibling) merges
        self.strategy = strategy
        self._sums_of: list[str] | None = None  # the lines _sums was computed for
        self._sums: list[int] = [0]
        self._language = ""  # the language of the file being chunked: the tables above say what it changes
        self._exunit = False  # an ExUnit test file (`_test.exs`), whose tests and describe blocks are definitions
        self._stem = ""  # the name a JavaScript file's importers give what it exports unnamed (_module_export)
        self._types_only = False  # the file being chunked is TypeScript's types alone (types_only)

    def chunk(self, path: str, text: str, language: str | None) -> list[Chunk]:
        lines = text.splitlines()
        if not lines:
            return []
        if self.strategy == "ast" and language in CODE_LANGUAGES:
            self._exunit = language == "elixir" and path.endswith("_test.exs")
            self._stem = _importer_name(path)
            try:
                pieces = self._ast_pieces(text, language, lines, path.lower().endswith(".h"))
            except Exception:  # a grammar failure must not lose the file: fall back to windows
                log.warning("tree-sitter could not chunk %s; using line windows", path, exc_info=True)
                pieces = None
            if pieces is not None:
                chunks = [self._to_chunk(path, language or "text", lines, p) for p in pieces]
                declarations = (language == "lua" and lines[0].startswith("---@meta")) or (
                    self._types_only and not path.endswith(".d.ts"))  # file_role: `generated`
                for c in chunks:
                    c.documentation = declarations or help_text(c)
                return chunks
        return self._windows(path, language or "text", lines)

    # ------------------------------------------------------------------ AST
    def _ast_pieces(self, text: str, language: str, lines: list[str], header: bool = False) -> list[_Piece]:
        if language in ("c", "cpp"):
            for macros in (_MACRO_LINE, _CLASS_HEAD_MACROS, _TRAILING_MACROS):
                text = macros.sub(_blank, text)
        if language == "kotlin":
            text = _KOTLIN_CONSTRUCTOR_BELOW.sub(r"\1 \2\n", text)
        _, tree = read_tree(language, text.encode("utf-8", "surrogatepass"), header)
        self._language = language
        self._types_only = language in ("typescript", "tsx") and types_only(tree.root_node)
        owners: list[_Piece] = []  # split classes: loose lines inside them belong to the class
        pieces = self._join_on_long_lines(self._collect(tree.root_node, [], lines, owners), lines)
        pieces = self._fill_gaps(pieces, owners, len(lines), lines)
        pieces = self._split_oversized(pieces, lines)
        if language == "ruby":
            pieces = self._attach_loose_lines(pieces, lines)
        return self._merge_tiny(pieces, lines)

    def _tokens(self, lines: list[str], start: int, end: int) -> int:
        """Estimated tokens of lines start..end: from a running total per file (sizing asks this thousands of times
        per file, and summing the lines each time was a quarter of the cost of indexing)."""
        if self._sums_of is not lines:
            running = [0]
            for line in lines:
                running.append(running[-1] + estimate_tokens(line) + 1)
            self._sums_of, self._sums = lines, running
        end = min(end, len(lines) - 1)
        return self._sums[end + 1] - self._sums[start] if end >= start else 0

    def _collect(self, container: Any, scope: list[str], lines: list[str], owners: list[_Piece],
                 lead_in: tuple[int, int] | None = None) -> list[_Piece]:
        """Pieces of the definitions in `container`; `lead_in` is a comment run above its first statement that
        the grammar left outside it (_comments_before)."""
        pieces: list[_Piece] = []
        language = self._language
        lead_types = LEAD_TYPES.get(language, frozenset())
        directives = DIRECTIVE_LEADS.get(language, frozenset())
        # the condition of a C# `#if X` around definitions: its line opens the run of the definition below it
        condition = container.child_by_field_name("condition") if directives and container.type in PREPROC_TYPES \
            else None
        doc_start: int | None = lead_in[0] if lead_in else None  # first row of the comment run above the child
        doc_end = previous_end = lead_in[1] if lead_in else -1
        attribute_end = -2  # last row of an Elixir `@doc` or `@spec` ending the run: blank lines after it keep the run
        signed, restart = False, None  # the run holds a DECLARING_LEADS node; the first row of the comments after it
        inside_test = -1  # the end byte of a bats test's body: the statements before it are the test's
        # a Lua comment run may declare types (`---@class X`) with or without a table below; not in a `---@meta` file,
        # which declares the types of code found elsewhere (a library's API, a server's settings), as a `.d.ts` does
        annotated = language == "lua" and not (lines and lines[0].startswith("---@meta"))
        for child in container.named_children:
            if child.start_byte < inside_test:
                continue
            # the last row the run reaches: the line below it, or below the blank lines after an attribute
            reach = doc_end + 1 + (_blank_run(lines, doc_end + 1) if doc_end == attribute_end else 0)
            attribute = _lead_attribute(child) or child.type in lead_types
            directive = child.type in directives or (condition is not None and child.start_byte == condition.start_byte)
            if child.type.endswith("comment") or attribute or directive:
                # a comment that opens its own line and touches the run above continues it (Go's `//` lines)
                own_line = child.start_point[0] > previous_end
                child_end = _last_row(child, lines) if directive else child.end_point[0]
                if own_line and doc_start is not None and child.start_point[0] <= reach:
                    doc_end = child_end
                    if child.type in DECLARING_LEADS and signed and child.type in lead_types:
                        doc_start = child.start_point[0] if restart is None else restart
                    elif signed and restart is None:
                        restart = child.start_point[0]
                elif own_line:
                    if annotated and doc_start is not None:  # the run above ends here: the types it declares alone
                        pieces.extend(self._declared_types(lines, scope, doc_start, doc_end))
                    doc_start, doc_end, signed = child.start_point[0], child_end, False
                elif doc_start is None or child.type not in TRAILING_DOCS or child.start_point[0] != doc_end:
                    doc_start = None
                if child.type in DECLARING_LEADS and child.type in lead_types:
                    signed, restart = True, None
                doc_end = max(doc_end, child_end) if doc_start is not None else doc_end  # a kept `-- ^`
                attribute_end = child_end if attribute else -2
                previous_end = child_end
                continue
            lead = doc_start if doc_start is not None and child.start_point[0] <= reach + self._doc_gap(
                lines, doc_end, child) else None
            run = (doc_start, doc_end) if annotated and doc_start is not None else None
            doc_start, previous_end = None, child.end_point[0]
            own_end, tail = _own_rows(child, lines) if language in SWALLOWING_LANGUAGES else (child.end_point[0], None)
            if child.type == "preproc_function_def":  # a directive ends with its newline, in the row below it
                own_end = _last_row(child, lines)
            if tail is not None:  # the comment run it swallowed documents the next definition
                doc_start, doc_end = tail
            branches = _ruby_branches(child) if language == "ruby" else []
            if any(c.type in ("method", "singleton_method") for branch in branches for c in branch.named_children):
                for branch in branches:
                    pieces.extend(self._collect(branch, scope, lines, owners, _comments_before(branch, child)))
                continue
            if child.type == "file_scoped_namespace_declaration":  # C#'s `namespace X.Y;` scopes what follows it
                scope = [*scope, _node_name(child)]
                continue
            bats = bats_test(child) if language == "bash" else None
            if bats is not None:  # `@test "title" {`: a function named by its title, to the `}` that closes it
                own_end, inside_test = bats[1].end_point[0], bats[1].end_byte
            exunit = exunit_block(child) if self._exunit else None
            unnamed = (child.type == "ERROR" and language in ERROR_SCOPES) or (
                child.type in GUARD_SCOPES.get(language, ()))
            found = ("scope", "", child) if unnamed \
                else ("function", bats[0], child) if bats is not None \
                else (*exunit, child) if exunit is not None else _classify(child, LANGUAGE_DEFINITIONS.get(language, {}))
            if found is None and language in EXPORT_LANGUAGES:
                found = (_module_export(child, self._stem) if not scope and self._stem else None) \
                    or _assigned_definition(child)
            implements: list[str] = []  # what a Lua class extends, from its `---@class X: Base` line
            if run is not None and (lead is None or found is None or found[0] == "class"):
                declared = self._declared_types(lines, scope, *run)
                if lead is not None and declared:  # `---@class X` over `local X = {}`: the table is the type
                    typed = declared.pop()
                    lead, found = typed.start, ("class", typed.symbol.rpartition(".")[2], child)
                    implements = typed.implements
                pieces.extend(declared)
            if found is None:
                continue
            kind, name, node = found
            if kind == "class" and directives and _partial_holder(node):
                kind = "scope"  # `partial class SqlMapper { interface ITypeHandler {...} }`: the nested type's chunk
            if node.type in ("class", "module"):  # Ruby's `class Thor::Runner`: Runner under Thor, as when nested
                name = name.replace("::", ".")
            if language == "scala":  # a backquoted name is the name inside (http4s' ``object `Content-Type` ``)
                name = scala_unquoted(name)
            receiver = _go_receiver(node) or ("" if scope else _kotlin_receiver(node))  # top-level extensions
            qualified = ".".join([*scope, receiver, name] if receiver else [*scope, name]) if name else ".".join(scope)
            # a doc comment (Go `//` lines, JSDoc, Rust `///`, Javadoc) belongs to the definition it documents
            start, end = child.start_point[0] if lead is None else lead, own_end
            if child.type in SIGNATURE_TYPES:  # Dart: the body after the signature is the function's
                end = _signature_body(child).end_point[0]
            decl = child.start_point[0]
            last = pieces[-1] if pieces else None
            if kind == "function" and language in CLAUSE_LANGUAGES and last is not None and last.kind == "function" \
                    and last.symbol == qualified and hollow("\n".join(lines[last.end + 1 : start])) \
                    and self._tokens(lines, last.start, end) <= self.max_tokens:
                last.end = end  # the next clause of the function above (`def f(0)`, `def f(n)`): one function
            elif kind == "function":
                branches = subcommands(node) if language == "bash" and self._tokens(
                    lines, start, end) > self.max_tokens else []
                if branches:
                    pieces.extend(self._dispatcher(_Piece(start, end, qualified, "function", [qualified], decl=decl),
                                                   branches, lines))
                else:
                    pieces.append(_Piece(start, end, qualified, "function", [qualified], decl=decl))
            elif kind == "scope":
                body = _body(node)
                lead_in = _comments_before(body, node) if body is not node or not lead_types \
                    else _trailing_leads(node.prev_named_sibling, lead_types)
                inner = self._collect(body, [*scope, name] if name else scope, lines, owners, lead_in)
                if inner and unnamed and language == "php" and hollow(
                        "\n".join(lines[inner[-1].end + 1 : node.end_point[0] + 1])):
                    inner[-1].end = node.end_point[0]  # a guard's closing `}` ends its function, not opens the next
                pieces.extend(inner)
            elif node.type == "header" and language == "haskell":
                # a Haskell module's opening: its pragmas, haddock, name, export list and imports, the file's own
                # description and API, named by the module and listing what it exports. Module code all the same (no definition
                # of the module's last name, which is the file's: every header lifted as its file's type outranked
                # the definitions), and a loose line for merging: a tiny header still joins the definitions after it
                opening = child.prev_named_sibling
                while opening is not None and opening.type in ("pragma", "comment", "haddock"):
                    start, opening = min(start, opening.start_point[0]), opening.prev_named_sibling
                imports = child.next_named_sibling  # and its imports, but for the doc of the definition below them
                while imports is not None and imports.type.endswith("comment"):
                    imports = imports.next_named_sibling
                if imports is not None and imports.type == "imports":
                    leads = _trailing_leads(imports, lead_types)
                    end = leads[0] - 1 if leads is not None else _last_row(imports, lines)
                exported = [f"{qualified}.{n}" for n in haskell_exports(node)]
                pieces.append(_Piece(start, end, qualified, "module", list(dict.fromkeys([qualified, *exported])),
                                     gap=True, decl=decl))
            elif self._tokens(lines, start, end) <= self.max_tokens:
                # the methods inside stay findable by name through the class chunk
                inner = self._collect(_body(node), [*scope, name], lines, [])
                if language == "swift" and _sole_function(node, inner):
                    # `extension ObservableType { func map(...) }`: the function, named by the type it extends as
                    # Kotlin's `fun ObservableType.map()` is (RxSwift writes each operator so, in a file of its own;
                    # a class chunk named `ObservableType` took no part in a question naming `map`)
                    pieces.append(_Piece(start, end, inner[0].symbol, "function", [inner[0].symbol], decl=inner[0].decl))
                    continue
                names = [qualified] + [s for p in inner for s in p.symbols if s != qualified]
                names += _property_members(qualified, _body(node))
                pieces.append(_Piece(start, end, qualified, "class", list(dict.fromkeys(names)), decl=decl,
                                     implements=implements or _impl_trait(node),
                                     sibling=node.type in TINY_SIBLING_TYPES,
                                     members=[(p.symbol, p.start, p.end) for p in inner if p.kind == "function"]))
            else:
                body = _body(node)
                inner = self._collect(body, [*scope, name], lines, owners, _comments_before(body, node))
                named = [qualified, *_property_members(qualified, body)]  # the header chunk lists them
                owners.append(_Piece(start, end, qualified, "class", named, decl=decl,
                                     implements=implements or _impl_trait(node), opening=_module_doc_row(body)))
                pieces.extend(inner)
        if annotated and doc_start is not None:
            pieces.extend(self._declared_types(lines, scope, doc_start, doc_end))
        return pieces

    @staticmethod
    def _declared_types(lines: list[str], scope: list[str], start: int, end: int) -> list[_Piece]:
        """One class piece for each type a Lua comment run (rows start..end) declares, the first from the run's
        start (with the description above its `---@class` line)."""
        return [_Piece(start if i == 0 else row, last, ".".join([*scope, name]), "class", [".".join([*scope, name])],
                       decl=row, implements=bases)
                for i, (row, last, name, bases) in enumerate(lua_types(lines, start, end))]

    @staticmethod
    def _join_on_long_lines(pieces: list[_Piece], lines: list[str]) -> list[_Piece]:
        """Definitions that share a line longer than LONG_LINE_CHARS become one piece naming them all (chunks are
        whole lines, so each would hold that line again). Definitions sharing a short line keep their own chunks."""
        out: list[_Piece] = []
        for p in sorted(pieces, key=lambda p: (p.start, p.end)):
            last = out[-1] if out else None
            if last is not None and p.start <= last.end and any(
                    len(lines[row]) > LONG_LINE_CHARS for row in range(p.start, min(last.end, p.end) + 1)):
                last.end = max(last.end, p.end)
                last.symbols = list(dict.fromkeys(last.symbols + p.symbols))
                continue
            out.append(p)
        return out

    @staticmethod
    def _dispatcher(function: _Piece, branches: list[tuple[str, Any]], lines: list[str]) -> list[_Piece]:
        """A shell dispatcher too long for one chunk: its opening lines (to the first branch) are the function, each
        subcommand's branch a function of its own named after it (`nvm.use`: what `nvm use` runs), and what lies
        between or after them (a default `*)` branch) parts of the function."""
        name, decl = function.symbol, function.decl
        first = branches[0][1].start_point[0]
        pieces = [_Piece(function.start, first - 1, name, "function", [name], decl=decl)]
        row = first
        for label, item in branches:
            if item.start_point[0] > row and not hollow("\n".join(lines[row : item.start_point[0]])):
                pieces.append(_Piece(row, item.start_point[0] - 1, name, "part", [name], decl=decl))
            pieces.append(_Piece(item.start_point[0], item.end_point[0], f"{name}.{label}", "function",
                                 [f"{name}.{label}"]))
            row = item.end_point[0] + 1
        if row <= function.end and not hollow("\n".join(lines[row : function.end + 1])):
            pieces.append(_Piece(row, function.end, name, "part", [name], decl=decl))
        return pieces

    def _doc_gap(self, lines: list[str], doc_end: int, child: Any) -> int:
        """Ruby's RDoc style often leaves one blank line between a method's comment and its `def` (net-http-persistent:
        `##`, the comment, a blank line, `def reload`): the comment is still the method's doc, not a loose part of the
        class that outranks the method and misses its span. 1 then, else 0. Methods only: above a class or module the
        comment is as often the file's magic comment (`# frozen_string_literal: true`). C#'s `///` doc comment keeps
        its member across any blank lines, as C#'s compiler reads it."""
        start = child.start_point[0]
        if self._language in DIRECTIVE_LEADS and 0 <= doc_end < len(lines) and lines[doc_end].lstrip().startswith("///"):
            return _blank_run(lines, doc_end + 1)
        return int(self._language == "ruby" and child.type in ("method", "singleton_method") and start == doc_end + 2
                   and not lines[doc_end + 1].strip())

    def _fill_gaps(self, pieces: list[_Piece], owners: list[_Piece], n_lines: int, lines: list[str]) -> list[_Piece]:
        """Lines no definition covers become module chunks (or class chunks inside a split class)."""
        covered = [False] * n_lines
        for p in pieces:
            for row in range(p.start, min(p.end, n_lines - 1) + 1):
                covered[row] = True
        gaps: list[_Piece] = []

        def opening(owner: _Piece) -> int:
            """The row of the owner's own doc when a gap holds it, else -1."""
            return owner.opening if owner.opening is not None and not covered[owner.opening] else -1

        edges = {o.start for o in owners} | {o.end + 1 for o in owners}  # the rows where a row's owner may change
        row = 0
        while row < n_lines:
            if covered[row]:
                row += 1
                continue
            start = row
            owner = self._owner(owners, row)
            while row < n_lines and not covered[row] and (row not in edges or self._owner(owners, row) is owner):
                row += 1
            end = row - 1
            text = "\n".join(lines[start : end + 1])
            if text.strip() and not hollow(text) and not _markers_only(text, self._language):
                if owner is None:
                    gaps.append(_Piece(start, end, "", "module", [], gap=True))
                elif self._partial_shell(text, owner.symbol):
                    pass  # `partial class SqlMapper {` around a nested type in SqlMapper.GridReader.cs defines nothing
                elif start <= opening(owner) <= end if opening(owner) >= 0 else not any(g.symbol == owner.symbol
                                                                                           for g in gaps):
                    # the owner's first gap holds its opening lines, or the one holding its doc when it has one (an
                    # Elixir module's nested modules may come before its @moduledoc)
                    # the class's opening lines name it and list its members: the chunk to find the class by. Its own
                    # members only: a module holding a split class (`module Sinatra` around `class Base`) would
                    # otherwise list every method of the file
                    inner = sorted(pieces + owners, key=lambda p: p.start)  # a split class inside is a member too
                    members = [p.symbol for p in inner if p.symbol.startswith(owner.symbol + ".")
                               and "." not in p.symbol[len(owner.symbol) + 1:]]
                    members += owner.symbols[1:]  # names that are no piece of their own (_property_members)
                    cut = self._opening_end(lines, owner, start, end)
                    gaps.append(_Piece(start, cut, owner.symbol, "class", [owner.symbol, *dict.fromkeys(members)],
                                       gap=True, header=True, decl=owner.decl, implements=owner.implements))
                    rest = "\n".join(lines[cut + 1 : end + 1])
                    if rest.strip() and not hollow(rest):
                        gaps.append(_Piece(cut + 1, end, owner.symbol, "part", [owner.symbol], gap=True))
                else:  # later leftovers (a field, a section banner) are parts of the class, not its definition;
                    # lines above its doc (`defmodule Phoenix.Router do`) open it and join no definition below them
                    gaps.append(_Piece(start, end, owner.symbol, "part", [owner.symbol], gap=True,
                                       header=start < opening(owner)))
        out = sorted(pieces + gaps, key=lambda p: (p.start, p.end))
        return [self._trim(p, lines) for p in out if self._tokens(lines, p.start, p.end) >= 4 or p.kind != "module"]

    def _opening_end(self, lines: list[str], owner: _Piece, start: int, end: int) -> int:
        """The last row of a split type's opening in its first gap: in HEADER_OPENING_LANGUAGES the line with the
        brace that opens its body, so that its fields and properties (a long array of built-in converters, a
        property's page of doc) are a part of their own and the header is its doc, declaration and members' names;
        elsewhere the whole gap."""
        if self._language not in HEADER_OPENING_LANGUAGES:
            return end
        first = owner.decl if owner.decl is not None and start <= owner.decl <= end else start
        return next((row for row in range(first, end + 1) if "{" in lines[row]), end)

    def _partial_shell(self, text: str, symbol: str) -> bool:
        """The opening of a C# partial type and nothing else (`public static partial class SqlMapper` and its `{`):
        one file of a type split over several, holding other definitions. As a class chunk it took the type's name
        from the file that defines it (Dapper's 30 `SqlMapper.*.cs` files each opened `SqlMapper` again)."""
        if self._language not in DIRECTIVE_LEADS:
            return False
        words = set(_WORDS.findall(text))
        return "partial" in words and words <= PARTIAL_SHELL_WORDS | {symbol.rpartition(".")[2]}

    @staticmethod
    def _owner(owners: list[_Piece], row: int) -> _Piece | None:
        inside = [o for o in owners if o.start <= row <= o.end]
        return min(inside, key=lambda o: o.end - o.start) if inside else None

    @staticmethod
    def _trim(p: _Piece, lines: list[str]) -> _Piece:
        """Drop blank lines at both ends so spans point at code."""
        while p.start < p.end and not lines[p.start].strip():
            p.start += 1
        while p.end > p.start and not lines[p.end].strip():
            p.end -= 1
        return p

    def _split_oversized(self, pieces: list[_Piece], lines: list[str]) -> list[_Piece]:
        out: list[_Piece] = []
        for p in pieces:
            if self._tokens(lines, p.start, p.end) <= self.max_tokens and p.end - p.start < MAX_WINDOW_LINES * 2:
                out.append(p)
                continue
            # the window that holds the declaration (`public class X`, `def f`) is the definition; a long doc
            # comment above it (Javadoc) fills windows of its own, which are parts
            anchor = p.decl if p.decl is not None and p.start <= p.decl <= p.end else p.start
            for start, end in self._window_rows(lines, p.start, p.end):
                if start > anchor and hollow("\n".join(lines[start : end + 1])):
                    continue  # the closing `}` or `end` left over at the tail of a long body: no chunk of its own
                kind = p.kind if start <= anchor <= end else ("part" if p.kind != "module" else "module")
                # a part names its declaration's line: two overloads of one name in a file are told apart by it
                out.append(_Piece(start, end, p.symbol, kind, list(p.symbols), decl=anchor if kind == "part" else None,
                                  implements=list(p.implements) if kind == p.kind else []))
        return out

    def _attach_loose_lines(self, pieces: list[_Piece], lines: list[str]) -> list[_Piece]:
        """A few loose lines between the methods of a split Ruby class (`alias_method :cache, :cached`, a trailing
        `register_plugin(:x, X)`, a `## Internal API` banner) were chunks of their own, each a short text that
        outscored whole methods; they join the definition beside them: a banner the one below it, code the one
        above it, when only blank lines and closing `end`s lie between."""
        out: list[_Piece] = []
        for p in pieces:
            last = out[-1] if out else None
            if last is not None and last.end < p.start and hollow("\n".join(lines[last.end + 1 : p.start])) \
                    and self._tokens(lines, last.start, p.end) <= self.max_tokens:
                if p.gap and p.kind == "part" and not last.gap and self._tokens(lines, p.start, p.end) < self.min_tokens \
                        and not _comment_only(lines, p):
                    last.end = p.end
                    continue
                if last.gap and last.kind == "part" and not p.gap and p.kind in ("function", "class") \
                        and self._tokens(lines, last.start, last.end) < self.min_tokens and _comment_only(lines, last):
                    p.start = last.start
                    out[-1] = p
                    continue
            out.append(p)
        return out

    def _merge_tiny(self, pieces: list[_Piece], lines: list[str]) -> list[_Piece]:
        merged: list[_Piece] = []
        for p in pieces:
            if merged:
                last = merged[-1]
                last_small = self._tokens(lines, last.start, last.end) < self.min_tokens
                siblings = self._language in MERGE_TINY_LANGUAGES or (last.sibling and p.sibling)
                both_small = siblings and last_small and self._tokens(lines, p.start, p.end) < self.min_tokens
                # a short comment or class header reads best with the definition that follows it
                lead_in = last_small and last.gap and not last.header and not p.gap and last.end + 1 == p.start
                lead_in = lead_in or (last.gap and not p.gap and self._language in EXPORT_LANGUAGES
                                      and _DIRECTIVE.fullmatch(" ".join(lines[last.start : last.end + 1]).strip())
                                      is not None and not "".join(lines[last.end + 1 : p.start]).strip())
                fits = self._tokens(lines, last.start, p.end) <= self.max_tokens
                # the tail window of a split definition takes no definition in: it would lose its name
                tail = last.kind == "part" and not last.gap
                if (both_small or lead_in) and fits and p.kind != "part" and not tail and last.end < p.start:
                    last.end = p.end
                    if last.gap and not p.gap:
                        last.symbols = list(p.symbols)
                        last.symbol, last.kind, last.gap, last.decl = p.symbol, p.kind, False, p.decl
                        last.members = list(p.members)
                    else:
                        last.symbols = last.symbols + [s for s in p.symbols if s not in last.symbols]
                        last.members = last.members + p.members
                    last.implements = last.implements + [t for t in p.implements if t not in last.implements]
                    continue
                exported = _EXPORT_OF.fullmatch(" ".join(lines[p.start : p.end + 1]).strip()) \
                    if p.gap and p.kind == "module" and self._language in EXPORT_LANGUAGES else None
                if exported and any(s == exported.group(1) or s.startswith(exported.group(1) + ".") for s in last.symbols) \
                        and fits \
                        and hollow("\n".join(lines[last.end + 1 : p.start])):  # blank lines, a class's `}`
                    last.end = p.end
                    continue
            merged.append(p)
        return merged

    # ---------------------------------------------------------- line windows
    def _window_rows(self, lines: list[str], first: int, last: int) -> list[tuple[int, int]]:
        rows: list[tuple[int, int]] = []
        start, budget = first, 0
        for row in range(first, last + 1):
            cost = estimate_tokens(lines[row]) + 1
            too_long = row - start >= MAX_WINDOW_LINES
            if row > start and (budget + cost > self.max_tokens or too_long):
                rows.append((start, row - 1))
                start, budget = row, 0
            budget += cost
        rows.append((start, last))
        return rows

    def _windows(self, path: str, language: str, lines: list[str]) -> list[Chunk]:
        chunks: list[Chunk] = []
        heading = ""
        for start, end in self._window_rows(lines, 0, len(lines) - 1):
            piece = self._trim(_Piece(start, end, "", "lines"), lines)
            if not any(lines[i].strip() for i in range(piece.start, piece.end + 1)):
                continue
            if language == "markdown":  # a section title is the closest thing prose has to a symbol
                for i in range(piece.start, piece.end + 1):
                    match = re.match(r"#{1,6}\s+(.+)", lines[i])
                    if match:
                        heading = match.group(1).strip()
                        break
                piece.symbol = heading
            chunks.append(self._to_chunk(path, language, lines, piece))
        return chunks

    @staticmethod
    def _to_chunk(path: str, language: str, lines: list[str], p: _Piece) -> Chunk:
        content = "\n".join(lines[p.start : p.end + 1])
        symbols = p.symbols or ([p.symbol] if p.symbol else [])
        decl_line = p.decl + 1 if p.kind == "part" and p.decl is not None else 0
        chunk = Chunk(path, p.start + 1, p.end + 1, p.symbol, p.kind, language, content, symbols, decl_line,
                      p.implements, members=[(name, start + 1, end + 1) for name, start, end in p.members
                                             if p.kind == "class" and p.start <= start and end <= p.end])
        if not chunk.implements:  # a Rust impl block's trait comes from the tree; other classes' from their declaration
            chunk.implements = supertypes(chunk)
        return chunk
