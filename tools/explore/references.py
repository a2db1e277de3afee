"""find_references: whole-word ripgrep hits, each judged against the file's syntax.

A hit is code, a comment or a string according to the file's lexical map (built from its tree-sitter
tree, see lexical.py); comments and strings are left out unless asked for. A code hit is a definition
when the definition index has that name on that line. Files that hold no code (docs, markup, data)
are prose: their hits count as comments.

Java and Rust keep functions apart from other things of the same name, and tell them apart by how
they are written. In Java a method is named only where it is called (`name(`), referenced (`::name`)
or declared, or as an annotation element (`@Tag(name = ...)`); any other hit is a field or variable.
In Rust `name::x` is a module or type path, `mod name` a module, `name!` a macro and `.name` without
a call a field. When every definition of the name in the files that mention it is a method (Java) or
a function or method (Rust), hits of those other shapes are counted, not listed.

A qualified symbol (`Type.name`, `Type::name`) narrows the hits by what is written, not by types:
a hit written through another type that defines a `name` of its own (`Other::name`, `Other.name`)
belongs to that namesake, as do the namesakes' own definitions; they are counted, not listed. When
`Type` is a type, the name's module definitions (Rust's `mod name`) are not what was asked about. In
Rust a path says which type it goes through, so `Vec::new` is not a use of `Version::new` even though
Vec is not in the project; and a function that takes no `self` cannot be called as `x.name()`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections import defaultdict
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path

from code_intel.core.errors import InvalidArgument
from code_intel.explore import budget
from code_intel.explore.answers import file_order
from code_intel.explore.comments import LexicalIndex, LexicalMap
from code_intel.explore.models import LeftOut, Reference, ReferenceResult
from code_intel.explore.ripgrep import RgFilters, RgLine, run_rg_json
from code_intel.languages.table import language_for

log = logging.getLogger(__name__)

_SYMBOL = re.compile(r"[$@]?[\w$]+\Z")
# Languages where `$` is part of an identifier: `$foo` and `foo$` are other names than `foo`.
_DOLLAR_IN_NAMES = frozenset({"javascript", "typescript", "tsx", "kotlin", "java", "scala"})
# Languages where a function's name cannot stand for another thing of that name (see the module docstring),
# with the definition kinds that make a name a function there.
_METHODS_APART: dict[str, frozenset[str]] = {
    "java": frozenset({"method"}), "rust": frozenset({"method", "function"}),
}
# Definition kinds a qualified `Type.name` cannot mean: a module is not a member of a type.
_NOT_MEMBERS = frozenset({"module", "namespace", "package"})
_ANNOTATION_ARGS = re.compile(rb"@[\w.]+\s*\([^()]*\Z")  # the hit sits inside `@Tag(...`
_RUST_MOD = re.compile(rb"(?:^|[^\w$])mod\s+\Z")
_QUALIFIER = re.compile(rb"([A-Za-z_$][\w$]*)\s*(?:::|\.|->)\s*\Z")  # `Type::` / `Type.` just before the hit


@dataclass(frozen=True)
class Qualified:
    """What a qualified symbol (`Type.name`) says beyond its name."""

    member: bool  # Type is a type the index knows: the name is a member, not a module of that name
    other_types: frozenset[str] = frozenset()  # bare names of the unrelated types defining the name (namesakes)
    other_sites: frozenset[tuple[str, int]] = frozenset()  # (file, line) of those namesakes' definitions
    # Rust, where `Q::name` is a path: whether Q is a type other than Type, Self, Type's traits or the types
    # implementing Type (a trait); such a path names Q's own `name` (`Vec::new` is not `Version::new`)
    foreign_path: Callable[[str], bool] | None = None
    # Rust: every definition of the name in Type takes no `self`, so a method call `.name(` is another's
    receiverless: bool = False


_SEPARATORS = re.compile(r"::|->|\.|#")  # Type.name, Type::name, obj->name, Type#name


def split_symbol(symbol: str) -> tuple[str | None, str]:
    """(the bare type a qualified symbol goes through, or None; its last part): `pkg.Type.name` and
    `Type::name()` give (Type, name), `name` gives (None, name). Nothing is checked here (normalise_symbol is)."""
    parts = [part.strip() for part in _SEPARATORS.split((symbol or "").strip().removesuffix("()"))]
    parts = [part for part in parts if part]
    return (parts[-2] if len(parts) > 1 else None), (parts[-1] if parts else "")


def normalise_symbol(symbol: str) -> str:
    """The bare name to look for: `Foo.bar` and `Foo::bar` mean `bar`; surrounding space is ignored."""
    text = (symbol or "").strip()
    for sep in ("::", "->", "."):
        text = text.rsplit(sep, 1)[-1]
    text = text.removesuffix("()").lstrip("$@")
    if not text or not _SYMBOL.match(text):
        raise InvalidArgument(
            f"symbol {symbol!r} is not an identifier",
            hint="send one name such as 'parse_config' or 'UserService.save'; use search_text for other text",
        )
    return text


def find_references(
    root: Path,
    filters: RgFilters,
    lexical: LexicalIndex,
    definition_sites: Callable[[str, list[str]], dict[tuple[str, int], str]],
    symbol: str,
    *,
    language_globs: list[str] | None = None,
    include_comments: bool = False,
    include_strings: bool = False,
    max_results: int = 200,
    timeout: float = 10.0,
    qualified: Qualified | None = None,
    indexed: Container[str] = (),
) -> ReferenceResult:
    """`indexed`: the project's files, which order the hits by role (answers.file_order) before they are cut."""
    if max_results < 1:
        raise InvalidArgument("max_results must be at least 1")
    name = normalise_symbol(symbol)
    lines = _word_hits(root, [name], filters, language_globs, timeout)
    return judge_hits(lexical, definition_sites, name, lines, include_comments=include_comments,
                      include_strings=include_strings, max_results=max_results, qualified=qualified,
                      indexed=indexed)


def find_references_many(
    root: Path,
    filters: RgFilters,
    lexical: LexicalIndex,
    definition_sites: Callable[[str, list[str]], dict[tuple[str, int], str]],
    symbols: list[tuple[str, Qualified | None]],
    *,
    max_results: int = 200,
    timeout: float = 10.0,
    indexed: Container[str] = (),
) -> dict[str, ReferenceResult]:
    """find_references of several symbols (code hits only) through one search of the tree: analyze_impact
    follows dozens of names, and one rg pass over a large tree costs about what each of them alone did."""
    names = {symbol: normalise_symbol(symbol) for symbol, _ in symbols}
    wanted = sorted(set(names.values()))
    by_name = _lines_by_name(_word_hits(root, wanted, filters, None, timeout), wanted)
    return {symbol: judge_hits(lexical, definition_sites, names[symbol], by_name.get(names[symbol], []),
                               max_results=max_results, qualified=qualified, indexed=indexed)
            for symbol, qualified in symbols}


def _word_hits(root: Path, names: list[str], filters: RgFilters, language_globs: list[str] | None,
               timeout: float) -> list[RgLine]:
    """Every line where one of `names` is written as a whole word (case-sensitive), with each hit's span."""
    flags = ["--fixed-strings", "--word-regexp", "--case-sensitive"]
    for glob in language_globs or []:
        flags += ["--glob", glob]
    return run_rg_json(root, names, filters, flags=flags, timeout=timeout).lines


def _lines_by_name(lines: list[RgLine], names: list[str]) -> dict[str, list[RgLine]]:
    """The lines of a search for several names, parted by name: a line goes to each name it holds, with only
    that name's hits (spans and columns)."""
    known = set(names)
    out: dict[str, list[RgLine]] = defaultdict(list)
    for line in lines:
        raw = line.text.encode("utf-8")
        hits: dict[str, list[int]] = defaultdict(list)
        for i, (start, end) in enumerate(line.spans):
            word = raw[start:end].decode("utf-8", errors="replace")
            if word in known:
                hits[word].append(i)
        if not hits:  # a line the text could not be re-encoded to as read: each name it holds keeps it whole
            for name in (n for n in names if n in line.text):
                out[name].append(line)
            continue
        for name, picked in hits.items():
            out[name].append(line if len(picked) == len(line.spans) else dataclasses.replace(
                line, spans=[line.spans[i] for i in picked],
                columns=[line.columns[i] for i in picked]))
    return out


def judge_hits(
    lexical: LexicalIndex,
    definition_sites: Callable[[str, list[str]], dict[tuple[str, int], str]],
    name: str,
    lines: list[RgLine],
    *,
    include_comments: bool = False,
    include_strings: bool = False,
    max_results: int = 200,
    qualified: Qualified | None = None,
    indexed: Container[str] = (),
) -> ReferenceResult:
    """The references among a name's whole-word hits: each judged code, comment or string by its file's lexical
    map, and a definition where the index has the name on that line."""
    by_file: dict[str, list[RgLine]] = defaultdict(list)
    for line in lines:
        by_file[line.file].append(line)
    maps, unjudged = _lexical_maps(lexical, by_file)
    qualified = qualified or Qualified(member=False)
    sites = _kept_sites(definition_sites(name, list(maps)), qualified)
    definitions = set(sites)
    methods_only = _methods_only(sites)
    references: list[Reference] = []
    left_out = {"comment": 0, "string": 0, "other_name": 0, "namesake": 0}
    # own source first, near the definitions, so that a cut list keeps what matters (answers.file_order)
    for rel in file_order(by_file, sorted({file for file, _ in definitions}), indexed):
        if rel in unjudged:
            continue
        refs = _judge_file(rel, by_file[rel], name, maps.get(rel), rel in maps, definitions, methods_only,
                           qualified, left_out)
        for ref in refs:
            if _wanted(ref, include_comments, include_strings):
                references.append(ref)
            else:
                left_out[ref.context] += 1
    return ReferenceResult(
        references=references[:max_results],
        total=len(references),
        truncated=len(references) > max_results,
        files_with_matches=len({r.file for r in references}),
        left_out=_left_out(name, left_out["comment"], left_out["string"], left_out["other_name"],
                           left_out["namesake"]),
    )


def _lexical_maps(lexical: LexicalIndex, by_file: dict[str, list[RgLine]]) -> tuple[dict[str, LexicalMap | None], set[str]]:
    """The lexical maps of the code files with hits, and the code files whose map the time budget left unbuilt
    (their hits cannot be judged, so they are left out and the answer says so)."""
    code_files = [f for f in by_file if lexical.handles(f)]
    maps = lexical.maps_for(code_files)
    unjudged = [f for f in code_files if f not in maps]
    if unjudged:
        budget.note_partial(f"{len(unjudged)} files with hits were not checked for code, comments and strings "
                            "in time and are left out")
    return {f: maps[f] for f in code_files if f in maps}, set(unjudged)


def _kept_sites(sites: dict[tuple[str, int], str], qualified: Qualified) -> dict[tuple[str, int], str]:
    """The definition sites that belong to the name asked about: members only for `Type.name`, never another
    type's own definition."""
    if qualified.member:
        sites = {site: kind for site, kind in sites.items() if kind not in _NOT_MEMBERS}
    return {site: kind for site, kind in sites.items() if site not in qualified.other_sites}


def _methods_only(sites: dict[tuple[str, int], str]) -> frozenset[str]:
    """The languages of _METHODS_APART in which every definition of the name (in the files that mention it) is a
    function there: a hit that is not shaped like a function's use is another thing of the same name."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for (rel, _line), kind in sites.items():
        language = language_for(rel)
        if language in _METHODS_APART:
            kinds[language].add(kind)
    return frozenset(lang for lang, found in kinds.items() if found and found <= _METHODS_APART[lang])


def _names_the_method(raw: bytes, start: int, end: int) -> bool:
    """Whether the hit at raw[start:end] is shaped like a Java method's use: a call or declaration (`name(`),
    a method reference (`::name`) or an annotation element (`@Tag(name = ...)`)."""
    return (raw[end:].lstrip().startswith(b"(") or raw[:start].rstrip().endswith(b"::")
            or _ANNOTATION_ARGS.search(raw[:start]) is not None)


def _names_the_rust_function(raw: bytes, start: int, end: int) -> bool:
    """Whether the hit at raw[start:end] may be a Rust function's or method's use: not a path segment
    (`name::Item`; a turbofish `name::<T>(` is a call), not `mod name`, not a macro (`name!`) and not a field
    (`.name` with no call)."""
    after = raw[end:].lstrip()
    if after.startswith(b"!") and not after.startswith(b"!="):
        return False
    if after.startswith(b"::") and not after[2:].lstrip().startswith(b"<"):
        return False
    if _RUST_MOD.search(raw[:start]):
        return False
    return not raw[:start].rstrip().endswith(b".") or after.startswith((b"(", b"::<"))


_SHAPES: dict[str, Callable[[bytes, int, int], bool]] = {"java": _names_the_method, "rust": _names_the_rust_function}


_SELF_PARAM = re.compile(r"\(\s*(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?self\b")


def takes_self(signature: str | None) -> bool:
    """Whether a Rust function's signature (`name(&self, x: u8) -> T`, as the index shows it) has a self receiver;
    True when there is no signature to tell."""
    return signature is None or "(" not in signature or _SELF_PARAM.search(signature) is not None


def _through_another_type(qualified: Qualified, rust: bool, raw: bytes, start: int) -> bool:
    """Whether the hit at raw[start:] is written through a type whose own `name` it is: a namesake's type
    (`Elements.hasClass`), or in Rust any other type's path (`Vec::new` when Version::new was asked for)."""
    m = _QUALIFIER.search(raw, 0, start)
    if m is None:
        return False
    owner = m[1].decode("utf-8", "replace")
    if owner in qualified.other_types:
        return True
    return (rust and qualified.foreign_path is not None and m[0].rstrip().endswith(b"::")
            and owner[:1].isupper() and owner != "Self" and qualified.foreign_path(owner))


def _receiverless_call(qualified: Qualified, raw: bytes, start: int, end: int) -> bool:
    """Rust: a method call `.name(` when the asked-for function takes no self (only a path can call it)."""
    return (qualified.receiverless and raw[:start].rstrip().endswith(b".")
            and raw[end:].lstrip().startswith((b"(", b"::<")))


def _left_out(name: str, comments: int, strings: int, other_names: int = 0, namesakes: int = 0) -> LeftOut | None:
    """What the answer says of the hits it did not list: a name in `__all__`, a docstring or a doc file matters
    when renaming, and the agent should know those hits exist."""
    if not comments and not strings and not other_names and not namesakes:
        return None
    hints = []
    asks = [arg for arg, n in (("include_comments=true", comments), ("include_strings=true", strings)) if n]
    if asks:
        hints.append(f"hits in comments, docs and strings (such as __all__ entries and docstrings) are not listed; "
                     f"send {' and '.join(asks)} to see them")
    if other_names:
        hints.append(f"{other_names} hits where {name} is written as another thing of that name (a Java field or "
                     f"variable; a Rust module path, macro or field, or a method call `.{name}()` when the function "
                     "takes no self), not as the function, are not listed")
    if namesakes:
        hints.append(f"{namesakes} hits that belong to another type's {name} (a namesake's definition, or a use "
                     f"written through another type, such as `Other::{name}`) are not listed")
    if other_names or namesakes:
        hints.append("search_text shows every hit")
    return LeftOut(comments=comments, strings=strings, other_names=other_names, namesake_hits=namesakes,
                   hint="; ".join(hints))


def _wanted(ref: Reference, include_comments: bool, include_strings: bool) -> bool:
    if ref.context == "comment":
        return include_comments
    if ref.context == "string":
        return include_strings
    return True


def _judge_file(rel: str, lines: list[RgLine], name: str, lexical_map: LexicalMap | None, is_code_file: bool,
                definitions: set[tuple[str, int]], methods_only: frozenset[str], qualified: Qualified,
                left_out: dict[str, int]) -> list[Reference]:
    """The file's hits as references; the code hits that are other things sharing a function's name, or that
    belong to a namesake, are counted in left_out instead."""
    language = language_for(rel)
    dollar = language in _DOLLAR_IN_NAMES
    shape = _SHAPES.get(language or "") if language in methods_only else None
    rust_member = language == "rust" and qualified.member
    qualifiers = bool(qualified.other_types) or rust_member
    out: list[Reference] = []
    for line in lines:
        raw = line.text.encode("utf-8") if dollar or shape or qualifiers else b""
        if (rel, line.line) in qualified.other_sites and is_code_file:
            left_out["namesake"] += 1  # the namesake's own definition (counted once per line)
            continue
        for (start, end), column in zip(line.spans, line.columns, strict=True):
            if not is_code_file:
                context = "comment"  # prose: documentation and text files
            elif lexical_map is None:
                context = "code"  # unparsable source: keep the hit rather than lose a real use
            else:
                context = lexical_map.category(line.offset + start)
            if context == "code" and dollar and (raw[start - 1 : start] == b"$" or raw[end : end + 1] == b"$"):
                continue  # `$name` is another identifier in these languages
            if context == "code" and shape is not None and not shape(raw, start, end):
                left_out["other_name"] += 1
                continue
            if context == "code" and rust_member and _receiverless_call(qualified, raw, start, end):
                left_out["other_name"] += 1
                continue
            if context == "code" and qualifiers and _through_another_type(qualified, rust_member, raw, start):
                left_out["namesake"] += 1
                continue
            definition = context == "code" and (rel, line.line) in definitions
            out.append(Reference(file=rel, line=line.line, column=column, text=line.text.strip()[:300],
                                 is_definition=definition, context=context))  # type: ignore[arg-type]
    return out
