"""The phase contract: `.code-intel/phase_contract.yml` first, the built-in copy second.

The built-in copy is `templates/code-intel/phase_contract.yml` (the file init-project installs).
A project file overrides it field by field per phase variant; a field neither file sets takes the
phase registry's default (`phases.py`: required tools, resources, exploration minimum). A malformed project file is refused
(a `ConfigError`, the contract's `tool_unavailable` code) naming the file, the phase and the problem; it is never silently ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from code_intel.core.config import read_yaml
from code_intel.core.errors import ConfigError, validation_problems
from code_intel.core.filecache import WatchedFile
from code_intel.core.project import TEMPLATES_DIR, ProjectRoot
from code_intel.workflow.phases import BY_ID, CONTRACT_IDS

BUILTIN_CONTRACT = TEMPLATES_DIR / "code-intel" / "phase_contract.yml"
CONTRACT_FILE = "phase_contract.yml"


class PhaseContract(BaseModel):
    """One phase variant's contract."""

    model_config = ConfigDict(extra="forbid")
    instruction: str = Field(min_length=1)
    expected_payload: dict[str, str]
    required_tools: list[str] = Field(default_factory=list)
    resources: list[str] = Field(default_factory=list)
    min_exploration_tools: int = Field(default=0, ge=0, le=10)


def _read_phases(file: Path) -> dict[str, dict[str, Any]]:
    try:
        data = read_yaml(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ConfigError(f"{file}: not valid YAML ({err})", hint="fix the file or delete it to use the built-in contract") from None
    except OSError as err:
        raise ConfigError(f"{file}: cannot be read ({err})", hint="make the file readable, or delete it to use the built-in contract") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("phases", {}), dict):
        raise ConfigError(f"{file}: expected a mapping with a 'phases' mapping at the top level",
                          hint="see templates/code-intel/phase_contract.yml for the layout")
    phases = data.get("phases") or {}
    for key, entry in phases.items():
        if key not in CONTRACT_IDS:
            raise ConfigError(f"{file}: unknown phase '{key}'", hint="known phases: " + ", ".join(CONTRACT_IDS))
        if not isinstance(entry, dict):
            raise ConfigError(f"{file}: phase '{key}' must be a mapping of instruction, expected_payload, required_tools, resources",
                              hint="see templates/code-intel/phase_contract.yml for the layout")
    return phases


def _check(file: Path, key: str, merged: dict[str, Any]) -> PhaseContract:
    try:
        contract = PhaseContract.model_validate(merged)
    except ValidationError as err:
        problems = "; ".join(validation_problems(err))
        raise ConfigError(f"{file}: phase '{key}': {problems}", hint="fix the entry or remove it to use the built-in one") from None
    model = BY_ID[key].payload
    if model is not None:
        unknown = sorted(set(contract.expected_payload) - set(model.model_fields))
        if unknown:
            raise ConfigError(
                f"{file}: phase '{key}': expected_payload names fields the server does not accept: {unknown}",
                hint=f"{key} accepts: {sorted(model.model_fields)}",
            )
    return contract


def load_contract(project_file: Path | None) -> dict[str, PhaseContract]:
    """Every phase variant's contract: the project's entries over the built-in ones."""
    builtin = _read_phases(BUILTIN_CONTRACT)
    overrides = _read_phases(project_file) if project_file is not None and project_file.exists() else {}
    contracts: dict[str, PhaseContract] = {}
    for key in CONTRACT_IDS:
        if key not in builtin:
            raise ConfigError(f"{BUILTIN_CONTRACT}: the built-in contract lacks phase '{key}'")
        merged = {**BY_ID[key].contract_defaults(), **builtin[key], **overrides.get(key, {})}
        source = project_file if key in overrides and project_file is not None else BUILTIN_CONTRACT
        contracts[key] = _check(source, key, merged)
    return contracts


class ContractSource:
    """The project's contract, re-read when phase_contract.yml changes."""

    def __init__(self, root: ProjectRoot) -> None:
        self.file = root.state_dir / CONTRACT_FILE
        self._watched = WatchedFile(self.file, load_contract)

    def get(self) -> dict[str, PhaseContract]:
        return self._watched.get()

    def phase(self, key: str) -> PhaseContract:
        return self.get()[key]
