"""Fingerprints: what the project and its repository hold, taken whole, so a change is seen whatever made it.

A fingerprint maps a key to a short description of what is there:
- every file of the work tree, tracked, untracked and ignored: `file <mode> <sha256>`, `link <target>`
  (a symlink is recorded as a link, never followed) or `special <type>`;
- the repository's own settings and scripts: `.git/config` (and `config.worktree`), everything under
  `.git/hooks/` and `.git/info/` (`file ...` as above, keyed by their path), and `HEAD`;
- every ref (`ref refs/heads/main` -> the object id it names), and the index entries that carry a
  flag hiding a change (`index-flag <path>` -> `skip-worktree` / `assume-unchanged`).

Left out: the `.git` folder's objects and logs (git writes them on reads too), code-intel's own
runtime folders (`.code-intel/sessions`, `logs`, `chroma`, `cache`, `reports`), and the caches a test run leaves,
matched by gitignore-style patterns (config.json `outcome_check.ignore`). Everything else under
`.code-intel/` (settings, contract, verifiers), `.claude/` and `.codex/` is in.

Taking one is incremental, like git's index: a file is hashed again only when its stat (mode, size,
mtime, ctime, inode) changed since the last take, or when it changed so recently that a second change
in the same clock tick could hide behind the same stat ("racy" entries are always re-hashed).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_intel.core.outcome_types import CACHE_PATTERNS, DELETED, KEY_FLAG, KEY_HEAD, KEY_REF, CacheMatcher

# what code-intel itself writes during a session, never the agent's work to judge
RUNTIME_DIRS = (".code-intel/sessions", ".code-intel/logs", ".code-intel/chroma", ".code-intel/cache",
                ".code-intel/reports")  # reports: the session pages `code-intel report` writes (tools/report/)
DEFAULT_CACHE_PATTERNS = CACHE_PATTERNS
RACY_NS = 2_000_000_000  # a file changed this close to a take is hashed again next time
GitText = Callable[[Sequence[str]], bytes]  # runs git with these arguments, returns stdout


def _describe(path: Path | str, info: os.stat_result) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        try:
            return "link " + os.readlink(path)
        except OSError:
            return None
    if stat.S_ISREG(info.st_mode):
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        except OSError:
            return None
        return f"file {stat.S_IMODE(info.st_mode):o} {digest.hexdigest()}"
    if stat.S_ISDIR(info.st_mode):
        return None
    return f"special {stat.S_IFMT(info.st_mode):o}"


def _stat_key(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


@dataclass
class GitPlaces:
    """Where a repository keeps what the fingerprint reads (absolute paths)."""

    git_dir: Path
    common_dir: Path

    def meta_files(self) -> list[Path]:
        """HEAD, the config files, and the roots of hooks/ and info/ (walked)."""
        return [self.common_dir / "config", self.git_dir / "config.worktree", self.common_dir / "hooks",
                self.common_dir / "info", self.git_dir / "info"]


@dataclass
class Fingerprinter:
    """Takes fingerprints of one project, keeping a stat cache between takes (not thread-safe: the caller locks)."""

    root: Path
    caches: CacheMatcher
    git: GitText | None = None  # None: the project is not in a git repository
    places: GitPlaces | None = None
    _cache: dict[str, tuple[tuple[int, ...], str | None]] = field(default_factory=dict)
    _index_flags: tuple[tuple[int, ...], dict[str, str]] | None = None
    _refs_cache: tuple[tuple[tuple[str, tuple[int, ...]], ...], dict[str, str]] | None = None
    hashed: int = 0  # files hashed by the last take (for benchmarks and tests)

    def take(self, *, tree: bool = True) -> dict[str, str]:
        """The fingerprint now; `tree=False`: the repository's part alone (settings, scripts, HEAD, refs, index flags),
        without walking the work tree."""
        started = time.time_ns()
        self.hashed = 0
        seen: dict[str, tuple[tuple[int, ...], str | None]] = {}
        out: dict[str, str] = {}
        if tree:
            self._walk_tree(out, seen, started)
        if self.git is not None and self.places is not None:
            self._walk_meta(out, seen, started)
            out.update(self._refs())
            out.update(self._flags())
        if tree:
            self._cache = seen
        else:
            self._cache.update(seen)
        return out

    def describe(self, paths: Iterable[str]) -> dict[str, str | None]:
        """The description of each work-tree path now (None: nothing there), for the paths the fingerprint holds;
        a path in a runtime folder or matched by a cache pattern is left out, as a take leaves it out."""
        started = time.time_ns()
        out: dict[str, str | None] = {}
        for rel in paths:
            parts = rel.split("/")
            if rel.startswith(("/", "../")) or ".." in parts or parts[0] == ".git" or any(
                    rel == d or rel.startswith(d + "/") for d in RUNTIME_DIRS):
                continue
            if self.caches.covers(rel) or any(os.path.islink(self.root / "/".join(parts[:i])) for i in range(1, len(parts))):
                continue  # a cache, or a path through a symlinked folder, which a take never walks into
            try:
                info = os.lstat(self.root / rel)
            except OSError:
                out[rel] = None
                continue
            out[rel] = None if stat.S_ISDIR(info.st_mode) else self._entry(rel, str(self.root / rel), info, self._cache,
                                                                            started)
        return out

    def _entry(self, label: str, path: str, info: os.stat_result, seen: dict[str, tuple[tuple[int, ...], str | None]],
               started: int) -> str | None:
        key = _stat_key(info)
        cached = self._cache.get(label)
        if cached is not None and cached[0] == key:
            description = cached[1]
        else:
            description = _describe(path, info)
            self.hashed += 1
        racy = started - max(info.st_mtime_ns, info.st_ctime_ns) < RACY_NS
        seen[label] = ((-1,) if racy else key, description)
        return description

    def _walk_tree(self, out: dict[str, str], seen: dict[str, tuple[tuple[int, ...], str | None]], started: int) -> None:
        """Every file under the root. The loop is the cost of every submit, so it stays flat: a folder is known from
        its directory entry's type (no stat), a file costs one lstat, and a file whose stat is unchanged and not
        racy is neither opened nor described again."""
        stack = [("", str(self.root))]
        skip_dirs = set(RUNTIME_DIRS)
        cache, caches, known = self._cache, self.caches, self.caches.known
        racy_before = started - RACY_NS
        while stack:
            rel_dir, folder = stack.pop()
            try:
                scan = os.scandir(folder)
            except OSError:
                continue
            with scan:
                for item in scan:
                    rel = rel_dir + item.name
                    try:
                        is_dir = item.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if is_dir:
                        if rel == ".git" and not rel_dir:
                            continue  # the repository's own folder: read below, selectively
                        ignored = known.get(rel + "/")
                        if ignored is None:
                            ignored = caches(rel, True)
                        if not ignored and rel not in skip_dirs:
                            stack.append((rel + "/", item.path))
                        continue
                    ignored = known.get(rel)
                    if ignored is None:
                        ignored = caches(rel, False)
                    if ignored or (rel == ".git" and not rel_dir):
                        continue  # a cache, or a worktree's pointer to its repository (read below)
                    try:
                        info = item.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    key = (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
                    cached = cache.get(rel)
                    racy = max(info.st_mtime_ns, info.st_ctime_ns) > racy_before
                    if cached is not None and cached[0] == key:
                        description = cached[1]
                        seen[rel] = ((-1,), description) if racy else cached
                    else:
                        description = _describe(item.path, info)
                        self.hashed += 1
                        seen[rel] = ((-1,) if racy else key, description)
                    if description is not None:
                        out[rel] = description

    def _label(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def _walk_meta(self, out: dict[str, str], seen: dict[str, tuple[tuple[int, ...], str | None]], started: int) -> None:
        assert self.places is not None
        head = self.places.git_dir / "HEAD"
        try:
            out[KEY_HEAD] = head.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            out[KEY_HEAD] = DELETED
        done: set[Path] = set()
        for start in self.places.meta_files():
            if start in done:
                continue
            done.add(start)
            stack = [start]
            while stack:
                path = stack.pop()
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    try:
                        stack.extend(Path(e.path) for e in os.scandir(path))
                    except OSError:
                        pass
                    continue
                label = self._label(path)
                description = self._entry(label, str(path), info, seen, started)
                if description is not None:
                    out[label] = description

    def _ref_stamp(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The stat of every file git keeps refs in (packed-refs, loose refs, reftable): unchanged, no ref moved."""
        assert self.places is not None
        stamps: list[tuple[str, tuple[int, ...]]] = []
        roots = {self.places.common_dir, self.places.git_dir}
        for base in sorted(roots):
            for name in ("packed-refs",):
                try:
                    stamps.append((str(base / name), _stat_key(os.stat(base / name))))
                except OSError:
                    pass
            stack = [base / "refs", base / "reftable"]
            while stack:
                folder = stack.pop()
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                stamps.append((str(folder), _stat_key(os.stat(folder))))
                for item in entries:
                    if item.is_dir(follow_symlinks=False):
                        stack.append(Path(item.path))
                    else:
                        try:
                            stamps.append((item.path, _stat_key(item.stat(follow_symlinks=False))))
                        except OSError:
                            continue
        return tuple(sorted(stamps))

    def _refs(self) -> dict[str, str]:
        """Every ref and its object id; `git for-each-ref` runs only when a file of the ref store changed."""
        assert self.git is not None
        stamp = self._ref_stamp()
        racy = any(time.time_ns() - max(key[2], key[3]) < RACY_NS for _, key in stamp if len(key) > 3)
        if self._refs_cache is not None and self._refs_cache[0] == stamp and not racy:
            return dict(self._refs_cache[1])
        raw = self.git(["for-each-ref", "--format=%(refname)%00%(objectname)"])
        out: dict[str, str] = {}
        for line in raw.decode("utf-8", "surrogateescape").splitlines():
            name, _, oid = line.partition("\0")
            if name:
                out[KEY_REF + name] = oid
        self._refs_cache = (stamp, out)
        return dict(out)

    def _flags(self) -> dict[str, str]:
        """Index entries flagged skip-worktree or assume-unchanged; `git ls-files` runs only when the index changed."""
        assert self.git is not None and self.places is not None
        try:
            key = _stat_key(os.stat(self.places.git_dir / "index"))
        except OSError:
            return {}
        if self._index_flags is not None and self._index_flags[0] == key:
            return dict(self._index_flags[1])
        raw = self.git(["ls-files", "-v", "-z"])
        flags: dict[str, str] = {}
        for record in raw.split(b"\0"):
            if len(record) < 3:
                continue
            tag, name = chr(record[0]), record[2:].decode("utf-8", "surrogateescape")
            if tag == "S":
                flags[KEY_FLAG + name] = "skip-worktree"
            elif tag.islower():
                flags[KEY_FLAG + name] = "assume-unchanged"
        self._index_flags = (key, flags)
        return dict(flags)
