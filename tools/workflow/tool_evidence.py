"""Tool evidence: tools_used must name the phase's required tools, and every server tool named
must really have been called (per the ledger) in this phase since the previous accepted submit.

Tools the server cannot see (the client's Edit, Bash, Read) are taken as listed.
"""

from __future__ import annotations

from code_intel.core.errors import PayloadMismatch
from code_intel.core.tool_facts import EXPLORATION_TOOLS, SERVER_TOOLS
from code_intel.workflow.contract import PhaseContract
from code_intel.workflow.ledger import normalise_tool_name

# Naming submit_phase itself is harmless: it is how the payload arrives.
_IMPLICIT = frozenset({"submit_phase"})


def check_tool_evidence(label: str, contract: PhaseContract, tools_used: list[str], called: set[str]) -> None:
    named = {normalise_tool_name(t) for t in tools_used if t.strip()} - _IMPLICIT
    missing = [t for t in contract.required_tools if t not in named]
    if missing:
        raise PayloadMismatch(
            f"{label} requires these tools in tools_used: {missing}",
            hint=f"call {', '.join(missing)} in this phase, then list it in tools_used",
        )
    never_called = sorted(t for t in named if t in SERVER_TOOLS and t not in called)
    if never_called:
        raise PayloadMismatch(
            f"tools_used names {never_called}, but the server has no successful call to "
            f"{'it' if len(never_called) == 1 else 'them'} in {label} since the last accepted submit",
            hint="call the tools for real in this phase (the server keeps a ledger), or remove them from tools_used",
        )
    if contract.min_exploration_tools:
        used = sorted(named & EXPLORATION_TOOLS)
        if len(used) < contract.min_exploration_tools:
            raise PayloadMismatch(
                f"{label} needs at least {contract.min_exploration_tools} different code-intel exploration tools "
                f"really called and named in tools_used; got {used or 'none'}",
                hint="use e.g. find_definitions and search_text: " + ", ".join(sorted(EXPLORATION_TOOLS)),
            )
