"""Next-phase rules: one small function per phase variant, applied to a validated payload.

Each handler works on a draft copy of the session state (the engine swaps it in only when the
handler returns), may call the git port, and returns a Transition: the next phase (or "advance":
the next phase the matrix runs for this session, which the engine works out), the READY sub-step,
fields to add to the response and, for reverts, the reason shown at planning. The phase registry
(`phases.py`) pairs each handler with its phase variant.

Decision: a failed POST_IMPL_VERIFY that names no failed_tasks counts the failure against the
tasks completed in the latest implementation round (all completed tasks if none are recorded).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from code_intel.core.errors import CodeIntelError, GitError, PayloadMismatch, TaskValidationFailed
from code_intel.core.limits import first_of
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import CommitReport, MergeReport, Phase, ReadySubstep
from code_intel.verify.concerned import Concern, concerned_tests, names_file
from code_intel.verify.counts import TestCounts, fewer_tests
from code_intel.verify.models import CheckReport, CommandOutcome
from code_intel.verify.test_edits import TestEdit, names_edited_test
from code_intel.workflow import payloads as p
from code_intel.workflow.changes import own_change_check, session_changes, session_test_edits
from code_intel.workflow.ports import CheckPort, CheckProgress, GitPort

if TYPE_CHECKING:  # the state module reads the phase registry, which lists these handlers
    from code_intel.workflow.state import SessionState

FAILURE_LIMIT = 3  # task failure_count at which VERIFY_INTERVENTION starts
QUALITY_REVERT_LIMIT = 3  # quality reverts at which the session is forced on to MERGE


@dataclass
class Transition:
    next_phase: Phase | None  # None: advance to the next phase the matrix runs for this session
    ready_substep: ReadySubstep | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    revert_reason: str | None = None


@dataclass
class PhaseContext:
    state: SessionState  # a draft: changes stick only if the handler returns
    payload: Any
    root: ProjectRoot
    git: GitPort
    enabled: frozenset[Phase]  # the phases this session's intent and flags run (matrix.enabled_phases)
    checks: CheckPort | None = None  # the project's verify.commands; None runs nothing
    progress: CheckProgress | None = None  # MCP progress notifications while checks run
    logged_writes: Callable[[], set[str]] = field(default=lambda: set())  # files the hooks' write log allowed in READY
    files_seen: Callable[[], set[str]] = field(default=lambda: set())  # files the session read or was shown (read log)
    # the files among those given that no grant of the user's covers as they are now (workflow/grants.py)
    ungranted: Callable[[list[str]], list[str]] = field(default=lambda files: list(files))
    # what the submit observed, which the session keeps even when the submit is refused (a server run's outcome):
    # each is applied to the draft at once and, on a refusal, to the state as it was (WorkflowEngine.submit_phase)
    observed: list[Callable[[SessionState], None]] = field(default_factory=list)

    def observe(self, change: Callable[[SessionState], None]) -> None:
        change(self.state)
        self.observed.append(change)

    def advance(self, **extras: Any) -> Transition:
        return Transition(None, None, dict(extras))

    def runs(self, phase: Phase) -> bool:
        return phase in self.enabled

    def creates_branch(self) -> bool:
        """Task branches only for sessions that plan and merge (not --quick, investigations, --only-verify)."""
        return self.runs(Phase.READY) and self.runs(Phase.MERGE)

    def relative(self, path: str, kind: str) -> str:
        return self.root.relative(self.root.resolve(path, kind=kind))

    def entry(self, path: str, kind: str) -> str:
        """Project-relative, a symlink named by the path kept as itself (committed or discarded as a link)."""
        return self.root.relative(self.root.resolve_entry(path, kind=kind))


def fold(text: str) -> str:
    """Case and whitespace folded, for quote checks."""
    return " ".join(text.split()).casefold()


# ------------------------------------------------------------------ before READY
def branch_intervention(ctx: PhaseContext) -> Transition:
    payload: p.BranchInterventionPayload = ctx.payload
    info, report = ctx.git.resolve_stale_branches(payload.choice, ctx.state.git)
    if info.branch_policy is None:
        info.branch_policy = payload.choice
    ctx.state.git = info
    return ctx.advance(branch=report)


FREE_TEXT_SLOTS = ("target_feature", "trigger_condition", "observed_issue", "desired_action", "constraints")
_EMPTY_WORDS = {"none", "n/a", "na", "-", "no", "nothing", "no constraints", "unspecified", "not specified"}
MIN_QUOTE_CHARS = 3


def _filled(value: object) -> bool:
    """A slot counts as filled when it says something: blank text, [] and 'none' do not."""
    if isinstance(value, str):
        return bool(value.strip()) and value.strip().casefold() not in _EMPTY_WORDS
    if isinstance(value, list):
        return any(_filled(v) for v in value)
    return False


def query_frame(ctx: PhaseContext) -> Transition:
    payload: p.QueryFramePayload = ctx.payload
    query = fold(ctx.state.query)
    quotes = payload.quotes or {}
    unquoted = [slot for slot in FREE_TEXT_SLOTS if _filled(getattr(payload, slot)) and slot not in quotes]
    if unquoted:
        raise PayloadMismatch(
            f"slot(s) {unquoted} are filled but have no quote from the request",
            hint="add quotes: {slot: 'words copied from the request that back it'} for each filled slot, "
            "or leave a slot empty (null, '' or []) when the request does not say it",
        )
    for slot, quote in quotes.items():
        if not quote.strip():
            raise PayloadMismatch(f"quote for slot '{slot}' is empty", hint="quote the words of the request that back the slot, or leave the slot out")
        if len(fold(quote)) < MIN_QUOTE_CHARS:
            raise PayloadMismatch(f"quote for slot '{slot}' is too short to back anything: {quote!r}",
                                  hint="quote the words of the request that say what the slot says")
        if fold(quote) not in query:
            raise PayloadMismatch(
                f"quote for slot '{slot}' does not appear in the user's request: {quote!r}",
                hint="copy the words verbatim from the request (case and spacing may differ), or leave the slot out",
            )
    ctx.state.target_symbols = list(payload.target_symbols)
    return ctx.advance()


def refuse_unread(root: ProjectRoot, files: list[str], seen: Callable[[], set[str]], field_name: str, *,
                  error: type[CodeIntelError] = PayloadMismatch, after: str = "") -> None:
    """Refuse (`error`, its message ending in `after`) when `files` (project-relative) name an existing file the
    session never saw: one its read log does not name. A path that names no file yet (one the agent will
    create) or a folder needs no reading."""
    existing = [f for f in files if (root.path / f).is_file()]
    if not existing:
        return
    known = seen()
    unseen = [f for f in existing if f not in known]
    if not unseen:
        return
    shown = ", ".join(unseen[:10]) + (f" and {len(unseen) - 10} more" if len(unseen) > 10 else "")
    raise error(f"{field_name} names {len(unseen)} file(s) this session never read or was shown: {shown}{after}",
                hint="read each of them before you list it (your Read tool, or cat / sed -n in the shell, which "
                     "code-intel's hooks log; or a code-intel answer showing it, such as get_symbols or a search_text "
                     "hit in it), then send again; or leave out the files you did not read. A file you are going to "
                     "create needs no reading")


def document_research(ctx: PhaseContext) -> Transition:
    payload: p.DocumentResearchPayload = ctx.payload
    files = []
    for entry in payload.documents_reviewed:  # entries that are no path in the project (a URL, a title) pass
        try:
            files.append(ctx.relative(entry, "document"))
        except CodeIntelError:
            continue
    refuse_unread(ctx.root, files, ctx.files_seen, "documents_reviewed")
    return ctx.advance()


def exploration(ctx: PhaseContext) -> Transition:
    payload: p.ExplorationPayload = ctx.payload
    files = [ctx.relative(f, "explored file") for f in payload.explored_files]
    refuse_unread(ctx.root, files, ctx.files_seen, "explored_files")
    ctx.state.add_explored(files)
    ctx.git.remember_baseline(ctx.state.git, files)  # outside git: their content before READY may change them
    return ctx.advance()


def gate(question: Phase, answer_field: str) -> Callable[[PhaseContext], Transition]:
    """Q1/Q2/Q3: record the answer; the matrix then runs or skips the gated phase."""
    def handle(ctx: PhaseContext) -> Transition:
        ctx.state.gate_answers[question.value] = bool(getattr(ctx.payload, answer_field))
        return ctx.advance()
    return handle


def advance(ctx: PhaseContext) -> Transition:
    """Phases whose payload only needs validating (and its summary keeping)."""
    return ctx.advance()


# ------------------------------------------------------------------------ READY
def _task_fields(ctx: PhaseContext) -> dict[str, Any]:
    board = ctx.state.board
    task = board.next_pending()
    out: dict[str, Any] = {"progress": board.progress()}
    if task is not None:
        out["next_task"] = {"id": task.id, "description": task.description,
                            "checklist": [i.item for i in task.checklist]}
    return out


def ready_planning(ctx: PhaseContext) -> Transition:
    payload: p.ReadyPlanningPayload = ctx.payload
    s = ctx.state
    s.board.plan(payload.tasks)
    extras = _task_fields(ctx)
    wants_branch = ctx.creates_branch() and s.git.is_repo and s.git.branch_policy != "continue"
    if wants_branch and not s.git.task_branch:
        s.git = ctx.git.create_task_branch(s.session_id, s.git)
        extras["task_branch"] = s.git.task_branch
    s.revert_reason = None
    return Transition(Phase.READY, "implementation", extras)


def ready_implementation(ctx: PhaseContext) -> Transition:
    payload: p.ReadyImplementationPayload = ctx.payload
    board = ctx.state.board
    s = ctx.state
    own_change = own_change_check(ctx.git, s.git, s.pre_ready_changes) if s.tracks_changes else None
    board.complete(payload.task_id, payload.checklist, ctx.root, own_change)
    if board.all_complete():
        return Transition(Phase.READY, "completion", {"all_complete": True, "progress": board.progress()})
    return Transition(Phase.READY, "implementation", _task_fields(ctx))


def ready_completion(ctx: PhaseContext) -> Transition:
    board = ctx.state.board
    if not board.all_complete():
        pending = [t.id for t in board.tasks if t.status != "completed"]
        raise TaskValidationFailed(
            f"implementation is not complete: pending tasks {pending}",
            hint=f"report {pending[0]!r} with its checklist (task_id, checklist, summary, tools_used) first",
        )
    note_test_edits(ctx)
    return ctx.advance()


def note_test_edits(ctx: PhaseContext, report: CheckReport | None = None) -> list[TestEdit]:
    """Measure which tests the session removed, skipped, focused or rewrote so far, and keep them in the state (they
    are told at PRE_COMMIT, QUALITY_REVIEW and SESSION_COMPLETE: code_intel.workflow.responses.tests_told), each marked
    when it had failed in the session's own run, after the change or before it; with the server's `report`, add
    each command that ran fewer tests or skipped more than before the change."""
    s = ctx.state
    if not s.tracks_changes:
        return []
    try:
        edits = session_test_edits(ctx.git, s.git, ctx.root, ctx.git.changed_since_snapshot(s.git))
    except GitError:  # told, not judged: a git hiccup here must not refuse the submit; the next one measures again
        return []

    before = s.failed_before_change

    def after_failing(edit: TestEdit) -> str:
        if edit.kind == "focused":
            return ""
        if any(names_edited_test(t, edit) for t in s.failed_after_change):
            return ", after it failed in this session's run"
        if any(names_edited_test(t, edit) for t in before):  # a test that failed before, now fitted to pass?
            return ", after it failed in this session's run before the change"
        return ""

    s.test_edits = [e.text() + after_failing(e) for e in edits] + (_fewer_tests(s, report) if report is not None else [])
    return edits


def _fewer_tests(s: SessionState, report: CheckReport) -> list[str]:
    """Each command of `report` whose runner counted fewer tests run, or more skipped, than in the run before the
    change (code_intel.verify.counts); the count catches what no file says, such as a test path dropped from a config."""
    before = {c.command: c for c in s.checks_before_change}
    found = []
    for command in report.commands:
        earlier = before.get(command.command)
        if earlier is not None and (said := fewer_tests(
                command.name, TestCounts(earlier.tests_ran, earlier.tests_skipped),
                TestCounts(command.tests_ran, command.tests_skipped))):
            found.append(said)
    return found


def _skipped_failures(s: SessionState, edits: list[TestEdit]) -> list[str]:
    """The skips and focuses that stop a test the change made fail from running, each with that test, unless the
    request names or describes the test."""
    if not s.failed_after_change:
        return []
    asked = concerned_tests(s.query, [])
    found = []
    for edit in edits:
        if edit.kind in ("removed", "rewritten"):  # told, not refused: a change of behaviour does both
            continue
        if edit.kind == "focused":  # the focused test runs; the file's other tests do not
            hit = [t for t in s.failed_after_change if names_file(t, edit.file) and not names_edited_test(t, edit)]
        else:
            hit = [t for t in s.failed_after_change if names_edited_test(t, edit)]
        hit = [t for t in hit if asked(t) is None]
        if hit:
            found.append(f"{edit.text()}, after {first_of(hit)} failed in this session's run")
    return found


# ------------------------------------------------------------ verification loop
def _revert(reason: str) -> Transition:
    return Transition(Phase.READY, "planning", {"reverted": True}, revert_reason=reason)


MAX_FAILED_KEPT = 200  # tests the change made fail, kept for telling a skipped one (SessionState.failed_after_change)
SELF_REPORTED = "no verify.commands are configured, so this pass is self-reported (add commands to .code-intel/config.json)"


# Where run_checks and POST_IMPL_VERIFY take the changed files from (shown as `relevance`).
SESSION_RELEVANCE = "files changed since the session started"
NO_BASELINE_RELEVANCE = "every command: the session has no starting point to compare against"
BEFORE_CHANGE_RELEVANCE = ("every command: the session has changed nothing yet, so this run shows what fails before "
                           "the change (POST_IMPL_VERIFY does not hold a test that failed here against the change)")


def session_checks(checks: CheckPort, git: GitPort, state: SessionState, root: ProjectRoot,
                   progress: CheckProgress | None = None, *, reuse: bool = False) -> tuple[CheckReport, Concern | None]:
    """The commands relevant to the session's changed files, run in the project root (run_checks and
    POST_IMPL_VERIFY both come here). `reuse` may answer an earlier run on exactly the same files.

    While the session has changed nothing, every command runs: that run is the state before the change
    (`before_change` below). A later failing run is compared with the one kept in the state, by which failing
    tests the session is about: that judgement is returned too (None when nothing was compared), so that a
    refusal explains it without working it out again."""
    changed = git.changed_since_snapshot(state.git) if state.tracks_changes else None
    if before_change(changed):
        report = checks.run(None, progress=progress)
        report.relevance = BEFORE_CHANGE_RELEVANCE
    else:
        report = checks.run(changed, progress=progress, reuse=reuse and state.git.is_repo and changed is not None)
        report.relevance = SESSION_RELEVANCE if changed is not None else NO_BASELINE_RELEVANCE
    concerned = session_concerns(checks, git, state, root, changed) if state.checks_before_change and changed else None
    if concerned is not None:
        report.compare_with(state.checks_before_change, concerned)
    return report, concerned


def session_concerns(checks: CheckPort, git: GitPort, state: SessionState, root: ProjectRoot,
                     changed: list[str]) -> Concern:
    """Why the session is about a failing test, or None: by its request, and by the files it changed (`changed`) or
    that were changed when it began (code_intel.verify.concerned); else by the test's source, when it calls a function
    the session changed or the session changed it (code_intel.verify.exercised, read once, for the tests that failed
    before)."""
    by_name = concerned_tests(state.query, [*changed, *git.changed_at_start(state.git)])
    exercised: dict[str, str] | None = None

    def concerned(name: str) -> str | None:
        nonlocal exercised
        if reason := by_name(name):
            return reason
        if exercised is None:
            before = state.failed_before_change
            exercised = checks.exercising(before, session_changes(git, state.git, root, changed)) if before else {}
        return exercised.get(name)

    return concerned


def before_change(changed: list[str] | None) -> bool:
    """The session can measure its changes and has made none."""
    return changed is not None and not changed


def record_run(state: SessionState, report: CheckReport) -> None:
    """Note a server run in the state: its summary, and its outcomes when it ran before any change (bounded: each
    tail is at most a few KB)."""
    state.last_check = report.summary()
    if report.relevance == BEFORE_CHANGE_RELEVANCE:
        state.checks_before_change = [c.model_copy() for c in report.commands]
    elif report.relevance == SESSION_RELEVANCE:  # the tests held against the change: new, or old ones it is about
        earlier = {c.command: set(c.failing_tests) for c in state.checks_before_change}
        failed = [t for c in report.new_failures for t in c.failing_tests
                  if t not in earlier.get(c.command, set()) or t in (c.held or {})]
        state.failed_after_change = list(dict.fromkeys([*state.failed_after_change, *failed]))[:MAX_FAILED_KEPT]


def checks_at_ready(ctx: PhaseContext) -> dict[str, Any] | None:
    """On first entering READY, once the caller found nothing changed since the start: the run before the change
    (every command), unless the session has one (run_checks in VERIFICATION) or will not be judged at
    POST_IMPL_VERIFY. Kept in the state; returns what the response shows of it (None: not run)."""
    state, checks = ctx.state, ctx.checks
    if (checks is None or state.checks_before_change or not checks.configured() or not checks.runs_before_change()
            or not ctx.runs(Phase.POST_IMPL_VERIFY)):
        return None
    report = checks.run(None, progress=ctx.progress)  # the caller's diff said nothing changed: no second one
    report.relevance = BEFORE_CHANGE_RELEVANCE
    record_run(state, report)
    if report.passed:
        note = "every check passes before the change"
    else:
        note = ("these fail before anything is changed; at POST_IMPL_VERIFY a test failing here with the same errors "
                "is not held against the change, unless the request names or describes it, its file was changed before or "
                "during the session, or it calls a function the session changed (a command that names no failing test "
                "always counts)")
    return report.brief(note)


def run_checks(ctx: PhaseContext) -> tuple[CheckReport, Concern | None] | None:
    """The server's own run at POST_IMPL_VERIFY, and which failing tests it found the session is about; None when
    no verify.commands are configured."""
    if ctx.checks is None or not ctx.checks.configured():
        return None
    return session_checks(ctx.checks, ctx.git, ctx.state, ctx.root, ctx.progress, reuse=True)


def post_impl_verify(ctx: PhaseContext) -> Transition:
    payload: p.PostImplVerifyPayload = ctx.payload
    s = ctx.state
    run = run_checks(ctx)
    report, concerned = run if run is not None else (None, None)
    extras = _checks_seen(ctx, report)
    # Tests that were failing before the session changed anything are not the change's failures.
    server_failed = report is not None and bool(report.new_failures)
    if server_failed and payload.passed:
        assert report is not None
        _refuse_claimed_pass(report, concerned, s.checks_before_change)
    edits = note_test_edits(ctx, report)
    if payload.passed and (skipped := _skipped_failures(s, edits)):
        raise PayloadMismatch(
            "passed is true, but the session stopped tests its change made fail from running: " + "; ".join(skipped),
            hint="a skipped test hides its failure instead of fixing it: send passed: false with this in details, then "
            "in READY take the skip (or the focus) out again and fix the code until the test passes. If the user "
            "wants the test skipped, ask them; their request did not name it",
        )
    if s.test_edits:
        extras["test_edits"] = s.test_edits
    if s.flags.only_verify:
        verification = {"passed": payload.passed and not server_failed, "details": payload.details}
        return Transition(Phase.SESSION_COMPLETE, None, {**extras, "verification": verification})
    if payload.passed:
        return ctx.advance(**extras)
    return _verification_failed(ctx, report if server_failed else None, extras)


def _checks_seen(ctx: PhaseContext, report: CheckReport | None) -> dict[str, Any]:
    """The answer's note on the server's own run (or that the result is self-reported); the run is kept in the
    state even when the submit is refused, with the failures that were there before the change excused."""
    if report is None:
        return {"verification_note": SELF_REPORTED}
    extras: dict[str, Any] = {"server_checks": report.view()}
    ctx.observe(lambda state: record_run(state, report))  # a refused pass still saw what failed
    ctx.state.excused_failures = [t for c in report.failed if c.failed_before == "same_tests" for t in c.failing_tests]
    if not report.passed and not report.new_failures:
        extras["verification_note"] = ("the checks fail only in tests that were failing before the session changed "
                                       "anything: " + "; ".join(c.headline() for c in report.failed))
    return extras


def _refuse_claimed_pass(report: CheckReport, concerned: Concern | None, before: list[CommandOutcome]) -> None:
    """passed: true against a failing server run: refused, with what failed and why it counts against the change."""
    failing = [t for c in report.new_failures for t in c.failing_tests]
    unusable = [c.name for c in report.new_failures if c.failed_before == "same_output"]
    hint = ("send passed: false with the failure in details (the server's run decides), or fix the code "
            "in READY first; run_checks shows the same run" + (f". Failing tests: {', '.join(failing[:10])}" if failing else ""))
    if concerned is not None:
        hint += _failing_before_too(report, before, concerned)
    elif report.relevance == BEFORE_CHANGE_RELEVANCE:
        hint += (". The session has changed nothing since it started, so nothing excuses these failures: make the "
                 "change the request asks for in READY; if it needs none, say so in details with passed: false and "
                 "ask the user how to go on")
    if unusable:
        hint = (f"{', '.join(unusable)} failed the same way before this session changed anything, so it cannot "
                "judge this change: tell the user, who can fix or narrow the command in .code-intel/config.json "
                "(verify.commands) or start the session again with --no-verify; meanwhile send passed: false")
    raise PayloadMismatch(
        "passed is true, but the server's own run failed: " + "; ".join(c.headline() for c in report.new_failures),
        hint=hint,
        server_checks={key: value for key, value in report.view().items() if value is not None},  # as on a pass
    )


def _verification_failed(ctx: PhaseContext, failed_run: CheckReport | None, extras: dict[str, Any]) -> Transition:
    """A failed verification counts against its tasks; at the limit it goes to VERIFY_INTERVENTION, else back
    to READY with the reason (the server's failing run first when there is one)."""
    payload: p.PostImplVerifyPayload = ctx.payload
    s = ctx.state
    s.counters.verification_failure_count += 1
    reason = payload.details
    touched: set[str] | None = None
    if failed_run is not None:
        reason = f"the server's checks failed:\n{failed_run.failure_text()}" + (f"\nagent: {payload.details}" if payload.details.strip() else "")
        touched = set(failed_run.changed_files or [])
    counted = s.board.record_failures(payload.failed_tasks or None, reason, touched)
    extras["failure_counts"] = {t.id: t.failure_count for t in counted}
    if s.board.max_failure_count() >= FAILURE_LIMIT and ctx.runs(Phase.VERIFY_INTERVENTION):
        return Transition(Phase.VERIFY_INTERVENTION, None, extras)
    transition = _revert(f"verification failed: {reason}")
    transition.extras.update(extras)
    return transition


def _failing_before_too(report: CheckReport, before: list[CommandOutcome], concerned: Concern) -> str:
    """For a refusal's hint: why tests held against the change count although they failed `before` it too. The report
    has been compared with `before` by `concerned`, which marked each command's `held`."""
    earlier = {c.command: set(c.failing_tests) for c in before}
    about: dict[str, str] = {}  # test -> why the session is about it
    along: list[str] = []  # excusable alone, held because another test of their command is (new, or the session's)
    changed: list[str] = []  # their command's errors differ from before
    for command in report.new_failures:
        old = [t for t in command.failing_tests if t in earlier.get(command.command, set())]
        mine = command.held or {}  # the old failures the session is about, each with why (CheckReport.compare_with)
        about.update(mine)
        held = len(old) < len(command.failing_tests) or any(concerned(t) for t in command.failing_tests)
        (along if held else changed).extend(t for t in old if t not in mine)
    parts = []
    if len(about) == 1:
        [(test, why)] = about.items()
        parts.append(f"{test} failed before the change too, but the session is about it ({why}), so it counts "
                     "however it fails")
    elif about:
        whys = first_of([f"{test}: {why}" for test, why in about.items()], sep="; ")
        parts.append(f"{first_of(list(about))} failed before the change too, but the session is about them ({whys}), "
                     "so they count however they fail")
    if along:
        parts.append(f"{first_of(along)} failed before the change too and would not count alone: once the other "
                     "failing tests pass, a run failing only there with the same errors as before is accepted")
    if changed:
        parts.append(f"{first_of(changed)} failed before the change too, but with other errors now")
    return "".join(". " + part for part in parts)


def verify_intervention(ctx: PhaseContext) -> Transition:
    payload: p.VerifyInterventionPayload = ctx.payload
    s = ctx.state
    escalated = s.counters.intervention_count >= 2
    s.counters.intervention_count += 1
    s.board.reset_failures()
    kind = "user escalation" if escalated else "intervention"
    return _revert(f"{kind} ({payload.prompt_used}): {payload.action_taken}")


# ------------------------------------------------------------- commit and merge
def pre_commit(ctx: PhaseContext) -> Transition:
    payload: p.PreCommitPayload = ctx.payload
    s = ctx.state
    reviewed = [ctx.entry(f, "reviewed file") for f in payload.reviewed_files]
    discarded = [ctx.entry(f, "discarded file") for f in payload.discarded_files]
    reallowed = [ctx.relative(f, "re-allowed file") for f in payload.reallowed_files]
    both = sorted(set(reviewed) & set(discarded))
    if both:
        raise PayloadMismatch(f"files are both reviewed and discarded: {both}", hint="put each file in one list only")
    if not (s.git.is_repo or s.git.snapshot):
        return ctx.advance(commit=CommitReport(committed=False, note=s.git.note or "not a git repository: nothing to commit"))
    kept = [f for f in ctx.git.changed_since_snapshot(s.git) if f not in set(discarded)]
    _check_commit_lists(ctx, kept, reviewed, reallowed)
    if not kept and not discarded:
        return ctx.advance(commit=CommitReport(committed=False, note="no changes since the session started"))
    info, report = ctx.git.commit(s.git, reviewed, discarded, payload.commit_message)
    s.git = info
    if discarded:  # a discarded test file is back as it was
        note_test_edits(ctx)
    return ctx.advance(commit=report)


def _check_commit_lists(ctx: PhaseContext, kept: list[str], reviewed: list[str], reallowed: list[str]) -> None:
    """Refuse a commit that would keep a file the session may not keep: changed before READY without the user's
    consent, changed without the write rules allowing it, or left out of reviewed_files."""
    s = ctx.state
    not_flagged = sorted(set(reallowed) - set(s.pre_ready_changes))
    if not_flagged:
        raise PayloadMismatch(
            f"reallowed_files names files that were not flagged as changed before READY: {not_flagged}",
            hint=f"reallowed_files is only for the files flagged at READY ({s.pre_ready_changes or 'none'})",
        )
    unconsented = ctx.ungranted(reallowed)
    if unconsented:
        raise PayloadMismatch(
            f"keeping files changed before READY needs the user's own consent, and none covers {unconsented} as "
            "they are now: reallowed_files alone grants nothing",
            hint="ask the user, naming the files and why to keep them: they confirm in the prompt their client shows "
            "on this submit (where the client supports it), or run `code-intel allow FILE...` in their own "
            "terminal; then submit again. Otherwise put the files in discarded_files",
        )
    early = [f for f in kept if f in set(s.pre_ready_changes) and f not in set(reallowed)]
    if early:
        raise PayloadMismatch(
            f"files changed before the session reached READY, when writing was not allowed: {early}",
            hint="put them in discarded_files to restore them to how they were at session start, or, after the "
            "user agreed to keep them, in reallowed_files (and in reviewed_files)",
        )
    permitted = set(s.allowed_writes) | ctx.logged_writes() | set(reallowed)
    outside = [f for f in kept if f not in permitted]
    if outside:
        raise PayloadMismatch(
            f"files changed without the write rules allowing them during READY: {outside}",
            hint="put them in discarded_files to restore them to their content at session start. A file is committed "
            "only when check_write_target answered allowed for it during READY (or the client hook allowed the write): "
            "call check_write_target before writing a file",
        )
    unaccounted = [f for f in kept if f not in set(reviewed)]
    if unaccounted:
        earlier = (" This session already committed to the task branch at an earlier PRE_COMMIT: the list covers "
                   "everything changed since the session started, committed or not (review_changes marks committed "
                   "files in_branch_commits). List those in reviewed_files to keep them; discarded_files would "
                   "restore them as they were at session start." if s.git.commits else "")
        raise PayloadMismatch(
            f"changed files missing from reviewed_files and discarded_files: {unaccounted}.{earlier}",
            hint="list every changed file (see review_changes) in exactly one of the two lists",
        )


def quality_review(ctx: PhaseContext) -> Transition:
    payload: p.QualityReviewPayload = ctx.payload
    s = ctx.state
    issues = [i for i in payload.issues if i.strip()]
    if not issues:
        return ctx.advance()
    s.counters.quality_revert_count += 1
    if s.counters.quality_revert_count >= QUALITY_REVERT_LIMIT and ctx.runs(Phase.MERGE):
        s.unresolved_issues = issues  # kept in the state: MERGE and SESSION_COMPLETE keep saying so (responses.py)
        return Transition(Phase.MERGE, None)
    return _revert("quality review found issues: " + "; ".join(issues))


def merge(ctx: PhaseContext) -> Transition:
    s = ctx.state
    if s.git.is_repo and s.git.task_branch:
        info, report = ctx.git.merge(s.git)
        s.git = info
    else:
        report = MergeReport(merged=False, note=s.git.note or "no task branch to merge: the work stays on the current branch")
    return Transition(Phase.SESSION_COMPLETE, None, {"merge": report})
