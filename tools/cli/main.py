"""`code-intel` command line: serve, init, doctor, index, search, status, report, clean, check, allow, demo, hook.

Each subcommand's work lives in the package that owns it; this module only parses arguments
and imports the implementation lazily, so `code-intel --help` stays instant.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

# subcommand -> "module:function"; the function takes the parsed namespace and returns an exit code.
COMMANDS: dict[str, str] = {
    "init": "code_intel.context.installer:run_init",
    "doctor": "code_intel.cli.doctor:run_doctor",
    "index": "code_intel.cli.index:run_index",
    "search": "code_intel.cli.index:run_search",
    "status": "code_intel.cli.status:run_status",
    "report": "code_intel.cli.report:run_report",
    "clean": "code_intel.cli.status:run_clean",
    "check": "code_intel.cli.check:run_check",
    "allow": "code_intel.cli.allow:run_allow",
    "demo": "code_intel.cli.demo:run_demo",
    "hook": "code_intel.hooks.run:run_hook",
}


def _project_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", help="project root (default: $CODE_INTEL_PROJECT, else the working directory)")


def build_parser() -> argparse.ArgumentParser:
    import argparse  # not at module level: `code-intel hook` must not pay for it

    parser = argparse.ArgumentParser(prog="code-intel", description="Guided, server-enforced coding sessions over MCP.")
    parser.add_argument("--version", action="store_true", help="print the version, Python and install folder")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_setup_commands, _index_commands, _session_commands, _client_commands):
        add(sub)
    return parser


def _setup_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """serve, init, doctor."""
    serve = sub.add_parser("serve", help="run the MCP server over stdio")
    _project_arg(serve)
    serve.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])

    init = sub.add_parser("init", help="write .code-intel/, the /code skill, hooks and .mcp.json into a project")
    init.add_argument("dir", nargs="?", default=".", help="project folder (default: current folder)")
    init.add_argument("--force", action="store_true", help="overwrite files you changed")
    init.add_argument("--codex", action="store_true", help="also install for Codex: the $code skill, .codex/hooks.json and the MCP entry")
    init.add_argument("--no-hooks", action="store_true", help="install without the PreToolUse/SessionStart hooks")
    init.add_argument("--no-allow", action="store_true", help="do not allow every code-intel tool in .claude/settings.json")
    init.add_argument("--no-sandbox", action="store_true",
                      help="leave the clients' sandbox settings alone (by default the agent's shell may not write .git/ "
                           "or .code-intel/)")
    init.add_argument("--remove-hooks", action="store_true", help="only take code-intel's hooks out of the client settings")

    doctor = sub.add_parser("doctor", help="check rg, ctags, git, tree-sitter, the embedding model and Chroma "
                            "(with --project: also the project's settings, /code skill and hooks)")
    _project_arg(doctor)


def _index_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """index, search."""
    index = sub.add_parser("index", help="build or update the semantic index")
    _project_arg(index)
    index.add_argument("--force", action="store_true", help="rebuild from scratch")

    search = sub.add_parser("search", help="semantic search from the command line")
    _project_arg(search)
    search.add_argument("text", help="what to look for")
    search.add_argument("-n", "--n-results", type=int, default=10)
    search.add_argument("--collection", choices=["forest", "map"], default=None)


def _session_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """status, report, clean, check: the session and its checks, seen from the user's terminal."""
    status = sub.add_parser("status", help="show the project's active session")
    _project_arg(status)

    report = sub.add_parser("report", help="write a session's report as one self-contained HTML page and print its path",
                            description="Write one HTML page about a session (the latest unless SESSION_ID is given): its "
                            "phases and their times, the steps it skipped, every refusal with what the agent sent, the tasks "
                            "with their evidence, the checks the server ran, the files, commit and merge, the safety "
                            "valves and what the outcome checks caught. The page loads nothing from the network.")
    _project_arg(report)
    report.add_argument("session_id", nargs="?", metavar="SESSION_ID", help="the session (default: the latest)")
    report.add_argument("-o", "--output", metavar="FILE",
                        help="write the page here (default: .code-intel/reports/<session_id>.html)")

    clean = sub.add_parser("clean", help="delete llm_task_* branches and checkpoints, reset the session")
    _project_arg(clean)

    check = sub.add_parser(
        "check", help="run the project's verify.commands relevant to what changed, as run_checks does; exit 1 when one fails",
        description="Run the verify.commands of .code-intel/config.json that are relevant to what changed: a command "
        "runs when one of its `when` globs matches a changed file, or always when `when` is empty. Changed means: "
        "the files named with --changed; else, while a session is active, the files changed since it started (the "
        "same set run_checks uses); else the working tree's changes against HEAD (git status); in a folder that is "
        "not a git repository, every command runs. Exit 0 when every command that ran passed, 1 when one failed, "
        "2 when the configuration or an argument is unusable.")
    _project_arg(check)
    which = check.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true", help="run every command, whatever changed")
    which.add_argument("--changed", nargs="+", metavar="FILE", help="judge relevance against these files instead")
    check.add_argument("--json", action="store_true", help="print the report as JSON (the fields run_checks answers)")


def _client_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """allow, demo, hook."""
    allow = sub.add_parser("allow", help="keep files the agent changed before READY (you confirm in this terminal)")
    allow.add_argument("files", nargs="+", help="the files as the session names them (relative to the project root)")
    _project_arg(allow)

    demo = sub.add_parser("demo", help="drive a whole session on a generated sample repository")
    demo.add_argument("--keep", action="store_true", help="keep the sample repository afterwards")
    demo.add_argument("--dir", help="create the sample repository here instead of a temp folder")

    hook = sub.add_parser("hook", help="answer a Claude Code / Codex hook event read from stdin (init installs these)")
    # a free string, checked by run_hook: an argparse error would exit 2, which Claude Code reads as "block"
    hook.add_argument("event", help="pre-tool-use, post-tool-use or session-start")
    _project_arg(hook)


def version_line() -> str:
    """`code-intel 0.1.0 (Python 3.11.7, /path/to/site-packages/code_intel)`."""
    from pathlib import Path

    from code_intel import __version__

    where = Path(__file__).resolve().parents[1]
    return f"code-intel {__version__} (Python {sys.version.split()[0]}, {where})"


def _load(target: str) -> Callable[[argparse.Namespace], int]:
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


def _hook_args(argv: list[str]) -> SimpleNamespace | None:
    """`hook EVENT [--project DIR]` read without building the whole parser: the clients start this on every
    tool call, and argparse with every subcommand costs more than the hook's own work."""
    rest = list(argv)
    project = None
    for index, arg in enumerate(rest):
        if arg.startswith("--project="):
            project = arg.split("=", 1)[1]
            del rest[index]
            break
        if arg == "--project" and index + 1 < len(rest):
            project = rest[index + 1]
            del rest[index:index + 2]
            break
    if len(rest) != 1 or rest[0].startswith("-"):
        return None
    return SimpleNamespace(command="hook", event=rest[0], project=project)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["--version"]:  # printed here: argparse would wrap a long install path over two lines
        print(version_line())
        return 0
    if words[:1] == ["hook"] and (fast := _hook_args(words[1:])) is not None:
        from code_intel.hooks.run import run_hook

        return run_hook(fast)  # type: ignore[arg-type]
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        import code_intel_server

        forwarded = ["--log-level", args.log_level] + (["--project", args.project] if args.project else [])
        return code_intel_server.main(forwarded)
    from code_intel.core.errors import CodeIntelError

    try:
        return _load(COMMANDS[args.command])(args)
    except CodeIntelError as err:
        print(f"code-intel {args.command}: {err.message}" + (f"\n  hint: {err.hint}" if err.hint else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
