"""One small door to git: argument lists only, bytes out, failures as GitError.

Commands run through the one subprocess helper (core/processes.py), in English (LC_ALL=C: some of git's
messages are read) and killed after COMMAND_TIMEOUT_S. This module is the layer over it that makes git safe:
the server's own git never runs code the repository's settings name, whoever set them: every command
runs with hooks off (`core.hooksPath=/dev/null`), no fsmonitor and no signing program, and each
clean/smudge/process filter driver the configuration defines is switched off for it (an empty
command is no filter), except git-lfs's own commands, so LFS files are still committed as pointers.
The filter list is read again only when a config file changed (stat).
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from code_intel.core import processes
from code_intel.core.errors import GitError

log = logging.getLogger(__name__)

# Identity for code-intel's own bookkeeping commits (snapshots), so they work without user.name set.
BOOKKEEPING_IDENTITY = {
    "GIT_AUTHOR_NAME": "code-intel",
    "GIT_AUTHOR_EMAIL": "code-intel@localhost",
    "GIT_COMMITTER_NAME": "code-intel",
    "GIT_COMMITTER_EMAIL": "code-intel@localhost",
}
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
COMMAND_TIMEOUT_S = 120.0
TIMED_OUT = -9  # the exit status of a command killed at its timeout
ENGLISH = {"LANGUAGE": "C", "LC_ALL": "C"}
# settings that would make git run a program the agent could have named
SAFE_SETTINGS = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "commit.gpgSign=false", "tag.gpgSign=false",
                 "core.sshCommand=false")
# filter commands kept: git-lfs's own (anything else the config names is switched off)
KNOWN_FILTER_COMMANDS = frozenset({"git-lfs filter-process", "git-lfs clean -- %f", "git-lfs smudge -- %f",
                                   "git-lfs smudge --skip -- %f", "git-lfs filter-process --skip"})
FILTER_KEYS = ("clean", "smudge", "process")


def _safe_args(settings: Sequence[str]) -> list[str]:
    return [part for setting in settings for part in ("-c", setting)]


class GitRunner:
    """Runs git in one repository's top-level folder."""

    def __init__(self, toplevel: Path) -> None:
        self.toplevel = toplevel
        self._config_files: list[Path] | None = None
        self._guard: tuple[tuple[tuple[int, int, int], ...], list[str]] | None = None

    def _raw(self, command: list[str], env: Mapping[str, str] | None = None) -> tuple[int, bytes, bytes]:
        done = processes.run(command, cwd=self.toplevel, env={**os.environ, **ENGLISH, **(env or {})},
                             timeout=COMMAND_TIMEOUT_S)
        if done.returncode is None:
            return TIMED_OUT, done.stdout, done.stderr + f"\ntimed out after {COMMAND_TIMEOUT_S:g} s".encode()
        return done.returncode, done.stdout, done.stderr

    def _stamp(self) -> tuple[tuple[int, int, int], ...]:
        """The stat of every config file git reads here: a change means the filter list is read again."""
        if self._config_files is None:
            status, out, _ = self._raw(["git", *_safe_args(SAFE_SETTINGS), "rev-parse", "--git-common-dir"])
            common = Path(out.decode(errors="replace").strip()) if status == 0 else self.toplevel / ".git"
            common = common if common.is_absolute() else self.toplevel / common
            home = Path.home()
            xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
            glob = os.environ.get("GIT_CONFIG_GLOBAL")
            self._config_files = [common / "config", common / "config.worktree",
                                  *([Path(glob)] if glob else [home / ".gitconfig", xdg / "git" / "config"])]
        stamps = []
        for file in self._config_files:
            try:
                info = file.stat()
                stamps.append((info.st_mtime_ns, info.st_size, info.st_ino))
            except OSError:
                stamps.append((0, 0, 0))
        return tuple(stamps)

    def guard_args(self) -> list[str]:
        """The `-c` settings every command runs with: hooks, fsmonitor and signing off, unknown filters switched off."""
        stamp = self._stamp()
        if self._guard is not None and self._guard[0] == stamp:
            return self._guard[1]
        settings = list(SAFE_SETTINGS)
        status, out, _ = self._raw(["git", *_safe_args(SAFE_SETTINGS), "config", "-z", "--get-regexp", r"^filter\."])
        drivers: dict[str, bool] = {}  # driver -> every command it names is a known one
        for record in out.decode(errors="surrogateescape").split("\0") if status == 0 else []:
            name, _, value = record.partition("\n")
            driver, _, key = name[len("filter."):].rpartition(".")
            if driver and key in FILTER_KEYS:
                drivers[driver] = drivers.get(driver, True) and value.strip() in KNOWN_FILTER_COMMANDS
        for driver, known in sorted(drivers.items()):
            if not known:
                settings += [f"filter.{driver}.{key}=" for key in FILTER_KEYS] + [f"filter.{driver}.required=false"]
        args = _safe_args(settings)
        self._guard = (stamp, args)
        return args

    def run(self, args: Sequence[str], *, env: Mapping[str, str] | None = None,
            check: bool = True) -> tuple[int, bytes, str]:
        """(exit status, stdout bytes, stderr text); raises GitError on a non-zero status when `check`."""
        status, out, err = self._raw(["git", *self.guard_args(), *args], env)
        stderr = err.decode(errors="replace")
        if check and status != 0:
            log.debug("git %s failed (%s): %s", " ".join(args), status, stderr.strip())
            raise GitError(
                f"git {args[0]} failed: {stderr.strip() or f'exit status {status}'}",
                hint="the repository was left as it was; fix the cause above and submit again",
            )
        return status, out, stderr

    def text(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        """Stdout of a successful command, decoded and stripped."""
        return self.run(args, env=env)[1].decode(errors="replace").strip()

    def ok(self, *args: str, env: Mapping[str, str] | None = None) -> bool:
        return self.run(args, env=env, check=False)[0] == 0

    def rev(self, name: str) -> str | None:
        """The object id `name` points to, or None when it does not resolve."""
        status, out, _ = self.run(["rev-parse", "--verify", "--quiet", "--end-of-options", name], check=False)
        return out.decode().strip() if status == 0 else None

    def git_path(self, name: str) -> Path:
        """Where git keeps `name` (e.g. "index"), worktrees included."""
        path = Path(self.text("rev-parse", "--git-path", name))
        return path if path.is_absolute() else self.toplevel / path

    def blob_bytes(self, blob: str) -> bytes:
        return self.run(["cat-file", "blob", blob])[1]

    def write_blob(self, content: bytes) -> str:
        """Store `content` as a blob and return its id."""
        with tempfile.TemporaryDirectory(prefix="code-intel-blob-") as folder:
            source = Path(folder) / "content"
            source.write_bytes(content)
            return self.text("hash-object", "-w", "--no-filters", "--", str(source))

    @contextmanager
    def temporary_index(self, seed_from_real_index: bool) -> Iterator[dict[str, str]]:
        """Env that points git at a throw-away index, so the user's own index is never touched.

        Seeding from the real index reuses its stat cache: `add -A` then re-hashes only changed files. The copy
        keeps the real index's mtime: git trusts an entry's recorded stat only when the file's mtime is older
        than the index file's ("racy git"). A copy stamped now would make an edit of the same size, made in
        the same second as the entry was recorded (git compares whole seconds), look unchanged.
        """
        with tempfile.TemporaryDirectory(prefix="code-intel-index-") as folder:
            index = Path(folder) / "index"
            real = self.git_path("index")
            if seed_from_real_index and real.is_file():
                stamp = real.stat()  # before reading: a newer content under an older stamp only re-hashes more
                index.write_bytes(real.read_bytes())
                os.utime(index, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
            yield {"GIT_INDEX_FILE": str(index)}
