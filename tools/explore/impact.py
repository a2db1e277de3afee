"""Impact analysis: what else a change to some files would touch.

For the symbols of the changed files it gathers their definitions (direct), the code elsewhere
that references or imports them (dependents; for symbols asked about by name, also their uses in
the changed files themselves), the tests that use them, the config files and documents that
mention them, and what must be checked by hand (should_verify): other definitions of the names (an
override of a changed method in a subclass, or the base method a changed override overrides, told by
the bases the definition index records for each class), the type stubs of the changed files (`.pyi`,
`.d.ts`), and, for web files, the markup cross-references of their CSS classes and ids. Every item
carries `file` and a 1-based `line`. The work is bounded: too many symbols, too many hits or
over-common names are capped or skipped, and the answer says so.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Container, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from code_intel.core.config import DocumentSearchSettings, load_context
from code_intel.core.errors import CodeIntelError, InvalidArgument
from code_intel.core.file_roles import is_test_file
from code_intel.explore import budget
from code_intel.explore.answers import (
    DEFAULT_BUDGET_TOKENS,
    RESERVED_CHARS,
    Fitter,
    budget_chars,
    json_chars,
    ranked,
)
from code_intel.explore.ctags import BASES_RECORDED, bare_name
from code_intel.explore.globbing import glob_matches
from code_intel.explore.importers import find_importers, python_module_names
from code_intel.explore.imports import is_import_line
from code_intel.explore.markup import find_cross_references, is_web_file
from code_intel.explore.models import FileCount, ImpactItem, ImpactReport, SkippedSymbol, as_dict
from code_intel.explore.references import split_symbol
from code_intel.languages.grammar import TYPE_KINDS
from code_intel.languages.table import CODE_LANGUAGES, language_for

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_FILES = 50
MAX_SYMBOLS = 40
MAX_REFERENCES_PER_SYMBOL = 150
MAX_ITEMS_PER_GROUP = 100
MAX_MENTIONS = 1000
TEXT_CHARS = 160  # each item quotes its line, shortened: the answer must stay small
PARALLEL_LOOKUPS = 4

Group = Literal["direct", "dependents", "tests", "configs", "docs", "should_verify"]
GROUPS: tuple[Group, ...] = ("direct", "dependents", "tests", "configs", "docs", "should_verify")

# Names so common that their references say nothing about this change.
COMMON_NAMES = frozenset({
    "get", "set", "put", "add", "run", "main", "init", "new", "call", "apply", "update", "delete", "remove",
    "load", "save", "read", "write", "open", "close", "start", "stop", "reset", "clear", "copy", "render",
    "name", "data", "value", "values", "items", "keys", "type", "id", "key", "self", "cls", "this",
    "test", "setup", "setUp", "tearDown", "teardown", "handle", "handler", "process", "execute", "config",
    "default", "index", "list", "dict", "map", "str", "string", "text", "path", "file", "size", "length",
    "toString", "equals", "hashCode", "constructor", "String", "Error", "Exception",
})

CONFIG_SUFFIXES = frozenset({".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".properties"})
CONFIG_GLOBS = sorted({f"*{s}" for s in CONFIG_SUFFIXES} | {".env", ".env.*", "*.env.*"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


@dataclass(frozen=True)
class Target:
    """A symbol to follow: its search name (last dotted part) and, when known, where it is defined."""

    name: str
    file: str | None = None
    line: int | None = None
    end_line: int | None = None
    kind: str | None = None
    scope: str | None = None  # the class (or other container) it is defined in, when known


def is_config_file(path: str) -> bool:
    name = PurePosixPath(path).name
    return PurePosixPath(name).suffix.lower() in CONFIG_SUFFIXES or name.startswith(".env")


class _Collector:
    """The report's groups, one item per file and line (reasons joined), capped per group.

    Tests are one item per file: which test files to run matters, not each of their lines. `indexed`: the
    project's files, for the test files a path alone does not tell (file_roles.file_role)."""

    def __init__(self, indexed: Container[str]) -> None:
        self.groups: dict[Group, dict[tuple[str, int], ImpactItem]] = {g: {} for g in GROUPS}
        self.truncated = False
        self.indexed = indexed

    def group_of(self, file: str) -> Group:
        """Where a use in `file` goes: tests, configs, or dependents."""
        return "tests" if is_test_file(file, self.indexed) else "configs" if is_config_file(file) else "dependents"

    def add(self, group: Group, item: ImpactItem) -> None:
        bucket = self.groups[group]
        key = (item.file, 0 if group == "tests" else item.line)
        kept = bucket.get(key)
        if kept is not None and group == "tests":
            kept.lines = sorted({*(kept.lines or [kept.line]), item.line})
            kept.line = kept.lines[0]
        if kept is not None:  # one line importing three symbols is one place to look at
            if item.reason not in kept.reason.split("; "):
                kept.reason += "; " + item.reason
            if item.symbol and item.symbol != kept.symbol and item.symbol not in (kept.symbols or []):
                kept.symbols = (kept.symbols or [kept.symbol or ""]) + [item.symbol]
            return
        if len(bucket) >= MAX_ITEMS_PER_GROUP:
            self.truncated = True
            return
        bucket[key] = item.model_copy()

    def has_file(self, file: str) -> bool:
        return any(key[0] == file for bucket in self.groups.values() for key in bucket)

    def fill(self, report: ImpactReport) -> None:
        for group in GROUPS:
            items = sorted(self.groups[group].values(), key=lambda i: (i.file, i.line, i.symbol or ""))
            setattr(report, group, items)
        report.summary = {group: len(self.groups[group]) for group in GROUPS}
        report.truncated = report.truncated or self.truncated


# --------------------------------------------------------------------------- inputs
def _changed_files(explorer: Explorer, files: list[str]) -> list[str]:
    if not isinstance(files, list) or not files:
        raise InvalidArgument("files is empty", hint="send the files you plan to change, e.g. ['src/app.py']")
    if len(files) > MAX_FILES:
        raise InvalidArgument(f"{len(files)} files is too many for one impact analysis (at most {MAX_FILES})",
                              hint="split the change, or analyse the files that hold the changed symbols")
    out: list[str] = []
    for file in files:
        if not isinstance(file, str):
            raise InvalidArgument(f"files must be strings, got {file!r}", hint="send project-relative paths")
        absolute = explorer.root.resolve(file, must_exist=True, kind="file")
        if absolute.is_dir():
            raise InvalidArgument(f"{file!r} is a folder, not a file",
                                  hint="list the files inside it you plan to change (search_files can list them)")
        relative = explorer.root.relative(absolute)
        if relative not in out:
            out.append(relative)
    return out


def _search_name(symbol: str) -> str:
    """`Class.method`, `mod::fn` and `obj->m` are followed by their last part."""
    return re.split(r"\.|::|->|#", symbol.strip())[-1].strip("()")


def _outline_targets(explorer: Explorer, file: str, notes: list[str]) -> list[Target]:
    """Top-level and class-level symbols of a code file (its outline, two levels deep)."""
    if language_for(file) not in CODE_LANGUAGES:
        return []
    try:
        outline = as_dict(explorer.get_symbols(file))
    except CodeIntelError as err:
        notes.append(f"{file}: no symbol outline ({err.message})")
        return []
    targets: list[Target] = []
    for symbol in outline.get("symbols", []):
        targets.append(Target(symbol["name"], file, symbol["line"], symbol.get("end_line"), symbol.get("kind")))
        for child in symbol.get("children", []):
            owner = symbol["name"] if symbol.get("kind") in TYPE_KINDS else None  # a method's class, not a function
            targets.append(Target(child["name"], file, child["line"], child.get("end_line"), child.get("kind"), owner))
    return targets


def _requested_targets(explorer: Explorer, symbols: list[str], changed: list[str], notes: list[str],
                       queries: dict[str, str]) -> list[Target]:
    """The definitions of the asked-for names in the changed files; for a qualified `Type.name`, only those in
    Type when it has one there (its search then goes by the qualified name: queries, name -> `Type.name`)."""
    targets: list[Target] = []
    for raw in symbols:
        if not isinstance(raw, str) or not raw.strip():
            raise InvalidArgument(f"symbols must be non-empty names, got {raw!r}",
                                  hint="send names such as 'parse_config' or 'Parser.parse', or omit symbols")
        if raw.strip()[0] in ".#":
            continue  # a CSS selector: handled by the markup cross-references
        name = _search_name(raw)
        if not _IDENTIFIER.match(name):
            raise InvalidArgument(f"symbol {raw!r} is not an identifier",
                                  hint="send a function, class, method or variable name; use search_text for other text")
        found = as_dict(explorer.find_definitions(name, max_results=100))
        here = [d for d in found.get("definitions", []) if d["file"] in changed]
        owner, _ = split_symbol(raw)
        owned = [d for d in here if d.get("scope") and bare_name(d["scope"]) == owner] if owner not in (None, name) else []
        query = f"{owner}.{name}" if owned else name
        # asked for as Type.name and nothing else: keep to Type; asked for otherwise as well: every use
        queries[name] = query if queries.get(name, query) == query else name
        here = owned or here
        if not here:
            notes.append(f"{raw}: not defined in the given files; its uses were followed anyway")
            targets.append(Target(name))
        for d in here:
            targets.append(Target(name, d["file"], d["line"], d.get("end_line"), d.get("kind"), d.get("scope")))
    return targets


def _skip_reason(name: str, requested: bool, qualified: bool = False) -> str | None:
    """Why a name is not followed, or None. Names picked from an outline are held to a stricter bar; a name asked
    for with its type (`Circle::name`) is followed even when common or short, its search keeping to that type."""
    if name.startswith("__") and name.endswith("__"):
        return "special method: called implicitly, its references are not meaningful"
    if qualified:
        return None
    if name in COMMON_NAMES:
        return "over-common name: its references would flood the result; pass it with its type (Type.name) to follow the uses that can be its own"
    if len(name) < 3:
        return "too short to search for reliably"
    if not requested and name.isalpha() and name.islower() and len(name) <= 4:
        return "short common word: pass it in symbols to follow it anyway"
    return None


def is_distinctive(name: str) -> bool:
    """A name unlikely to be an ordinary word in prose or settings (snake_case, CamelCase, digits, long)."""
    return "_" in name or "." in name or any(c.isupper() or c.isdigit() for c in name) or len(name) >= 8


# --------------------------------------------------------------------------- references
_C_FAMILY = frozenset({"c", "cpp"})
_NOT_A_TYPE = frozenset({"return", "else", "case", "goto", "sizeof", "throw", "co_return", "new", "delete", "do"})
_TYPE_PREFIX = re.compile(r"^[\w\s*&:<>,()\[\]]*$")  # `static const char *`, `CJSON_PUBLIC(double)`, `std::vector<int>&`


def is_prototype(name: str, text: str, file: str) -> bool:
    """Whether a C or C++ line declares the function without defining it: a type before the name and `);`
    after its parameters (`CJSON_PUBLIC(double) cJSON_GetNumberValue(const cJSON * const item);`), not a call
    statement such as `f(x);`, `y = f(x);` or `return f(x);`."""
    if language_for(file) not in _C_FAMILY:
        return False
    code = text.split("//", 1)[0].strip()
    m = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", code)
    if m is None or not code.endswith(");"):
        return False
    prefix = code[: m.start()].strip()
    words = re.findall(r"\w+", prefix)
    return (bool(words) and _TYPE_PREFIX.match(prefix) is not None and words[-1] not in _NOT_A_TYPE
            and prefix.count("(") == prefix.count(")") and not prefix.startswith("(")  # `(void) f(x);` is a call
            and not prefix.endswith(("(", ",", "::")))


def _reason_for_reference(name: str, text: str, file: str) -> str:
    if is_import_line(text, file):
        return f"imports {name}"
    # the reference text may be stripped, so its column is no guide: look for a call on the line
    called = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", text)
    return f"calls {name}" if called else f"references {name}"


def _lookup(explorer: Explorer, names: list[str],
            queries: dict[str, str]) -> list[tuple[str, dict[str, Any] | None, str | None]]:
    """The references of every followed name (its query: `Type.name` keeps to Type), through one search of the
    tree; (name, None, why) for each when it failed."""
    wanted = [queries.get(name, name) for name in names]
    try:
        found = explorer.find_references_many(wanted, max_results=MAX_REFERENCES_PER_SYMBOL)
    except CodeIntelError as err:  # e.g. a timeout: the other groups still answer
        return [(name, None, err.message) for name in names]
    return [(name, as_dict(found[query]), None) for name, query in zip(names, wanted, strict=True)]


_STUB_SOURCES = {".pyi": (".py",), ".d.ts": (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx")}


def stub_source(file: str, changed: Iterable[str]) -> str | None:
    """The changed file that `file` is the type stub of (`pkg/more.pyi` for `pkg/more.py`, `x.d.ts` for `x.js`)."""
    for stub_suffix, sources in _STUB_SOURCES.items():
        if file.endswith(stub_suffix):
            stem = file[: -len(stub_suffix)]
            return next((c for c in changed for suffix in sources if c == stem + suffix), None)
    return None


def _stubs_of(explorer: Explorer, changed: list[str]) -> list[ImpactItem]:
    """The type stub beside each changed source file, when there is one: a signature change must reach it too."""
    items: list[ImpactItem] = []
    for file in changed:
        for stub_suffix, sources in _STUB_SOURCES.items():
            suffix = next((s for s in sources if file.endswith(s) and not file.endswith(stub_suffix)), None)
            stub = file[: -len(suffix)] + stub_suffix if suffix else None
            if stub and stub not in changed and (explorer.root.path / stub).is_file():
                items.append(ImpactItem(file=stub, line=1, reason=f"type stub of {file}: keep its declarations in step"))
    return items


# languages where another file can only reach a class member through an object or its type (`x.name`, `Type::name`,
# `$x->name`): a bare `name` there is another thing of that name (Java, Kotlin, C++ and Ruby let a subclass call an
# inherited method bare, so they are not here)
_MEMBER_ACCESS_ONLY = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust"})


def _member_only_names(targets: list[Target]) -> set[str]:
    """Followed names that are only ever members of a type (every target of the name has a scope)."""
    scoped: dict[str, bool] = {}
    for t in targets:
        scoped[t.name] = scoped.get(t.name, True) and t.scope is not None
    return {name for name, only in scoped.items() if only}


def _written_as_member(name: str, text: str, language: str | None) -> bool:
    """Whether the line reaches `name` through an object or a type (`.name`, `::name`, `->name`) at least once, or
    names it where a field is given a value when an object is built: a Python keyword argument (`Tag(platform=x)`,
    a dataclass or NamedTuple field), a field in a JS/TS object, Go or Rust struct literal (`{platform: x}`)."""
    word = re.escape(name)
    if re.search(rf"(?:\.|::|->)\s*{word}\b", text):
        return True
    if language == "python":
        if re.match(r"\s*(?:async\s+)?def\b|.*\blambda\b", text):
            return False  # `def f(platform=None)`: a parameter's default, not a keyword argument
        return re.search(rf"(?:^|[(,])\s*{word}=(?!=)", text) is not None
    return re.search(rf"(?:^|[{{,])\s*{word}\s*:(?!:)", text) is not None


def _inside(targets: list[Target], file: str, line: int) -> bool:
    return any(t.file == file and t.line is not None and t.line <= line <= (t.end_line or t.line) for t in targets)


class _Inheritance:
    """How another definition of a followed name relates to the changed one through the class hierarchy (by
    bare type names, as the definition index records each type's bases)."""

    def __init__(self, explorer: Explorer, targets: list[Target]) -> None:
        self.explorer = explorer
        self.owners: dict[str, set[str]] = defaultdict(set)  # name -> the types defining it in the changed files
        for target in targets:
            if target.scope and target.file:
                self.owners[target.name].add(bare_name(target.scope))
        self._scopes: dict[str, dict[tuple[str, int], str]] = {}

    def _scope_at(self, name: str, file: str, line: int) -> str | None:
        if name not in self._scopes:  # the reference lookup has just refreshed the files defining the name
            found = self.explorer.definition_index.scopes(name)
            self._scopes[name] = {site: bare_name(scope) for site, scope in found.items()}
        return self._scopes[name].get((file, line))

    def reason(self, name: str, file: str, line: int) -> str | None:
        """"overrides Base.name ..." or "... base of ..." for a definition at file:line, or None when neither."""
        own = self.owners.get(name)
        other = self._scope_at(name, file, line) if own else None
        if not own or other is None:
            return None
        index = self.explorer.definition_index
        extends = "implements" if language_for(file) == "rust" else "inherits from"  # Rust: impl Trait for Type
        for mine in sorted(own - {other}):
            if mine in index.ancestors(other):
                return (f"overrides {mine}.{name} ({other} {extends} {mine}): a call through {mine} can run it, "
                        "so it must keep the changed contract")
            if other in index.ancestors(mine):
                return f"{mine}.{name} overrides this one ({mine} {extends} {other}): keep the two compatible"
        if language_for(file) in BASES_RECORDED and other not in own:
            return (f"another definition of {name} (override, shadow or namesake), in {other}: the index finds no "
                    f"inheritance between {other} and {', '.join(sorted(own))}")
        return None


def _add_references(results: Iterable[tuple[str, dict[str, Any] | None, str | None]], changed: set[str],
                    targets: list[Target], out: _Collector, report: ImpactReport, *, same_file_uses: bool,
                    inheritance: _Inheritance | None = None) -> None:
    """References to the followed names, grouped. Uses inside the changed files are the change itself, except
    that, for names the agent asked about (`same_file_uses`), a use outside the name's own definition is listed:
    the changed file's own callers must keep working too."""
    direct_sites = {(t.file, t.line) for t in targets if t.file and t.line}
    members = _member_only_names(targets)
    for name, found, problem in results:
        if found is None:
            report.notes.append(f"{name}: references not searched ({problem})")
            report.truncated = True
            continue
        _note_search_limits(name, found, report)
        bare = 0
        for ref in found.get("references", []):
            if (ref["file"], ref["line"]) in direct_sites:
                continue
            if name in members and _bare_member_hit(name, ref, changed):
                bare += 1  # `import platform` is not a use of Tag.platform
                continue
            _place_reference(name, ref, changed, targets, out, same_file_uses=same_file_uses,
                             inheritance=inheritance)
        if bare:
            report.notes.append(f"{name}: {bare} hit(s) write the name without an object or type (not `x.{name}`); "
                                f"{name} is a member here, so they are another thing of that name and are not listed")


def _note_search_limits(name: str, found: dict[str, Any], report: ImpactReport) -> None:
    """Say where a name's reference search was cut or left namesakes out, so the agent knows the list is partial."""
    if found.get("truncated"):
        report.truncated = True
        report.notes.append(f"{name}: more than {MAX_REFERENCES_PER_SYMBOL} references, the first ones are listed")
    if namesake_hits := (found.get("left_out") or {}).get("namesake_hits"):
        owners = sorted({n.rsplit(" ", 1)[-1].rsplit(".", 1)[0] for n in found.get("namesakes") or []})
        report.notes.append(f"{name}: {namesake_hits} hits belong to namesakes in {', '.join(owners)} (their "
                            "definitions, and uses written through their type) and are not listed")


def _bare_member_hit(name: str, ref: dict[str, Any], changed: set[str]) -> bool:
    """A hit outside the change that writes a member-only name without an object: another thing of that name."""
    file = ref["file"]
    if file in changed or ref.get("is_definition"):
        return False
    language = language_for(file)
    return language in _MEMBER_ACCESS_ONLY and not _written_as_member(name, ref.get("text", ""), language)


def _place_reference(name: str, ref: dict[str, Any], changed: set[str], targets: list[Target], out: _Collector,
                     *, same_file_uses: bool, inheritance: _Inheritance | None) -> None:
    """File one reference under the group it affects, with the reason it must keep working."""
    file, line, text = ref["file"], ref["line"], ref.get("text", "").strip()[:TEXT_CHARS]
    if file in changed:  # the changed files themselves are the change, not its impact ...
        if same_file_uses and not ref.get("is_definition") and not _inside(targets, file, line):
            reason = _reason_for_reference(name, ref.get("text", ""), file) + " (in a file being changed)"
            out.add(out.group_of(file), ImpactItem(file=file, line=line, symbol=name, reason=reason, text=text))
        return  # ... but for a name asked about, its other uses there must keep working
    if not ref.get("is_definition") and is_prototype(name, ref.get("text", ""), file):
        out.add("should_verify", ImpactItem(file=file, line=line, symbol=name, text=text, reason=(
            f"declares {name} (a prototype): keep it in step with the definition")))
        return
    if ref.get("is_definition"):
        source = stub_source(file, changed)
        related = inheritance.reason(name, file, line) if inheritance is not None and not source else None
        reason = (f"type stub of {source}: keep {name}'s declaration in step" if source else related
                  or f"another definition of {name} (override, shadow or namesake)")
        out.add("should_verify", ImpactItem(file=file, line=line, symbol=name, text=text, reason=reason))
        return
    reason = _reason_for_reference(name, ref.get("text", ""), file)
    out.add(out.group_of(file), ImpactItem(file=file, line=line, symbol=name, reason=reason, text=text))


_TEST_NAME_TEMPLATES = ("test_{s}.py", "{s}_test.py", "{s}_test.go", "{s}.test.*", "{s}.spec.*",
                        "{s}Test.*", "{s}Tests.*", "{s}_spec.rb", "{s}_test.exs", "{s}Suite.scala", "{s}Spec.scala",
                        "{s}Spec.hs")


def tests_named_after(explorer: Explorer, changed: list[str]) -> list[ImpactItem]:
    """Test files whose names follow a changed file's name (test_x.py, x.test.ts, x_test.go ...)."""
    indexed = explorer.definition_index.files
    stems = {PurePosixPath(f).stem.split(".")[0]: f for f in changed if not is_test_file(f, indexed)}
    stems = {s: f for s, f in stems.items() if re.fullmatch(r"[\w-]+", s) and s != "__init__"}
    if not stems:
        return []
    names = [t.format(s=s) for s in stems for t in _TEST_NAME_TEMPLATES]
    found = as_dict(explorer.search_files("**/{" + ",".join(names) + "}", max_results=200))
    items: list[ImpactItem] = []
    for hit in found.get("files", []):
        name = PurePosixPath(hit["file"]).name
        for stem, source in stems.items():
            if any(glob_matches(t.format(s=stem), name) for t in _TEST_NAME_TEMPLATES):
                items.append(ImpactItem(file=hit["file"], line=1, symbol=stem, reason=f"test named after {source}"))
    return items


# --------------------------------------------------------------------------- mentions
def _alternation(names: Iterable[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True))


def mention_pattern(names: Iterable[str], plain: Iterable[str] = ()) -> str:
    """A regex (the same text for rg and Python's re) for a line mentioning one of `names` as a word, or one of
    the `plain` words written as code: in backticks, after `::` (a directive such as `.. autofunction:: name`)
    or a dot (`mod.name`), or called (`name(`). Whichever named group matched (`name`, `marked` or `called`)
    holds the name found."""
    parts = []
    words, code = _alternation(names), _alternation(plain)
    if words:
        parts.append(rf"\b(?P<name>{words})\b")
    if code:
        parts.append(rf"(?:`|::\s*|\w\.)(?P<marked>{code})\b|\b(?P<called>{code})(?:`|\s*\()")
    return "|".join(parts)


def _mentions(explorer: Explorer, names: Iterable[str], globs: list[str],
              plain: Iterable[str] = ()) -> list[tuple[str, int, str, str]]:
    """(file, line, name, text) for each line of the globbed files that mentions one of the names as a word,
    or one of the plain words as code (see mention_pattern)."""
    pattern = mention_pattern(names, plain)
    if not pattern or not globs:
        return []
    found = as_dict(explorer.search_text(pattern, glob=globs, max_results=MAX_MENTIONS))
    mention = re.compile(pattern)
    hits: list[tuple[str, int, str, str]] = []
    for match in found.get("matches", []):
        m = mention.search(match["text"])
        if m:
            hits.append((match["file"], match["line"], m.group(m.lastgroup or 0), match["text"].strip()[:TEXT_CHARS]))
    return hits


def _document_settings(explorer: Explorer, given: DocumentSearchSettings | None, notes: list[str]) -> DocumentSearchSettings:
    if given is not None:
        return given
    try:
        return load_context(explorer.root.state_dir).document_search
    except CodeIntelError as err:
        notes.append(f"context.yml unreadable, default document patterns used ({err.message})")
        return DocumentSearchSettings()


def _is_document(path: str, settings: DocumentSearchSettings) -> bool:
    return (any(glob_matches(g, path) for g in settings.include_patterns)
            and not any(glob_matches(g, path) for g in settings.exclude_patterns))


def _mention_searches(changed: list[str], names: list[str], documents: DocumentSearchSettings,
                      notes: list[str]) -> list[tuple[Group, list[str], list[str], list[str]]]:
    """The searches for config files and documents naming a symbol (or a Python file's dotted module name):
    (group, names, plain words searched only as code, globs) each."""
    distinctive = [n for n in names if is_distinctive(n)]
    plain = [n for n in names if not is_distinctive(n)]
    if plain:
        notes.append(f"plain words {plain} searched in docs only where written as code (`name`, name(, "
                     ":: name, x.name), and not in configs: as bare words they are too likely to be prose")
    module_names = [m for file in changed for m in python_module_names(file)]
    return [("configs", [*distinctive, *module_names], [], CONFIG_GLOBS),
            ("docs", distinctive, plain, list(documents.include_patterns))]


def _add_mentions(group: Group, hits: list[tuple[str, int, str, str]], changed: list[str],
                  documents: DocumentSearchSettings, out: _Collector) -> None:
    for file, line, name, text in hits:
        if file not in changed and (is_config_file(file) if group == "configs" else _is_document(file, documents)):
            out.add(group, ImpactItem(file=file, line=line, symbol=name, text=text, reason=f"mentions {name}"))


def _names_to_follow(targets: list[Target], requested: bool, report: ImpactReport,
                     queries: dict[str, str]) -> list[str]:
    """Distinct searchable names in order, without skipped ones, capped at MAX_SYMBOLS."""
    names: list[str] = []
    skipped: set[str] = set()
    for t in targets:
        if t.name in names or t.name in skipped:
            continue
        reason = _skip_reason(t.name, requested, queries.get(t.name, t.name) != t.name)
        if reason:
            skipped.add(t.name)
            report.skipped.append(SkippedSymbol(symbol=t.name, reason=reason))
        else:
            names.append(t.name)
    if len(names) > MAX_SYMBOLS:
        report.notes.append(f"{len(names)} symbols: the first {MAX_SYMBOLS} were followed; pass symbols= to choose")
        report.truncated = True
        names = names[:MAX_SYMBOLS]
    return names


def _in_time(stage: str) -> bool:
    """False (and noted as partial) when the call's time budget ran out before this stage started."""
    if budget.expired():
        budget.note_partial(f"the time budget ran out before {stage} were searched")
        return False
    return True


# --------------------------------------------------------------------------- entry point
def analyze_impact(explorer: Explorer, files: list[str], symbols: list[str] | None, *,
                   document_search: DocumentSearchSettings | None = None) -> ImpactReport:
    """Impact of changing `files` (and, when given, only `symbols` in them), grouped as
    direct / dependents / tests / configs / docs / should_verify, each item with file and line."""
    changed = _changed_files(explorer, files)
    if symbols is not None and not isinstance(symbols, list):
        raise InvalidArgument("symbols must be a list of names", hint="send e.g. ['parse_config'], or omit it")
    report = ImpactReport(files=changed, symbols=[])
    out = _Collector(explorer.definition_index.files)
    queries: dict[str, str] = {}  # a name asked about as `Type.name` -> the search that keeps to Type
    if not symbols:  # an empty list means "not chosen", like None
        targets = [t for file in changed for t in _outline_targets(explorer, file, report.notes)]
    else:
        targets = _requested_targets(explorer, symbols, changed, report.notes, queries)
    for t in targets:
        if t.file is not None and t.line is not None:
            kind = f" ({t.kind})" if t.kind else ""
            out.add("direct", ImpactItem(file=t.file, line=t.line, end_line=t.end_line, symbol=t.name,
                                         reason=f"defined here{kind}"))
    report.symbols = _names_to_follow(targets, bool(symbols), report, queries)
    _search_uses(explorer, changed, targets, queries, bool(symbols), document_search, report, out)
    for item in _stubs_of(explorer, changed):
        if not any(file == item.file for file, _ in out.groups["should_verify"]):  # not already found by a name
            out.add("should_verify", item)
    _add_markup_links(explorer, changed, symbols, report, out)
    out.fill(report)
    return report


def _search_uses(explorer: Explorer, changed: list[str], targets: list[Target], queries: dict[str, str],
                 asked: bool, document_search: DocumentSearchSettings | None, report: ImpactReport,
                 out: _Collector) -> None:
    """The searches for what uses the changed code: references to the followed names, importers, tests named
    after the files, mentions in configs and docs. They are independent: they run together, PARALLEL_LOOKUPS at
    a time, sharing the call's deadline, and their results are taken in this fixed order (the groups are capped,
    so order matters)."""
    names = report.symbols
    references, importers_on, named_on, mentions_on = (
        _in_time(stage) for stage in ("references", "importers", "tests named after the files", "configs and docs"))
    with ThreadPoolExecutor(max_workers=PARALLEL_LOOKUPS) as pool:
        def start(fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
            return pool.submit(budget.carry(fn), *args, **kwargs)

        importer_notes: list[str] = []
        importers = (start(find_importers, explorer, changed, importer_notes)
                     if importers_on else None)
        named = start(tests_named_after, explorer, changed) if named_on else None
        mention_notes: list[str] = []
        documents = DocumentSearchSettings()
        mentions: list[tuple[Group, Future[list[tuple[str, int, str, str]]]]] = []
        if mentions_on:
            documents = _document_settings(explorer, document_search, mention_notes)
            mentions = [(group, start(_mentions, explorer, wanted, globs, plain))
                        for group, wanted, plain, globs in _mention_searches(changed, names, documents, mention_notes)]
        lookups = start(_lookup, explorer, names, queries) if references and names else None

        _add_references(lookups.result() if lookups is not None else [], set(changed), targets, out, report,
                        same_file_uses=asked, inheritance=_Inheritance(explorer, targets))
        if importers is not None:
            # With symbols asked for and their uses all found, a file importing the changed file without using
            # them is not affected: it is counted, not listed (jsoup's Element.java has 41 importers, 7 use hasClass).
            narrow = asked and references and not report.truncated and not report.skipped
            _add_importers(importers.result(), narrow, report, out)
            report.notes.extend(importer_notes)
        _add_named_tests(named, report, out)
        report.notes.extend(mention_notes)
        _add_mention_results(mentions, changed, documents, report, out)


def _add_importers(found: list[Any], narrow: bool, report: ImpactReport, out: _Collector) -> None:
    """The files importing the changed ones, listed apart and uncapped (the groups are capped); when `narrow`,
    only those that also use a followed name, the others counted in a note."""
    unused = 0
    for importer in found:
        if narrow and not out.has_file(importer.file):
            unused += 1
            continue
        item = ImpactItem(file=importer.file, line=importer.line, symbol=importer.module,
                          reason=f"imports {importer.target}", text=importer.text[:TEXT_CHARS])
        report.importers.append(item)
        out.add("tests" if is_test_file(item.file, out.indexed) else "dependents", item)
    if unused:
        who = "1 file imports" if unused == 1 else f"{unused} files import"
        report.notes.append(f"{who} the changed files without a use of {', '.join(report.symbols)}: not listed "
                            "(analyze_impact without symbols lists every importer)")


def _add_named_tests(named: Future[list[ImpactItem]] | None, report: ImpactReport, out: _Collector) -> None:
    try:
        for item in named.result() if named is not None else []:
            out.add("tests", item)
    except CodeIntelError as err:
        report.notes.append(f"tests named after the files not searched: {err.message}")
        report.truncated = True


def _add_mention_results(mentions: list[tuple[Group, Future[list[tuple[str, int, str, str]]]]], changed: list[str],
                         documents: DocumentSearchSettings, report: ImpactReport, out: _Collector) -> None:
    for group, hits in mentions:
        try:
            _add_mentions(group, hits.result(), changed, documents, out)
        except CodeIntelError as err:  # a timeout here must not lose the references already found
            report.notes.append(f"configs and docs search incomplete: {err.message}")
            report.truncated = True
            break


def _add_markup_links(explorer: Explorer, changed: list[str], symbols: list[str] | None, report: ImpactReport,
                      out: _Collector) -> None:
    """For a changed web file, the markup and style sheets its ids and classes link to (only the selectors asked
    for, when any `.class` or `#id` was)."""
    selectors = {s.strip() for s in symbols or [] if isinstance(s, str) and s.strip()[:1] in (".", "#")}
    for file in (f for f in changed if is_web_file(f) and _in_time("markup cross-references")):
        try:
            items, capped = find_cross_references(explorer, file)
        except CodeIntelError as err:
            report.notes.append(f"{file}: markup cross-references not searched: {err.message}")
            report.truncated = True
            continue
        report.truncated = report.truncated or capped
        for raw in items:
            if not selectors or raw["symbol"] in selectors:
                out.add("should_verify", ImpactItem(**raw))


# --------------------------------------------------------------------------- the answer
ImpactLevel = Literal["summary", "locations", "code"]
TOP_FILES = 3
NOTE_CHARS = 300


def shape_impact(report: ImpactReport, *, level: ImpactLevel = "summary", group: str | None = None,
                 offset: int = 0, budget_tokens: int = DEFAULT_BUDGET_TOKENS,
                 indexed: Container[str] = ()) -> ImpactReport:
    """analyze_impact's answer for an agent. "summary" (the default): the counts per group, the importers of the
    changed files (before anything else, ranked), and each group's top files; "locations" lists the items (file,
    line, symbol, reason) of `group` (or of every group, in order, while the budget lasts); "code" adds each
    item's line of code. Items are ranked like every answer (own source, tests, docs, generated; near the
    changed files first; `indexed`: the project's files, which the roles read); `offset` pages on in `group`."""
    anchors = list(report.files)
    left_out: dict[str, int] = {}
    if level == "summary":  # the names followed and skipped, as many as a tenth of the budget holds each
        report.symbols = _capped(report.symbols, str, budget_chars(budget_tokens) // 10, "symbols", left_out)
        report.skipped = _capped(report.skipped, lambda s: s.model_dump(), budget_chars(budget_tokens) // 10,
                                 "skipped", left_out)
    fit = Fitter(budget_chars(budget_tokens) - RESERVED_CHARS - json_chars(report.summary) - json_chars(report.files)
                 - json_chars(report.symbols) - json_chars([s.model_dump() for s in report.skipped]))
    report.notes = _shortened_notes(report.notes, fit.left // 4)  # what was skipped and why comes first
    fit.left -= json_chars(report.notes)
    all_items = {g: ranked(getattr(report, g), lambda i: i.file, lambda i: i.line, anchors, indexed) for g in GROUPS}
    importers = ranked(report.importers, lambda i: i.file, lambda i: i.line, anchors, indexed)
    importers = importers[offset:] if group == "importers" else importers
    report.importers = _fitted(importers, fit, level) if group in (None, "importers") else []
    next_offset = None
    if len(report.importers) < len(importers) and group in (None, "importers"):
        left_out["importers"] = len(importers) - len(report.importers)
        if group == "importers":
            next_offset = offset + len(report.importers)
    for g in GROUPS:
        setattr(report, g, [])
    if level == "summary" and group is None:
        report.top_files = _top_files(all_items, fit) or None
    else:
        for g in (known for known in GROUPS if group in (None, known)):
            items = all_items[g][offset:] if group else all_items[g]
            kept = _fitted(items, fit, level)
            setattr(report, g, kept)
            if len(kept) < len(items):
                left_out[g] = len(items) - len(kept)
                if group:
                    next_offset = offset + len(kept)
    report.left_out = left_out or None
    report.next_offset = next_offset
    report.more = _impact_more(report, level, group, next_offset) or None
    return report


def _capped(items: list[T], as_json: Callable[[T], Any], chars: int, part: str, left_out: dict[str, int]) -> list[T]:
    """The first of `items` that fit `chars`; how many did not goes into left_out[part]."""
    fit = Fitter(chars)
    kept = [item for item in items if fit.take(as_json(item))]
    if len(kept) < len(items):
        left_out[part] = len(items) - len(kept)
    return kept


def _shortened_notes(notes: list[str], chars: int) -> list[str]:
    """The notes, each cut to NOTE_CHARS, while they fit `chars`; then how many more there were."""
    fit = Fitter(chars)
    kept: list[str] = []
    for note in notes:
        short = note if len(note) <= NOTE_CHARS else note[: NOTE_CHARS - 3] + "..."
        if not fit.take(short):
            kept.append(f"{len(notes) - len(kept)} more notes")
            break
        kept.append(short)
    return kept


def _fitted(items: list[ImpactItem], fit: Fitter, level: ImpactLevel) -> list[ImpactItem]:
    """The items, in order, while they fit; their line of code only at level "code"."""
    kept = []
    for item in items:
        if level != "code":
            item = item.model_copy(update={"text": None})
        if not fit.take(item.model_dump(exclude_none=True)):
            break
        kept.append(item)
    return kept


def _top_files(all_items: dict[Group, list[ImpactItem]], fit: Fitter) -> dict[str, list[FileCount]]:
    """Each group's TOP_FILES first files (in rank order) with their item counts, while they fit."""
    top: dict[str, list[FileCount]] = {}
    for g in GROUPS:
        counts: dict[str, int] = defaultdict(int)
        firsts: dict[str, int] = {}
        for item in all_items[g]:
            counts[item.file] += len(item.lines or [item.line])
            firsts.setdefault(item.file, item.line)
        best = [FileCount(file=f, line=firsts[f], count=counts[f]) for f in list(counts)[:TOP_FILES]]
        if best and fit.take({g: [b.model_dump() for b in best]}):
            top[g] = best
    return top


def _impact_more(report: ImpactReport, level: ImpactLevel, group: str | None, next_offset: int | None) -> str:
    notes = []
    if level == "summary" and group is None and any(report.summary.get(g) for g in GROUPS):
        notes.append("group=<direct|dependents|tests|configs|docs|should_verify|importers> lists one group's items")
    if next_offset is not None:
        notes.append(f"offset={next_offset} pages on in {group}")
    elif report.left_out and group is None and level != "summary":
        notes.append("cut by the answer's budget: group=<name> lists one group")
    if level != "code" and level != "summary":
        notes.append("level='code' adds each item's line")
    return "; ".join(notes)


