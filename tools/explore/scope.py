"""What a call covers: the folders and files searched (path, source_dirs, excludes) and language filters."""

from __future__ import annotations

from pathlib import Path

from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.explore.ripgrep import RgFilters
from code_intel.languages.table import EXTENSIONS

LANGUAGE_ALIASES = {
    "js": "javascript", "ts": "typescript", "py": "python", "c++": "cpp", "c#": "csharp", "cs": "csharp",
    "golang": "go", "rb": "ruby", "kt": "kotlin", "rs": "rust",
}


def accepted_languages(language: str) -> set[str]:
    """The language names a `language` argument selects ('typescript' includes TSX); refuses unknown ones."""
    wanted = language.strip().lower()
    wanted = LANGUAGE_ALIASES.get(wanted, wanted)
    accepted = {"typescript", "tsx"} if wanted == "typescript" else {wanted}
    if not accepted & set(EXTENSIONS.values()):
        known = sorted(set(EXTENSIONS.values()))
        raise InvalidArgument(f"unknown language {language!r}", hint=f"use one of: {', '.join(known)}")
    return accepted


def language_globs(language: str | None) -> list[str]:
    """rg globs selecting one language's files, from the shared extension table."""
    if not language:
        return []
    accepted = accepted_languages(language)
    return ["*" + suffix for suffix, lang in EXTENSIONS.items() if lang in accepted]


def project_filters(root: ProjectRoot, config: Config, path: str | None = None) -> RgFilters:
    """Excludes and size cap from config; roots: the given path, else the source_dirs, else the whole root."""
    if path:
        roots: tuple[str, ...] = (_relative_or_dot(root, root.resolve(path, must_exist=True)),)
    else:
        folders = [root.resolve(d) for d in config.source_dirs]
        roots = tuple(_relative_or_dot(root, p) for p in folders if p.exists()) or (".",)
    return RgFilters(excludes=tuple(config.exclude_patterns), max_file_bytes=config.max_file_bytes, roots=roots)


def _relative_or_dot(root: ProjectRoot, absolute: Path) -> str:
    rel = root.relative(absolute)
    return rel if rel not in ("", ".") else "."
