"""`code-intel init DIR` / `./init-project.sh DIR`: install code-intel into a project.

The installer is a list of steps. Each step looks at the project and plans actions; nothing is
written until every step has planned, so a refusal (say, an unreadable .mcp.json) leaves the
project untouched. The steps:

- template trees: `templates/code-intel/` -> `DIR/.code-intel/`;
- generated files: the `/code` skill for Claude Code (and with `--codex` for Codex), see
  tools/context/clients.py;
- runtime folders (`agreements/`, `chroma/`, `logs/`, `sessions/`) and their .gitignore lines,
  plus `.claude/settings.local.json` (a user's own approvals);
- JSON entries merged into a shared file without losing its other keys: the `code-intel` server in
  `.mcp.json`, the hooks and the permission rule in `.claude/settings.json`, the Codex hooks in
  `.codex/hooks.json`;
- the Codex MCP table in `.codex/config.toml` when Codex trusts the project (otherwise the
  `codex mcp add` command is printed).

`--remove-hooks` takes our hook groups out of the clients' settings again and changes nothing else.

A manifest (`.code-intel/installed.json`) keeps the hash of what was last written for each file and
entry, which is how a template we updated is told apart from a file the user changed: the former
is refreshed, the latter kept unless `--force`.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import stat
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from code_intel import __version__
from code_intel.core import processes
from code_intel.core.errors import ConfigError, InvalidArgument
from code_intel.core.fsutil import write_atomic
from code_intel.core.project import REINSTALL_HINT, STATE_DIR, TEMPLATES_DIR

MANIFEST = f"{STATE_DIR}/installed.json"
# templates/<source> is copied to DIR/<target>, file by file.
TEMPLATE_TREES: list[tuple[str, str]] = [("code-intel", STATE_DIR)]
# Folders under .code-intel/ that start empty; the runtime ones are kept out of git.
EMPTY_DIRS = ("agreements", "chroma", "logs", "sessions")
GITIGNORE_LINES = (*(f"{STATE_DIR}/{name}/" for name in ("chroma", "logs", "sessions", "cache")),
                   ".claude/settings.local.json")
GITIGNORE_HEADER = "# code-intel: machine-local state"
SKIPPED_NAMES = {"__pycache__", ".DS_Store"}
SERVER_NAME = "code-intel"  # the distribution, the server's name in client settings
SCRIPT_NAME = "code-intel"  # its console script

Status = Literal["created", "updated", "unchanged", "kept", "overwritten", "appended", "removed", "absent"]


class InstallAction(BaseModel):
    """One thing the installer did (or left alone) to one path."""

    path: str
    status: Status
    detail: str = ""


class InitReport(BaseModel):
    project: str
    actions: list[InstallAction]
    notes: list[str] = []  # what init found or the user must still do (test commands, codex mcp add)
    version: str = ""  # the code-intel that wrote the files now
    previous_version: str | None = None  # the one that wrote them last time, when the manifest names it

    @property
    def changed(self) -> list[InstallAction]:
        return [a for a in self.actions if a.status not in ("unchanged", "kept", "absent")]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(frozen=True)
class InstallOptions:
    force: bool = False  # replace files and entries the user changed
    codex: bool = False  # also the Codex skill, hooks and MCP entry
    hooks: bool = True  # the PreToolUse / SessionStart hooks
    allow: bool = True  # the Claude Code permission rule allowing every code-intel tool
    remove_hooks: bool = False  # only take our hooks out again
    sandbox: bool = True  # turn on the clients' own sandboxes for the agent's shell (see docs/enforcement.md)


@dataclass
class InstallContext:
    """What the steps share: the target project, the options, and the manifest of past writes."""

    project: Path
    force: bool
    manifest: dict[str, str]
    previous_version: str | None = None  # the code-intel that wrote the manifest
    launcher: list[str] = field(default_factory=lambda: entry_point())  # how clients start code-intel
    options: InstallOptions = field(default_factory=InstallOptions)
    notes: list[str] = field(default_factory=list)  # what the user must still do by hand, printed last

    def rel(self, path: Path) -> str:
        return path.relative_to(self.project).as_posix()


@dataclass
class PlannedWrite:
    """A write decided during planning, applied only after every step planned without refusal."""

    path: Path
    data: bytes | None  # None: nothing to write, only report
    action: InstallAction
    manifest_key: str | None = None
    manifest_hash: str | None = None
    executable: bool = False


def _decide(ctx: InstallContext, key: str, current: bytes | None, wanted: bytes) -> tuple[Status, str]:
    """Created / unchanged / updated (we wrote it before) / kept or overwritten (the user changed it)."""
    if current is None:
        return "created", ""
    if current == wanted:
        return "unchanged", ""
    if ctx.manifest.get(key) == _sha(current):
        return "updated", "refreshed from the newer template"
    if ctx.force:
        return "overwritten", "your changes were replaced (--force)"
    return "kept", "you changed it; rerun with --force to replace it"


# ----------------------------------------------------------------------------- steps
def fill_verify_commands(ctx: InstallContext, template: bytes) -> bytes:
    """config.json with `verify.commands` set to the check commands found in the project."""
    from code_intel.verify.detect import detect_commands

    detection = detect_commands(ctx.project)
    ctx.notes.extend(detection.report_lines())
    config = json.loads(template)
    config["verify"] = {**config.get("verify", {}), "commands": [c.model_dump(mode="json") for c in detection.commands]}
    return _json_bytes(config)


# template files (target path relative to the project) whose content depends on the project
TEMPLATE_FILLS: dict[str, Callable[[InstallContext, bytes], bytes]] = {f"{STATE_DIR}/config.json": fill_verify_commands}


def plan_template_trees(ctx: InstallContext) -> list[PlannedWrite]:
    planned: list[PlannedWrite] = []
    for source_name, target_name in TEMPLATE_TREES:
        source_root = TEMPLATES_DIR / source_name
        if not source_root.is_dir():
            raise ConfigError(f"template folder {source_root} is missing", hint=REINSTALL_HINT)
        for source in sorted(source_root.rglob("*")):
            if not source.is_file() or SKIPPED_NAMES.intersection(source.relative_to(source_root).parts):
                continue
            target = ctx.project / target_name / source.relative_to(source_root)
            wanted = source.read_bytes()
            key = ctx.rel(target)
            if key in TEMPLATE_FILLS:
                wanted = TEMPLATE_FILLS[key](ctx, wanted)
            planned.append(plan_file(ctx, target, wanted, executable=bool(source.stat().st_mode & stat.S_IXUSR)))
    return planned


def plan_file(ctx: InstallContext, target: Path, wanted: bytes, *, executable: bool = False) -> PlannedWrite:
    """One file we own: created, refreshed when we wrote the older version, kept when the user changed it."""
    key = ctx.rel(target)
    if target.is_symlink() or target.is_dir():
        raise InvalidArgument(f"{key} exists and is not a regular file", hint="move it away and rerun init")
    current = target.read_bytes() if target.exists() else None
    status, detail = _decide(ctx, key, current, wanted)
    writes = status in ("created", "updated", "overwritten")
    return PlannedWrite(
        path=target,
        data=wanted if writes else None,
        action=InstallAction(path=key, status=status, detail=detail),
        # Record what is on disk when we leave it as the template; keep the old hash when the user owns it.
        manifest_key=key if status != "kept" else None,
        manifest_hash=_sha(wanted),
        executable=executable,
    )


def plan_generated_files(ctx: InstallContext) -> list[PlannedWrite]:
    from code_intel.context.clients import generated_files

    return [plan_file(ctx, ctx.project / rel, data) for rel, data in generated_files(ctx).items()]


def plan_gitignore(ctx: InstallContext) -> list[PlannedWrite]:
    file = ctx.project / ".gitignore"
    current = file.read_bytes() if file.exists() else b""
    present = {line.strip() for line in current.decode("utf-8", errors="replace").splitlines()}
    # "/.code-intel/logs/" and ".code-intel/logs" ignore the same folder: accept either spelling.
    def spellings(line: str) -> set[str]:
        same = {line, line.rstrip("/"), "/" + line, "/" + line.rstrip("/")}
        return same | {f"{STATE_DIR}/", f"/{STATE_DIR}/"} if line.startswith(STATE_DIR) else same

    missing = [line for line in GITIGNORE_LINES if not present.intersection(spellings(line))]
    if not missing:
        return [PlannedWrite(file, None, InstallAction(path=".gitignore", status="unchanged"))]
    prefix = current if not current or current.endswith(b"\n") else current + b"\n"
    block = (("\n" if current else "") + GITIGNORE_HEADER + "\n" + "\n".join(missing) + "\n").encode("utf-8")
    status: Status = "appended" if current else "created"
    return [PlannedWrite(file, prefix + block, InstallAction(path=".gitignore", status=status, detail=", ".join(missing)))]


@dataclass(frozen=True)
class JsonEntry:
    """Our part of a shared JSON file: the value at `keys` (mcpServers.code-intel in .mcp.json), or,
    when `identifies` is set, one item of the list at `keys` (a hook group in .claude/settings.json,
    where the user's own hooks share the list)."""

    file: str
    keys: tuple[str, ...]
    value: Any
    item_id: str | None = None  # names the list item in reports and in the manifest
    identifies: Callable[[Any], bool] | None = None  # True for the list item that is ours


def entry_point() -> list[str]:
    """The command that starts this code-intel: its `code-intel` console script, by an absolute path.

    Clients run it with the user's PATH, so the path is absolute; it is the script pip recorded for this
    distribution (bin/ of a pipx or `uv tool` environment, which keeps its path across upgrades), with symlinks
    left as they are, so no interpreter version or site-packages path is written. Without a console script (code
    run from a source tree), the interpreter runs the package, isolated (-I) so that no `code_intel` in the
    folder a client starts it from is imported instead."""
    names = {SCRIPT_NAME, SCRIPT_NAME + ".exe"}
    try:
        dist = importlib.metadata.distribution(SERVER_NAME)
        recorded = [Path(os.path.normpath(str(dist.locate_file(f)))) for f in dist.files or () if f.name in names]
    except importlib.metadata.PackageNotFoundError:
        recorded = []
    beside = [Path(sys.executable).absolute().parent / name for name in sorted(names)]
    script = next((path for path in [*recorded, *beside] if path.is_file()), None)
    if script is not None:
        return [str(script)]
    return [str(Path(sys.executable).absolute()), "-I", "-m", "code_intel.cli"]


def uv_cache_note() -> str | None:
    """When code-intel runs from `uvx`, its environment is a folder of uv's cache, which `uv cache clean` or
    `uv cache prune` may delete: what init writes would then point at nothing."""
    uv = os.environ.get("UV")
    if not uv:
        return None
    try:
        cache = processes.run([uv, "cache", "dir"], timeout=10).out.strip()
    except OSError:
        return None
    if not cache or not Path(sys.prefix).absolute().is_relative_to(Path(cache).absolute()):
        return None
    return ("code-intel runs from uvx here: its environment is a folder of uv's cache (" + sys.prefix + "), which "
            "`uv cache clean` or `uv cache prune` deletes, and .mcp.json and the hooks point into it. For an install "
            "that stays, run `uv tool install code-intel` (with the options you gave uvx), then `code-intel init` "
            "again (docs/install.md).")


def mcp_server_entry(ctx: InstallContext) -> JsonEntry:
    """The .mcp.json entry: absolute paths, because clients start servers with the user's PATH."""
    value = {"type": "stdio", "command": ctx.launcher[0],
             "args": [*ctx.launcher[1:], "serve", "--project", str(ctx.project)], "env": {}}
    return JsonEntry(file=".mcp.json", keys=("mcpServers", SERVER_NAME), value=value)


def client_entries(ctx: InstallContext) -> Iterable[JsonEntry]:
    from code_intel.context.clients import json_entries

    return json_entries(ctx)


# Builders of JSON entries: each gives the entries it owns (none when an option switches it off).
JSON_ENTRIES: list[Callable[[InstallContext], JsonEntry | Iterable[JsonEntry]]] = [mcp_server_entry, client_entries]


def _entries(ctx: InstallContext) -> list[JsonEntry]:
    out: list[JsonEntry] = []
    for build in JSON_ENTRIES:
        made = build(ctx)
        out.extend([made] if isinstance(made, JsonEntry) else made)
    return out


def plan_json_entries(ctx: InstallContext) -> list[PlannedWrite]:
    planned: list[PlannedWrite] = []
    documents: dict[str, Any] = {}
    originals: dict[str, bytes | None] = {}
    actions: dict[str, list[tuple[InstallAction, str | None, str]]] = {}  # file -> (action, manifest key, hash)
    for entry in _entries(ctx):
        file = ctx.project / entry.file
        if entry.file not in documents:
            originals[entry.file] = file.read_bytes() if file.exists() else None
            documents[entry.file] = _load_json_object(file, originals[entry.file])
        action, digest, ours = _merge_entry(ctx, documents[entry.file], entry)
        actions.setdefault(entry.file, []).append((action, ours, digest))
    for name, document in documents.items():
        file = ctx.project / name
        data = _json_bytes(document)
        changed = originals[name] is None or _load_json_object(file, originals[name]) != document
        for index, (action, manifest_key, digest) in enumerate(actions[name]):
            # The merged file is written once, with the first action; the rest only report.
            planned.append(PlannedWrite(file, data if changed and index == 0 else None, action, manifest_key, digest))
    return planned


def _entry_names(entry: JsonEntry) -> tuple[str, str]:
    """The entry's label in reports and its key in the manifest."""
    path = ".".join(entry.keys)
    item = f"[{entry.item_id}]" if entry.item_id else ""
    return f"{entry.file} ({path}{item})", f"{entry.file}#{path}{item}"


def _merge_entry(ctx: InstallContext, document: dict[str, Any], entry: JsonEntry) -> tuple[InstallAction, str, str | None]:
    """Put the entry into the parsed document (in memory); returns the action, the hash of our value,
    and the manifest key to record (None when the user's version is kept)."""
    path = ".".join(entry.keys)
    label, manifest_key = _entry_names(entry)
    parent: Any = document
    for key in entry.keys[:-1]:
        child = parent.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{entry.file}: key '{key}' is not an object", hint=f"fix {entry.file} by hand, then rerun init")
        parent = child
    last = entry.keys[-1]
    wanted = _json_bytes(entry.value)
    if entry.identifies is None:
        current = _json_bytes(parent[last]) if last in parent else None
        status, detail = _decide(ctx, manifest_key, current, wanted)
        if status in ("updated", "overwritten"):
            detail = _with_changes(detail, parent[last], entry.value)
        if status in ("created", "updated", "overwritten"):
            parent[last] = entry.value
    else:
        items = parent.setdefault(last, [])
        if not isinstance(items, list):
            raise ConfigError(f"{entry.file}: key '{path}' is not a list", hint=f"fix {entry.file} by hand, then rerun init")
        index = next((i for i, item in enumerate(items) if entry.identifies(item)), None)
        current = _json_bytes(items[index]) if index is not None else None
        status, detail = _decide(ctx, manifest_key, current, wanted)
        if status == "created":
            items.append(entry.value)
        elif status in ("updated", "overwritten") and index is not None:
            detail = _with_changes(detail, items[index], entry.value)
            items[index] = entry.value
    return InstallAction(path=label, status=status, detail=detail), _sha(wanted), manifest_key if status != "kept" else None


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    """`{"a": {"b": [1]}}` -> `{"a.b[0]": 1}`."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, f"{prefix}.{key}" if prefix else key).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _leaves(item, f"{prefix}[{i}]").items()}
    return {prefix: value}


def _with_changes(detail: str, old: Any, new: Any, shown: int = 3) -> str:
    """The report's detail for a refreshed entry, naming what changed in it (a new command after an upgrade)."""
    before, after = _leaves(old), _leaves(new)
    changed = [key for key in dict.fromkeys([*before, *after]) if before.get(key) != after.get(key)]
    parts = [f"{key}: {json.dumps(before.get(key))} -> {json.dumps(after.get(key))}" for key in changed[:shown]]
    more = f"; {len(changed) - shown} more" if len(changed) > shown else ""
    return f"{detail}; " + "; ".join(parts) + more if parts else detail


def _load_json_object(file: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(
            f"{file} is not valid JSON ({err}); nothing was written",
            hint=f"fix or delete {file.name}, then rerun init: the installer merges into it and will not overwrite it",
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(f"{file}: the top level must be a JSON object; nothing was written", hint=f"fix {file.name}, then rerun init")
    return value


def plan_codex_config(ctx: InstallContext) -> list[PlannedWrite]:
    from code_intel.context.clients import plan_codex_config as plan

    return plan(ctx)


# Steps run in this order; each only plans.
STEPS: list[Callable[[InstallContext], list[PlannedWrite]]] = [
    plan_template_trees, plan_generated_files, plan_gitignore, plan_json_entries, plan_codex_config,
]


def plan_hook_removal(ctx: InstallContext) -> list[PlannedWrite]:
    """Take our hook groups out of every client settings file; the user's own hooks stay."""
    from code_intel.context.clients import hook_entries

    planned: list[PlannedWrite] = []
    by_file: dict[str, list[JsonEntry]] = {}
    for entry in hook_entries(ctx, every_client=True):
        by_file.setdefault(entry.file, []).append(entry)
    for name, entries in by_file.items():
        file = ctx.project / name
        raw = file.read_bytes() if file.exists() else None
        document = _load_json_object(file, raw)
        actions: list[tuple[InstallAction, str]] = []
        for entry in entries:
            label, manifest_key = _entry_names(entry)
            removed = _remove_item(document, entry)
            actions.append((InstallAction(path=label, status="removed" if removed else "absent"), manifest_key))
        changed = raw is not None and _load_json_object(file, raw) != document
        data = _json_bytes(document) if changed else None
        for index, (action, manifest_key) in enumerate(actions):
            planned.append(PlannedWrite(file, data if index == 0 else None, action, manifest_key, None))
    return planned


def _remove_item(document: dict[str, Any], entry: JsonEntry) -> bool:
    """Remove our item from the list at entry.keys, then any container it leaves empty."""
    chain: list[tuple[dict[str, Any], str]] = []
    parent: Any = document
    for key in entry.keys[:-1]:
        child = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(child, dict):
            return False
        chain.append((parent, key))
        parent = child
    items = parent.get(entry.keys[-1])
    if entry.identifies is None or not isinstance(items, list):
        return False
    kept = [item for item in items if not entry.identifies(item)]
    if len(kept) == len(items):
        return False
    if kept:
        parent[entry.keys[-1]] = kept
    else:
        del parent[entry.keys[-1]]
        for container, key in reversed(chain):
            if container[key]:
                break
            del container[key]
    return True


# ----------------------------------------------------------------------------- driver
def _read_manifest(project: Path) -> tuple[dict[str, str], str | None]:
    """The hash of what was last written for each file and entry, and the code-intel version that wrote them."""
    file = project / MANIFEST
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}, None  # no manifest: every existing file that differs counts as the user's
    if not isinstance(data, dict):
        return {}, None
    files, version = data.get("files"), data.get("code_intel")
    return ({str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {},
            version if isinstance(version, str) else None)


def plan(project: str | os.PathLike[str], options: InstallOptions | None = None) -> tuple[InstallContext, list[PlannedWrite]]:
    """Everything install would do, decided and nothing written (doctor uses this to compare)."""
    opts = options or InstallOptions()
    root = Path(project).expanduser()
    if not root.is_dir():
        raise InvalidArgument(f"{str(root)!r} is not a folder", hint="create the project folder first, or pass an existing one")
    root = root.resolve()
    manifest, previous = _read_manifest(root)
    ctx = InstallContext(project=root, force=opts.force, manifest=manifest, previous_version=previous, options=opts)
    steps = [plan_hook_removal] if opts.remove_hooks else STEPS
    return ctx, [item for step in steps for item in step(ctx)]


def install(project: str | os.PathLike[str], *, force: bool = False, options: InstallOptions | None = None) -> InitReport:
    """Install code-intel into `project`. Idempotent: a second run reports everything unchanged."""
    opts = options or InstallOptions(force=force)
    ctx, planned = plan(project, opts)
    root = ctx.project

    actions: list[InstallAction] = []
    manifest = dict(ctx.manifest)
    for item in planned:
        if item.data is not None:
            write_atomic(item.path, item.data, executable=item.executable)
        if item.manifest_key and item.manifest_hash:
            manifest[item.manifest_key] = item.manifest_hash
        elif item.manifest_key and item.action.status == "removed":
            manifest.pop(item.manifest_key, None)
        actions.append(item.action)
    if not opts.remove_hooks:
        for name in EMPTY_DIRS:
            folder = root / STATE_DIR / name
            if not folder.is_dir():
                folder.mkdir(parents=True)
                actions.append(InstallAction(path=f"{STATE_DIR}/{name}/", status="created"))
    version = __version__
    if manifest != ctx.manifest or (ctx.manifest and version != ctx.previous_version):
        write_atomic(root / MANIFEST, _json_bytes({"version": 1, "code_intel": version,
                                                   "files": dict(sorted(manifest.items()))}))
    notes = list(ctx.notes)
    if not opts.remove_hooks:
        notes.extend(note for note in (uv_cache_note(), ctags_note()) if note)
    return InitReport(project=str(root), actions=actions, notes=notes, version=version,
                      previous_version=ctx.previous_version)


def ctags_note() -> str | None:
    """Universal Ctags is the one program the package cannot bring; init says what works without it."""
    from code_intel.core.binaries import find_binary, install_hint

    if find_binary("ctags"):
        return None
    return ("Universal Ctags was not found (beside " + sys.executable + " or on PATH): find_definitions, "
            "find_references, analyze_impact and query read definitions from tree-sitter outlines instead, which "
            "record no base classes; every other tool works as usual. To " + install_hint("ctags") + ".")


def format_report(report: InitReport) -> str:
    lines = [f"code-intel init {report.project}"]
    if report.previous_version and report.previous_version != report.version:
        lines.append(f"  upgrade: these files were written by code-intel {report.previous_version}; this is "
                     f"{report.version}, and what it writes differently is refreshed below")
    for action in report.actions:
        if action.status == "unchanged":
            continue
        lines.append(f"  {action.status:<11} {action.path}" + (f"  ({action.detail})" if action.detail else ""))
    unchanged = sum(1 for a in report.actions if a.status == "unchanged")
    if unchanged:
        lines.append(f"  {unchanged} file(s) already up to date")
    if not report.changed:
        lines.append("  nothing written")
    lines += [f"  {line}" for note in report.notes for line in note.splitlines()]
    kept = any(a.path == f"{STATE_DIR}/config.json" and a.status == "kept" for a in report.actions)
    if kept and report.notes:
        lines.append(f"  ({STATE_DIR}/config.json was kept as you changed it: copy what you want into its verify.commands)")
    return "\n".join(lines)


def run_init(args: argparse.Namespace) -> int:
    """CLI entry: `code-intel init [DIR] [--force] [--codex] [--no-hooks] [--no-allow] [--remove-hooks]`."""
    options = InstallOptions(force=bool(getattr(args, "force", False)), codex=bool(getattr(args, "codex", False)),
                             hooks=not getattr(args, "no_hooks", False), allow=not getattr(args, "no_allow", False),
                             remove_hooks=bool(getattr(args, "remove_hooks", False)),
                             sandbox=not getattr(args, "no_sandbox", False))
    try:
        report = install(args.dir, options=options)
    except OSError as err:  # e.g. a read-only folder, or a file where a folder must go
        print(f"code-intel init: cannot write into {args.dir}: {err}", file=sys.stderr)
        return 1
    print(format_report(report))
    if any(a.status == "kept" for a in report.actions):
        print("  some files were kept because you changed them; --force replaces them", file=sys.stderr)
    return 0
