"""Checkpoints: `.code-intel/sessions/{session_id}.json`, written atomically after each accepted submit.

Layout (the v1.13 memo): {"version", "orchestrator_state": {...}, "phase_payloads": {key: {"summary"}}}, where
orchestrator_state carries phase_state, flags, counters, compaction_count, branch_policy and tasks
(SessionState.to_checkpoint).
Writes go to a temp file in the same folder, are fsynced, then renamed over the old file, so a
crash leaves either the old or the new checkpoint, never half of one; a write that fails (disk
full, read-only folder) leaves the old file as it was and says so. Over the size limit, older
summaries are shortened (then dropped); if the state itself is still too large, its longest
texts and lists are cut (listed under "cut") until it fits: a checkpoint is never over the
limit, whatever the agent sent, and the submit never fails for size.
Temp files a killed process left behind are removed at start (lock.remove_stray_temp_files).
Beside each checkpoint may lie the session's write log (write_log.py) and ledger journal
(ledger.py): they are deleted with it.

A checkpoint also carries `status`: the phase, step, instruction and expected_payload the server
last answered, so the client hooks can tell the agent where it stands without the contract.
The hooks read checkpoints through `view` on every Edit/Write/Bash call: this module imports
pydantic and SessionState only inside `load` (and when a state must be cut), so that path stays on
the standard library.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from code_intel.core.errors import CheckpointCorrupt, validation_problems
from code_intel.core.fsutil import write_atomic
from code_intel.core.limits import encoded_size, fit_json
from code_intel.core.project import ProjectRoot
from code_intel.workflow import grants, seal, write_log

if TYPE_CHECKING:
    import logging

    from code_intel.workflow.state import SessionState


def _log() -> logging.Logger:
    """The module's logger, imported on first use: the client hooks read this module and never log."""
    import logging

    return logging.getLogger(__name__)


CHECKPOINT_VERSION = 1
OUTCOME_SUFFIX = ".outcome"
SEAL_BYTES = 80  # what the seal adds to a checkpoint: , "mac": "<64 hex digits>"  # the session's sealed outcome record (code_intel.workflow.outcome), deleted with it
MAX_CHECKPOINT_BYTES = 256 * 1024
_SHORTEN_TO = (400, 120, 0)  # successive summary lengths tried for old summaries; 0 drops them
_ROOM_FOR_NOTES = 4096  # bytes kept free for the list of what was cut
# never cut: what the session's control flow and resume depend on
_PROTECTED = frozenset({"version", "session_id", "intent", "phase", "ready_substep", "phase_state", "flags", "counters",
                        "compaction_count", "branch_policy", "completed_steps", "window", "started_at", "updated_at"})
_CORE_FIELDS = {"session_id", "intent", "flags", "phase", "ready_substep", "counters", "compaction_count", "git",
                "completed_steps", "window", "started_at", "updated_at"}


class CheckpointNotSaved(OSError):
    """Writing the checkpoint failed; the previous checkpoint file is untouched."""


def _cleanup_hint(file: str) -> str:
    return (f"delete {file} (or call cleanup_stale_branches, which deletes every checkpoint and resets the "
            "session), then call start_session again")


class CheckpointView(NamedTuple):
    """The part of a checkpoint the client hooks act on, read as plain JSON (no validation of the rest)."""

    file: Path
    session_id: str
    phase: str
    explored_files: tuple[str, ...]
    relaxed: bool  # --fast / --quick: exploration was skipped, so any project file may be written in READY
    compaction_count: int
    status: dict[str, Any]  # the server's last answer (see save); {} in an older checkpoint

    @property
    def step(self) -> int | None:
        step = self.status.get("step")
        return step if isinstance(step, int) and not isinstance(step, bool) else None


class CheckpointStore:
    def __init__(self, root: ProjectRoot, max_bytes: int = MAX_CHECKPOINT_BYTES) -> None:
        self.root = root
        self.max_bytes = max_bytes

    @property
    def _limit(self) -> int:
        """The size the document may take before its seal is added."""
        return self.max_bytes - SEAL_BYTES

    @property
    def folder(self) -> Path:
        return self.root.runtime_dir("sessions")

    def path_for(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.json"

    def files(self) -> list[Path]:
        """Checkpoint files, newest first."""
        files = [p for p in self.folder.glob("*.json") if p.is_file()]
        return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)

    def any_file(self) -> bool:
        """Whether a checkpoint exists, cheaply (no folder created, no sorting): asked on every tool call
        made outside a session."""
        try:
            with os.scandir(self.root.state_dir / "sessions") as entries:
                return any(entry.name.endswith(".json") and not entry.name.startswith(".") for entry in entries)
        except OSError:
            return False

    def active_file(self, lock_owner: dict[str, Any] | None) -> Path | None:
        """The lock owner's checkpoint when there is one, else the newest checkpoint, else None."""
        session_id = lock_owner.get("session_id") if lock_owner else None
        if isinstance(session_id, str) and session_id:
            named = self.path_for(session_id)
            if named.is_file():
                return named
        files = self.files()
        return files[0] if files else None

    # writing ----------------------------------------------------------------
    def save(self, state: SessionState, phase_payloads: dict[str, dict[str, str]],
             status: dict[str, Any] | None = None) -> int:
        """Write the checkpoint; returns its size in bytes, never more than max_bytes.

        `status` is the phase response the agent was last given (phase, step, instruction, ...).
        Raises CheckpointNotSaved (an OSError) when the file cannot be written; the old one stays."""
        document: dict[str, Any] = {"version": CHECKPOINT_VERSION, "orchestrator_state": state.to_checkpoint(),
                                    "phase_payloads": phase_payloads}
        if status:
            document["status"] = status
        text = json.dumps(document, ensure_ascii=False)
        if len(text.encode("utf-8", errors="surrogatepass")) > self._limit:
            text = self._compressed(document)
        if len(text.encode("utf-8", errors="surrogatepass")) > self._limit:
            text = self._cut_to_fit(json.loads(text), state)
        text = json.dumps(seal.seal(json.loads(text), self.root.path), ensure_ascii=False)
        target = self.path_for(state.session_id)
        try:
            return write_atomic(target, text.encode("utf-8", errors="surrogatepass"), fsync=True)
        except OSError as err:
            previous = "the previous checkpoint is unchanged" if target.exists() else "there was no previous checkpoint"
            raise CheckpointNotSaved(
                err.errno, f"checkpoint {self.root.relative(target)} not written ({err.strerror or err}); {previous}, "
                "so a restart resumes from the last step that was saved", str(target)) from err

    def _cut_to_fit(self, document: dict[str, Any], state: SessionState) -> str:
        """The state's longest texts and lists cut until the document fits; what was cut is listed.

        When the cut state would no longer load (a required member went), only the control state is
        kept: session, intent, phase, counters, git facts and the first part of the request."""
        from pydantic import ValidationError

        from code_intel.workflow.state import SessionState

        budget = self._limit - _ROOM_FOR_NOTES
        core = state.model_dump(mode="json", include=_CORE_FIELDS)
        core["query"] = state.query[:2000]
        core.update(state.memo_fields())
        core_document = {"version": CHECKPOINT_VERSION, "orchestrator_state": core, "phase_payloads": {}}
        if encoded_size(core_document) > budget:
            _log().warning("checkpoint of %s: even its control state is over %d bytes", state.session_id, self.max_bytes)
            cut, notes = core_document, ["the state was reduced to its control fields"]
        else:
            cut, notes = fit_json(document, budget, protected=_PROTECTED)
            try:
                SessionState.model_validate(cut.get("orchestrator_state"))
            except (ValidationError, AttributeError):
                cut, more = fit_json(core_document, budget, protected=_PROTECTED)
                notes = [*notes[:10], "the state was reduced to its control fields", *more]
        cut["cut"] = [note[:200] for note in notes[:15]] + ([f"... {len(notes) - 15} more"] if len(notes) > 15 else [])
        _log().warning("checkpoint of %s cut to fit %d bytes: %s", state.session_id, self.max_bytes, "; ".join(notes[:5]))
        return json.dumps(cut, ensure_ascii=False)

    def _compressed(self, document: dict[str, Any]) -> str:
        """Shorten the oldest summaries first (the newest is kept longest) until the document fits."""
        payloads: dict[str, dict[str, str]] = {k: dict(v) for k, v in document["phase_payloads"].items()}
        keys = list(payloads)
        text = json.dumps(document, ensure_ascii=False)
        for limit in _SHORTEN_TO:
            for key in keys:  # oldest first
                summary = payloads[key].get("summary", "")
                if limit == 0:
                    payloads[key] = {"summary": "(dropped to keep the checkpoint small)"}
                elif len(summary) > limit:
                    payloads[key] = {"summary": summary[: limit - 3] + "..."}
                text = json.dumps({**document, "phase_payloads": payloads}, ensure_ascii=False)
                if len(text.encode("utf-8")) <= self._limit:
                    return text
        _log().warning("checkpoint still %d bytes after dropping summaries (limit %d)", len(text), self.max_bytes)
        return text

    # reading ----------------------------------------------------------------
    def read_document(self, file: Path) -> dict[str, Any]:
        """The checkpoint's JSON with an `orchestrator_state` object, or checkpoint_corrupt."""
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CheckpointCorrupt(f"checkpoint {self.root.relative(file)} cannot be read: {err}",
                                    hint=_cleanup_hint(self.root.relative(file))) from None
        if not isinstance(document, dict) or not isinstance(document.get("orchestrator_state"), dict):
            raise CheckpointCorrupt(f"checkpoint {self.root.relative(file)} has no orchestrator_state",
                                    hint=_cleanup_hint(self.root.relative(file)))
        if not seal.verified(document, self.root.path):
            raise CheckpointCorrupt(
                f"checkpoint {self.root.relative(file)} fails its seal: it was changed outside the server (or written "
                "by another machine's code-intel), so it is void and grants nothing",
                hint=_cleanup_hint(self.root.relative(file)))
        return document

    def view(self, file: Path) -> CheckpointView:
        """The hooks' reading of a checkpoint; checkpoint_corrupt when a field they need is missing or mistyped."""
        document = self.read_document(file)
        state = document["orchestrator_state"]
        flags = state.get("flags") if isinstance(state.get("flags"), dict) else {}
        explored = state.get("explored_files", [])
        status = document.get("status")
        count = state.get("compaction_count", 0)
        problems = [name for name, ok in (
            ("session_id", isinstance(state.get("session_id"), str) and bool(state.get("session_id"))),
            ("phase", isinstance(state.get("phase"), str) and bool(state.get("phase"))),
            ("explored_files", isinstance(explored, list) and all(isinstance(f, str) for f in explored)),
            ("compaction_count", isinstance(count, int)),
        ) if not ok]
        if problems:
            raise CheckpointCorrupt(f"checkpoint {self.root.relative(file)} is invalid at '{problems[0]}'",
                                    hint=_cleanup_hint(self.root.relative(file)))
        return CheckpointView(file=file, session_id=state["session_id"], phase=state["phase"],
                              explored_files=tuple(explored), relaxed=bool(flags.get("fast") or flags.get("quick")),
                              compaction_count=count, status=status if isinstance(status, dict) else {})

    def load(self, file: Path) -> tuple[SessionState, dict[str, dict[str, str]]]:
        """The state and summaries in a checkpoint, or checkpoint_corrupt saying how to clean up."""
        from pydantic import ValidationError

        from code_intel.workflow.state import SessionState

        document = self.read_document(file)
        try:
            state = SessionState.model_validate(document["orchestrator_state"])
        except ValidationError as err:
            raise CheckpointCorrupt(
                f"checkpoint {self.root.relative(file)} is invalid: {validation_problems(err)[0]}",
                hint=_cleanup_hint(self.root.relative(file)),
            ) from None
        raw = document.get("phase_payloads") or {}
        payloads = {str(k): {"summary": str(v.get("summary", ""))} for k, v in raw.items() if isinstance(v, dict)} \
            if isinstance(raw, dict) else {}
        return state, payloads

    def delete(self, session_id: str) -> None:
        """The session's checkpoint, and its write and read logs (the commit gate has read them by then), the
        user's grants and the ledger journal with it. A folder that cannot be written only leaves them behind."""
        from code_intel.workflow.ledger import journal_file

        try:
            self.path_for(session_id).unlink(missing_ok=True)
            write_log.remove(self.folder, session_id)
            grants.remove(self.folder, session_id)
            journal_file(self.folder, session_id).unlink(missing_ok=True)
            (self.folder / f"{session_id}{OUTCOME_SUFFIX}").unlink(missing_ok=True)
        except OSError as err:
            _log().warning("could not delete the checkpoint of %s: %s", session_id, err)

    def delete_all(self) -> list[str]:
        """Every checkpoint (reported), write and read log and ledger journal (not reported: they belong to those
        sessions)."""
        from code_intel.workflow.ledger import CALLS_SUFFIX

        removed = []
        for file in self.files():
            try:
                file.unlink(missing_ok=True)
            except OSError as err:
                raise self.root.unwritable(file.parent, err, "cleanup_stale_branches") from None
            removed.append(self.root.relative(file))
        for suffix in (write_log.LOG_SUFFIX, write_log.READS_SUFFIX, CALLS_SUFFIX, OUTCOME_SUFFIX):
            for file in self.folder.glob(f"*{suffix}"):
                file.unlink(missing_ok=True)
        return removed

    def remove_orphan_journals(self, keep: set[str]) -> list[str]:
        """Ledger journals and read logs of sessions that have no checkpoint in `keep` (a checkpoint deleted by
        hand): nothing would ever read them. Run before a new session starts."""
        from code_intel.workflow.ledger import CALLS_SUFFIX

        removed = []
        for suffix in (CALLS_SUFFIX, write_log.READS_SUFFIX, OUTCOME_SUFFIX):
            for file in self.folder.glob(f"*{suffix}"):
                if file.name[: -len(suffix)] in keep:
                    continue
                try:
                    file.unlink(missing_ok=True)
                except OSError as err:
                    _log().debug("cannot remove %s: %s", file, err)
                    continue
                removed.append(file.name)
        return removed
