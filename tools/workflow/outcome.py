"""Outcome checks: at every transition the server compares what the project holds with what it granted.

The hooks guess what a command will write; this module does not guess. At start_session the server
takes a fingerprint of the project (tools/git/fingerprint.py: the work tree with untracked and
ignored files, the repository's config, hooks, info, refs and hiding index flags, code-intel's
settings, `.claude/` and `.codex/`) and keeps it as `expected`. Every submit_phase (MERGE included)
takes it again before the handler runs, and every difference must be one the session granted:

- before READY, and from POST_IMPL_VERIFY on: nothing may change;
- in READY: only work-tree files the write rules allowed (check_write_target, or the client hook's
  sealed write log; any project file with --fast/--quick), never the repository's settings, refs or
  flags, code-intel's settings or the clients' settings;
- in any phase: what the user allowed in their own terminal (`code-intel allow`), for exactly the
  content they allowed.

Granted changes are taken into `expected`, and a granted file's content is recorded (path + content
id): the commit gate commits a file only in a content the server saw granted. Anything else refuses
the transition, naming each path and what changed; `restore` in the next submit puts those back
(from the session-start snapshot or the last granted content) without touching what the user had
before the session. What the server itself changes (its branch, commits, discards, the run of the
checks) is taken into `expected` right after it does it.

The record is persisted beside the checkpoint, sealed (tools/workflow/seal.py); a record whose seal
fails is void: the session says so and stops, taking no permission from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from code_intel.core.errors import CheckpointCorrupt, PayloadMismatch
from code_intel.core.fsutil import write_atomic
from code_intel.core.outcome_types import KEY_FLAG, KEY_HEAD, KEY_REF, CacheMatcher, Change, content_id, diff
from code_intel.core.project import STATE_DIR
from code_intel.core.session_types import GitSessionInfo
from code_intel.workflow import seal
from code_intel.workflow.checkpoint import OUTCOME_SUFFIX

# settings the agent could rewrite to change what the server checks or runs: never granted by a write rule
PROTECTED_PREFIXES = (f"{STATE_DIR}/", ".claude/", ".codex/", ".git/", ".gitmodules")
MAX_LISTED = 40  # changes named in one refusal


class OutcomePort(Protocol):
    """What the outcome check needs from the repository (tools.git.outcome.OutcomeService)."""

    def take(self, ignore: Sequence[str], *, tree: bool = True) -> dict[str, str]:
        """The project's fingerprint now (tools.git.fingerprint); `tree=False`: the repository's part alone."""
        ...

    def describe(self, ignore: Sequence[str], paths: Sequence[str]) -> dict[str, str | None]:
        """The fingerprint's description of each of these work-tree paths now (None: nothing there)."""
        ...

    def keep(self, paths: list[str]) -> dict[str, str]:
        """Store the current content of `paths` (project-relative files) for a later restore; path -> copy id."""
        ...

    def restore(self, info: GitSessionInfo, changes: list[Change], copies: dict[str, str]) -> list[str]:
        """Put each change back to its `before`; returns one line per change that could not be put back."""
        ...

    def committed_content(self, commit: str, paths: list[str]) -> dict[str, str]:
        """The content id each path has in `commit` (content_id's scheme)."""
        ...

    def undo_commit(self, commit: str) -> bool:
        """Move HEAD back to the commit's parent if HEAD is still that commit."""
        ...


class UnexpectedChanges(PayloadMismatch):
    """The project changed in a way the session did not grant (its code stays the contract's payload_mismatch)."""


def is_tree_key(key: str) -> bool:
    return not (key.startswith((KEY_REF, KEY_FLAG)) or key == KEY_HEAD)


def grantable(key: str) -> bool:
    """A work-tree file the write rules may grant (not a setting of git, code-intel or a client)."""
    return is_tree_key(key) and not key.startswith(PROTECTED_PREFIXES) and not key.startswith("/") \
        and not key.startswith("../")


@dataclass
class OutcomeRecord:
    session_id: str
    ignore: list[str]  # the cache patterns, as they were at session start
    expected: dict[str, str]
    grants: dict[str, list[str]] = field(default_factory=dict)  # path -> content ids the session granted
    copies: dict[str, str] = field(default_factory=dict)  # path -> stored copy of its last granted content
    # a step of the server's own under way ("tree": it may change work-tree files, "git": refs only); a restart that
    # finds it set takes what that step changed in before judging (the crash came before the step was settled)
    pending: str | None = None
    outputs: list[str] = field(default_factory=list)  # what the project's checks may write (outcome_check.outputs)

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "session_id": self.session_id, "ignore": self.ignore, "outputs": self.outputs,
                "expected": self.expected,
                "grants": self.grants, "copies": self.copies, "pending": self.pending}

    def granted(self, path: str, description: str | None) -> bool:
        return description is not None and content_id(description) in self.grants.get(path, [])


def record_file(sessions_dir: Path, session_id: str) -> Path:
    return sessions_dir / f"{session_id}{OUTCOME_SUFFIX}"


def save(sessions_dir: Path, root: Path, record: OutcomeRecord) -> None:
    text = json.dumps(seal.seal(record.to_json(), root), ensure_ascii=False, separators=(",", ":"))
    write_atomic(record_file(sessions_dir, record.session_id), text.encode("utf-8", "surrogatepass"))


def load(sessions_dir: Path, root: Path, session_id: str) -> OutcomeRecord:
    """The session's record; CheckpointCorrupt when it is missing, unreadable or its seal fails (void)."""
    file = record_file(sessions_dir, session_id)
    hint = (f"the session's record of what it granted ({STATE_DIR}/sessions/{file.name}) cannot be trusted, so the "
            "session stops here: call cleanup_stale_branches (nothing is committed or merged), check the work tree "
            "yourself, then start_session again")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise CheckpointCorrupt(f"the outcome record of session {session_id} is missing or unreadable", hint=hint) from None
    if not seal.verified(data, root):
        raise CheckpointCorrupt(f"the outcome record of session {session_id} fails its seal: it was changed outside "
                                "the server, so it is void", hint=hint)
    return OutcomeRecord(session_id=session_id, ignore=[str(p) for p in data.get("ignore", [])],
                         outputs=[str(p) for p in data.get("outputs", [])],
                         expected=dict(data.get("expected", {})), grants=dict(data.get("grants", {})),
                         copies=dict(data.get("copies", {})),
                         pending=data.get("pending") if data.get("pending") in ("tree", "git") else None)


@dataclass
class Verdict:
    absorbed: list[Change]
    refused: list[Change]


def judge(record: OutcomeRecord, changes: Iterable[Change], *, writable: bool, permitted: set[str], relaxed: bool,
          user_grants: dict[str, set[str]]) -> Verdict:
    """Split `changes` into those the session granted and the rest. `writable`: the session is in READY."""
    absorbed: list[Change] = []
    refused: list[Change] = []
    for change in changes:
        after_id = content_id(change.after)
        if after_id in user_grants.get(change.key, set()):
            absorbed.append(change)
        elif writable and grantable(change.key) and (relaxed or change.key in permitted):
            absorbed.append(change)
        else:
            refused.append(change)
    return Verdict(absorbed, refused)


def absorb(record: OutcomeRecord, changes: list[Change]) -> list[str]:
    """Take granted changes into `expected`, recording each file's granted content; returns the files whose
    content should be kept for a later restore."""
    to_keep = []
    for change in changes:
        if change.after is None:
            record.expected.pop(change.key, None)
        else:
            record.expected[change.key] = change.after
        if is_tree_key(change.key):
            ids = record.grants.setdefault(change.key, [])
            cid = content_id(change.after)
            if cid not in ids:
                ids.append(cid)
            if change.after is not None and change.after.startswith("file "):
                to_keep.append(change.key)
    return to_keep


def refusal(changes: list[Change], phase_label: str, restorable: list[str], problems: list[str] | None = None,
            base: str | None = None) -> UnexpectedChanges:
    listed = [{"path": c.key, "change": c.what()} for c in changes[:MAX_LISTED]]
    names = "; ".join(f"{c['path']}: {c['change']}" for c in listed[:10])
    more = f" and {len(changes) - 10} more" if len(changes) > 10 else ""
    if phase_label.startswith("READY"):
        when = "in READY only files the write rules allowed may change"
    else:
        when = f"nothing may change in {phase_label.split(' ')[0]}"
    extra = ""
    if base and any(c.key == f"{KEY_REF}refs/heads/{base}" for c in changes):
        extra = (f". The base branch {base} moved under the session, so MERGE would land on a commit the session never "
                 f"saw: if the agent moved it, restore puts it back (the other commit stays in the reflog); if the user "
                 f"committed there, they merge the task branch by hand or start a new session from {base}")
    if problems:
        extra += ". Not put back: " + "; ".join(problems[:10])
    return UnexpectedChanges(
        f"the project changed in ways this session did not grant ({when}): {names}{more}{extra}",
        hint=("nothing was accepted. Send the same submit again with \"restore\": [the paths] beside your payload to have "
              "the server put them back as they were (your pre-session work is kept), or undo them yourself; if the "
              "user wants a change kept, they run `code-intel allow PATH` in their terminal, then you submit again. In "
              "READY, call check_write_target before writing a file"),
        unexpected_changes=listed, restorable=restorable,
    )


RESTORE_ALL = "*"
META_COPY_MAX_BYTES = 1_000_000  # the repository's settings and scripts are copied at start up to this size each


class OutcomeGuard:
    """The outcome check of one session: its record, the port that takes fingerprints, and where it is saved."""

    def __init__(self, port: OutcomePort, sessions_dir: Path, root: Path, record: OutcomeRecord) -> None:
        self.port, self.sessions_dir, self.root, self.record = port, sessions_dir, root, record

    @classmethod
    def start(cls, port: OutcomePort, sessions_dir: Path, root: Path, session_id: str,
              ignore: list[str], outputs: Sequence[str] = ()) -> OutcomeGuard:
        """The first fingerprint, taken at start_session; the repository's settings and scripts are copied so a
        change to them can be put back."""
        expected = port.take(ignore)
        record = OutcomeRecord(session_id=session_id, ignore=list(ignore), outputs=list(outputs), expected=expected)
        meta = [k for k in expected if is_tree_key(k) and k.startswith((".git/", "/"))
                and _size(root, k) <= META_COPY_MAX_BYTES]
        record.copies = port.keep(meta)
        guard = cls(port, sessions_dir, root, record)
        guard.save()
        return guard

    @classmethod
    def load(cls, port: OutcomePort, sessions_dir: Path, root: Path, session_id: str) -> OutcomeGuard:
        return cls(port, sessions_dir, root, load(sessions_dir, root, session_id))

    def save(self) -> None:
        save(self.sessions_dir, self.root, self.record)

    def check(self, state: Any, *, writable: bool, permitted: set[str], relaxed: bool, restore: list[str],
              user_grants: dict[str, set[str]]) -> None:
        """Refuse (UnexpectedChanges) any change not granted in this phase; take granted ones in. `restore` names
        refused changes to put back first."""
        record = self.record
        if record.pending is not None:  # a server step was interrupted: what it changed is its own
            self.recover()
        changes = diff(record.expected, self.port.take(record.ignore))
        if not changes:
            return
        verdict = judge(record, changes, writable=writable, permitted=permitted, relaxed=relaxed,
                        user_grants=user_grants)
        problems: list[str] = []
        if verdict.refused and restore:
            wanted = [c for c in verdict.refused if RESTORE_ALL in restore or c.key in restore]
            problems = self.port.restore(state.git, wanted, record.copies)
            changes = diff(record.expected, self.port.take(record.ignore))
            verdict = judge(record, changes, writable=writable, permitted=permitted, relaxed=relaxed,
                            user_grants=user_grants)
        if verdict.refused:
            raise refusal(verdict.refused, state.label, [c.key for c in verdict.refused], problems,
                          base=state.git.base_branch)
        if verdict.absorbed:
            to_keep = absorb(record, verdict.absorbed)
            if to_keep:
                record.copies.update(self.port.keep(to_keep))
            self.save()

    def server_step(self, *, tree: bool) -> None:
        """Say (in the saved record) that a step of the server's own begins; `settle` ends it."""
        self.record.pending = "tree" if tree else "git"
        self.save()

    def settle(self, *, paths: Sequence[str] = (), run: bool = False) -> list[Change]:
        """Take the server's own step in, and nothing else: git's refs, HEAD and index flags always; the work-tree
        `paths` the step changed (the files PRE_COMMIT discarded); after a run of the checks (`run`), the files
        `outcome_check.outputs` declares. Returns the work-tree changes left out: the next check judges them as any
        other change (a write racing the step, or a file the checks write that the project does not declare)."""
        record = self.record
        if run:
            now = self.port.take(record.ignore)
        else:  # the repository's part alone: no walk of the work tree
            now = {k: v for k, v in self.port.take(record.ignore, tree=False).items() if not is_tree_key(k)}
            now.update((k, v) for k, v in self.port.describe(record.ignore, list(paths)).items() if v is not None)
            listed = set(paths)
            now.update((k, v) for k, v in record.expected.items()
                       if is_tree_key(k) and k not in listed and k not in now)
        changes = diff(record.expected, now)
        outputs = CacheMatcher(record.outputs) if run and record.outputs else None
        taken, left = [], []
        for change in changes:
            key = change.key
            if not is_tree_key(key) or key in paths or (outputs is not None and grantable(key) and outputs.covers(key)):
                taken.append(change)
            else:
                left.append(change)
        if not taken and record.pending is None:
            return left
        record.pending = None
        for change in taken:
            if change.after is None:
                record.expected.pop(change.key, None)
            else:
                record.expected[change.key] = change.after
        self.save()
        return left

    def recover(self) -> None:
        """A server step was interrupted (the process died before `settle`): what it changed is taken in, git's state
        always and work-tree files when the step changes them (what no local tool can tell apart, docs/enforcement.md)."""
        record = self.record
        tree = record.pending == "tree"
        for change in diff(record.expected, self.port.take(record.ignore)):
            if tree or not is_tree_key(change.key):
                if change.after is None:
                    record.expected.pop(change.key, None)
                else:
                    record.expected[change.key] = change.after
        record.pending = None
        self.save()

    def check_commit(self, commit: str, files: list[str], skip: set[str]) -> None:
        """The commit gate by content: each committed file must hold a content the session granted. A file written
        while the server committed (a background process) is not: the commit is withdrawn and refused."""
        ids = self.port.committed_content(commit, [f for f in files if f not in skip])
        foreign = sorted(path for path, cid in ids.items() if cid not in self.record.grants.get(path, []))
        if not foreign:
            return
        withdrawn = self.port.undo_commit(commit)
        raise UnexpectedChanges(
            f"the commit would hold content of {', '.join(foreign[:10])} that the session never granted (written while "
            "the server was committing)" + ("; the commit was withdrawn" if withdrawn else
                                            f"; the task branch still holds commit {commit[:12]}: do not merge it"),
            hint="send PRE_COMMIT again: the next check names the change, and restore puts the granted content back",
            unexpected_changes=[{"path": f, "change": "committed content never granted"} for f in foreign[:MAX_LISTED]],
            restorable=[])

    def drop(self) -> None:
        record_file(self.sessions_dir, self.record.session_id).unlink(missing_ok=True)


def _size(root: Path, key: str) -> int:
    try:
        return (root / key).stat().st_size
    except OSError:
        return META_COPY_MAX_BYTES + 1

