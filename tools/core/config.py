"""`.code-intel/config.json` and `.code-intel/context.yml` as pydantic models with defaults.

A bad value is refused with the file, the key and the reason; a missing file means defaults.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from code_intel.core.errors import ConfigError, validation_problems
from code_intel.core.outcome_types import CACHE_PATTERNS, CHECK_OUTPUTS
from code_intel.verify.settings import VerifySettings

DEFAULT_EMBEDDING_MODEL = "code-static"

DEFAULT_EXCLUDES = [
    "**/.git/**",
    "**/.code-intel/**",
    "**/node_modules/**",
    "**/__pycache__/**",
    "**/.venv/**",
    "**/venv/**",
    "**/dist/**",
    "**/build/**",
    "**/*.min.js",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ChromaSettings(_Strict):
    mode: Literal["persistent", "http"] = "persistent"
    path: str | None = Field(default=None, description="persistent mode: folder, default .code-intel/chroma")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    ssl: bool = False


class OutcomeCheckSettings(_Strict):
    """How the outcome check at each transition treats caches (code_intel.workflow.outcome)."""

    ignore: list[str] = Field(default_factory=lambda: list(CACHE_PATTERNS), description=(
        "gitignore-style patterns of caches a test or lint run leaves (not judged); read at session start"))
    outputs: list[str] = Field(default_factory=lambda: list(CHECK_OUTPUTS), description=(
        "gitignore-style patterns of files the project's checks write: the server's own run may change them (any "
        "other file it finds changed after the run is judged at the next submit); read at session start"))


class Config(_Strict):
    """config.json: indexing, search and embedding settings."""

    version: str = "1.0"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_max_seq_length: int | None = Field(default=None, ge=16, le=8192)
    embedding_batch_size: int = Field(default=32, ge=1, le=4096)
    source_dirs: list[str] = Field(default_factory=list, description="empty: the whole project")
    exclude_patterns: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    chunk_strategy: Literal["ast", "lines"] = "ast"
    chunk_max_tokens: int = Field(default=512, ge=32, le=8192)
    sync_ttl_hours: float = Field(default=1.0, ge=0)
    sync_on_start: bool = True
    index_fast_pass: bool = Field(default=True, description="index every file with the fast static model first, "
                                  "then replace its vectors with the full model's in the background")
    max_file_bytes: int = Field(default=1_000_000, ge=1024)
    search_timeout_seconds: float = Field(default=10.0, gt=0, le=600)
    chroma: ChromaSettings = Field(default_factory=ChromaSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    outcome_check: OutcomeCheckSettings = Field(default_factory=OutcomeCheckSettings)


class ProjectRulesSettings(BaseModel):
    model_config = ConfigDict(extra="allow")
    source: str = "CLAUDE.md"
    summary: str = ""
    content_hash: str | None = None


class DocResearchSettings(BaseModel):
    model_config = ConfigDict(extra="allow")
    enabled: bool = True
    docs_path: list[str] = Field(default_factory=lambda: ["docs/"])
    default_prompts: list[str] = Field(default_factory=lambda: ["default.md"])


# The documents impact analysis reads by default: Markdown, MDX, reStructuredText, AsciiDoc and plain text.
DOCUMENT_PATTERNS = ("**/*.md", "**/*.mdx", "**/*.rst", "**/*.adoc", "**/*.txt")


class DocumentSearchSettings(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_patterns: list[str] = Field(default_factory=lambda: list(DOCUMENT_PATTERNS))
    exclude_patterns: list[str] = Field(default_factory=lambda: ["node_modules/**"])


class ContextSettings(BaseModel):
    """context.yml: project rules, document research and document search settings."""

    model_config = ConfigDict(extra="allow")
    project_rules: ProjectRulesSettings = Field(default_factory=ProjectRulesSettings)
    doc_research: DocResearchSettings = Field(default_factory=DocResearchSettings)
    document_search: DocumentSearchSettings = Field(default_factory=DocumentSearchSettings)
    last_synced: str | None = None


def _validate(model: type[BaseModel], data: Any, file: Path) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: the top level must be a mapping of keys, got {type(data).__name__}",
                          hint=f"make {file.name} a mapping of settings, or delete it to use the defaults")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ConfigError(f"{file}: " + "; ".join(validation_problems(err, "key")), hint=f"fix or remove the key in {file.name}; defaults apply to missing keys") from None


def _read_text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{file}: not UTF-8 text (byte {err.start})", hint=f"save {file.name} as UTF-8") from None
    except OSError as err:
        raise ConfigError(f"{file}: cannot be read ({err.strerror})", hint=f"make {file.name} a readable file") from None


def load_config(state_dir: Path) -> Config:
    file = state_dir / "config.json"
    if not file.exists():
        return Config()
    text = _read_text(file)
    if not text.strip():  # an empty file, like a missing one, means defaults
        return Config()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{file}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})",
                          hint=f"fix the JSON in {file.name}, or delete the file to use the defaults") from None
    return _validate(Config, data, file)


def read_yaml(text: str) -> Any:
    """YAML text as plain data, with the safe constructors: through libyaml's parser when PyYAML has it (about
    fifteen times faster on the phase contract), else through the pure-Python one. Either raises
    `yaml.YAMLError` with the line and column of the problem."""
    import yaml  # imported here: the server answers tools/list before any settings file is read

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_context(state_dir: Path) -> ContextSettings:
    import yaml

    file = state_dir / "context.yml"
    if not file.exists():
        return ContextSettings()
    try:
        data = read_yaml(_read_text(file))
    except yaml.YAMLError as err:
        raise ConfigError(f"{file}: not valid YAML ({err})",
                          hint=f"fix the YAML in {file.name}, or delete the file to use the defaults") from None
    return _validate(ContextSettings, data, file)
