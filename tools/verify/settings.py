"""`verify` in `.code-intel/config.json`: the commands the server runs to check a change.

Each command has a name, what to run (an argument list, or one shell line the user wrote), the
globs of changed files that make it relevant (empty: always relevant) and a timeout. These are
plain data models; `code_intel.core.config.Config` carries them under `verify`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_TIMEOUT_S = 600.0
MAX_TIMEOUT_S = 7200.0


class VerifyCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    run: str | list[str] = Field(description="an argument list (no shell), or one shell line run with /bin/sh -c")
    when: list[str] = Field(default_factory=list, description="globs of changed files that make it relevant; empty = always")
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=MAX_TIMEOUT_S)

    @field_validator("run")
    @classmethod
    def _run_not_empty(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, str):
            if not value.strip():
                raise ValueError("run is an empty shell line")
            return value.strip()
        if not value or not all(isinstance(part, str) for part in value) or not value[0].strip():
            raise ValueError("run must be a non-empty argument list whose first item names the program")
        return value

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name is blank")
        return value.strip()

    def shown(self) -> str:
        """The command as a person would type it."""
        if isinstance(self.run, str):
            return self.run
        import shlex

        return shlex.join(self.run)


class VerifySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    commands: list[VerifyCommand] = Field(default_factory=list)
    run_before_change: bool = Field(
        default=True,
        description="on entering READY, run every command once if no run was made before the change, so "
                    "POST_IMPL_VERIFY can tell a test that was already failing from one the change broke")

    @field_validator("commands")
    @classmethod
    def _distinct_names(cls, value: list[VerifyCommand]) -> list[VerifyCommand]:
        names = [c.name for c in value]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"command names must be distinct; repeated: {twice}")
        return value
