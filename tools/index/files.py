"""Which files the index covers: `rg --files` (so .gitignore is respected) filtered by config.

Only text files with a known code, config or prose suffix are indexed; large and binary files are skipped
and counted so a sync can say what it left out.
"""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from code_intel.core import processes
from code_intel.core.binaries import require_binary
from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.languages.table import EXTENSIONS, script_file_language

log = logging.getLogger(__name__)

# Text files without a tree-sitter grammar that still carry meaning worth searching (line-window chunks).
PLAIN_TEXT_SUFFIXES = frozenset({
    ".txt", ".rst", ".cfg", ".ini", ".conf", ".sql", ".xml", ".proto", ".graphql", ".gradle",
    ".properties", ".env.example", ".tf", ".r", ".pl", ".erl", ".ml",
    ".clj", ".nim", ".vim", ".el", ".ps1", ".bat", ".cmake", ".mk", ".j2", ".jinja", ".twig",
})
PLAIN_TEXT_NAMES = frozenset({"makefile", "dockerfile", "gemfile", "rakefile", "procfile", "cmakelists.txt"})
# Generated files whose content drowns real code in search results.
SKIPPED_NAMES = frozenset({"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "cargo.lock", "uv.lock"})


@dataclass(frozen=True)
class SourceFile:
    path: str  # project-relative POSIX path
    absolute: Path
    size: int
    mtime_ns: int


def is_indexable_name(rel_path: str) -> bool:
    name = PurePosixPath(rel_path).name.lower()
    if name in SKIPPED_NAMES:
        return False
    if name in PLAIN_TEXT_NAMES:
        return True
    suffix = PurePosixPath(name).suffix
    return suffix in EXTENSIONS or suffix in PLAIN_TEXT_SUFFIXES or name.endswith(".blade.php")


def list_source_files(root: ProjectRoot, config: Config, timeout_s: float = 120.0) -> tuple[list[SourceFile], int]:
    """The files to index and how many candidates were skipped for size; sorted by path."""
    rg = require_binary("rg")
    args = [rg, "--files", "--no-messages", "--no-config"]
    for pattern in config.exclude_patterns:
        args += ["-g", "!" + pattern]
    targets = []
    for folder in config.source_dirs:
        resolved = root.resolve(folder, kind="source_dirs entry")
        if not resolved.exists():
            log.warning("source_dirs entry %r does not exist; skipped", folder)
            continue
        targets.append(root.relative(resolved) or ".")
    if config.source_dirs and not targets:
        raise InvalidArgument(
            f"none of source_dirs {config.source_dirs} exists in the project",
            hint="fix source_dirs in .code-intel/config.json (empty means the whole project)",
        )
    args += ["--", *(targets or ["."])]
    done = processes.run(args, cwd=root.path, timeout=timeout_s)
    if done.timed_out:
        raise subprocess.TimeoutExpired(args, timeout_s)
    if done.returncode not in (0, 1):  # 1 means no files matched
        log.warning("rg --files exited %s: %s", done.returncode, done.err.strip()[:500])
    files: list[SourceFile] = []
    too_big = 0
    for line in sorted(set(done.out.splitlines())):
        rel = PurePosixPath(line.removeprefix("./")).as_posix()
        if not rel:
            continue
        absolute = root.path / rel
        if not is_indexable_name(rel) and script_file_language(absolute) is None:  # a `#!` script without a suffix
            continue
        try:
            st = os.stat(absolute)
        except OSError:
            continue  # vanished between listing and stat
        if st.st_size > config.max_file_bytes:
            too_big += 1
            continue
        files.append(SourceFile(rel, absolute, st.st_size, st.st_mtime_ns))
    return files, too_big
