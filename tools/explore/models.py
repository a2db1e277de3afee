"""Result models of the exploration tools. Every item pointing into code has `file` and a 1-based `line`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

MatchMode = Literal["exact", "prefix", "icase"]
HitContext = Literal["code", "comment", "string"]


def as_dict(value: Any) -> dict[str, Any]:
    """Explorer results are pydantic models or dicts; analyses built on them read plain dicts."""
    return value.model_dump() if isinstance(value, BaseModel) else dict(value)


class TextMatch(BaseModel):
    file: str
    line: int
    column: int = Field(description="1-based character column of the first match on the line")
    text: str
    context_before: list[str] | None = None
    context_after: list[str] | None = None


class PatternResult(BaseModel):
    pattern: str
    matches: list[TextMatch]
    total_matches: int
    truncated: bool
    files_with_matches: int | None = None


class MultiPatternResult(BaseModel):
    results: list[PatternResult]
    total_matches: int
    truncated: bool


class FileHit(BaseModel):
    file: str


class FileSearchResult(BaseModel):
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


class DefinitionResult(BaseModel):
    definitions: list[Definition]
    total: int
    truncated: bool


class Reference(BaseModel):
    file: str
    line: int
    column: int
    text: str
    is_definition: bool
    context: HitContext


class ReferenceResult(BaseModel):
    references: list[Reference]
    total: int
    truncated: bool
    files_with_matches: int = 0


class OutlineSymbol(BaseModel):
    name: str
    kind: str
    line: int
    end_line: int
    children: list[OutlineSymbol] = Field(default_factory=list)


class SymbolsResult(BaseModel):
    file: str
    language: str
    symbols: list[OutlineSymbol]


class ImportInfo(BaseModel):
    module: str
    names: list[str]
    line: int


class CallInfo(BaseModel):
    name: str
    line: int


class ClassInfo(BaseModel):
    name: str
    line: int
    end_line: int
    bases: list[str]
    methods: list[str]


class FunctionInfo(BaseModel):
    name: str
    line: int
    end_line: int
    scope: str | None = None
    calls: list[CallInfo]


class StructureResult(BaseModel):
    file: str
    language: str
    imports: list[ImportInfo]
    classes: list[ClassInfo]
    functions: list[FunctionInfo]


class EnclosingFunction(BaseModel):
    file: str
    name: str
    kind: str
    line: int
    end_line: int
    code: str
    scope: str | None = None
