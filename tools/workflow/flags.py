"""Session flags, parsed on the server from the options exactly as the user typed them.

Long and short forms are both accepted; anything else is `invalid_flag` with the list of valid
options. `--resume`, `--clean` and `--rebuild` are skill-level commands, so they are refused with
the tool to call instead. Contradictory combinations are refused too, rather than guessed at.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from code_intel.core.errors import InvalidFlag

GateLevel = Literal["auto", "full"]


class SessionFlags(BaseModel):
    model_config = ConfigDict(extra="forbid")
    gate: GateLevel = "auto"
    no_verify: bool = False
    no_quality: bool = False
    only_verify: bool = False
    only_explore: bool = False
    fast: bool = False
    quick: bool = False
    no_doc: bool = False
    no_intervention: bool = False

    def typed(self) -> list[str]:
        """The flags in their long form, for responses and logs."""
        out = [f"--gate={self.gate}"] if self.gate != "auto" else []
        for name, option in _LONG_NAMES.items():
            if getattr(self, name):
                out.append(option)
        return out


# field -> (long form, short form or None)
_SWITCHES: dict[str, tuple[str, str | None]] = {
    "no_verify": ("--no-verify", None),
    "no_quality": ("--no-quality", None),
    "only_verify": ("--only-verify", "-v"),
    "only_explore": ("--only-explore", "-e"),
    "fast": ("--fast", "-f"),
    "quick": ("--quick", "-q"),
    "no_doc": ("--no-doc-research", None),
    "no_intervention": ("--no-intervention", "-ni"),
}
_LONG_NAMES = {field: forms[0] for field, forms in _SWITCHES.items()}
_ALIASES: dict[str, str] = {"--no-doc": "no_doc"}  # the matrix column's spelling
_LOOKUP: dict[str, str] = {**_ALIASES}
for _field, (_long, _short) in _SWITCHES.items():
    _LOOKUP[_long] = _field
    if _short:
        _LOOKUP[_short] = _field

_GATE_VALUES: dict[str, GateLevel] = {"f": "full", "full": "full", "a": "auto", "auto": "auto"}
_SKILL_LEVEL: dict[str, str] = {
    "--resume": "call get_session_status to resume an interrupted session",
    "-r": "call get_session_status to resume an interrupted session",
    "--clean": "call cleanup_stale_branches to delete task branches and checkpoints",
    "-c": "call cleanup_stale_branches to delete task branches and checkpoints",
    "--rebuild": "call sync_index with force=true to rebuild the index",
}
_CONFLICTS: list[tuple[str, str]] = [
    ("only_verify", "only_explore"),
    ("only_verify", "fast"),
    ("only_verify", "quick"),
    ("fast", "quick"),
    ("only_explore", "fast"),
    ("only_explore", "quick"),
]
VALID_FLAGS = sorted(_LOOKUP) + ["--gate=full", "--gate=auto", "-g=f", "-g=a"]


def _valid_list() -> str:
    return ", ".join(VALID_FLAGS)


def parse_flags(raw: list[str] | None) -> SessionFlags:
    """SessionFlags from the options as typed; a string holding several options is split on spaces."""
    if raw is None:
        return SessionFlags()
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise InvalidFlag("flags must be a list of strings", hint='send e.g. ["--quick", "-ni"]')
    values: dict[str, object] = {}
    tokens = [token for item in raw for token in item.split()]
    for token in tokens:
        option = token.strip()
        if option in _SKILL_LEVEL:
            raise InvalidFlag(
                f"{option} is not a session flag: {_SKILL_LEVEL[option]}",
                hint="start_session takes only workflow flags; valid: " + _valid_list(),
            )
        if option.startswith(("--gate", "-g")):
            name, _, value = option.partition("=")
            if name not in ("--gate", "-g") or value.lower() not in _GATE_VALUES:
                raise InvalidFlag(
                    f"unknown gate option {option!r}",
                    hint="use --gate=full (-g=f) or --gate=auto (-g=a)",
                )
            values["gate"] = _GATE_VALUES[value.lower()]
            continue
        field = _LOOKUP.get(option)
        if field is None:
            raise InvalidFlag(f"unknown flag {option!r}", hint="valid flags: " + _valid_list())
        values[field] = True
    flags = SessionFlags.model_validate(values)
    for first, second in _CONFLICTS:
        if getattr(flags, first) and getattr(flags, second):
            raise InvalidFlag(
                f"{_LONG_NAMES[first]} and {_LONG_NAMES[second]} contradict each other",
                hint="send only one of them",
            )
    if flags.gate == "full" and (flags.fast or flags.quick):
        raise InvalidFlag(
            "--gate=full forces every exploration phase, which --fast/--quick skip",
            hint="drop one of them",
        )
    return flags
