"""Which git commands the agent may run during a session: the ones that only read.

Git is an allow-list here, not a list of known writes: plumbing (`read-tree`, `update-index`,
`commit-tree`, `update-ref`), configuration (`config`, `-c`, `core.hooksPath`), an index or a
git dir of its own (`GIT_INDEX_FILE=...`, `GIT_DIR=...`) and any subcommand not listed below change
what the session's branch, commit and merge rest on, so they are refused with what to do instead.
Reading subcommands pass, unless an option makes them write (`--output`) or run a program
(`--open-files-in-pager`, `--ext-diff`, `--textconv`). Standard library only: the hook imports this on
every shell call.
"""

from __future__ import annotations

# subcommands that only read, whatever their operands
READING = frozenset({
    "status", "diff", "log", "show", "blame", "annotate", "grep", "ls-files", "ls-tree", "rev-parse", "rev-list",
    "cat-file", "describe", "shortlog", "show-ref", "for-each-ref", "name-rev", "merge-base", "diff-tree",
    "diff-files", "diff-index", "whatchanged", "count-objects", "check-ignore", "check-attr", "check-ref-format",
    "cherry", "range-diff", "show-branch", "verify-commit", "verify-tag", "help", "version", "var", "ls-remote",
    "get-tar-commit-id", "column",
})
# subcommands that read in some forms only: judged by their own function below
PARTLY_READING = frozenset({"branch", "tag", "stash", "remote", "config", "reflog", "worktree", "notes", "submodule"})
# options that make a reading subcommand write a file or run a program (`-O<cmd>` is git grep's pager)
WRITING_OPTIONS = frozenset({"--output", "--open-files-in-pager", "--ext-diff", "--textconv"})
# global options that change what git runs or where it writes
REFUSED_GLOBALS = ("-c", "--config-env", "--exec-path", "--git-dir", "--work-tree", "--namespace",
                   "--super-prefix", "--list-cmds")
GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"})
# environment a command may set for git: anything else named GIT_* (an index, a git dir, config entries, a
# program to run) is refused
SAFE_ENV = frozenset({"GIT_PAGER", "PAGER", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_FLUSH",
                      "GIT_COLOR", "GIT_NO_REPLACE_OBJECTS"})
SAFE_PAGERS = frozenset({"", "cat", "less", "more"})
INSTEAD = ("code-intel makes the task branch, commits at PRE_COMMIT and merges at MERGE itself; during a session "
           "use git only to read (status, diff, log, show, blame, grep, ls-files, rev-parse, cat-file, branch/tag/"
           "stash listing)")


def env_problem(name: str, value: str) -> str | None:
    """Why setting `name=value` for a command is refused during a session, or None."""
    if name in ("PAGER", "GIT_PAGER"):
        return None if value.strip() in SAFE_PAGERS else f"{name}={value} runs a program of its own as git's pager"
    if name.startswith("GIT_") and name not in SAFE_ENV:
        return f"{name} changes which index, git dir, configuration or program git uses"
    return None


def git_problem(args: list[str], env: dict[str, str] | None = None) -> str | None:
    """Why `git ARGS` (run with `env` set on its command line) is refused during a session, or None when it reads."""
    for name, value in (env or {}).items():
        problem = env_problem(name, value)
        if problem:
            return f"`{name}=... git` is refused: {problem}"
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        name = option.split("=", 1)[0]
        if name in REFUSED_GLOBALS:
            return f"`git {option}` is refused: it changes git's configuration, programs or repository for this command"
        if name in GLOBAL_WITH_VALUE and "=" not in option and rest:
            rest.pop(0)
        if name in ("--version", "--help", "-h"):
            return None
    if not rest:
        return None  # bare `git`: prints its usage
    sub, operands = rest[0], rest[1:]
    if sub in READING:
        bad = _writing_option(operands)
        return f"`git {sub} {bad}` writes a file or runs a program" if bad else None
    if sub in PARTLY_READING:
        return _PARTLY[sub](operands)
    return f"`git {sub}` is not a reading git command"


def _writing_option(operands: list[str]) -> str | None:
    for word in operands:
        if word == "--":
            return None
        if word.split("=", 1)[0] in WRITING_OPTIONS or word.startswith("-O"):
            return word
    return None


def _flags(operands: list[str]) -> tuple[set[str], list[str]]:
    flags = {w.split("=", 1)[0] for w in operands if w.startswith("-")}
    return flags, [w for w in operands if not w.startswith("-")]


def _branch(operands: list[str]) -> str | None:
    flags, names = _flags(operands)
    listing = {"--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current",
               "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--format", "--sort",
               "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--abbrev", "--no-abbrev"}
    if flags - listing:
        return f"`git branch {' '.join(sorted(flags - listing))}` changes branches"
    takes_value = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--format", "--sort"}
    if names and not flags & ({"--list", "-l"} | takes_value):
        return f"`git branch {names[0]}` creates a branch"
    return None


def _tag(operands: list[str]) -> str | None:
    flags, names = _flags(operands)
    listing = {"--list", "-l", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
               "--format", "--sort", "--column", "--no-column", "-i", "--ignore-case", "--color", "-v", "--verify"}
    if any(f.startswith("-n") for f in flags):
        flags = {f for f in flags if not f.startswith("-n")}
    if flags - listing:
        return f"`git tag {' '.join(sorted(flags - listing))}` changes tags"
    if names and not flags:
        return f"`git tag {names[0]}` creates a tag"
    return None


def _stash(operands: list[str]) -> str | None:
    return None if operands and operands[0] in ("list", "show") else "`git stash` changes the work tree and refs"


def _remote(operands: list[str]) -> str | None:
    flags, names = _flags(operands)
    if not names or names[0] in ("show", "get-url"):
        return None if flags <= {"-v", "--verbose", "-n", "--push", "--all"} else "`git remote` with these options"
    return f"`git remote {names[0]}` changes the repository's configuration"


def _config(operands: list[str]) -> str | None:
    flags, names = _flags(operands)
    reading = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--show-origin",
               "--show-scope", "--name-only", "--null", "-z", "--type", "--bool", "--int", "--path", "--default",
               "--local", "--global", "--system", "--worktree", "--includes", "--no-includes", "--all"}
    if names and names[0] in ("get", "list"):
        names = names[1:]
    elif flags - reading or len(names) > 1 and not flags & {"--get", "--get-all", "--get-regexp", "--get-urlmatch"}:
        return "`git config` writes configuration (core.hooksPath, filters and pagers run programs)"
    if flags - reading:
        return "`git config` with these options writes configuration"
    return None


def _reflog(operands: list[str]) -> str | None:
    return None if not operands or operands[0] in ("show", "exists") or operands[0].startswith("-") else \
        f"`git reflog {operands[0]}` changes the reflog"


def _worktree(operands: list[str]) -> str | None:
    return None if operands[:1] == ["list"] else "`git worktree` other than `list` changes worktrees"


def _notes(operands: list[str]) -> str | None:
    return None if not operands or operands[0] in ("list", "show") else "`git notes` other than list/show writes notes"


def _submodule(operands: list[str]) -> str | None:
    return None if operands[:1] in (["status"], ["summary"]) or not operands else \
        "`git submodule` other than status/summary changes submodules"


_PARTLY = {"branch": _branch, "tag": _tag, "stash": _stash, "remote": _remote, "config": _config,
           "reflog": _reflog, "worktree": _worktree, "notes": _notes, "submodule": _submodule}
