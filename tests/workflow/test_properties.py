"""Property-based tests: random sequences of submit_phase (good payloads, broken ones, huge ones,
JSON strings, compaction counts) and restarts, checked after every step against the invariants:

- the phase (and step) moves only when a submit is accepted;
- counters, completed steps and the evidence window never go down while the session lives;
- the checkpoint on disk always loads, matches the engine's phase and stays under its 256 KB cap.

Bounded (examples x steps) so the suite stays fast; the engine runs on the in-memory FakeGit.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from code_intel.core.project import ProjectRoot
from code_intel.workflow.checkpoint import MAX_CHECKPOINT_BYTES, CheckpointStore
from tests.workflow.conftest import APP_CODE, Driver, FakeGit, make_engine

SESSIONS = [("IMPLEMENT", []), ("IMPLEMENT", ["--fast"]), ("MODIFY", ["--no-doc-research", "-g=f"]),
            ("INVESTIGATE", []), ("IMPLEMENT", ["--quick"])]
BROKEN = ["drop_field", "blank_summary", "wrong_type", "json_string", "not_an_object", "unknown_field"]


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._tmp = tempfile.TemporaryDirectory(prefix="code-intel-props-")
        folder = Path(self._tmp.name).resolve()
        (folder / "src").mkdir()
        (folder / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
        (folder / "README.md").write_text("# sample\n", encoding="utf-8")
        self.root = ProjectRoot.from_args(folder)
        self.git = FakeGit(root=folder)
        self.store = CheckpointStore(self.root)
        self._new_engine()
        self.before: dict[str, Any] | None = None
        self.accepted: bool | None = None
        self.session_id: str | None = None

    def _new_engine(self) -> None:
        self.engine = make_engine(self.root, self.git)
        self.driver = Driver(self.engine, self.git, self.root)

    # ------------------------------------------------------------ observing
    def _state(self) -> Any:
        live = self.engine.live  # the properties are about the server's own state
        return live.state if live is not None else None

    def _observe(self) -> dict[str, Any] | None:
        state = self._state()
        if state is None:
            return None
        return {"session_id": state.session_id, "phase": state.phase.value, "step": state.step,
                "counters": state.counters.model_dump(), "completed": set(state.completed_steps),
                "window": state.window, "tasks": len(state.board.tasks)}

    def _status(self) -> dict[str, Any]:
        return self.driver.status()

    def _submit(self, data: Any) -> None:
        self.before = self._observe()
        resp = self.driver.submit(data, echo=isinstance(data, dict))
        self.accepted = bool(resp.get("success"))
        if not self.accepted:
            assert resp.get("error") and resp.get("message"), resp

    # ------------------------------------------------------------ rules
    @precondition(lambda self: self.engine.live is None)
    @rule(choice=st.sampled_from(SESSIONS))
    def start(self, choice: tuple[str, list[str]]) -> None:
        intent, flags = choice
        resp = self.driver.start(intent=intent, flags=list(flags))
        if resp.get("recovery_available"):
            resp = self._status()
        assert resp["success"], resp
        self.session_id = resp["session_id"]
        self.before, self.accepted = None, None

    @precondition(lambda self: self.engine.live is not None)
    @rule(huge=st.booleans())
    def good_submit(self, huge: bool) -> None:
        resp = self._status()
        payload = self.driver.payload(resp)
        if huge:  # valid but enormous: the checkpoint must still fit
            payload["summary"] = "s" * 300_000
            for key, value in list(payload.items()):
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                    payload[key] = value + [f"{value[0]}#{i}" * 20 for i in range(2000)]
        self._submit(payload)

    @precondition(lambda self: self.engine.live is not None)
    @rule(kind=st.sampled_from(BROKEN), pick=st.integers(min_value=0, max_value=20))
    def broken_submit(self, kind: str, pick: int) -> None:
        good = self.driver.payload(self._status())
        keys = sorted(good)
        key = keys[pick % len(keys)]
        data: Any
        if kind == "drop_field":
            data = {k: v for k, v in good.items() if k != key}
        elif kind == "blank_summary":
            data = {**good, "summary": "   "}
        elif kind == "wrong_type":
            data = {**good, key: {"unexpected": [1, 2]} if not isinstance(good[key], dict) else 12345}
        elif kind == "json_string":
            data = json.dumps(good)
        elif kind == "not_an_object":
            data = [good] if pick % 2 else None
        else:
            data = {**good, f"bogus_{pick}": pick}
        self._submit(data)
        if kind in ("json_string", "not_an_object", "blank_summary", "unknown_field"):
            assert self.accepted is False, f"{kind} must be refused"

    @precondition(lambda self: self.engine.live is not None)
    @rule(count=st.integers(min_value=-3, max_value=6))
    def compaction(self, count: int) -> None:
        payload = self.driver.payload(self._status())
        self.driver.compaction_count = count
        self.before = self._observe()
        resp = self.driver.submit({**payload, "compaction_count": count}, echo=False)
        self.accepted = bool(resp.get("success"))
        if count < 0:
            assert self.accepted is False
        if "compaction_count" in resp:
            self.driver.compaction_count = resp["compaction_count"]

    @precondition(lambda self: self.engine.live is not None)
    @rule()
    def restart(self) -> None:
        """A crash and a new server: nothing is closed or flushed, the next engine reads the checkpoint."""
        before = self._observe()
        self._new_engine()
        status = self._status()
        assert status["success"], status
        after = self._observe()
        assert after is not None and before is not None
        assert (after["phase"], after["step"], after["counters"]) == (before["phase"], before["step"], before["counters"])
        assert after["completed"] == before["completed"]
        self.before, self.accepted = None, None

    # ------------------------------------------------------------ invariants
    @invariant()
    def phase_moves_only_on_acceptance(self) -> None:
        if self.before is None or self.accepted is None:
            return
        after = self._observe()
        if not self.accepted:
            assert after is not None, "a refusal never ends the session"
            assert (after["phase"], after["step"]) == (self.before["phase"], self.before["step"])
            assert after["counters"] == self.before["counters"] and after["window"] == self.before["window"]
            assert after["completed"] == self.before["completed"] and after["tasks"] == self.before["tasks"]
        elif after is not None and after["session_id"] == self.before["session_id"]:
            assert after["window"] == self.before["window"] + 1
            for name, value in self.before["counters"].items():
                assert after["counters"][name] >= value, f"{name} went down without a reset"
            assert after["completed"] >= self.before["completed"]

    @invariant()
    def checkpoint_is_valid_and_small(self) -> None:
        state = self._state()
        files = self.store.files()
        if state is None:
            assert not [f for f in files if f.stem == self.session_id], "a finished session leaves no checkpoint"
            return
        file = self.store.path_for(state.session_id)
        assert file.exists()
        assert file.stat().st_size <= MAX_CHECKPOINT_BYTES
        loaded, _ = self.store.load(file)
        assert loaded.session_id == state.session_id
        assert (loaded.phase, loaded.ready_substep) == (state.phase, state.ready_substep)
        assert loaded.counters == state.counters

    def teardown(self) -> None:
        self._tmp.cleanup()


SessionMachine.TestCase.settings = settings(
    max_examples=12, stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_random_submit_sequences_keep_the_invariants = SessionMachine.TestCase
