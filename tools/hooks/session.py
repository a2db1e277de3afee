"""The active session as the hooks see it: the lock owner's checkpoint, else the newest one.

This is the same choice `code-intel status` makes, read through the checkpoint module's light
`view` (plain JSON). A project without `.code-intel/sessions/` has no session, and nothing is
created there by asking.
"""

from __future__ import annotations

from code_intel.core.project import ProjectRoot
from code_intel.workflow.checkpoint import CheckpointStore, CheckpointView
from code_intel.workflow.lock import ProjectLock


def find_session(root: ProjectRoot) -> CheckpointView | None:
    """The active session, None when there is none; raises CheckpointCorrupt for an unreadable checkpoint."""
    if not (root.state_dir / "sessions").is_dir():
        return None
    store = CheckpointStore(root)
    file = store.active_file(ProjectLock(root).owner())
    return store.view(file) if file is not None else None


def describe(session: CheckpointView) -> str:
    """'EXPLORATION (step 5)' from the checkpoint's last answer, or the bare phase for an older checkpoint."""
    return f"{session.phase} (step {session.step})" if session.step is not None else session.phase
