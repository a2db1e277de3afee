"""What an outcome check compares: fingerprint keys, their descriptions and the changes between two fingerprints.

Shared by the git layer, which takes fingerprints (code_intel.git.fingerprint), and the workflow, which
judges the changes (code_intel.workflow.outcome). A fingerprint maps a key (a project-relative path, a
path of the repository's own settings, `ref <name>`, `index-flag <path>` or `HEAD`) to a description:
`file <mode> <sha256>`, `link <target>`, `special <type>`, a ref's object id, a flag's name, HEAD's text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

# caches a test or lint run leaves behind (gitignore syntax): the default of config.json outcome_check.ignore
CACHE_PATTERNS = (
    "__pycache__/", "*.pyc", "*.pyo", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", ".hypothesis/",
    ".coverage", ".coverage.*", "htmlcov/", ".tox/", ".nox/", "node_modules/.cache/", ".eslintcache",
    ".parcel-cache/", ".next/cache/", "target/debug/incremental/", ".gradle/", ".cache/",
)
# files a run of the checks writes besides caches (gitignore syntax): the default of outcome_check.outputs
CHECK_OUTPUTS = ("coverage.xml", "coverage.json", "lcov.info", "junit*.xml", "test-results/", "test-reports/")
KEY_REF = "ref "
KEY_FLAG = "index-flag "
KEY_HEAD = "HEAD"
DELETED = "deleted"
ABSENT = "absent"  # the content id of a path with nothing there


@dataclass(frozen=True)
class Change:
    key: str
    before: str | None  # None: not there
    after: str | None

    def what(self) -> str:
        """The change in words, for a refusal."""
        before, after = self.before, self.after
        if self.key.startswith(KEY_REF):
            if before is None:
                return f"created at {after[:12] if after else ''}"
            if after is None:
                return f"deleted (it was at {before[:12]})"
            return f"moved from {before[:12]} to {after[:12]}"
        if self.key.startswith(KEY_FLAG):
            return f"flag {after} set" if after else f"flag {before} cleared"
        if self.key == KEY_HEAD:
            return f"changed from {before!r} to {after!r}"
        if before is None:
            return f"created ({_kind(after)})"
        if after is None:
            return f"deleted (was {_kind(before)})"
        old, new = before.split(" "), after.split(" ")
        if old[0] != new[0]:
            return f"type changed from {_kind(before)} to {_kind(after)}"
        if old[0] == "link":
            return f"link target changed from {before[5:]!r} to {after[5:]!r}"
        if old[0] == "file" and old[1] != new[1] and old[2:] == new[2:]:
            return f"mode changed from {old[1]} to {new[1]}"
        if old[0] == "file" and old[1] != new[1]:
            return f"content and mode ({old[1]} -> {new[1]}) changed"
        return "content changed"


def _kind(description: str | None) -> str:
    if not description:
        return "nothing"
    head = description.split(" ", 1)[0]
    return {"file": "a file", "link": "a symlink " + description[5:], "special": "a special file"}.get(head, head)


def content_id(description: str | None) -> str:
    """What a grant names (the scheme of code_intel.workflow.grants): a file's sha256, "link:" + sha256 of a
    symlink's target, ABSENT for nothing there."""
    if description is None:
        return ABSENT
    if description.startswith("file "):
        return description.rsplit(" ", 1)[1]
    if description.startswith("link "):
        return "link:" + hashlib.sha256(description[5:].encode("utf-8", "surrogateescape")).hexdigest()
    return description


def diff(expected: dict[str, str], current: dict[str, str]) -> list[Change]:
    """Every key whose description differs between two fingerprints, sorted by key."""
    keys = sorted(set(expected) | set(current))
    return [Change(k, expected.get(k), current.get(k)) for k in keys if expected.get(k) != current.get(k)]


class CacheMatcher:
    """Gitignore-style patterns for the caches that are not judged (pathspec's gitwildmatch)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        import pathspec

        self.patterns = tuple(patterns)
        self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)
        self.known: dict[str, bool] = {}  # probe -> matched, filled as paths are asked

    def __call__(self, rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        hit = self.known.get(probe)
        if hit is None:
            hit = self.known[probe] = self._spec.match_file(probe)
        return hit

    def covers(self, rel: str) -> bool:
        """`rel` (a file's path) or one of its folders matches."""
        parts = rel.split("/")
        return self(rel, False) or any(self("/".join(parts[:i]), True) for i in range(1, len(parts)))
