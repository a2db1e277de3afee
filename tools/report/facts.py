"""What one session did, gathered from where the server left it: the facts `code-intel report` and `status` show.

Sources, in order of trust:
- the session history (`.code-intel/logs/history/<id>.jsonl`, tools/learning/history.py): every submit with
  what the agent sent, every refusal, the server's runs of the checks, the commit and the merge, the end;
- the checkpoint (`.code-intel/sessions/<id>.json`) while the session runs or after a crash: the tasks,
  counters and git facts as they are now;
- the decision log (`decisions.jsonl`): for a session older than the history, its submits and refusals
  (there the payload's field names only);
- git, read only: the files each commit changed (numstat) and the committed text that evidence points at.

Nothing here writes. Paths come from the session's own records; a path that leaves the project is
never read (ProjectRoot.resolve, and no `..` or absolute path is handed to git).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, TypeGuard

from code_intel.core import processes
from code_intel.core.errors import CodeIntelError
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import Phase
from code_intel.learning.history import SessionHistory
from code_intel.workflow.checkpoint import CheckpointStore
from code_intel.workflow.evidence import parse_evidence
from code_intel.workflow.flags import SessionFlags, parse_flags
from code_intel.workflow.lock import ProjectLock, pid_alive
from code_intel.workflow.matrix import active_columns, enabled_phases, is_investigation
from code_intel.workflow.phases import ROUTING, SEQUENCE
from code_intel.workflow.state import SessionState

EXCERPT_CONTEXT = 2  # lines shown around an evidence span
MAX_EXCERPT_LINES = 60
MAX_FILE_BYTES = 2_000_000  # a committed file larger than this is not read for an excerpt
GIT_TIMEOUT_S = 20
_FLAG_OF_COLUMN = {"no_verify": "--no-verify", "no_quality": "--no-quality", "fast": "--fast", "quick": "--quick",
                   "no_doc": "--no-doc-research", "ni": "--no-intervention"}
_GATE_FIELDS = {"Q1": "needs_more_information", "Q2": "has_unverified_hypotheses", "Q3": "needs_impact_analysis"}


@dataclass
class PhaseVisit:
    """One stay in a phase: entered at one time, left by an accepted submit (or still there)."""

    phase: str
    step: int
    entered: str | None
    left: str | None = None
    next_phase: str | None = None
    refusals: int = 0
    note: str = ""  # e.g. "reverted to planning", "forced on to MERGE"
    summary: str = ""  # the summary the agent sent with the accepted submit that left the phase

    @property
    def seconds(self) -> float | None:
        return seconds_between(self.entered, self.left)


@dataclass
class Skip:
    step: int
    phase: str
    reason: str


@dataclass
class Refusal:
    ts: str | None
    phase: str | None
    step: int | None
    error: str
    message: str
    hint: str = ""
    sent: Any = None  # the payload as the agent sent it (bounded); None when only the field names are known
    sent_fields: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # the refusal's own facts (server_checks, changes, ...)


@dataclass
class CheckRunFact:
    ts: str | None
    where: str  # "POST_IMPL_VERIFY (accepted)", "POST_IMPL_VERIFY (refused)", "run_checks", "before the change"
    passed: bool | None
    summary: str
    duration_s: float | None
    commands: list[dict[str, Any]]
    failing_tests: list[str]


@dataclass
class Excerpt:
    ref: str  # file:start-end as the agent wrote it
    file: str
    start: int
    end: int
    source: str  # "commit abc1234", "working tree"
    lines: list[tuple[int, str]] = field(default_factory=list)
    problem: str = ""  # why no text is shown


@dataclass
class FileChange:
    file: str
    added: int | None
    removed: int | None


@dataclass
class SessionFacts:
    session_id: str
    root: Path
    status: str  # complete, running, interrupted, discarded, unfinished
    intent: str = ""
    query: str = ""
    flags: list[str] = field(default_factory=list)
    started: str | None = None
    ended: str | None = None
    phase: str | None = None
    step: int | None = None
    visits: list[PhaseVisit] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    excerpts: dict[str, Excerpt] = field(default_factory=dict)  # evidence ref -> excerpt
    checks: list[CheckRunFact] = field(default_factory=list)
    reviewed: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    commits: list[dict[str, Any]] = field(default_factory=list)  # CommitReport dicts, with "changes" added
    merge: dict[str, Any] | None = None
    counters: dict[str, int] = field(default_factory=dict)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)
    caught: list[dict[str, str]] = field(default_factory=list)  # what the outcome checks caught: {what, detail}
    forced: list[str] = field(default_factory=list)  # issues a forced completion left open
    sources: list[str] = field(default_factory=list)  # where these facts came from, for the page's footer
    notes: list[str] = field(default_factory=list)  # gaps: what could not be read

    @property
    def last_refusal(self) -> Refusal | None:
        return self.refusals[-1] if self.refusals else None


# ------------------------------------------------------------------ time
def _parse_ts(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def seconds_between(start: str | None, end: str | None) -> float | None:
    a, b = _parse_ts(start), _parse_ts(end)
    if a is None or b is None:
        return None
    if (a.tzinfo is None) != (b.tzinfo is None):
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return max(0.0, (b - a).total_seconds())


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _mapping(value: Any) -> dict[str, Any]:
    """A JSON object read from a log, or {} for anything else."""
    return value if isinstance(value, dict) else {}


# ------------------------------------------------------------------ which session
def session_ids(root: ProjectRoot) -> list[str]:
    """Every session the project has a record of, newest first: histories, checkpoints, the decision log."""
    found: dict[str, float] = {}
    for path in SessionHistory(root).files():
        found[path.stem] = max(found.get(path.stem, 0.0), path.stat().st_mtime)
    sessions = root.state_dir / "sessions"
    if sessions.is_dir():
        for path in sessions.glob("*.json"):
            if path.is_file():
                found[path.stem] = max(found.get(path.stem, 0.0), path.stat().st_mtime)
    for entry in _decisions(root):
        sid = entry.get("session_id")
        if isinstance(sid, str) and sid and sid not in found:
            found[sid] = 0.0
    # session ids begin with their UTC start time, which orders them; the file time breaks ties
    return sorted(found, key=lambda sid: (sid[:15], found[sid]), reverse=True)


def _decisions(root: ProjectRoot, session_id: str | None = None) -> list[dict[str, Any]]:
    file = root.state_dir / "logs" / "decisions.jsonl"
    if not file.is_file():
        return []
    out = []
    for line in file.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and (session_id is None or value.get("session_id") == session_id):
            out.append(value)
    return out


# ------------------------------------------------------------------ gathering
def gather(root: ProjectRoot, session_id: str, *, read_git: bool = True) -> SessionFacts:
    """Every fact the report shows about `session_id`. `read_git`: look up commits and committed excerpts."""
    history = SessionHistory(root)
    events, unreadable = history.read(session_id)
    facts = SessionFacts(session_id=session_id, root=root.path, status="unknown")
    if unreadable:
        facts.notes.append(f"{unreadable} line(s) of the session history could not be read (cut off by a crash?)")
    state = _checkpoint(root, session_id, facts)
    if events:
        facts.sources.append(f"session history ({len(events)} events)")
        _from_history(facts, events)
    else:
        decided = _decisions(root, session_id)
        if decided:
            facts.sources.append(f"decision log ({len(decided)} submits; payloads were not kept before the history)")
            _from_decisions(facts, decided)
    if state is not None:
        facts.sources.append("checkpoint")
        _from_state(facts, state)
    if not events and state is None and not facts.visits:
        raise CodeIntelError(f"no record of session {session_id!r} in {root.path}",
                             hint="run `code-intel report` without an id for the latest session")
    facts.status = _status(root, facts, events, state)
    facts.skips = _skips(facts)
    if read_git:
        _git_facts(root, facts)
    _excerpts(root, facts, read_git)
    _caught(facts)
    return facts


def _checkpoint(root: ProjectRoot, session_id: str, facts: SessionFacts) -> SessionState | None:
    """The session's state as its checkpoint holds it (a running or interrupted session), else None."""
    path = root.state_dir / "sessions" / f"{session_id}.json"
    if not path.is_file():
        return None
    try:
        state, _ = CheckpointStore(root).load(path)
    except CodeIntelError as err:
        facts.notes.append(f"the checkpoint could not be read: {err.message}")
        return None
    return state


def _status(root: ProjectRoot, facts: SessionFacts, events: list[dict[str, Any]], state: SessionState | None) -> str:
    kinds = {e.get("kind") for e in events}
    if "end" in kinds or facts.phase == Phase.SESSION_COMPLETE.value:
        return "complete"
    if "discarded" in kinds:
        return "discarded"
    if state is not None:
        owner = ProjectLock(root).owner() if (root.state_dir / "sessions").is_dir() else None
        pid = owner.get("pid") if owner else None
        if owner and owner.get("session_id") == facts.session_id and isinstance(pid, int) and pid_alive(pid):
            return "running"
        return "interrupted"
    return "unfinished"  # no end recorded and no checkpoint left (deleted by hand?)


def _from_history(facts: SessionFacts, events: list[dict[str, Any]]) -> None:
    visit: PhaseVisit | None = None
    for event in events:
        kind, ts = event.get("kind"), event.get("ts")
        if kind == "start":
            facts.intent = str(event.get("intent") or "")
            facts.query = str(event.get("query") or "")
            facts.flags = [str(f) for f in event.get("flags") or []]
            facts.started = ts
            visit = PhaseVisit(str(event.get("phase")), int(event.get("step") or 0), ts)
            facts.visits.append(visit)
            facts.phase, facts.step = visit.phase, visit.step
        elif kind == "submit":
            if event.get("accepted"):
                visit = _accepted(facts, visit, event)
            else:
                if visit is not None:
                    visit.refusals += 1
                details = _mapping(event.get("details"))
                facts.refusals.append(Refusal(ts, event.get("phase"), event.get("step"), str(event.get("error") or "?"),
                                              str(event.get("message") or ""), str(event.get("hint") or ""),
                                              event.get("payload"), details=details))
                if isinstance(details.get("server_checks"), dict):
                    facts.checks.append(_check(details["server_checks"], ts, f"{event.get('phase')} (refused)"))
            _counters(facts, event)
        elif kind == "checks" and isinstance(event.get("report"), dict):
            facts.checks.append(_check(event["report"], ts, f"run_checks in {event.get('phase')}"))
        elif kind == "compaction":
            facts.compactions.append({"ts": ts, "phase": event.get("phase"), "step": event.get("step"),
                                      "from": event.get("from"), "to": event.get("to")})
        elif kind == "resumed":
            facts.resumes.append({"ts": ts, "phase": event.get("phase"), "step": event.get("step"),
                                  "repaired": event.get("repaired") or []})
        elif kind == "discarded":
            facts.ended = ts
            if visit is not None:
                visit.left, visit.note = ts, "session discarded (cleanup_stale_branches)"
        elif kind == "end":
            facts.ended = ts
            _counters(facts, event)
            if isinstance(event.get("tasks"), list):
                facts.tasks = event["tasks"]
            facts.forced = [str(i) for i in event.get("unresolved_issues") or []]
            for key in ("pre_ready_changes", "test_edits", "writes_outside_rules"):
                if event.get(key):
                    facts.caught.append({"what": key, "detail": "; ".join(map(str, event[key]))})


def _accepted(facts: SessionFacts, visit: PhaseVisit | None, event: dict[str, Any]) -> PhaseVisit:
    ts = event.get("ts")
    if visit is None:  # a history that lost its start line
        visit = PhaseVisit(str(event.get("phase")), int(event.get("step") or 0), None)
        facts.visits.append(visit)
    visit.left, visit.next_phase = ts, event.get("next_phase")
    extras = _mapping(event.get("extras"))
    payload = _mapping(event.get("payload"))
    visit.summary = str(payload.get("summary") or "")
    if extras.get("reverted"):
        visit.note = "reverted to planning"
    if event.get("phase") == "VERIFY_INTERVENTION":
        counters = _mapping(event.get("counters"))
        escalated = int(counters.get("intervention_count") or 0) > 2  # the third intervention asks the user
        visit.note = ("escalated to the user" if escalated else "intervention") + f": {payload.get('action_taken', '')}"
    if event.get("phase") == "QUALITY_REVIEW" and event.get("next_phase") == "MERGE" and payload.get("issues"):
        visit.note = "forced on to MERGE (quality revert limit)"
    if event.get("phase") in _GATE_FIELDS and _GATE_FIELDS[str(event.get("phase"))] in payload:
        answer = payload[_GATE_FIELDS[str(event.get("phase"))]]
        visit.note = f"answered {'yes' if answer else 'no'}" + (f": {payload.get('reason')}" if payload.get("reason") else "")
    if isinstance(extras.get("server_checks"), dict):
        facts.checks.append(_check(extras["server_checks"], ts, f"{event.get('phase')} (accepted)"))
    if isinstance(extras.get("checks_before_change"), dict):
        facts.checks.append(_check(extras["checks_before_change"], ts, "before the change (entering READY)"))
    if event.get("phase") == "PRE_COMMIT":
        facts.reviewed = [str(f) for f in payload.get("reviewed_files") or []]
        facts.discarded = [str(f) for f in payload.get("discarded_files") or []]
    if isinstance(extras.get("commit"), dict):
        facts.commits.append(dict(extras["commit"]))
    if isinstance(extras.get("merge"), dict):
        facts.merge = dict(extras["merge"])
    if isinstance(event.get("tasks"), list):
        facts.tasks = event["tasks"]
    nxt = PhaseVisit(str(event.get("next_phase")), int(event.get("next_step") or 0), ts)
    facts.visits.append(nxt)
    facts.phase, facts.step = nxt.phase, nxt.step
    return nxt


def _counters(facts: SessionFacts, event: dict[str, Any]) -> None:
    if isinstance(event.get("counters"), dict):
        facts.counters = {str(k): int(v) for k, v in event["counters"].items() if isinstance(v, int)}
    if isinstance(event.get("compaction_count"), int):
        facts.counters["compaction_count"] = event["compaction_count"]


def _check(report: dict[str, Any], ts: str | None, where: str) -> CheckRunFact:
    commands = [c for c in report.get("commands") or [] if isinstance(c, dict)]
    failing = [str(t) for t in report.get("failing_tests") or []] or [
        str(t) for c in commands for t in c.get("failing_tests") or []]
    return CheckRunFact(ts, where, report.get("passed"), str(report.get("summary") or report.get("note") or ""),
                        report.get("duration_s"), commands, failing)


def _from_decisions(facts: SessionFacts, decided: list[dict[str, Any]]) -> None:
    """A session older than the history: its phases and refusals as the decision log has them."""
    first = decided[0]
    facts.started = first.get("ts")
    visit = PhaseVisit(str(first.get("phase")), int(first.get("step") or 0), first.get("ts"))
    visit.note = "entered before the first logged submit (start time unknown)"
    facts.visits.append(visit)
    for entry in decided:
        if entry.get("accepted"):
            visit.left, visit.next_phase = entry.get("ts"), entry.get("next_phase")
            visit = PhaseVisit(str(entry.get("next_phase")), int(entry.get("next_step") or 0), entry.get("ts"))
            facts.visits.append(visit)
        else:
            visit.refusals += 1
            fields = entry.get("payload_fields")
            details = _mapping(entry.get("details"))
            facts.refusals.append(Refusal(entry.get("ts"), entry.get("phase"), entry.get("step"),
                                          str(entry.get("error") or "?"), str(entry.get("message") or ""),
                                          sent_fields=list(fields) if isinstance(fields, list) else [], details=details))
    facts.phase, facts.step = visit.phase, visit.step
    if visit.phase == Phase.SESSION_COMPLETE.value:
        facts.ended = visit.entered


def _from_state(facts: SessionFacts, state: SessionState) -> None:
    """A running or interrupted session: its checkpoint is the truth about where it stands now."""
    facts.intent = facts.intent or state.intent
    facts.query = facts.query or state.query
    facts.flags = facts.flags or state.flags.typed()
    facts.started = facts.started or state.started_at
    facts.phase, facts.step = state.phase.value, state.step
    facts.tasks = [t.model_dump(mode="json") for t in state.board.tasks]
    facts.counters = {**state.counters.model_dump(), "compaction_count": state.compaction_count}
    facts.forced = list(state.unresolved_issues)
    if not facts.visits or facts.visits[-1].phase != state.phase.value:
        facts.visits.append(PhaseVisit(state.phase.value, state.step, state.updated_at,
                                       note="as the checkpoint holds it"))
    for key, value in (("pre_ready_changes", state.pre_ready_changes), ("test_edits", state.test_edits)):
        if value and not any(c["what"] == key for c in facts.caught):
            facts.caught.append({"what": key, "detail": "; ".join(value)})


def _flags_of(facts: SessionFacts) -> SessionFlags:
    try:
        return parse_flags(facts.flags)
    except CodeIntelError:
        return SessionFlags()


def _skips(facts: SessionFacts) -> list[Skip]:
    """The steps this session did not run, each with why: its flags, its intent, a gate's answer, no trigger."""
    if not facts.intent:
        return []
    flags = _flags_of(facts)
    enabled = enabled_phases(facts.intent, flags)
    columns = active_columns(facts.intent, flags)
    visited = {v.phase for v in facts.visits}
    answers = {v.phase: v.note for v in facts.visits if v.phase in _GATE_FIELDS and v.note.startswith("answered")}
    ended = facts.status == "complete" or facts.phase == Phase.SESSION_COMPLETE.value
    out: list[Skip] = []
    for phase in SEQUENCE:
        if phase is Phase.SESSION_COMPLETE or phase.value in visited:
            continue
        spec = ROUTING[phase]
        if phase not in enabled:
            if flags.only_verify:
                why = "--only-verify runs the checks only"
            elif spec.is_gate and flags.gate == "full":
                why = "--gate=full: no checkpoint questions, every exploration step runs"
            else:
                by = [_FLAG_OF_COLUMN[c] for c in columns if c in spec.skipped_by]
                if not spec.investigation and is_investigation(facts.intent, flags):
                    by.append("--only-explore" if flags.only_explore else f"{facts.intent} sessions explore only")
                why = "skipped by " + ", ".join(by) if by else "not in this session's route"
        elif spec.conditional:
            why = ("not triggered: no stale task branches at the start" if phase is Phase.BRANCH_INTERVENTION
                   else "not triggered: no task failed verification often enough")
        elif spec.gated_by is not None and spec.gated_by.value in answers:
            why = f"skipped: {spec.gated_by.value} {answers[spec.gated_by.value]}"
        elif not ended:
            why = "not reached yet"
        else:
            why = "not run"
        out.append(Skip(spec.step, phase.value, why))
    return out


# ------------------------------------------------------------------ git (read only)
def _git(root: Path, *args: str) -> tuple[int, bytes]:
    try:
        done = processes.run(["git", *args], cwd=root, timeout=GIT_TIMEOUT_S)
    except OSError:
        return 1, b""
    return (1, b"") if done.returncode is None else (done.returncode, done.stdout)


def _is_sha(text: Any) -> TypeGuard[str]:
    return isinstance(text, str) and 7 <= len(text) <= 64 and all(c in "0123456789abcdef" for c in text)


def _git_facts(root: ProjectRoot, facts: SessionFacts) -> None:
    """Each commit's changed files (numstat), read from git when the commit is there."""
    for commit in facts.commits:
        sha = commit.get("commit")
        if not _is_sha(sha):
            continue
        status, out = _git(root.path, "show", "--numstat", "--format=%s", "--no-renames", "--end-of-options", sha)
        if status != 0:
            facts.notes.append(f"commit {sha[:10]} is not in this repository any more")
            continue
        lines = out.decode("utf-8", errors="replace").splitlines()
        commit["subject"] = lines[0] if lines else ""
        changes = []
        for line in lines[1:]:
            parts = line.split("\t", 2)
            if len(parts) == 3:
                added, removed = (None if p == "-" else int(p) for p in parts[:2])
                changes.append(FileChange(parts[2], added, removed))
        commit["changes"] = changes


def _safe_relative(root: ProjectRoot, file: str) -> str | None:
    """`file` as a project-relative path that stays inside the project, or None."""
    posix = PurePosixPath(file.replace("\\", "/"))
    if posix.is_absolute() or ".." in posix.parts or not posix.parts:
        return None
    try:
        resolved = root.resolve(str(posix), kind="evidence file")
    except (CodeIntelError, OSError):
        return None
    return root.relative(resolved)


def _excerpts(root: ProjectRoot, facts: SessionFacts, read_git: bool) -> None:
    """The code each evidence span points at, as the session's last commit holds it (else the working tree)."""
    commit = next((c.get("commit") for c in reversed(facts.commits) if _is_sha(c.get("commit"))), None)
    for task in facts.tasks:
        for item in task.get("checklist") or []:
            ref = item.get("evidence") if isinstance(item, dict) else None
            if not isinstance(ref, str) or ref in facts.excerpts:
                continue
            facts.excerpts[ref] = excerpt_for(root, ref, commit if read_git else None, facts.status)


def excerpt_for(root: ProjectRoot, ref: str, commit: str | None, status: str) -> Excerpt:
    try:
        span = parse_evidence(ref)
    except CodeIntelError as err:
        return Excerpt(ref, ref, 0, 0, "", problem=f"not a file:line span ({err.message})")
    excerpt = Excerpt(ref, span.path, span.start, span.end, "")
    relative = _safe_relative(root, span.path)
    if relative is None:
        excerpt.problem = "outside the project: not shown"
        return excerpt
    text: str | None = None
    if commit is not None:
        status_code, out = _git(root.path, "show", f"{commit}:./{relative}")
        if status_code == 0 and len(out) <= MAX_FILE_BYTES and b"\x00" not in out[:8192]:
            text, excerpt.source = out.decode("utf-8", errors="replace"), f"commit {commit[:10]}"
    if text is None:
        path = root.path / relative
        try:
            if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
                text = path.read_text(encoding="utf-8", errors="replace")
                excerpt.source = "working tree" + (" (not committed)" if status == "complete" else " (now)")
        except OSError:
            text = None
    if text is None:
        excerpt.problem = "the file is not in the commit or the working tree"
        return excerpt
    lines = text.splitlines()
    first = max(1, span.start - EXCERPT_CONTEXT)
    last = min(len(lines), span.end + EXCERPT_CONTEXT, first + MAX_EXCERPT_LINES - 1)
    excerpt.lines = [(n, lines[n - 1]) for n in range(first, last + 1)]
    if not excerpt.lines:
        excerpt.problem = f"the file has {len(lines)} lines; the span is past its end"
    return excerpt


# ------------------------------------------------------------------ what the outcome checks caught
# refusals that caught work done outside the rules, by their message where no error code of their own says so
_CAUGHT_WORDS = ("without the write rules", "changed before the session reached ready", "not changed in this session",
                 "stopped tests", "outside the project")
OUTCOME_ERRORS = frozenset({"unexpected_changes"})  # an error code of its own for the outcome check, should it get one


def _caught(facts: SessionFacts) -> None:
    """Refusals that caught work done outside the rules (changes the session did not make or was not allowed,
    writes the rules did not allow, files changed before READY, tests skipped to pass, evidence in lines the
    session did not change), beside what the end of the session recorded."""
    for refusal in facts.refusals:
        changes = refusal.details.get("unexpected_changes") or refusal.details.get("changes")
        if isinstance(changes, list) and changes:  # the outcome check at a transition (workflow/outcome.py)
            listed = "; ".join(f"{c.get('path')}: {c.get('change')}" if isinstance(c, dict) else str(c) for c in changes)
            facts.caught.append({"what": f"refused at {refusal.phase} ({refusal.error})", "detail": listed})
        elif refusal.error in OUTCOME_ERRORS or any(word in refusal.message.lower() for word in _CAUGHT_WORDS):
            facts.caught.append({"what": f"refused at {refusal.phase} ({refusal.error})", "detail": refusal.message})


# ------------------------------------------------------------------ the terminal's view
_SHORT = {"BRANCH_INTERVENTION": "BRANCH", "DOCUMENT_RESEARCH": "DOCS", "QUERY_FRAME": "FRAME", "EXPLORATION": "EXPLORE",
          "SEMANTIC": "SEMANTIC", "VERIFICATION": "VERIFY", "IMPACT_ANALYSIS": "IMPACT", "POST_IMPL_VERIFY": "POST_VERIFY",
          "VERIFY_INTERVENTION": "INTERVENE", "PRE_COMMIT": "PRE_COMMIT", "QUALITY_REVIEW": "QUALITY",
          "SESSION_COMPLETE": "DONE"}


def timeline_line(facts: SessionFacts, limit: int = 12) -> str:
    """The phases as one line, `DOCS 3s > FRAME 12s > READY/12 ...`, the refusals of each as `!N`; the newest
    `limit` visits (earlier ones counted)."""
    parts = []
    for visit in facts.visits:
        name = _SHORT.get(visit.phase, visit.phase)
        if visit.phase == "READY":
            name += f"/{visit.step}"
        seconds = visit.seconds
        if visit.phase == "SESSION_COMPLETE":
            parts.append(name)
            continue
        time = format_seconds(seconds) if seconds is not None else "now"
        parts.append(f"{name} {time}" + (f" !{visit.refusals}" if visit.refusals else ""))
    if len(parts) > limit:
        parts = [f"({len(parts) - limit} earlier)", *parts[-limit:]]
    return " > ".join(parts)
