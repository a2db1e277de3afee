"""What the server and the workflow both know of each tool, declared once per tool.

The MCP layer (code_intel_server.py) registers each function decorated with `@tool` under its name here and gives
it the MCP annotations of its `access`; its middleware records the calls of `ledger` tools in the session ledger
and counts the files a `shows_code` tool's answer showed as seen. The workflow reads the same table without the MCP
layer: a tool named in `tools_used` is checked against the ledger when it is one of these, and EXPLORATION needs
two distinct `explores` tools really called.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

Access = Literal["read_only", "stateful", "destructive"]
READ_ONLY: Access = "read_only"
STATEFUL: Access = "stateful"
DESTRUCTIVE: Access = "destructive"


@dataclass(frozen=True)
class ToolFacts:
    access: Access  # reads only; changes the session or the index; may remove the user's branches
    ledger: bool = True  # its calls go into the session ledger (the evidence tools_used is checked against)
    shows_code: bool = False  # its answers show code: the files they name count as seen by the session
    explores: bool = False  # one of the exploration tools EXPLORATION asks for


TOOL_FACTS: MappingProxyType[str, ToolFacts] = MappingProxyType({
    # the session (start_session and get_session_status are recorded after the call: an agent naming them in
    # tools_used really called them; submit_phase is the submit itself)
    "start_session": ToolFacts(STATEFUL),
    "submit_phase": ToolFacts(STATEFUL, ledger=False),
    "get_session_status": ToolFacts(READ_ONLY),
    # exploration
    "search_text": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "search_files": ToolFacts(READ_ONLY, explores=True),  # a list of names shows no code
    "find_definitions": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "find_references": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "get_symbols": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "analyze_structure": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "get_function_at_line": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "analyze_impact": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "query": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "semantic_search": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "fetch_chunk_detail": ToolFacts(READ_ONLY, shows_code=True, explores=True),
    "validate_symbol_relevance": ToolFacts(READ_ONLY),
    # the index, the project's rules, writes, review and checks, branches, outcomes
    "sync_index": ToolFacts(STATEFUL),
    "update_context": ToolFacts(STATEFUL),
    "check_write_target": ToolFacts(READ_ONLY),
    "add_explored_files": ToolFacts(STATEFUL),
    "review_changes": ToolFacts(READ_ONLY),
    "run_checks": ToolFacts(STATEFUL),
    "cleanup_stale_branches": ToolFacts(DESTRUCTIVE),
    "record_outcome": ToolFacts(STATEFUL),
    "get_outcome_stats": ToolFacts(READ_ONLY),
})

SERVER_TOOLS: frozenset[str] = frozenset(TOOL_FACTS)
EXPLORATION_TOOLS: frozenset[str] = frozenset(name for name, facts in TOOL_FACTS.items() if facts.explores)
