"""Which files a shell command would write, and which it reads: a best-effort reading of the agent's
Bash calls.

The hook cannot run the command to see what it does, so it reads it: a small shell lexer (quotes,
escapes, comments, operators, heredocs, `$(...)`), split into simple commands, and a table of the
common ways to write a file:

- redirections `>`, `>>`, `>|`, `&>`, `&>>` (and `2>` etc.) onto a file;
- `tee`, `sed -i`, `perl -i`, `cp`, `mv` (source and destination), `install`, `ln`, `rm`, `rmdir`,
  `touch`, `mkdir`, `truncate`, `shred`, `unlink`, `dd of=`;
- git commands that change the working tree, the index or history (`commit`, `checkout`,
  `switch`, `reset`, `restore`, `merge`, `rebase`, `stash` other than list/show, `cherry-pick`,
  `revert`, `am`, `apply`, `pull`, `clean`, `rm`, `mv`);
- `python -c CODE` and `python` fed a heredoc, when the code calls `open(..., "w")`,
  `Path(...).write_text(...)`, `os.remove(...)`, `shutil.move(...)` and the like.

It also notes the project files a command shows the agent: the operands of `cat`, `head`, `tail`,
`less`, `more`, `nl`, `bat`, `sed`, `awk`, `grep` and `rg`, and files fed in with `<`. Those go to the
session's read log (an operand that names no file, such as a grep pattern, is dropped there).

A target it cannot read (a variable, a command substitution, a Python write to a computed path)
is reported as `unknown`, so the caller can refuse it instead of guessing. What this reading
cannot see at all is listed in docs/hooks.md: scripts and programs that write files themselves
(`make`, `npm install`, `./script.sh`, `python script.py`), `xargs`/`find -exec`, `eval`, aliases
and functions, and interpreters other than Python.

Standard library only: the hook runs this on every Bash call.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

OPERATORS = ("&>>", ">>", "&>", ">|", ">&", "<&", "<<<", "<<-", "<<", "<>", "&&", "||", ";;", "|&",
             ";", "&", "|", "(", ")", "<", ">", "\n")
OPERATOR_CHARS = frozenset("&><|;()\n")  # every operator starts with one of these, and each is one alone
REDIRECTS_OUT = {">", ">>", ">|", "&>", "&>>", "<>"}
SEPARATORS = {";", "&", "|", "&&", "||", ";;", "|&", "(", ")", "\n"}
WRAPPERS = {"sudo", "env", "nohup", "time", "command", "exec", "nice", "stdbuf", "builtin"}
EVERY_OPERAND_WRITTEN = {"tee", "rm", "rmdir", "touch", "mkdir", "unlink", "shred"}
GIT_WRITES = {"commit", "checkout", "switch", "reset", "restore", "merge", "rebase", "stash", "cherry-pick",
              "revert", "am", "apply", "pull", "clean", "rm", "mv"}
GIT_READ_ONLY_STASH = {"list", "show"}
IGNORED_TARGETS = ("/dev/",)
# commands that print the files they are given (operands that are not files, like a pattern, are dropped later)
READERS = {"cat", "head", "tail", "less", "more", "nl", "bat", "batcat", "sed", "awk", "gawk", "grep", "egrep",
           "fgrep", "rg", "view"}

_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)?)?$")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")


@functools.cache
def _python_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Python file writes in -c code or a heredoc: open(literal, mode), Path(literal).write_*, os/shutil calls,
    and any write call at all. Compiled on first use: most Bash calls run no Python."""
    literal = r"""(?:[rRbBuU]{0,2})(['"])(?P<path>[^'"\n]+)\1"""
    opened = re.compile(r"\bopen\(\s*" + literal + r"""\s*,\s*(?:mode\s*=\s*)?[rRbB]?['"](?P<mode>[^'"]*)['"]""")
    path_write = re.compile(r"\bPath\(\s*" + literal +
                            r"\s*\)\s*\.\s*(?:write_text|write_bytes|touch|mkdir|unlink|rmdir|rename|replace|open\([^)]*['\"][wax])")
    os_call = re.compile(r"\b(?:os\.(?:remove|unlink|rmdir|removedirs|makedirs|mkdir|rename|replace|truncate)|"
                         r"shutil\.(?:rmtree|copy|copy2|copyfile|copytree|move))\(\s*" + literal +
                         r"(?:\s*,\s*" + literal.replace("(?P<path>", "(?P<dest>").replace(r"\1", r"\3") + r")?")
    any_write = re.compile(r"\bopen\([^)]*,\s*(?:mode\s*=\s*)?[rbt]*['\"][rbt]*[wax+]|\.write_text\(|\.write_bytes\(|"
                           r"\bos\.(?:remove|unlink|rename|replace|makedirs|mkdir)\(|\bshutil\.(?:rmtree|copy|copy2|copyfile|copytree|move)\(")
    return opened, path_write, os_call, any_write


class Word:
    """One shell word, quotes removed. (Plain classes here: `dataclasses` costs the hook import time.)"""

    __slots__ = ("text", "dynamic", "heredoc")

    def __init__(self, text: str, dynamic: bool = False, heredoc: str | None = None) -> None:
        self.text = text
        self.dynamic = dynamic  # holds an unquoted $VAR, `...` or $(...): the value is not known here
        self.heredoc = heredoc  # for a heredoc delimiter: the body that followed


class BashWrites:
    """What a command writes: absolute target paths, git operations, and write forms with unreadable targets;
    and the paths it reads (`reads`: candidates only, each may name no file)."""

    __slots__ = ("files", "git", "reads", "unknown")

    def __init__(self, files: list[Path] | None = None, git: list[str] | None = None,
                 unknown: list[str] | None = None, reads: list[Path] | None = None) -> None:
        self.files: list[Path] = files or []
        self.git: list[str] = git or []  # e.g. "git commit"
        self.unknown: list[str] = unknown or []  # e.g. "> $OUT", "python code writing to a computed path"
        self.reads: list[Path] = reads or []

    @property
    def any(self) -> bool:
        """Whether the command writes anything (reads aside)."""
        return bool(self.files or self.git or self.unknown)

    def extend(self, other: BashWrites) -> None:
        self.files.extend(other.files)
        self.git.extend(other.git)
        self.unknown.extend(other.unknown)
        self.reads.extend(other.reads)


# ----------------------------------------------------------------------------- lexer
def _substitution_end(text: str, start: int) -> int:
    """Index just past the `)` closing the `$(` whose `(` is at text[start]."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def tokenize(text: str) -> tuple[list[Word | str], list[str]]:
    """Words and operator strings, plus the text of every command substitution (to be read too)."""
    tokens: list[Word | str] = []
    substitutions: list[str] = []
    pending_heredocs: list[tuple[Word, str, bool]] = []  # (delimiter word, delimiter, strip tabs)
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r":
            i += 1
            continue
        if ch == "\\" and i + 1 < n and text[i + 1] == "\n":  # line continuation
            i += 2
            continue
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        op = next((o for o in OPERATORS if text.startswith(o, i)), None) if ch in OPERATOR_CHARS else None
        if op is not None:
            tokens.append(op)
            i += len(op)
            if op == "\n" and pending_heredocs:
                i = _read_heredocs(text, i, pending_heredocs)
            if op in ("<<", "<<-"):
                word, i = _read_word(text, i, substitutions)
                if word is not None:
                    tokens.append(word)
                    pending_heredocs.append((word, word.text, op == "<<-"))
            continue
        word, i = _read_word(text, i, substitutions)
        if word is not None:
            tokens.append(word)
    return tokens, substitutions


def _read_heredocs(text: str, i: int, pending: list[tuple[Word, str, bool]]) -> int:
    """Consume the bodies of the heredocs opened on the line that just ended; attach each to its word."""
    lines = text[i:].split("\n")
    used = 0
    for word, delimiter, strip_tabs in pending:
        body: list[str] = []
        while used < len(lines):
            line = lines[used]
            used += 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
            body.append(line)
        word.heredoc = "\n".join(body)
    pending.clear()
    consumed = sum(len(line) + 1 for line in lines[:used])
    return min(len(text), i + consumed)


def _read_word(text: str, i: int, substitutions: list[str]) -> tuple[Word | None, int]:
    """One shell word from text[i]: quotes removed, escapes applied, substitutions noted."""
    out: list[str] = []
    dynamic = False
    n = len(text)
    start = i
    while i < n:
        ch = text[i]
        if ch in " \t\r\n" or ch in OPERATOR_CHARS:
            break
        if ch == "\\":
            if i + 1 < n:
                out.append(text[i + 1])
            i += 2
        elif ch == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            out.append(text[i + 1:end])
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`':
                    out.append(text[i + 1])
                    i += 2
                    continue
                if text[i] == "$" or text[i] == "`":
                    dynamic = True
                    if text.startswith("$(", i):
                        end = _substitution_end(text, i + 1)
                        substitutions.append(text[i + 2:end - 1])
                        out.append(text[i:end])
                        i = end
                        continue
                out.append(text[i])
                i += 1
            i += 1
        elif ch == "$" and text.startswith("$(", i):
            end = _substitution_end(text, i + 1)
            substitutions.append(text[i + 2:end - 1])
            out.append(text[i:end])
            dynamic = True
            i = end
        elif ch == "`":
            end = text.find("`", i + 1)
            end = n if end < 0 else end
            substitutions.append(text[i + 1:end])
            out.append(text[i:end + 1])
            dynamic = True
            i = end + 1
        else:
            if ch == "$" or (ch == "~" and i == start):
                dynamic = dynamic or ch == "$"
            out.append(ch)
            i += 1
    if i == start:
        return None, i + 1  # an operator character we do not know: skip it
    return Word("".join(out), dynamic), i


# ----------------------------------------------------------------------------- commands
def _simple_commands(tokens: list[Word | str]) -> list[list[Word | str]]:
    commands: list[list[Word | str]] = [[]]
    for token in tokens:
        if isinstance(token, str) and token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _options_and_args(words: list[Word], takes_value: tuple[str, ...] = ()) -> tuple[list[str], list[Word]]:
    """Options and operands; an option in `takes_value` swallows the next word (`-m 644`)."""
    options: list[str] = []
    args: list[Word] = []
    after_dashes = False
    swallow = False
    for word in words:
        if swallow:
            swallow = False
        elif not after_dashes and word.text == "--":
            after_dashes = True
        elif not after_dashes and word.text.startswith("-") and word.text != "-":
            options.append(word.text)
            swallow = word.text in takes_value
        else:
            args.append(word)
    return options, args


class _Reader:
    """Reads one command line, relative to a working directory that `cd` may change."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.result = BashWrites()

    def target(self, word: Word, form: str) -> None:
        """Record a written path (globs expanded), or an unknown target when it cannot be read."""
        if word.dynamic:
            if re.fullmatch(r"\$\{?(HOME|PWD)\}?(/.*)?", word.text):
                text = os.path.expandvars(word.text.replace("$PWD", str(self.cwd)).replace("${PWD}", str(self.cwd)))
            else:
                self.result.unknown.append(f"{form} {word.text}")
                return
        else:
            text = word.text
        text = os.path.expanduser(text)
        if any(text.startswith(prefix) for prefix in IGNORED_TARGETS) or not text:
            return
        self.result.files.extend(self._paths(text))

    def source(self, word: Word) -> None:
        """Note a path the command reads, when it can be read here (no variable, globs expanded)."""
        if word.dynamic or not word.text or word.text == "-":
            return
        self.result.reads.extend(self._paths(os.path.expanduser(word.text))[:100])

    def _paths(self, text: str) -> list[Path]:
        """The path a word names, relative to the working directory; a glob's matches, or the glob itself when
        it matches nothing (a file to be created under that name)."""
        path = Path(text) if os.path.isabs(text) else self.cwd / text
        if any(ch in text for ch in "*?["):
            import glob

            matches = sorted(glob.glob(str(path)))
            if matches:
                return [Path(m) for m in matches]
        return [path]

    def read(self, command: list[Word | str]) -> None:
        words: list[Word] = []
        i = 0
        while i < len(command):  # redirections first; they apply whatever the command is
            token = command[i]
            if isinstance(token, str):
                follow = command[i + 1] if i + 1 < len(command) else None
                if token in REDIRECTS_OUT and isinstance(follow, Word):
                    self.target(follow, token)
                    i += 2
                    continue
                if token == ">&" and isinstance(follow, Word):
                    if not follow.text.isdigit() and follow.text != "-":
                        self.target(follow, token)
                    i += 2
                    continue
                if token in ("<<", "<<-") and isinstance(follow, Word):
                    i += 2
                    continue
                if token == "<" and isinstance(follow, Word):
                    self.source(follow)
                i += 2 if isinstance(follow, Word) else 1  # <, <<<, <&: input only
                continue
            words.append(token)
            i += 1
        while words and _ASSIGNMENT.fullmatch(words[0].text):
            words.pop(0)  # FOO=bar cmd
        while words and words[0].text in WRAPPERS:
            words.pop(0)
            while words and (words[0].text.startswith("-") or _ASSIGNMENT.fullmatch(words[0].text)):
                words.pop(0)
        if words and words[0].text == "timeout":
            words = words[1:]
            while words and (words[0].text.startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", words[0].text)):
                words.pop(0)
        if not words:
            return
        name = os.path.basename(words[0].text)
        heredocs = [t.heredoc for t in command if isinstance(t, Word) and t.heredoc is not None]
        handler = getattr(self, "cmd_" + name.replace("-", "_"), None)
        if name in READERS:
            for word in _options_and_args(words[1:])[1]:
                self.source(word)
        if _PYTHON.match(name):
            self.python(words[1:], heredocs)
        elif name in EVERY_OPERAND_WRITTEN:
            for word in _options_and_args(words[1:])[1]:
                self.target(word, name)
        elif handler is not None:
            handler(words[1:])

    # one method per command that writes ------------------------------------------
    def cmd_cd(self, args: list[Word]) -> None:
        if args and not args[0].dynamic:
            target = Path(os.path.expanduser(args[0].text))
            self.cwd = target if target.is_absolute() else self.cwd / target

    def cmd_truncate(self, args: list[Word]) -> None:
        for word in _options_and_args(args, ("-s", "-r", "--size", "--reference"))[1]:
            self.target(word, "truncate")

    def _copy_like(self, args: list[Word], form: str, *, sources_change: bool) -> None:
        options, operands = _options_and_args(args, ("-m", "-o", "-g", "-S", "--suffix", "--mode", "--owner", "--group"))
        directory = next((o.split("=", 1)[1] for o in options if o.startswith("--target-directory=")), None)
        if directory is None and "-t" in options:  # "-t DIR": the DIR operand came right after -t
            index = next(i for i, w in enumerate(args) if w.text == "-t")
            if index + 1 < len(args):
                directory = args[index + 1].text
                operands = [w for w in operands if w is not args[index + 1]]
        if directory is not None:
            sources, dest_dir = operands, Word(directory)
        elif len(operands) >= 2:
            sources, dest = operands[:-1], operands[-1]
            dest_path = Path(os.path.expanduser(dest.text))
            dest_path = dest_path if dest_path.is_absolute() else self.cwd / dest_path
            if len(sources) == 1 and not dest.text.endswith("/") and not dest_path.is_dir():
                self.target(dest, form)
                if sources_change:
                    self.target(sources[0], form)
                return
            dest_dir = dest
        else:
            return
        for source in sources:
            name = os.path.basename(source.text.rstrip("/"))
            self.target(Word(os.path.join(dest_dir.text, name), dest_dir.dynamic or source.dynamic), form)
            if sources_change:
                self.target(source, form)

    def cmd_cp(self, args: list[Word]) -> None:
        self._copy_like(args, "cp", sources_change=False)

    def cmd_install(self, args: list[Word]) -> None:
        if any(w.text == "-d" for w in args):
            for word in _options_and_args(args, ("-m", "-o", "-g", "--mode", "--owner", "--group"))[1]:
                self.target(word, "install -d")
        else:
            self._copy_like(args, "install", sources_change=False)

    def cmd_ln(self, args: list[Word]) -> None:
        self._copy_like(args, "ln", sources_change=False)

    def cmd_mv(self, args: list[Word]) -> None:
        self._copy_like(args, "mv", sources_change=True)

    def cmd_dd(self, args: list[Word]) -> None:
        for word in args:
            if word.text.startswith("of="):
                self.target(Word(word.text[3:], word.dynamic), "dd of=")

    def _in_place(self, args: list[Word], form: str, *, flag: str, script_options: tuple[str, ...]) -> None:
        """sed -i / perl -i: the files after the script are rewritten."""
        in_place = any(w.text.startswith("--in-place") or re.match(rf"-[A-Za-z]*{flag}", w.text) for w in args)
        if not in_place:
            return
        has_script_option = False
        operands: list[Word] = []
        skip = False
        for word in args:
            if skip:
                skip = False
                continue
            if word.text in script_options:
                has_script_option = True
                skip = True
            elif word.text.startswith("-"):
                has_script_option = has_script_option or any(word.text.startswith(o) and len(word.text) > 2 for o in script_options)
            else:
                operands.append(word)
        for word in operands if has_script_option else operands[1:]:
            self.target(word, form)

    def cmd_sed(self, args: list[Word]) -> None:
        self._in_place(args, "sed -i", flag="i", script_options=("-e", "-f", "--expression", "--file"))

    def cmd_perl(self, args: list[Word]) -> None:
        self._in_place(args, "perl -i", flag="i", script_options=("-e", "-E"))

    def cmd_bash(self, args: list[Word]) -> None:
        """bash -c 'CODE' / sh -c 'CODE': read CODE the same way."""
        for index, word in enumerate(args):
            if word.text == "-c" and index + 1 < len(args):
                self.result.extend(write_targets(args[index + 1].text, self.cwd))
                return

    cmd_sh = cmd_bash
    cmd_zsh = cmd_bash
    cmd_dash = cmd_bash

    def cmd_git(self, args: list[Word]) -> None:
        rest = list(args)
        while rest and rest[0].text.startswith("-"):  # global options: -C DIR, -c k=v, --git-dir=...
            option = rest.pop(0).text
            if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and rest:
                rest.pop(0)
        if not rest:
            return
        sub = rest[0].text
        if sub not in GIT_WRITES:
            return
        if sub == "stash" and len(rest) > 1 and rest[1].text in GIT_READ_ONLY_STASH:
            return
        self.result.git.append(f"git {sub}")

    def python(self, args: list[Word], heredocs: list[str]) -> None:
        code: list[str] = []
        for index, word in enumerate(args):
            if word.text == "-c" and index + 1 < len(args):
                code.append(args[index + 1].text)
                break
            if not word.text.startswith("-"):
                break  # python script.py: the script's own writes are not visible here
        if not code and (not args or args[0].text == "-" or all(w.text.startswith("-") for w in args)):
            code.extend(heredocs)
        for text in code:
            self.python_code(text)

    def python_code(self, code: str) -> None:
        opened, path_write, os_call, any_write = _python_patterns()
        found = 0
        for match in opened.finditer(code):
            if any(m in match.group("mode") for m in "wax+"):
                self.target(Word(match.group("path")), "python open()")
                found += 1
        for pattern in (path_write, os_call):
            for match in pattern.finditer(code):
                self.target(Word(match.group("path")), "python")
                found += 1
                dest = match.groupdict().get("dest")
                if dest:
                    self.target(Word(dest), "python")
        if not found and any_write.search(code):
            self.result.unknown.append("python code writing to a computed path")


def write_targets(command: str, cwd: Path) -> BashWrites:
    """What `command`, run in `cwd`, would write (and read), as far as reading it can tell."""
    reader = _Reader(cwd)
    tokens, substitutions = tokenize(command)
    for simple in _simple_commands(tokens):
        reader.read(simple)
    for inner in substitutions:
        reader.result.extend(write_targets(inner, cwd))
    return reader.result
