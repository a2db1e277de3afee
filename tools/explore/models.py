"""Result models of the exploration tools. Every item pointing into code has `file` and a 1-based `line`."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs this one, not typing's, before Python 3.12

MatchMode = Literal["exact", "prefix", "icase"]
HitContext = Literal["code", "comment", "string"]


def as_dict(value: Any) -> dict[str, Any]:
    """Explorer results are pydantic models or dicts; analyses built on them read plain dicts."""
    return value.model_dump() if isinstance(value, BaseModel) else dict(value)


class Partial(BaseModel):
    """Set when the call's time budget ran out: the result holds what was found until then."""

    partial: bool | None = Field(default=None, description="true when the time budget cut the search short")
    partial_reason: str | None = None


class SkippedFileInfo(BaseModel):
    file: str
    size: int
    reason: str


class Skipping(Partial):
    """Searches also name the files they did not look into, and why."""

    skipped_files: list[SkippedFileInfo] | None = Field(
        default=None, description="files in scope that were not searched (e.g. larger than max_file_bytes)")
    skipped_total: int | None = None


# A plain dict rather than a model: search_text builds thousands of them from ripgrep's lines and assembles its
# answer without validating each one again (tools/explore/service.py). The docstring is the schema's description.
class TextMatch(TypedDict):
    """One matching line; context lines come with it when they were asked for."""

    file: str
    line: int
    column: Annotated[int, Field(description="1-based character column of the first match on the line")]
    text: str
    context_before: NotRequired[list[str]]
    context_after: NotRequired[list[str]]


class PatternResult(Skipping):
    pattern: str
    matches: list[TextMatch]
    total_matches: int
    truncated: bool
    files_with_matches: int | None = None
    left_out: int | None = Field(default=None, description="matches past this page (the budget or max_results)")
    next_offset: int | None = Field(default=None, description="send as offset for the matches left out")


class MultiPatternResult(Skipping):
    results: list[PatternResult]
    total_matches: int
    truncated: bool


class FileHit(BaseModel):
    file: str
    note: str | None = Field(default=None, description="e.g. why the content searches skip this file")


class FileSearchResult(Partial):
    files: list[FileHit]
    total: int
    truncated: bool


class Definition(BaseModel):
    file: str
    line: int
    end_line: int
    name: str
    kind: str
    scope: str | None = None
    language: str | None = None
    signature: str | None = None


class DefinitionResult(Skipping):
    definitions: list[Definition]
    total: int
    truncated: bool
    next_offset: int | None = Field(default=None, description="send as offset for the definitions left out")


class Reference(BaseModel):
    file: str
    line: int
    column: int
    text: str
    is_definition: bool
    context: HitContext


class LeftOut(BaseModel):
    """Hits of the name that were not listed: in comments or strings, written as another thing of the same name
    (Java, Rust), or belonging to a namesake of a qualified symbol."""

    comments: int = 0
    strings: int = 0
    other_names: int = 0
    namesake_hits: int = 0
    hint: str


class FileHits(BaseModel):
    """One file of a find_references answer: its hits counted, and listed line by line when its role is listed."""

    file: str
    line: int = Field(description="its first listed hit (or first hit)")
    role: str
    count: int = Field(description="hits of the name in this file")
    lines: list[int] | None = Field(default=None, description="the listed hits' lines")
    definitions: list[int] | None = Field(default=None, description="which of those lines define the name")


class RoleCount(BaseModel):
    files: int
    hits: int
    listed: int = Field(description="hits listed line by line in this answer")


class ReferenceResult(Skipping):
    references: list[Reference] = Field(
        description="each hit with its line's text: the whole list for level 'code'; empty for the other levels")
    total: int
    truncated: bool
    files_with_matches: int = 0
    files: list[FileHits] | None = Field(
        default=None, description="level 'locations': the listed hits grouped by file, own source first")
    counted: list[FileHits] | None = Field(
        default=None, description="files of the roles not listed line by line, with their hit counts")
    by_role: dict[str, RoleCount] | None = Field(default=None, description="hits and files per file role")
    next_offset: int | None = Field(default=None, description="send as offset for the next listed hits")
    more: str | None = Field(default=None, description="what this answer left out and how to ask for it")
    left_out: LeftOut | None = Field(
        default=None, description="hits not listed: in comments and strings (include_comments / include_strings list "
                                  "them), other things sharing a function's name, told apart by how they are written "
                                  "(other_names: Java fields and variables; Rust module paths, macros and fields), and "
                                  "for a qualified symbol the namesakes' definitions and uses written through their "
                                  "type, such as Other::name (namesake_hits)")
    namesakes: list[str] | None = Field(
        default=None, description="for a qualified symbol (Type.name): the same name defined in types unrelated to "
                                  "Type, as file:line Type.name; hits are matched by name, so a use through a variable "
                                  "may still be theirs")


class OutlineSymbol(BaseModel):
    name: str
    kind: str
    file: str  # every item that points into code names its file (CONTRACT.md), as the answer's top level does
    line: int
    end_line: int
    implements: str | None = Field(default=None, description="a Rust impl block's trait (impl Trait for name)")
    children: list[OutlineSymbol] = Field(default_factory=list)


class SymbolsResult(Partial):
    file: str
    language: str
    symbols: list[OutlineSymbol]
    left_out: int | None = Field(default=None, description="symbols (nested ones counted) past the budget")
    next_offset: int | None = Field(default=None, description="send as offset for the next top-level symbols")


class ImportInfo(BaseModel):
    module: str
    names: list[str]
    file: str
    line: int
    targets: list[str] | None = Field(default=None, description="the project files (a Go package's folder) it "
                                                                "imports; absent for a package from outside")


class CallInfo(BaseModel):
    name: str
    file: str
    line: int


class ClassInfo(BaseModel):
    name: str
    file: str
    line: int
    end_line: int
    bases: list[str]
    methods: list[str]


class FunctionInfo(BaseModel):
    name: str
    file: str
    line: int
    end_line: int
    scope: str | None = None
    calls: list[CallInfo]


class StructureResult(Partial):
    file: str
    language: str
    imports: list[ImportInfo]
    classes: list[ClassInfo]
    functions: list[FunctionInfo]
    left_out: dict[str, int] | None = Field(default=None, description="classes and functions past the budget")
    next_offset: int | None = Field(default=None, description="send as offset for the rest")


class EnclosingFunction(Partial):
    file: str
    name: str
    kind: str
    line: int
    end_line: int
    code: str
    scope: str | None = None


# analyze_impact's answer (explore/impact.py builds it)
class ImpactItem(BaseModel):
    file: str
    line: int
    end_line: int | None = None
    symbol: str | None = None
    symbols: list[str] | None = Field(default=None, description="every symbol tied to this line, when several are")
    lines: list[int] | None = Field(default=None, description="tests: every line of the file that uses the symbols")
    reason: str
    text: str | None = None


class SkippedSymbol(BaseModel):
    symbol: str
    reason: str


class FileCount(BaseModel):
    file: str
    line: int = Field(description="its first item")
    count: int


class ImpactReport(Partial):
    files: list[str]
    symbols: list[str]
    importers: list[ImpactItem] = Field(
        default_factory=list, description="files importing the changed files, ranked, before every capped group")
    direct: list[ImpactItem] = Field(default_factory=list)
    dependents: list[ImpactItem] = Field(default_factory=list)
    tests: list[ImpactItem] = Field(default_factory=list)
    configs: list[ImpactItem] = Field(default_factory=list)
    docs: list[ImpactItem] = Field(default_factory=list)
    should_verify: list[ImpactItem] = Field(default_factory=list)
    summary: dict[str, int] = Field(default_factory=dict)
    skipped: list[SkippedSymbol] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    truncated: bool = False
    top_files: dict[str, list[FileCount]] | None = Field(
        default=None, description="level 'summary': each group's first files by rank, with their item counts")
    left_out: dict[str, int] | None = Field(default=None, description="items per group not in this answer")
    next_offset: int | None = Field(default=None, description="send as offset (with the same group) to page on")
    more: str | None = Field(default=None, description="what this answer left out and how to ask for it")


# query's answer (explore/query.py builds it)
HitKind = Literal["definition", "text", "semantic"]


class QueryHit(BaseModel):
    file: str
    line: int
    end_line: int | None = None
    kind: HitKind
    name: str | None = None
    snippet: str
    score: float
    sources: list[str]
    lines: list[int] | None = Field(default=None, description="lines of text matches folded into this span")
    chunk_id: str | None = None
    role: str = Field(default="implementation", description="implementation, test, doc or generated (from the path)")


class QueryResult(Partial):
    question: str
    results: list[QueryHit]
    routes_used: list[str]
    candidates: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    truncated: bool = False
    left_out: int | None = Field(default=None, description="hits past this page (the answer's budget)")
    next_offset: int | None = Field(default=None, description="send as offset for the hits left out")


# get_symbols' unused definitions (explore/unused.py)
class UnusedItem(BaseModel):
    name: str
    file: str
    line: int
    kind: str
    evidence: str


class UnusedResult(Partial):
    path: str
    unused: list[UnusedItem]
    total: int = Field(description="unused definitions found (this answer lists the first, by rank)")
    judged: int = Field(description="module-level functions and types of own source looked at")
    exported: int = Field(description="left out as exported on purpose (__all__, entry files, re-exports)")
    next_offset: int | None = Field(default=None, description="send as offset for the next ones")
