"""WorkflowEngine: the server-enforced session, one per project.

It owns the live session (state, summaries and tool-call ledger, one `LiveSession`), the
checkpoint and the project lock, and turns each submit_phase into a validated transition: payload
model -> tool evidence -> phase handler -> checkpoint -> response. Every state change happens under
one re-entrant lock (tools run on worker threads), on a draft copy that replaces the state only
when it is accepted (`_commit`: swap in, then checkpoint), so a refusal never moves the phase.

Decisions (see docs/workflow.md):
- compaction_count is taken out of `data` before validation; a mismatch returns every stored
  summary once as phase_summaries and adopts the client's value, even when the submit is refused.
- what a refused submit's handler observed (PhaseContext.observe: POST_IMPL_VERIFY's run of the checks) is kept,
  so a pass refused for a failing test still leaves that test known to have failed.
- start_session over an existing session answers recovery_available (success true) with the
  interrupted session's phase and step and two choices: resume or discard.
- get_session_status, submit_phase and check_write_target restore the newest checkpoint when no session is in memory,
  with the tool calls its ledger journal holds since the last accepted submit (ledger.py).
"""

from __future__ import annotations

import contextlib
import logging
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from code_intel.core.config import Config, ContextSettings
from code_intel.core.errors import (
    CodeIntelError,
    InvalidArgument,
    InvalidFlag,
    NoActiveSession,
    PayloadMismatch,
    SessionActive,
    TaskValidationFailed,
)
from code_intel.core.limits import (
    MAX_EXPLORED_FILES,
    MAX_LIST_ITEMS,
    MAX_QUERY_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TEXT_CHARS,
    bound_value,
    cut_text,
)
from code_intel.core.outcome_types import Change
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import CommitReport, Phase
from code_intel.explore.write_rules import evaluate_write
from code_intel.learning.decisions import DecisionLog
from code_intel.learning.history import SessionHistory
from code_intel.verify.models import not_configured_view
from code_intel.workflow import grants, write_log
from code_intel.workflow.checkpoint import CheckpointStore
from code_intel.workflow.contract import ContractSource, PhaseContract
from code_intel.workflow.flags import SessionFlags, parse_flags
from code_intel.workflow.handlers import (
    SELF_REPORTED,
    PhaseContext,
    Transition,
    checks_at_ready,
    record_run,
    refuse_unread,
    session_checks,
)
from code_intel.workflow.ledger import LedgerJournal, ToolLedger, normalise_tool_name
from code_intel.workflow.lock import ProjectLock
from code_intel.workflow.matrix import INTENTS, enabled_phases, is_investigation, next_phase
from code_intel.workflow.outcome import OutcomeGuard, OutcomePort, UnexpectedChanges
from code_intel.workflow.payloads import PhasePayload, ReadyImplementationPayload, validate_payload
from code_intel.workflow.phases import BY_ID, PhaseSpec
from code_intel.workflow.ports import CheckPort, CheckProgress, GitPort
from code_intel.workflow.responses import no_session_fields, phase_response, refusal_fields
from code_intel.workflow.state import SessionState, new_session_id, now
from code_intel.workflow.tool_evidence import check_tool_evidence

RUN_CHECKS_PHASES = (Phase.VERIFICATION, Phase.POST_IMPL_VERIFY)
HISTORY_TEXT_CHARS = 2_000  # a text of a payload, as the session history keeps it
HISTORY_LIST_ITEMS = 100
# phases whose handler changes work-tree files itself (branch switches, the run of the checks, discards, the merge)
TREE_CHANGING_PHASES = frozenset({Phase.BRANCH_INTERVENTION, Phase.POST_IMPL_VERIFY, Phase.PRE_COMMIT, Phase.MERGE})
# phases whose handler changes the repository (the task branch at READY planning, commits, merges): the outcome
# check marks the step before it and takes the server's changes in after it; other submits take one fingerprint
SERVER_STEP_PHASES = TREE_CHANGING_PHASES | {Phase.READY}
# phases that work on the task branch: a resumed session in one of them needs it checked out
TASK_BRANCH_PHASES = frozenset({Phase.READY, Phase.POST_IMPL_VERIFY, Phase.VERIFY_INTERVENTION, Phase.PRE_COMMIT,
                                Phase.QUALITY_REVIEW})

log = logging.getLogger(__name__)


@dataclass
class LiveSession:
    """The session in progress, as one object: installed, replaced and dropped whole (never field by
    field), so nothing of an old session outlives it. The agents' write log joins it here."""

    state: SessionState
    summaries: dict[str, dict[str, str]] = field(default_factory=dict)  # step_NN_<VARIANT> -> {summary}
    ledger: ToolLedger = field(default_factory=ToolLedger)
    repaired: list[str] = field(default_factory=list)  # what resuming fixed in the repository, told once
    guard: OutcomeGuard | None = None  # the outcome check of this session (None: the engine runs without one)

    @classmethod
    def of(cls, state: SessionState, summaries: dict[str, dict[str, str]], journal: LedgerJournal | None = None
           ) -> LiveSession:
        return cls(state, dict(summaries), ToolLedger(state.tool_counts, journal, seq=state.ledger_seq))

    def flat_summaries(self) -> dict[str, str]:
        return {key: value.get("summary", "") for key, value in self.summaries.items()}


def _left_out(changes: list[Change]) -> str:
    """The warning for files that changed while the server ran its step and are not the step's own."""
    names = ", ".join(c.key for c in changes[:10]) + (f" and {len(changes) - 10} more" if len(changes) > 10 else "")
    return (f"changed while the server ran its own step, and not that step's: {names}. The next submit refuses them "
            "(send it with \"restore\": [the paths] to put them back); if the project's checks write such files, the "
            "user declares them in config.json outcome_check.outputs for later sessions")


def _json_ready(extras: dict[str, Any]) -> dict[str, Any]:
    """Handler extras as plain JSON values (git reports are models; unset report fields are left out)."""
    return {k: v.model_dump(mode="json", exclude_none=True) if isinstance(v, BaseModel) else v for k, v in extras.items()}


class WorkflowEngine:
    def __init__(
        self,
        root: ProjectRoot,
        git: GitPort,
        context: Callable[[], ContextSettings],
        config: Callable[[], Config],
        checks: CheckPort | None = None,
        reporter: Callable[[str], str | None] | None = None,
        outcome: OutcomePort | None = None,
    ) -> None:
        self.root = root
        self.reporter = reporter  # writes a finished session's report page; returns its path (tools/report/)
        self.git = git
        self.checks = checks
        self.outcome = outcome  # None: no outcome checks (test stand-ins of git)
        self._context = context
        self._config = config
        self._lock = threading.RLock()
        self.contracts = ContractSource(root)
        self.checkpoints = CheckpointStore(root)
        self.project_lock = ProjectLock(root)
        self.decisions = DecisionLog(root)
        self.history = SessionHistory(root)
        self._live: LiveSession | None = None
        # the ledger of a session waiting in its checkpoint for a restore: (checkpoint file, mtime, size), state, ledger
        self._waiting: tuple[tuple[str, int, int], SessionState, ToolLedger] | None = None
        self._last_completed: dict[str, Any] = {}
        self._noted: tuple[str, set[str]] | None = None  # the session's files its read log names (for _note_shown)

    @property
    def live(self) -> LiveSession | None:
        """The session in memory, if any (read-only view for status and tests)."""
        return self._live

    # ------------------------------------------------------------- session start
    def start_session(self, intent: str, query: str, flags: list[str], repo_path: str | None) -> dict[str, Any]:
        with self._lock:
            parsed, query, query_cut = self._start_arguments(intent, query, flags, repo_path)
            contracts = self.contracts.get()  # a malformed phase_contract.yml is refused before anything starts
            if self._live is not None:
                return self._recovery_response(self._live.state)
            other = self.project_lock.held_by_other()
            if other is not None:
                raise SessionActive(
                    f"session {other.get('session_id')} is active in another code-intel process (pid {other.get('pid')})",
                    hint="finish that session first, or stop that process and call cleanup_stale_branches",
                )
            existing = self.checkpoints.files()
            if existing:
                state, _ = self.checkpoints.load(existing[0])  # corrupt -> checkpoint_corrupt with cleanup steps
                return self._recovery_response(state)
            if not self._context().doc_research.enabled:
                parsed.no_doc = True  # context.yml switched document research off for this project
            session_id = new_session_id()
            self.project_lock.acquire(session_id)
            try:
                self._prune_interrupted_starts()
                info = self.git.begin_session(session_id)
                guard = self._start_guard(session_id)
            except BaseException:
                self.project_lock.release()
                raise
            first = Phase.BRANCH_INTERVENTION if info.stale_branches else next_phase(None, intent, parsed, {})
            state = SessionState(session_id=session_id, intent=intent, query=query, flags=parsed, phase=first,
                                 ready_substep="planning" if first is Phase.READY else None, git=info)
            self._live = LiveSession.of(state, {}, self._journal(session_id))
            self._live.guard = guard
            self._save()
            self.history.append(session_id, "start", intent=intent, query=query, flags=parsed.typed(),
                                phase=state.phase.value, step=state.step,
                                git=info.model_dump(mode="json", exclude_none=True, exclude_defaults=True))
            log.info("session %s started (%s, flags %s) at %s", session_id, intent, parsed.typed(), state.phase)
            return self._start_answer(state, contracts[state.contract_id], query_cut)

    def _start_arguments(self, intent: str, query: str, flags: list[str],
                         repo_path: str | None) -> tuple[SessionFlags, str, str | None]:
        """start_session's arguments checked: the parsed flags, the query (cut to MAX_QUERY_CHARS) and what was cut."""
        parsed = parse_flags(flags)
        if intent not in INTENTS:
            raise InvalidArgument(f"intent {intent!r} is not one of {sorted(INTENTS)}",
                                  hint="IMPLEMENT or MODIFY to change code, INVESTIGATE or QUESTION to explore only")
        if is_investigation(intent, parsed) and (parsed.fast or parsed.quick or parsed.only_verify):
            raise InvalidFlag(f"{intent} sessions explore only; --fast, --quick and --only-verify apply to implementation",
                              hint="drop the flag, or start an IMPLEMENT/MODIFY session")
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgument("query is empty", hint="send the user's request verbatim")
        query, query_cut = cut_text(query, MAX_QUERY_CHARS)
        self._check_repo_path(repo_path)
        return parsed, query, query_cut

    def _start_answer(self, state: SessionState, contract: PhaseContract, query_cut: str | None) -> dict[str, Any]:
        """The first phase's response, with the project rules (the rules file counts as shown) and the git notes."""
        response = phase_response(self.root, state, contract)
        rules = self._project_rules()
        if rules.get("source") and rules.get("content"):  # the answer shows the rules file
            self._note_shown(state, "start_session", [rules["source"]])
        response.update(project_rules=rules, flags=state.flags.typed(), intent=state.intent)
        if state.git.note:
            response["git_note"] = state.git.note
        if state.git.stale_branches:
            response["stale_branches"] = list(state.git.stale_branches)
        if query_cut:
            response["cut"] = [f"query: {query_cut}; the rest is not kept"]
        return response

    def _prune_interrupted_starts(self) -> None:
        """Snapshots left by a start that died before its first checkpoint (no checkpoint names them)."""
        keep = {file.stem for file in self.checkpoints.files()}
        self.checkpoints.remove_orphan_journals(keep)
        try:
            dropped = self.git.prune_snapshots(keep)
        except CodeIntelError as err:
            log.warning("could not prune snapshots of interrupted starts: %s", err.message)
            return
        if dropped:
            log.info("dropped snapshots of interrupted starts: %s", ", ".join(dropped))

    def _journal(self, session_id: str) -> LedgerJournal:
        """The session's ledger journal; a new session's starts empty (see tools/workflow/ledger.py)."""
        return LedgerJournal(self.checkpoints.folder, session_id)

    def _check_repo_path(self, repo_path: str | None) -> None:
        if repo_path is None or not str(repo_path).strip():
            return
        resolved = self.root.resolve(repo_path, kind="repo_path")
        if resolved != self.root.path:
            raise InvalidArgument(
                f"repo_path {repo_path!r} is not the project root {str(self.root.path)!r}",
                hint="omit repo_path, or send the project root this server was started for",
            )

    def _project_rules(self) -> dict[str, Any]:
        from code_intel.context.rules import load_project_rules

        try:
            return load_project_rules(self.root, self._context())
        except CodeIntelError as err:  # bad rules must not stop the session: say what is wrong
            return {"source": None, "note": f"project rules unavailable: {err.message}"}

    def _recovery_response(self, state: SessionState) -> dict[str, Any]:
        return {
            "success": True,
            "recovery_available": True,
            "session_id": state.session_id,
            "phase": state.phase.value,
            "step": state.step,
            "intent": state.intent,
            "query": state.query,
            "compaction_count": state.compaction_count,
            "instruction": (
                f"An interrupted session ({state.session_id}, {state.intent}: {state.query[:120]!r}) stopped at "
                f"{state.label}. Ask the user whether to resume it or discard it, then do what they chose."
            ),
            "choices": {
                "resume": "call get_session_status, then follow its instruction",
                "discard": "call cleanup_stale_branches (deletes task branches and checkpoints), then start_session again",
            },
            "call": "get_session_status",
            "expected_payload": {},  # get_session_status takes no arguments
        }

    # ------------------------------------------------------------ state lifecycle
    def _save(self, response: dict[str, Any] | None = None) -> str | None:
        """Write the checkpoint; a failure is logged and reported as a warning, never as a failed submit.
        `response`: the phase response already built for the live state, if the caller has one."""
        live = self._live
        assert live is not None
        live.state.tool_counts = live.ledger.counts
        live.state.ledger_seq = live.ledger.seq
        try:
            self.checkpoints.save(live.state, live.summaries, self._status_for_hooks(live.state, response))
        except OSError as err:
            log.exception("checkpoint write failed")
            return f"checkpoint not written ({err}); recovery after a restart may lose this step"
        return None

    def _status_for_hooks(self, state: SessionState, response: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """What the agent was last told (phase, step, instruction, expected_payload), kept in the checkpoint
        for the SessionStart hook, which must answer without loading the contract."""
        if response is None:
            try:
                response = phase_response(self.root, state, self._contract(state))
            except CodeIntelError:  # a broken phase_contract.yml: the hook falls back to the phase name
                return None
        return {key: response[key] for key in ("phase", "step", "instruction", "expected_payload", "call")}

    def _commit(self, draft: SessionState, response: dict[str, Any] | None = None) -> str | None:
        """The one way a changed state is accepted: swap the draft in, then write the checkpoint.
        Returns the checkpoint warning, if any. `response`: the draft's phase response, if already built."""
        assert self._live is not None
        draft.updated_at = now()
        self._live.state = draft
        return self._save(response)

    def _reset(self) -> None:
        """Forget the live session (its checkpoint and lock are the caller's business)."""
        self._live = None
        self._waiting = None

    def _restore(self) -> LiveSession:
        """The session in memory, else the newest checkpoint's (taking the project lock)."""
        if self._live is not None:
            return self._live
        files = self.checkpoints.files()
        if not files:
            hint = "call start_session to begin"
            if self._last_completed:
                hint = f"session {self._last_completed.get('session_id')} is complete; " + hint + " a new one"
            raise NoActiveSession("there is no active session", hint=hint)
        other = self.project_lock.held_by_other()
        if other is not None:
            raise SessionActive(f"session {other.get('session_id')} is held by another code-intel process "
                                f"(pid {other.get('pid')})", hint="use that process's client, or stop it first")
        state, summaries = self.checkpoints.load(files[0])
        guard = self._load_guard(state.session_id)  # a record that fails its seal stops here: void
        self.project_lock.acquire(state.session_id)
        self._waiting = None  # its calls are in the journal, read back below
        state, repaired = self._reconcile(state)
        self._live = LiveSession.of(state, summaries, self._journal(state.session_id))
        self._live.repaired = repaired
        self._live.guard = guard
        calls = self._live.ledger.restore(window=state.window, counted=state.ledger_seq)
        if repaired:
            self._save()
        self.history.append(state.session_id, "resumed", phase=state.phase.value, step=state.step, repaired=repaired)
        log.info("session %s restored from its checkpoint at %s with %d tool calls since its last accepted submit%s",
                 state.session_id, state.phase, calls, f" (repaired: {'; '.join(repaired)})" if repaired else "")
        return self._live

    def _reconcile(self, state: SessionState) -> tuple[SessionState, list[str]]:
        """After a restart, the repository is brought back in line with the checkpoint: a crash may have
        come between a git step and the checkpoint that records it (every git step is safe to repeat,
        so the next submit finishes it; this repairs what a half-done --clean left)."""
        on_task_branch = state.phase in TASK_BRANCH_PHASES and bool(state.git.task_branch)
        try:
            info, repaired = self.git.reconcile(state.session_id, state.git, on_task_branch)
        except CodeIntelError as err:
            log.warning("session %s: repository not checked against the checkpoint: %s", state.session_id, err.message)
            return state, [f"the repository could not be checked against the checkpoint: {err.message}"]
        if info != state.git:
            state = state.model_copy(update={"git": info})
        return state, repaired

    def _finish(self, state: SessionState) -> None:
        self._last_completed = self._outcome_fields(state)
        self.history.append(state.session_id, "end", **self._end_fields(state))
        try:  # sessions that end without MERGE (--quick, investigations) still hold a snapshot ref
            self.git.end_session(state.git)
        except CodeIntelError as err:
            log.warning("session %s: could not drop its git snapshot: %s", state.session_id, err)
        self.checkpoints.delete(state.session_id)
        self.project_lock.release()
        self._reset()
        log.info("session %s complete", state.session_id)

    def _end_fields(self, state: SessionState) -> dict[str, Any]:
        """What the history keeps of a session as it ends (its checkpoint is deleted next)."""
        return {"phase": state.phase.value, "step": state.step, "completed_steps": list(state.completed_steps),
                "counters": state.counters.model_dump(), "compaction_count": state.compaction_count,
                "tasks": [task.model_dump(mode="json") for task in state.board.tasks],
                "git": state.git.model_dump(mode="json", exclude_none=True, exclude_defaults=True),
                "explored_files": len(state.explored_files), "allowed_writes": list(state.allowed_writes),
                "pre_ready_changes": list(state.pre_ready_changes), "test_edits": list(state.test_edits),
                "unresolved_issues": list(state.unresolved_issues)}

    def _history_submit(self, state: SessionState, data: Any, started: float, *, draft: SessionState | None = None,
                        extras: dict[str, Any] | None = None, err: CodeIntelError | None = None) -> None:
        """One submit in the session history: what was sent, and what the server made of it."""
        sent = {k: v for k, v in data.items() if k != "compaction_count"} if isinstance(data, dict) else data
        sent, _ = bound_value(sent, max_text=HISTORY_TEXT_CHARS, max_items=HISTORY_LIST_ITEMS)
        event: dict[str, Any] = {"phase": state.phase.value, "step": state.step, "accepted": err is None,
                                 "payload": sent, "duration_ms": round((time.monotonic() - started) * 1000)}
        after = draft or state
        event.update(counters=after.counters.model_dump(), compaction_count=after.compaction_count)
        if err is not None:
            event.update(error=err.code, message=err.message, hint=err.hint or "")
            if err.details:  # the error's own facts: the server's run of the checks, the changes an outcome check saw
                event["details"] = _json_ready(dict(err.details))
        else:
            assert draft is not None
            event.update(next_phase=draft.phase.value, next_step=draft.step, extras=extras or {})
            if draft.board != state.board:
                event["tasks"] = [task.model_dump(mode="json") for task in draft.board.tasks]
        self.history.append(state.session_id, "submit", **event)

    def _report(self, session_id: str) -> dict[str, str]:
        """Where the finished session's report page is (written now when the engine has a reporter)."""
        answer = {"command": f"code-intel report {session_id}"}
        if self.reporter is not None:
            try:
                path = self.reporter(session_id)
            except Exception as err:  # noqa: BLE001 - the page is a convenience; the session is complete anyway
                log.warning("report of %s not written: %s", session_id, err)
                path = None
            if path:
                answer["path"] = path
        return answer

    def _contract(self, state: SessionState) -> PhaseContract:
        return self.contracts.phase(state.contract_id)

    # ---------------------------------------------------------------- submit
    def submit_phase(self, data: Any, progress: CheckProgress | None = None) -> dict[str, Any]:
        """Validate and apply one submit; `progress` receives notes while POST_IMPL_VERIFY runs the checks."""
        started = time.monotonic()
        with self._lock:
            live = self._restore()
            sent = _Submit.read(data)
            state, phase_summaries = self._adopt_compaction(live, live.state, sent.compaction_count)
            attempt = _Attempt()
            try:
                if sent.problem:
                    raise PayloadMismatch(sent.problem, hint="echo the compaction_count of the last response"
                                          if "compaction_count" in sent.problem else "send restore: [paths]")
                spec, model, draft, transition = self._apply(live, state, sent, progress, attempt)
            except CodeIntelError as err:
                self._refused(state, attempt, data, err, started)
                if phase_summaries is not None:
                    err.details["phase_summaries"] = phase_summaries
                if sent.cuts:
                    err.details["cut"] = sent.cuts
                raise
            self._settle(state, transition)
            response = self._accept(state, draft, spec.contract_id, model.summary, transition, data, phase_summaries,
                                    started)
            if sent.cuts:
                response["cut"] = [*response.get("cut", []), *sent.cuts]
            return response

    def _adopt_compaction(self, live: LiveSession, state: SessionState,
                          count: int | None) -> tuple[SessionState, dict[str, str] | None]:
        """A compaction_count the agent raised is adopted at once, even when the rest of the submit is refused;
        the answer then carries the phase summaries the agent lost."""
        if count is None or count == state.compaction_count:
            return state, None
        phase_summaries = live.flat_summaries()
        adopted = state.model_copy(update={"compaction_count": count})
        self._commit(adopted)
        self.history.append(state.session_id, "compaction", phase=state.phase.value, step=state.step,
                            **{"from": state.compaction_count, "to": count})
        return adopted, phase_summaries

    def _apply(self, live: LiveSession, state: SessionState, sent: _Submit, progress: CheckProgress | None,
               attempt: _Attempt) -> tuple[PhaseSpec, PhasePayload, SessionState, Transition]:
        """Check the submit against the phase (payload model, contract, tool evidence) and run its handler on a
        draft of the state; `attempt` records how far it got, for a refusal."""
        self._check_outcome(state, sent.restore)
        attempt.checked = True
        self._server_step(state)
        spec = BY_ID[self._variant(state, sent.payload)]
        assert spec.payload is not None and spec.handler is not None  # SESSION_COMPLETE is never current
        contract = self.contracts.phase(spec.contract_id)
        model = validate_payload(spec.payload, state.label, sent.payload)
        if isinstance(model, ReadyImplementationPayload) and model.writes_nothing():
            contract = contract.model_copy(update={"required_tools": [
                t for t in contract.required_tools if t != "check_write_target"]})
        called = live.ledger.called(phase=state.contract_id, window=state.window)
        check_tool_evidence(state.label, contract, model.tools_used, called)
        draft = state.model_copy(deep=True)
        attempt.context = PhaseContext(draft, model, self.root, self.git, enabled_phases(draft.intent, draft.flags),
                                       checks=self.checks, progress=progress,
                                       logged_writes=partial(self._logged_writes, draft),
                                       files_seen=partial(self._files_seen, draft),
                                       ungranted=partial(self.ungranted_early_changes, draft))
        transition = self._route(state, draft, spec.handler(attempt.context))
        self._entering_ready(attempt.context, transition)
        self._check_commit(transition)
        return spec, model, draft, transition

    def _refused(self, state: SessionState, attempt: _Attempt, data: Any, err: CodeIntelError, started: float) -> None:
        """Record a refused submit: what its checks observed is kept, and the decision and history are logged.
        (The refusal gets the phase's contract fields from `annotate_refusal`, like every other refusal.)"""
        if attempt.checked:  # a withdrawn commit's files stay unexpected: only git's state is the server's
            self._settle(state, transition=None, refused=err)
        context = attempt.context
        if context is not None and context.observed:  # refused, but what the submit saw is kept
            kept = state.model_copy(deep=True)
            for change in context.observed:
                change(kept)
            self._commit(kept)
            state = kept
        self.decisions.append(session_id=state.session_id, phase=state.phase.value, step=state.step,
                              accepted=False, payload=data, error=err.code, message=err.message)
        self._history_submit(state, data, started, err=err)

    @staticmethod
    def _route(state: SessionState, draft: SessionState, transition: Transition) -> Transition:
        """Resolve a handler's "advance" into the next phase the matrix runs for this session."""
        if transition.next_phase is None:
            transition.next_phase = next_phase(state.phase, draft.intent, draft.flags, draft.gate_answers)
            transition.ready_substep = "planning" if transition.next_phase is Phase.READY else None
        return transition

    def _entering_ready(self, context: PhaseContext, transition: Transition) -> None:
        """The first time the session reaches READY: flag the files that changed before it (no writes were
        allowed); when none did, take the run of the checks before the change unless the session has one."""
        draft = context.state
        if transition.next_phase is not Phase.READY or draft.ready_entered:
            return
        draft.ready_entered = True
        if not draft.tracks_changes:
            return
        early = self.git.changed_since_snapshot(draft.git)
        draft.pre_ready_changes = sorted(early)
        if not early:
            before = checks_at_ready(context)
            if before is not None:
                transition.extras["checks_before_change"] = before
        else:
            # their content now: lines changed after this point are READY's work and may be evidence
            draft.git = self.git.snapshot_at_ready(draft.session_id, draft.git, draft.pre_ready_changes)
            transition.extras["pre_ready_changes"] = list(draft.pre_ready_changes)
            transition.extras["warning"] = (
                f"files changed before READY, while writing was not allowed: {draft.pre_ready_changes}. Their "
                "lines as they are now are not accepted as evidence (lines you change from here on are); at "
                "PRE_COMMIT discard them, or keep them in reallowed_files only if the user agrees")

    @property
    def _sessions_dir(self) -> Path:
        """`.code-intel/sessions/`, where the session's logs lie (no folder made: the session's checkpoint is there)."""
        return self.root.state_dir / "sessions"

    def _files_seen(self, state: SessionState) -> set[str]:
        """Files the session saw: read by the agent's own tools (the client hooks' log) or shown by the server's
        exploration tools, as project-relative paths."""
        return self._project_paths(write_log.files_read(write_log.reads_file(self._sessions_dir, state.session_id)))

    def ungranted_early_changes(self, state: SessionState, files: list[str]) -> list[str]:
        """The files among `files` that no grant of the user's covers with their current content."""
        return grants.ungranted(self.root.path, self._sessions_dir, state.session_id, files)

    def grant_early_changes(self, files: list[str], *, by: str) -> list[str]:
        """Record the user's consent (answered through the client) to keep `files`, flagged at READY, as they are
        now; returns the files granted (those the session flagged)."""
        with self._lock:
            state = self._restore().state
            flagged = [f for f in files if f in set(state.pre_ready_changes)]
            if flagged:
                grants.record(self.root.path, self._sessions_dir, state.session_id, flagged, by=by)
            return flagged

    def early_changes_to_confirm(self, files: list[str]) -> list[str]:
        """Of `files` (a PRE_COMMIT payload's reallowed_files), those flagged at READY that still need the user's
        consent; [] when no session is at PRE_COMMIT."""
        with self._lock:
            try:
                state = self._restore().state
            except CodeIntelError:
                return []
            if state.phase is not Phase.PRE_COMMIT:
                return []
            flagged = [f for f in files if f in set(state.pre_ready_changes)]
            return self.ungranted_early_changes(state, flagged)

    def _logged_writes(self, state: SessionState) -> set[str]:
        """Files the client hooks' write log allowed during READY, as project-relative paths."""
        return self._project_paths(write_log.allowed_writes(write_log.log_file(self._sessions_dir, state.session_id)))

    # ---------------------------------------------------------- outcome checks
    def _start_guard(self, session_id: str) -> OutcomeGuard | None:
        if self.outcome is None:
            return None
        settings = self._config().outcome_check
        return OutcomeGuard.start(self.outcome, self._sessions_dir, self.root.path, session_id, list(settings.ignore),
                                  list(settings.outputs))

    def _load_guard(self, session_id: str) -> OutcomeGuard | None:
        if self.outcome is None:
            return None
        return OutcomeGuard.load(self.outcome, self._sessions_dir, self.root.path, session_id)

    def _check_outcome(self, state: SessionState, restore: list[str]) -> None:
        """Refuse (UnexpectedChanges) when the project changed in a way the session did not grant in this phase;
        `restore`: refused changes to put back first (the paths a refusal named, or ["*"])."""
        live = self._live
        if live is None or live.guard is None:
            return
        permitted = set(state.allowed_writes) | self._logged_writes(state) if state.phase is Phase.READY else set()
        live.guard.check(state, writable=state.phase is Phase.READY, permitted=permitted,
                         relaxed=state.flags.fast or state.flags.quick, restore=restore,
                         user_grants=self._user_grants(state))

    def _server_step(self, state: SessionState) -> None:
        """Before a handler runs: what it changes is the server's own, even if the process dies before `_settle`."""
        live = self._live
        if live is not None and live.guard is not None and state.phase in SERVER_STEP_PHASES:
            live.guard.server_step(tree=state.phase in TREE_CHANGING_PHASES)

    def _settle(self, state: SessionState, transition: Transition | None, *, refused: CodeIntelError | None = None) -> None:
        """Take what the server itself just changed into what the session expects, and only that: its branch, commit
        and refs always; the files PRE_COMMIT discarded; after a run of the checks, the outputs the project declares
        (outcome_check.outputs). Any other change made during the step stays for the next check to judge."""
        live = self._live
        if live is None or live.guard is None:
            return
        entering_ready = transition is not None and transition.next_phase is Phase.READY and not state.ready_entered
        if state.phase not in SERVER_STEP_PHASES and not entering_ready:
            return  # the handler changed nothing in the repository
        if transition is not None and transition.next_phase is Phase.SESSION_COMPLETE:
            return  # the session ends here: its record goes with it
        if state.phase is Phase.BRANCH_INTERVENTION and not isinstance(refused, UnexpectedChanges):
            live.guard.recover()  # moving the work to another branch rewrites the work tree wholesale
            return
        if isinstance(refused, UnexpectedChanges):
            live.guard.settle()
            return
        report = transition.extras.get("commit") if transition is not None else None
        discarded = list(report.discarded_files) if isinstance(report, CommitReport) else []
        left = live.guard.settle(paths=discarded, run=state.phase is Phase.POST_IMPL_VERIFY or entering_ready)
        if left and transition is not None:
            transition.extras["warning"] = "; ".join(filter(None, [transition.extras.get("warning"), _left_out(left)]))

    def _check_commit(self, transition: Transition) -> None:
        """After PRE_COMMIT committed: every committed file holds a content the session granted (else withdrawn)."""
        live, report = self._live, transition.extras.get("commit")
        if live is None or live.guard is None or not isinstance(report, CommitReport) or not report.commit:
            return
        live.guard.check_commit(report.commit, report.committed_files, set(report.kept_user_edits))

    def _user_grants(self, state: SessionState) -> dict[str, set[str]]:
        """What the user allowed in their own terminal (`code-intel allow`): path -> content ids."""
        return grants.granted(self.root.path, self._sessions_dir, state.session_id)

    def _project_paths(self, logged: set[str]) -> set[str]:
        """A log's files as project-relative paths; an entry that does not resolve inside the project is dropped."""
        out: set[str] = set()
        for raw in logged:
            try:
                out.add(self.root.relative(self.root.resolve(raw, kind="logged file")))
            except CodeIntelError:
                continue
        return out

    def _variant(self, state: SessionState, payload: Any) -> str:
        """The contract id this payload answers: READY's sub-step follows the payload's shape."""
        if state.phase is not Phase.READY or not isinstance(payload, dict):
            return state.contract_id
        if "tasks" in payload:
            return "READY_PLANNING"
        cid = "READY_IMPLEMENTATION" if "task_id" in payload else "READY_COMPLETION"
        if not state.board.is_planned():
            raise TaskValidationFailed("no tasks are registered yet: plan first",
                                       hint="send {tasks: [...], tools_used, summary} (step 12)")
        if state.ready_substep == "planning":  # sent back to planning: a report or summary must not skip the re-plan
            reason = textwrap.shorten(state.revert_reason or "", 200, placeholder=" ...")
            why = f" ({reason})" if reason else ""
            raise TaskValidationFailed(
                f"READY is back at planning (step 12){why}: plan the fix before reporting work or moving on",
                hint="resend the complete task list (completed tasks keep status 'completed') with at least one new "
                "pending task for the fix, then implement and report it (step 13)")
        return cid

    def _refusal_details(self, state: SessionState) -> dict[str, Any]:
        try:
            contract: PhaseContract | None = self._contract(state)
        except CodeIntelError:
            contract = None
        return refusal_fields(self.root, state, contract)

    def _accept(self, state: SessionState, draft: SessionState, cid: str, summary: str, transition: Transition,
                data: Any, phase_summaries: dict[str, str] | None, started: float) -> dict[str, Any]:
        assert self._live is not None
        step = BY_ID[cid].step
        draft.mark_completed(step)
        assert transition.next_phase is not None  # _route resolved "advance"
        draft.phase = transition.next_phase
        draft.ready_substep = transition.ready_substep if draft.phase is Phase.READY else None
        if transition.revert_reason is not None:
            draft.revert_reason = transition.revert_reason
        draft.window = state.window + 1
        self._live.summaries[f"step_{step:02d}_{cid}"] = {"summary": summary}
        response = phase_response(self.root, draft, self._contract(draft))
        extras = _json_ready(transition.extras)
        warning = None
        if draft.phase is Phase.SESSION_COMPLETE:
            response["completed_steps"] = list(draft.completed_steps)
            self._live.state = draft
            self._history_submit(state, data, started, draft=draft, extras=extras)
            self._finish(draft)
            report = self._report(draft.session_id)
            response["report"] = report
            response["instruction"] += (
                f"\n\nGive the user the session report: {report['path']} (a page of the phases, refusals, tasks with "
                "their evidence, checks, commit and merge)." if "path" in report else
                f"\n\nTell the user that `{report['command']}` writes a page of what this session did.")
        else:
            warning = self._commit(draft, response)  # the checkpoint's status for the hooks comes from it
            if warning is None:  # the checkpoint holds the new window: the journal's calls are spent
                self._live.ledger.reset_journal()
            self._history_submit(state, data, started, draft=draft, extras=extras)
        response.update(extras)
        if warning:
            response["warning"] = (response.get("warning", "") + "; " + warning).lstrip("; ")
        if phase_summaries is not None:
            response["phase_summaries"] = phase_summaries
        self.decisions.append(session_id=draft.session_id, phase=state.phase.value, step=step, accepted=True,
                              payload=data, next_phase=draft.phase.value, next_step=draft.step)
        log.info("session %s: %s accepted -> %s", draft.session_id, cid, draft.label)
        return response

    # ---------------------------------------------------------------- status
    def get_session_status(self) -> dict[str, Any]:
        with self._lock:
            live = self._restore()
            state = live.state
            response = phase_response(self.root, state, self._contract(state))
            response.update(
                completed_steps=list(state.completed_steps),
                task_progress=state.board.progress(),  # CONTRACT.md: always there (all zero before planning)
                intent=state.intent,
                query=state.query,
                flags=state.flags.typed(),
                counters=state.counters.model_dump(),
            )
            if state.pre_ready_changes:
                response["pre_ready_changes"] = list(state.pre_ready_changes)
            if state.last_check:
                response["last_check"] = state.last_check
            if live.summaries:
                response["phase_summaries"] = live.flat_summaries()
            if live.repaired:
                response["repaired"], live.repaired = live.repaired, []
            return response

    # ----------------------------------------------------------------- ledger
    def record_tool_call(self, tool: str, arguments: dict[str, Any], ok: bool,
                         shown: Callable[[], list[str]] | None = None) -> None:
        """Put the call in the session's ledger; `shown` gives the files its answer showed code of, which go to
        the session's read log (asked only when a session is there to keep them)."""
        with self._lock:
            args = arguments if isinstance(arguments, dict) else {}
            if self._live is not None:
                state, ledger = self._live.state, self._live.ledger
            else:
                waiting = self._waiting_ledger()
                if waiting is None:
                    return
                state, ledger = waiting
            ledger.record(tool, args, phase=state.contract_id, window=state.window, ok=ok)
            if shown is not None:
                self._note_shown(state, normalise_tool_name(tool), shown())

    def _note_shown(self, state: SessionState, tool: str, files: list[str]) -> None:
        """Append the files an answer showed the agent to the session's read log, leaving out those the log
        already names (so a long session's log grows with the files it saw, not with its calls)."""
        if self._noted is None or self._noted[0] != state.session_id:
            self._noted = (state.session_id,
                           write_log.files_read(write_log.reads_file(self._sessions_dir, state.session_id)))
        noted = self._noted[1]
        fresh = [f for f in files if f not in noted]
        if not fresh:
            return
        try:
            write_log.append(self._sessions_dir, write_log.LogEntry(
                session_id=state.session_id, phase=state.phase.value, step=state.step, tool=tool,
                files=tuple(fresh)), reads=True)
        except OSError as err:  # the call stands; only this evidence is missing
            log.warning("read log of %s not written: %s", state.session_id, err)
            return
        noted.update(fresh[:write_log.MAX_READ_FILES])

    def _waiting_ledger(self) -> tuple[SessionState, ToolLedger] | None:
        """After a restart, before the first get_session_status or submit_phase restores the session: the
        ledger of the session waiting in the newest checkpoint (the one _restore takes), so a call made in
        between is journaled in its phase and counts once the session is restored. Nothing is restored here
        (no lock taken, no repository touched); None without a checkpoint, or while another live process
        holds the session."""
        if not self.checkpoints.any_file():  # the common case outside a session: one scandir, nothing created
            return None
        files = self.checkpoints.files()
        if not files or self.project_lock.held_by_other() is not None:
            return None
        try:
            info = files[0].stat()
        except OSError:
            return None
        key = (str(files[0]), info.st_mtime_ns, info.st_size)
        if self._waiting is None or self._waiting[0] != key:
            try:
                state, _ = self.checkpoints.load(files[0])
            except CodeIntelError:  # a corrupt checkpoint: nothing to record into
                return None
            ledger = ToolLedger(state.tool_counts, self._journal(state.session_id), seq=state.ledger_seq)
            ledger.restore(window=state.window, counted=state.ledger_seq)
            self._waiting = (key, state, ledger)
        return self._waiting[1], self._waiting[2]

    def annotate_refusal(self, data: dict[str, Any]) -> None:
        """Give a refusal the contract's fields it has not got: the current phase's instruction, expected_payload
        and call; with no session, how to start one. The one place they are added: code_intel.server.refusals.refusal
        calls this for every refusal (a caller of the engine without the MCP layer calls it on `err.to_dict()`)."""
        with self._lock:
            live = self._live
            if live is None:
                fields = no_session_fields(self._last_completed.get("session_id"), data.get("error"))
            else:
                fields = self._refusal_details(live.state)
            for key, value in fields.items():
                data.setdefault(key, value)

    # ------------------------------------------------------- implementation control
    def check_write_target(self, file_path: str) -> dict[str, Any]:
        with self._lock:
            try:  # after a restart in READY, the checkpoint's session decides (and keeps the allowed file)
                live: LiveSession | None = self._restore()
            except NoActiveSession:
                live = None
            if live is None:
                decision = evaluate_write(self.root, file_path, in_ready=False, explored=set(), relaxed=False)
                return {"allowed": False, "file": decision.file,
                        "reason": "no active session: writes are allowed only in READY of a session (call start_session)"}
            state = live.state
            decision = evaluate_write(self.root, file_path, in_ready=state.phase is Phase.READY,
                                      explored=set(state.explored_files), relaxed=state.flags.fast or state.flags.quick)
            if state.git.content_baseline and decision.file and not decision.file.startswith(("/", "..")):
                with contextlib.suppress(CodeIntelError, OSError):  # outside git: record it before it is written
                    self.git.remember_baseline(state.git, [decision.file])
            result: dict[str, Any] = {"allowed": decision.allowed, "reason": decision.reason, "file": decision.file,
                                      "phase": state.phase.value, "step": state.step}
            if decision.allowed and decision.file not in state.allowed_writes:
                draft = state.model_copy(deep=True)
                draft.allowed_writes.append(decision.file)
                warning = self._commit(draft)
                if warning:
                    result["warning"] = warning
            return result

    def add_explored_files(self, files: list[str]) -> dict[str, Any]:
        with self._lock:
            state = self._restore().state
            if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
                raise InvalidArgument("files must be a list of paths", hint='send e.g. ["src/app.py"]')
            cut: list[str] = []
            if len(files) > MAX_LIST_ITEMS:
                cut.append(f"files: {len(files):,} sent, the first {MAX_LIST_ITEMS} were taken; send the rest in "
                           "another call")
                files = files[:MAX_LIST_ITEMS]
            relative = list(dict.fromkeys(self.root.relative(self.root.resolve(f, kind="explored file")) for f in files))
            refuse_unread(self.root, relative, partial(self._files_seen, state), "files", error=InvalidArgument,
                          after="; nothing was added")
            room = MAX_EXPLORED_FILES - len(state.explored_files)
            fresh = [f for f in relative if f not in state.explored_files]
            if len(fresh) > room:
                cut.append(f"the explored set holds at most {MAX_EXPLORED_FILES:,} files; {len(fresh) - max(room, 0):,} "
                           "were not added")
                relative = [f for f in relative if f in state.explored_files] + fresh[:max(room, 0)]
            draft = state.model_copy(deep=True)
            added = draft.add_explored(relative)
            self.git.remember_baseline(state.git, relative)
            warning = self._commit(draft) if added else None
            result: dict[str, Any] = {"added": added, "already_explored": [f for f in relative if f not in added],
                                      "explored_count": len(draft.explored_files)}
            if warning:
                result["warning"] = warning
            if cut:
                result["cut"] = cut
            return result

    def review_changes(self) -> dict[str, Any]:
        with self._lock:
            state = self._restore().state
            review = self.git.review(state.git).model_dump(mode="json")
            changed = self.git.changed_since_snapshot(state.git) if state.tracks_changes else []
            if not state.git.is_repo and changed:
                review["changed_files"] = changed
            permitted = set(state.allowed_writes) | self._logged_writes(state)
            review["outside_write_rules"] = [f for f in changed if f not in permitted and f not in state.pre_ready_changes]
            review["changed_before_ready"] = [f for f in changed if f in state.pre_ready_changes]
            return review

    # ------------------------------------------------------------------ checks
    def run_checks(self, progress: CheckProgress | None = None) -> dict[str, Any]:
        """The server's run of the relevant verify.commands, as POST_IMPL_VERIFY will judge it (VERIFICATION and POST_IMPL_VERIFY only)."""
        with self._lock:
            state = self._restore().state
            if state.phase not in RUN_CHECKS_PHASES:
                raise InvalidArgument(
                    f"run_checks is allowed in VERIFICATION and POST_IMPL_VERIFY; the session is in {state.label}",
                    hint="finish the current phase first; the checks run again at POST_IMPL_VERIFY",
                )
            if self.checks is None or not self.checks.configured():
                return not_configured_view(SELF_REPORTED)
            self._check_outcome(state, [])  # verify.commands as pinned: a changed config.json is refused first
            if self._live is not None and self._live.guard is not None:
                self._live.guard.server_step(tree=True)
            try:
                report, _concerned = session_checks(self.checks, self.git, state, self.root, progress)
            finally:
                if self._live is not None and self._live.guard is not None:
                    self._live.guard.settle(run=True)  # what the run wrote beyond the declared outputs stays judged
            draft = state.model_copy(deep=True)
            record_run(draft, report)
            self._commit(draft)
            view = report.view()
            self.history.append(state.session_id, "checks", phase=state.phase.value, step=state.step, report=view)
            return view

    # ------------------------------------------------------------- maintenance
    def cleanup_stale_branches(self) -> dict[str, Any]:
        with self._lock:
            other = self.project_lock.held_by_other()
            if other is not None:
                raise SessionActive(f"session {other.get('session_id')} is active in another process (pid {other.get('pid')})",
                                    hint="stop that process first; cleanup would pull its branch from under it")
            self._mark_cleanup()
            report = self.git.cleanup().model_dump(mode="json", exclude_none=True)
            dropped = [file.stem for file in self.checkpoints.files()]
            report["checkpoints_deleted"] = self.checkpoints.delete_all()
            report["session_reset"] = self._live.state.session_id if self._live else None
            for session_id in dict.fromkeys([*dropped, *([report["session_reset"]] if report["session_reset"] else [])]):
                self.history.append(session_id, "discarded")
            self.project_lock.release()
            self._reset()
            return report

    def _mark_cleanup(self) -> None:
        """cleanup moves HEAD and deletes branches: a session resumed after it died half-way takes that in."""
        if self.outcome is None:
            return
        for file in self.checkpoints.files():
            with contextlib.suppress(CodeIntelError, OSError):
                self._load_guard(file.stem).server_step(tree=True)  # type: ignore[union-attr]

    def _outcome_fields(self, state: SessionState) -> dict[str, Any]:
        return {"session_id": state.session_id, "query": state.query, "intent": state.intent,
                "phase": state.phase.value, "target_symbols": list(state.target_symbols),
                "explored_files": list(state.explored_files)}

    def outcome_context(self) -> dict[str, Any]:
        with self._lock:
            if self._live is not None:
                return self._outcome_fields(self._live.state)
            return dict(self._last_completed)

    def close(self) -> None:
        with self._lock:
            if self._live is not None:
                self._save()
            self.project_lock.release()


@dataclass
class _Attempt:
    """How far a submit got before a refusal: past the outcome check, and the handler's context."""

    checked: bool = False
    context: PhaseContext | None = None


@dataclass
class _Submit:
    """A submit's `data` taken apart: the phase payload (bounded) and the fields that ride beside it."""

    payload: Any
    cuts: list[str]
    restore: list[str]
    compaction_count: int | None
    problem: str | None

    @classmethod
    def read(cls, data: Any) -> _Submit:
        if not isinstance(data, dict):
            return cls(data, [], [], None, None)
        payload, cuts = bound_value(data, max_text=MAX_TEXT_CHARS, max_items=MAX_LIST_ITEMS,
                                    path="data", text_limits={"summary": MAX_SUMMARY_CHARS})
        payload = {k: v for k, v in payload.items() if k not in ("restore", "compaction_count")}
        restore: list[str] = []
        count: int | None = None
        problem: str | None = None
        if "restore" in data:
            asked = data["restore"]
            if isinstance(asked, list) and all(isinstance(p, str) for p in asked):
                restore = list(asked)
            else:
                problem = f"restore must be a list of the paths a refusal named, got {asked!r}"
        if "compaction_count" in data:
            sent = data["compaction_count"]
            if isinstance(sent, int) and not isinstance(sent, bool) and sent >= 0:
                count = sent
            else:
                problem = f"compaction_count must be a non-negative integer, got {sent!r}"
        return cls(payload, cuts, restore, count, problem)
