"""Markup cross-references: CSS classes and ids, where stylesheets define them, where markup uses them
and where scripts select them.

The extractors are pure functions over file text (CSS and SCSS selectors from their syntax trees, the rest by
regular expressions where no grammar reads them, as each says): a stylesheet's
selectors, the `class`/`className`/`id` attributes of HTML, JSX, TSX, Vue and Svelte, and the DOM
calls of JavaScript/TypeScript (getElementById, querySelector, classList, jQuery). `cross_references`
joins them: change a stylesheet and it lists the markup and scripts that use its names; change
markup and it lists the stylesheets and scripts that refer to the names it uses.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal

from code_intel.explore.models import as_dict
from code_intel.languages.table import compiled_query, get_parser

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

log = logging.getLogger(__name__)

NameKind = Literal["class", "id"]

STYLESHEET_SUFFIXES = frozenset({".css", ".scss", ".sass", ".less"})
# Files whose text holds HTML-like tags with class/id attributes.
MARKUP_SUFFIXES = frozenset({".html", ".htm", ".vue", ".svelte", ".jsx", ".tsx", ".php", ".erb", ".hbs", ".njk", ".twig"})
SCRIPT_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})
# Markup files that may embed <style> and <script> blocks.
EMBEDDING_SUFFIXES = frozenset({".html", ".htm", ".vue", ".svelte", ".php", ".erb", ".hbs", ".njk", ".twig"})
WEB_SUFFIXES = STYLESHEET_SUFFIXES | MARKUP_SUFFIXES | SCRIPT_SUFFIXES
WEB_GLOBS = sorted(f"*{suffix}" for suffix in WEB_SUFFIXES)

MAX_NAMES_PER_FILE = 200
MAX_CANDIDATE_FILES = 300
MAX_CROSS_REFERENCES = 200
MAX_FILE_CHARS = 2_000_000


@dataclass(frozen=True, order=True)
class MarkupName:
    """One class or id at one line: defined by a stylesheet, used by markup or selected by a script."""

    kind: NameKind
    name: str
    line: int

    @property
    def selector(self) -> str:
        return ("." if self.kind == "class" else "#") + self.name


@dataclass
class FileMarkup:
    """Everything one file says about classes and ids."""

    defined: list[MarkupName] = field(default_factory=list)  # stylesheet selectors
    used: list[MarkupName] = field(default_factory=list)  # class=/className=/id= attributes
    selected: list[MarkupName] = field(default_factory=list)  # DOM queries in scripts

    def extend(self, other: FileMarkup) -> None:
        self.defined += other.defined
        self.used += other.used
        self.selected += other.selected

    def all_names(self) -> set[tuple[NameKind, str]]:
        return {(n.kind, n.name) for n in (*self.defined, *self.used, *self.selected)}


class _Lines:
    """Maps a character offset to its 1-based line number."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._breaks = [i for i, ch in enumerate(text) if ch == "\n"]
        self._first = first_line

    def at(self, offset: int) -> int:
        return self._first + bisect.bisect_right(self._breaks, offset - 1)


def _blank(match: re.Match[str]) -> str:
    """Replaces a match with spaces but keeps its newlines, so offsets and lines stay true."""
    return re.sub(r"[^\n]", " ", match.group(0))


_NAME_TOKEN = re.compile(r"^-?[A-Za-z_][\w\-:/.@\[\]%]*$")
_TEMPLATE_EXPR = re.compile(r"\$\{[^}]*\}|\{\{.*?\}\}|<\?.*?\?>|<%.*?%>|\{%.*?%\}", re.S)


def _tokens(value: str) -> Iterator[str]:
    """Class tokens of an attribute value, without template expressions or junk."""
    for token in _TEMPLATE_EXPR.sub(" ", value).split():
        if _NAME_TOKEN.match(token) and not token.endswith(("-", ":")):
            yield token


# --------------------------------------------------------------------------- stylesheets
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"(?<![:\w])//[^\n]*")
_CSS_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_CSS_URL = re.compile(r"url\([^)]*\)", re.I)
_INTERPOLATION = re.compile(r"[#@]\{[^}]*\}")
_ATTRIBUTE_SELECTOR = re.compile(r"\[[^\]]*\]")
_SELECTOR_NAME = re.compile(r"([.#])(-?[A-Za-z_](?:[\w-]|\\.)*)")
_SASS_PROPERTY = re.compile(r"^[\w-]+\s*:(?:\s|$)")


def _selector_names(selector: str, start: int, lines: _Lines) -> Iterator[MarkupName]:
    cleaned = _ATTRIBUTE_SELECTOR.sub(_blank, selector)
    for m in _SELECTOR_NAME.finditer(cleaned):
        before = cleaned[m.start() - 1] if m.start() else " "
        if m.group(1) == "." and before.isdigit():
            continue  # a number such as 1.5em, not a class
        name = re.sub(r"\\(.)", r"\1", m.group(2))
        yield MarkupName("class" if m.group(1) == "." else "id", name, lines.at(start + m.start()))


def stylesheet_names(text: str, *, dialect: str = "css", first_line: int = 1) -> list[MarkupName]:
    """Classes and ids defined by the selectors of a stylesheet: CSS and SCSS from their syntax trees
    (queries/<dialect>/markup.scm), LESS and indented Sass by pattern (the language pack has no grammar for them)."""
    if dialect in ("css", "scss"):
        return [MarkupName(kind, re.sub(r"\\(.)", r"\1", name), first_line + row)
                for kind, name, row in _tree_names(dialect, text)]
    lines = _Lines(text, first_line)
    text = _CSS_COMMENT.sub(_blank, text)
    text = _CSS_URL.sub(_blank, text)
    text = _CSS_STRING.sub(_blank, text)
    text = _LINE_COMMENT.sub(_blank, text)
    text = _INTERPOLATION.sub(_blank, text)
    found: list[MarkupName] = []
    if dialect == "sass":  # indented syntax: each line that is not a property, variable or directive
        offset = 0
        for raw in text.split("\n"):
            stripped = raw.strip()
            if stripped and stripped[0] not in "@$+=%" and not _SASS_PROPERTY.match(stripped):
                found += _selector_names(raw, offset, lines)
            offset += len(raw) + 1
        return found
    # A selector is the text between the previous ; { or } and the next {.
    segment_start = 0
    for i, ch in enumerate(text):
        if ch in ";}":
            segment_start = i + 1
        elif ch == "{":
            selector = text[segment_start:i]
            if not selector.lstrip().startswith("@"):
                found += _selector_names(selector, segment_start, lines)
            segment_start = i + 1
    return found


def _markup_query(language: str) -> Any:
    return compiled_query(language, "markup.scm")


def _tree_names(language: str, text: str) -> list[tuple[NameKind, str, int]]:
    """(kind, name, 0-based row) of each @class and @id capture of the language's markup.scm, in text order."""
    from tree_sitter import QueryCursor

    source = text.encode("utf-8", errors="surrogateescape")
    tree = get_parser(language).parse(source)
    found: list[tuple[int, NameKind, str, int]] = []
    for capture, nodes in QueryCursor(_markup_query(language)).captures(tree.root_node).items():
        kind: NameKind = "id" if capture == "id" else "class"
        for node in nodes:
            name = source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
            found.append((node.start_byte, kind, name, node.start_point[0]))
    return [(kind, name, row) for _, kind, name, row in sorted(found)]


# --------------------------------------------------------------------------- markup attributes
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# An attribute of a tag in a template language's HTML: `name="value"` (spaces around = allowed), `class:x` alone
_TEMPLATE_ATTRIBUTE = re.compile(r"(?<=\s)([\w:.-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'))?")
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'|`([^`]*)`")
_OBJECT_KEY = re.compile(r"(?:^|[{,])\s*(?:([A-Za-z_][\w-]*)|'([^']+)'|\"([^\"]+)\")\s*:")


def _quoted_tokens(expression: str) -> Iterator[tuple[str, int]]:
    for q in _QUOTED.finditer(expression):
        value = next(g for g in q.groups() if g is not None) if any(g is not None for g in q.groups()) else ""
        for token in _tokens(value):
            yield token, q.start()


def markup_names(text: str, *, tight: bool = False, first_line: int = 1) -> list[MarkupName]:
    """Classes and ids used by class/className/id attributes: of HTML, Vue and Svelte tags from the HTML syntax tree;
    with `tight`, of a script's JSX and of the HTML in its strings, from the script's syntax tree."""
    if tight:
        return _script_tree(text, "javascript", first_line).used
    return _html_tree(text, first_line).used


def _pattern_markup(text: str, *, first_line: int) -> list[MarkupName]:
    """markup_names by pattern, for template languages (PHP, ERB, Handlebars, Nunjucks, Twig): the language pack
    has no grammar for the HTML they write. Each attribute found is judged as the tree's are (_attribute_names)."""
    lines = _Lines(text, first_line)
    text = _HTML_COMMENT.sub(_blank, text)
    found: list[MarkupName] = []
    for m in _TEMPLATE_ATTRIBUTE.finditer(text):
        value = next((g for g in m.groups()[1:] if g is not None), "")
        found += _attribute_names(m.group(1), value, lines.at(m.start()))
    return found


def _attribute_names(name: str, value: str, row: int) -> Iterator[MarkupName]:
    """The names one attribute of a tag uses: `class`/`className`/`id`, a Vue binding (`:class`, `v-bind:id`: the
    quoted names and object keys of its expression) or a Svelte class directive (`class:shown`)."""
    if name in ("class", "className", "id"):
        kind: NameKind = "id" if name == "id" else "class"
        tokens = list(_tokens(value))
        for token in tokens if kind == "class" else tokens[:1]:
            yield MarkupName(kind, token, row)
    elif name.removeprefix("v-bind").removeprefix(":") in ("class", "id") and name != "class":
        kind = "id" if name.endswith("id") else "class"
        for token, at in _quoted_tokens(value):
            yield MarkupName(kind, token, row + value.count("\n", 0, at))
        if kind == "class":
            for key in _OBJECT_KEY.finditer(value):  # :class="{ active: isActive }"
                yield MarkupName("class", next(g for g in key.groups() if g), row + value.count("\n", 0, key.start()))
    elif name.startswith("class:") and re.fullmatch(r"[A-Za-z_][\w-]*", name[6:]):
        yield MarkupName("class", name[6:], row)


def _html_tree(text: str, first_line: int = 1) -> FileMarkup:
    """What an HTML, Vue or Svelte file uses in its tags and defines and selects in its <style> and <script>
    blocks, from the HTML syntax tree (queries/html/markup.scm)."""
    from tree_sitter import QueryCursor

    source = text.encode("utf-8", errors="surrogateescape")
    tree = get_parser("html").parse(source)

    def text_of(node: Any) -> str:
        return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    result = FileMarkup()
    for _, captures in QueryCursor(_markup_query("html")).matches(tree.root_node):
        if "attribute" in captures:
            node = captures["attribute"][0]
            value = next((c for c in node.named_children if c.type != "attribute_name"), None)
            inner = next((c for c in value.named_children if c.type == "attribute_value"), value) if value else None
            name = text_of(node)[: (value.start_byte - node.start_byte) if value else None].rstrip(" \t\n=")
            row = first_line + node.start_point[0]
            result.used += _attribute_names(name, text_of(inner) if inner else "", row)
        elif "style" in captures:
            block = captures["style"][0]
            lang = next((text_of(value).strip("\"'").lower() for attribute in captures["style_tag"][0].named_children
                         if attribute.type == "attribute" and text_of(attribute).startswith("lang")
                         for value in attribute.named_children[1:2]), "css")
            result.defined += stylesheet_names(text_of(block), dialect=lang,
                                               first_line=first_line + block.start_point[0])
        elif "script" in captures:
            block = captures["script"][0]
            result.selected += script_names(text_of(block), first_line=first_line + block.start_point[0])
    return result


# --------------------------------------------------------------------------- scripts
def script_names(text: str, *, first_line: int = 1, language: str = "javascript") -> list[MarkupName]:
    """Classes and ids a script selects or changes through the DOM API or jQuery, from its syntax tree."""
    return _script_tree(text, language, first_line).selected


_MODULE_OBJECTS = frozenset({"styles", "classes", "css"})  # CSS modules: styles.button


def _string_value(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] in "\"'`" else text


def _expression_names(kind: NameKind, node: Any, text_of: Callable[[Any], str], first_line: int) -> Iterator[MarkupName]:
    """The names a JSX attribute's expression gives: its strings' tokens and its objects' keys (`clsx('a', {b: on})`)
    as `kind`, a CSS module's members (`styles.icon`, `styles['icon']`) as classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        row = first_line + current.start_point[0]
        if current.type in ("string", "template_string"):
            yield from (MarkupName(kind, token, row) for token in _tokens(_string_value(text_of(current))))
            continue
        if current.type == "pair" and (key := current.child_by_field_name("key")) is not None:
            name = _string_value(text_of(key))
            if re.fullmatch(r"[A-Za-z_][\w-]*", name):
                yield MarkupName(kind, name, row)
        if current.type in ("member_expression", "subscript_expression"):
            holder = current.child_by_field_name("object")
            member = current.child_by_field_name("property") or current.child_by_field_name("index")
            if holder is not None and member is not None and text_of(holder) in _MODULE_OBJECTS:
                yield MarkupName("class", _string_value(text_of(member)), row)
                continue
        stack.extend(reversed(current.named_children))


def _script_tree(text: str, language: str, first_line: int = 1) -> FileMarkup:
    """What a script uses (JSX attributes, tags in its strings) and selects (DOM and jQuery calls), from its syntax
    tree (queries/javascript/markup.scm)."""
    from tree_sitter import QueryCursor

    source = text.encode("utf-8", errors="surrogateescape")
    tree = get_parser(language).parse(source)

    def text_of(node: Any) -> str:
        return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    result = FileMarkup()
    for capture, nodes in QueryCursor(_markup_query(language)).captures(tree.root_node).items():
        for node in nodes:
            row, value = first_line + node.start_point[0], _string_value(text_of(node))
            if capture in ("id", "classes"):
                tokens = list(_tokens(value))
                kind: NameKind = "id" if capture == "id" else "class"
                result.selected += [MarkupName(kind, token, row) for token in (tokens[:1] if kind == "id" else tokens)]
            elif capture == "selector" or (capture == "traversal" and value.lstrip()[:1] in (".", "#")):
                result.selected += _selector_names(_TEMPLATE_EXPR.sub(" ", value), 0, _Lines(value, row))
            elif capture.startswith("jsx."):
                kind = "id" if capture == "jsx.id" else "class"
                if node.type == "string":
                    tokens = list(_tokens(value))
                    result.used += [MarkupName(kind, token, row) for token in (tokens[:1] if kind == "id" else tokens)]
                else:
                    result.used += _expression_names(kind, node, text_of, first_line)
            elif capture == "html":
                result.used += _html_tree(value, row).used
    result.used.sort(key=lambda n: n.line)
    result.selected.sort(key=lambda n: n.line)
    return result


# --------------------------------------------------------------------------- per file
_HTML_SUFFIXES = frozenset({".html", ".htm", ".vue", ".svelte"})  # read with the HTML grammar
# the <style> and <script> blocks of a template language's file, by pattern (no grammar reads its HTML)
_STYLE_BLOCK = re.compile(r"<style\b([^>]*)>(.*?)</style\s*>", re.S | re.I)
_SCRIPT_BLOCK = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)
_LANG_ATTRIBUTE = re.compile(r"\blang\s*=\s*[\"']?(\w+)")


def _suffix(path: str | PurePath) -> str:
    return PurePath(path).suffix.lower()


def is_web_file(path: str | PurePath) -> bool:
    return _suffix(path) in WEB_SUFFIXES


def file_markup(path: str | PurePath, text: str) -> FileMarkup:
    """What a file defines, uses and selects, dispatched on its extension (embedded blocks included)."""
    suffix = _suffix(path)
    result = FileMarkup()
    if suffix in STYLESHEET_SUFFIXES:
        result.defined = stylesheet_names(text, dialect=suffix[1:])
        return result
    if suffix in _HTML_SUFFIXES:
        return _html_tree(text)
    if suffix in SCRIPT_SUFFIXES:  # TypeScript read with the TSX grammar, whose JSX nodes the query names
        return _script_tree(text, "tsx" if suffix in (".ts", ".mts", ".cts", ".tsx") else "javascript")
    if suffix in MARKUP_SUFFIXES:
        result.used = _pattern_markup(text, first_line=1)
    if suffix in EMBEDDING_SUFFIXES:
        lines = _Lines(text)
        for block in _STYLE_BLOCK.finditer(text):
            lang = _LANG_ATTRIBUTE.search(block.group(1))
            dialect = lang.group(1).lower() if lang else "css"
            result.defined += stylesheet_names(block.group(2), dialect=dialect, first_line=lines.at(block.start(2)))
        for block in _SCRIPT_BLOCK.finditer(text):
            result.selected += script_names(block.group(1), first_line=lines.at(block.start(1)))
    return result


# --------------------------------------------------------------------------- cross references
def _role_of_change(markup: FileMarkup) -> dict[str, list[MarkupName]]:
    """The names a change to this file touches, keyed by what they are in it."""
    return {"defined": markup.defined, "used": markup.used, "selected": markup.selected}


_REASONS = {
    # (role of the name in the changed file, role in the other file) -> why the other file matters
    ("defined", "used"): "uses {sel}, styled in {src}",
    ("defined", "selected"): "selects {sel}, styled in {src}",
    ("defined", "defined"): "also styles {sel}, defined in {src}",
    ("used", "defined"): "styles {sel}, used in {src}",
    ("used", "selected"): "selects {sel} through the DOM, used in {src}",
    ("selected", "defined"): "styles {sel}, selected in {src}",
    ("selected", "used"): "uses {sel}, selected in {src}",
}


def _alternation(names: Iterable[str]) -> str:
    return "|".join(sorted({re.escape(n) for n in names}, key=len, reverse=True))


def _read(path: Any) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_FILE_CHARS)
    except OSError:
        return None


def _candidate_files(explorer: Explorer, names: set[str], changed: str) -> tuple[list[str], bool]:
    """Web files that mention any of the names (ripgrep prefilter), and whether the list was capped."""
    if not names:
        return [], False
    found = explorer.search_text(_alternation(names), glob=WEB_GLOBS, max_results=5000)
    data = as_dict(found)
    files: list[str] = []
    for match in data.get("matches", []):
        file = match["file"]
        if file != changed and file not in files:
            files.append(file)
    truncated = bool(data.get("truncated")) or len(files) > MAX_CANDIDATE_FILES
    return files[:MAX_CANDIDATE_FILES], truncated


def cross_references(explorer: Explorer, file: str) -> list[dict[str, Any]]:
    """Other web files tied to this one through a CSS class or id, each `{file, line, symbol, reason}`.

    A stylesheet leads to the markup that uses its names and the scripts that select them; markup
    leads to the stylesheets that style its names and the scripts that select them; a script leads
    to the stylesheets and markup of the names it selects.
    """
    return find_cross_references(explorer, file)[0]


def find_cross_references(explorer: Explorer, file: str) -> tuple[list[dict[str, Any]], bool]:
    """`cross_references` plus whether the search was capped (too many names or candidate files)."""
    absolute = explorer.root.resolve(file, must_exist=True, kind="file")
    changed = explorer.root.relative(absolute)
    if not is_web_file(changed):
        return [], False
    text = _read(absolute)
    if text is None:
        return [], False
    mine = _role_of_change(file_markup(changed, text))
    wanted: dict[tuple[NameKind, str], set[str]] = {}
    for role, names in mine.items():
        for n in names:
            wanted.setdefault((n.kind, n.name), set()).add(role)
    capped = len(wanted) > MAX_NAMES_PER_FILE
    if capped:
        log.info("cross_references: %s has %d names, keeping %d", changed, len(wanted), MAX_NAMES_PER_FILE)
        wanted = dict(list(wanted.items())[:MAX_NAMES_PER_FILE])
    candidates, truncated = _candidate_files(explorer, {name for _, name in wanted}, changed)
    # one item per line of another file: a tag using three of the names is one place to check
    lines: dict[tuple[str, int, str], list[str]] = {}
    for other in candidates:
        other_text = _read(explorer.root.path / other)
        if other_text is None:
            continue
        theirs = _role_of_change(file_markup(other, other_text))
        for their_role, names in theirs.items():
            for n in names:
                for my_role in sorted(wanted.get((n.kind, n.name), ())):
                    template = _REASONS.get((my_role, their_role))
                    if template is None:
                        continue
                    selectors = lines.setdefault((other, n.line, template), [])
                    if n.selector not in selectors:
                        selectors.append(n.selector)
    items: list[dict[str, Any]] = []
    for (other, line, template), selectors in sorted(lines.items()):
        shown = ", ".join(selectors[:4]) + (f" and {len(selectors) - 4} more" if len(selectors) > 4 else "")
        item: dict[str, Any] = {"file": other, "line": line, "symbol": selectors[0],
                                "reason": template.format(sel=shown, src=changed)}
        if len(selectors) > 1:
            item["symbols"] = selectors
        items.append(item)
    if len(items) > MAX_CROSS_REFERENCES:
        return items[:MAX_CROSS_REFERENCES], True
    return items, truncated or capped
