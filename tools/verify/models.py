"""What a server-run check reports: plain data, shared by the runner, the workflow and the MCP layer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Verdict = Literal["passed", "failed", "timed_out", "error"]


class CommandOutcome(BaseModel):
    """One command's run: the exit code decides; names and tail say why."""

    name: str
    command: str
    verdict: Verdict
    exit_code: int | None = None  # None when it was killed at its timeout or could not start
    duration_s: float = 0.0
    failing_tests: list[str] = Field(default_factory=list)  # parsed from the output, best effort
    excerpt: list[str] = Field(default_factory=list)  # assertion / error lines, first few
    tail: str = ""  # the last lines of the output (stdout and stderr together)
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def headline(self) -> str:
        """One line: `name failed (exit 1): test_a, test_b`."""
        how = {"passed": "passed", "failed": f"failed (exit {self.exit_code})",
               "timed_out": f"timed out after {self.duration_s:.0f}s and was killed", "error": "could not run"}[self.verdict]
        names = self.failing_tests[:10]
        more = f" (+{len(self.failing_tests) - 10} more)" if len(self.failing_tests) > 10 else ""
        tests = f": {', '.join(names)}{more}" if names else ""
        note = f" [{self.note}]" if self.note and self.verdict == "error" else ""
        return f"{self.name} {how}{tests}{note}"


class SkippedCommand(BaseModel):
    name: str
    reason: str


class CheckReport(BaseModel):
    """The result of one server-run verification."""

    configured: bool  # False: no verify.commands in config.json (the pass is self-reported)
    passed: bool  # every command that ran passed (True when none ran)
    commands: list[CommandOutcome] = Field(default_factory=list)
    skipped: list[SkippedCommand] = Field(default_factory=list)
    changed_files: list[str] | None = None  # what relevance was judged against (None: all commands run)
    relevance: str = ""  # where changed_files came from, in words (the session, the working tree, --changed, --all)
    duration_s: float = 0.0

    @property
    def failed(self) -> list[CommandOutcome]:
        return [c for c in self.commands if not c.passed]

    @property
    def ran(self) -> bool:
        return bool(self.commands)

    def failing_tests(self) -> list[str]:
        return [t for c in self.failed for t in c.failing_tests]

    def failure_text(self, tail_lines: int = 15) -> str:
        """Why the run failed, for a revert reason: each failing command, its tests and its last lines."""
        parts = []
        for c in self.failed:
            parts.append(c.headline())
            lines = (c.excerpt or c.tail.splitlines())[-tail_lines:]
            if lines:
                parts.append("\n".join("    " + line for line in lines))
        return "\n".join(parts)

    def summary(self) -> str:
        if not self.configured:
            return "no verify.commands configured: the pass is self-reported"
        if not self.commands:
            return "no configured command is relevant to the changed files"
        return "; ".join(c.headline() for c in self.commands)


    def view(self) -> dict[str, Any]:
        """The report as every output shows it (run_checks, POST_IMPL_VERIFY's `server_checks`,
        `code-intel check --json`): the fields of CheckRun."""
        return {
            "configured": self.configured,
            "passed": self.passed,
            "summary": self.summary(),
            "commands": [c.model_dump(exclude={"excerpt"} if c.passed else set()) for c in self.commands],
            "skipped": [sk.model_dump() for sk in self.skipped],
            "changed_files": self.changed_files,
            "relevance": self.relevance or None,
            "duration_s": self.duration_s,
            "failing_tests": self.failing_tests(),
        }


def not_configured_view(note: str) -> dict[str, Any]:
    """What run_checks and `code-intel check --json` answer when config.json lists no verify.commands."""
    return {"configured": False, "passed": None, "note": note}


class CheckRun(BaseModel):
    """The server's verify run as it is shown: run_checks' answer, `server_checks` of a POST_IMPL_VERIFY
    response and the JSON of `code-intel check --json` (see CheckReport.view)."""

    configured: bool | None = None  # False when no verify.commands are configured (then passed is None)
    passed: bool | None = None
    note: str | None = None
    summary: str | None = None
    commands: list[CommandOutcome] = Field(default_factory=list)
    skipped: list[SkippedCommand] = Field(default_factory=list)
    changed_files: list[str] | None = None  # the files the `when` globs were matched against; None: every command ran
    relevance: str | None = None  # where those files came from
    duration_s: float | None = None
    failing_tests: list[str] | None = None
