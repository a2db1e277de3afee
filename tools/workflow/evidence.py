"""Evidence for a `done` checklist item: a `file:line` or `file:start-end` span the agent wrote.

The span must point inside the project at an existing text file and a line range within it, and
what it covers must be real code: a body made only of placeholders (`pass`, `...`, TODO comments,
`raise NotImplementedError`, `todo!()`, `panic("not implemented")`, empty braces, and the other forms
empty_body.py knows) is refused. Declarations are code: a Python type stub (`.pyi`), a member of a
`Protocol` class, an `@abstractmethod` of an ABC, an `@overload` of an implemented function.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from code_intel.core.errors import CodeIntelError, TaskValidationFailed
from code_intel.core.project import ProjectRoot
from code_intel.languages.table import language_for
from code_intel.workflow.empty_body import is_empty_body, judged_span

__all__ = ["EvidenceRef", "OwnChange", "check_evidence", "is_empty_body", "parse_evidence"]

# `path:42`, `path:42-58`, `path:L42-L58`; the path itself may hold colons, so the line part is the last one.
_EVIDENCE = re.compile(r"^(?P<path>.+?):L?(?P<start>-?\d+)(?:\s*-\s*L?(?P<end>-?\d+))?$")
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]|\\")
_BINARY_SNIFF_BYTES = 8192
_MAX_EVIDENCE_FILE_BYTES = 5_000_000
_FORMAT_HINT = "send evidence as 'path/to/file.py:42' or 'path/to/file.py:42-58' (project-relative path, 1-based lines)"


class EvidenceRef(BaseModel):
    """A span of lines in one file: project-relative POSIX path, 1-based inclusive lines."""

    path: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.path}:{self.start}" if self.start == self.end else f"{self.path}:{self.start}-{self.end}"


def parse_evidence(text: str) -> EvidenceRef:
    """Split `file:line` / `file:start-end` into its parts; refuses anything else with the expected format."""
    if not isinstance(text, str) or not text.strip():
        raise TaskValidationFailed("evidence is empty", hint=_FORMAT_HINT)
    cleaned = text.strip().strip("`'\"").strip()
    if "," in cleaned or ";" in cleaned or "\n" in cleaned:
        raise TaskValidationFailed(
            f"evidence {text!r} holds more than one location",
            hint="send one span per checklist item, e.g. 'auth.py:42-58'; when the item changed several places, "
                 "point at one of them and name the others in the report's summary",
        )
    match = _EVIDENCE.match(cleaned)
    if match is None:
        raise TaskValidationFailed(f"evidence {text!r} has no line number", hint=_FORMAT_HINT)
    path = match["path"].strip()
    if _WINDOWS_PATH.search(path):
        raise TaskValidationFailed(
            f"evidence path {path!r} is a Windows-style path",
            hint="send the path relative to the project root with forward slashes, e.g. 'src/auth.py:42'",
        )
    start = int(match["start"])
    end = int(match["end"]) if match["end"] is not None else start
    if start < 1 or end < 1:
        raise TaskValidationFailed(f"evidence {text!r}: line numbers start at 1", hint=_FORMAT_HINT)
    if end < start:
        raise TaskValidationFailed(
            f"evidence {text!r}: the range ends (line {end}) before it starts (line {start})",
            hint=f"send the range in order, e.g. '{path}:{end}-{start}'",
        )
    return EvidenceRef(path=path, start=start, end=end)


def _read_text_lines(file: Path, shown: str) -> list[str]:
    size = file.stat().st_size
    if size > _MAX_EVIDENCE_FILE_BYTES:
        raise TaskValidationFailed(f"evidence file {shown!r} is too large to check ({size} bytes)", hint="point at the source file you changed")
    data = file.read_bytes()
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise TaskValidationFailed(f"evidence file {shown!r} is binary", hint="point at the source lines you wrote")
    return data.decode("utf-8", errors="replace").splitlines()


class OwnChange(Protocol):
    """Judges a span against the session's own change (changes.own_change_check)."""

    def __call__(self, ref: EvidenceRef, lines: list[str]) -> str | None:
        """The problem when the span is not the session's own change, else None."""

    def removal(self, ref: EvidenceRef, lines: list[str]) -> bool:
        """Whether the span borders lines the session removed (what is left there need not be code)."""


def check_evidence(root: ProjectRoot, text: str, own_change: OwnChange | None = None) -> EvidenceRef:
    """Parse the evidence and check it against the file on disk; raises TaskValidationFailed naming the problem.

    `own_change`, when given, judges whether the span is the session's own change (see changes.py)
    and returns the problem when it is not; a span bordering lines the session removed is accepted
    as it is.
    """
    ref = parse_evidence(text)
    try:
        file = root.resolve(ref.path, kind="evidence path")
    except CodeIntelError as err:
        raise TaskValidationFailed(f"evidence {text.strip()!r}: {err.message}", hint=err.hint or _FORMAT_HINT) from None
    shown = root.relative(file)
    for part in Path(shown).parts:
        if part in (".git", ".code-intel"):
            raise TaskValidationFailed(f"evidence {text.strip()!r} points into {part}/", hint="point at the project file you changed")
    if not file.exists():
        raise TaskValidationFailed(
            f"evidence file {shown!r} does not exist",
            hint="check the path with search_files; paths are relative to the project root",
        )
    if not file.is_file():
        raise TaskValidationFailed(f"evidence path {shown!r} is not a file", hint=_FORMAT_HINT)
    lines = _read_text_lines(file, shown)
    if ref.end > len(lines):
        raise TaskValidationFailed(
            f"evidence {text.strip()!r} goes past the end of {shown!r}, which has {len(lines)} lines",
            hint="send the line range you wrote, as the file is now",
        )
    checked = EvidenceRef(path=shown, start=ref.start, end=ref.end)
    language = language_for(shown)
    # A span that stops at a block opener (a signature line) is judged with the block it opens, and one that
    # starts at a decorated definition with its decorators; a stub file or a Protocol's members declare.
    span = judged_span(lines, ref.start - 1, ref.end, language, stub_file=shown.endswith(".pyi"))
    if own_change is not None and own_change.removal(checked, lines):
        return checked  # a removal: the lines around it prove it, whatever is left there
    # Whose lines they are is told first: for a span off the session's change (a line number off by one), that
    # answer names the lines the session did change.
    problem = own_change(checked, lines) if own_change is not None else None
    if problem:
        raise TaskValidationFailed(f"evidence {checked}: {problem}",
                                   hint="point at lines this session changed (see review_changes)")
    if is_empty_body(lines[span.start:span.end], language, declarations=span.declarations):
        raise TaskValidationFailed(
            f"evidence {checked} covers no implementation: only a signature, comments or placeholders "
            "(pass, ..., TODO(), NotImplementedError/Exception, todo!(), a 'not implemented' panic or error, "
            "empty braces, or a constant returned beside a TODO comment)",
            hint="implement the item, then send the lines that hold the real code",
        )
    return checked
