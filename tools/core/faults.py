"""Test-only fault injection: named points inside crash windows where a test can kill or pause the server.

Nothing happens unless the environment variable CODE_INTEL_FAULTS is set, which only the
reliability tests do when they spawn a server. Its value is a comma-separated list of
`point=action`, where action is `kill` (SIGKILL this process the first time the point is
reached), `kill@N` (the N-th time) or `sleep:S` (pause S seconds, every time). A point name may end
in `*` to match every point with that prefix.

The points sit between the steps of every git operation the workflow takes and around the
checkpoint write, so a test can stop the server exactly where a crash would hurt most and then
check that a restarted server finishes the session.
"""

from __future__ import annotations

import os

ENV = "CODE_INTEL_FAULTS"
_hits: dict[str, int] = {}


def _rules() -> list[tuple[str, str]]:
    spec = os.environ.get(ENV, "")
    rules: list[tuple[str, str]] = []
    for part in spec.split(","):
        point, sep, action = part.strip().partition("=")
        if sep and point and action:
            rules.append((point, action))
    return rules


def hit(point: str) -> None:
    """Mark that execution reached `point`; kills or pauses the process when a rule names it.

    Costs one environment lookup when no rule is set (this module is imported by code the client
    hooks run, so it imports nothing else until a rule is set)."""
    if ENV not in os.environ:
        return
    _hits[point] = count = _hits.get(point, 0) + 1  # tests hit each point from one thread at a time
    for pattern, action in _rules():
        if not (pattern == point or (pattern.endswith("*") and point.startswith(pattern[:-1]))):
            continue
        if action.startswith("sleep:"):
            import time

            time.sleep(float(action.removeprefix("sleep:")))
        elif action == "kill" or (action.startswith("kill@") and count == int(action.removeprefix("kill@"))):
            import logging
            import signal

            logging.getLogger(__name__).warning("fault injection: killing the server at %s (hit %d)", point, count)
            for handler in logging.getLogger().handlers:
                handler.flush()
            os.kill(os.getpid(), signal.SIGKILL)

