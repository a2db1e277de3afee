"""Which files a shell command would write: a best-effort reading of the agent's Bash calls.

The hook cannot run the command to see what it does, so it reads it: a small shell lexer (quotes,
escapes, comments, operators, heredocs, `$(...)`), split into simple commands, and a table of the
common ways to write a file:

- redirections `>`, `>>`, `>|`, `&>`, `&>>`, `<>` (and `2>` etc.) onto a file;
- `tee`, `sed -i`, `perl -i`, `cp`, `mv` (source and destination), `install`, `rsync`, `rm`, `rmdir`,
  `touch`, `mkdir`, `truncate`, `shred`, `unlink`, `dd of=`, `curl -o`, `wget -O`, `find -fprint`;
- behind `sudo`, `env` (`-C DIR` moves the folder), `nice -n`, `timeout`, `nohup`, assignments, and
  inside `bash -c`/`sh -lc`, `eval` and `$(...)`; variables set in the command (`f=a.py`, `t=$(mktemp)`);
- `python -c CODE` and `python` fed a heredoc, when the code calls `open(..., "w")`,
  `Path(...).write_text(...)`, `os.remove(...)`, `shutil.move(...)` and the like.

Every git command goes to the git allow-list (git_policy.py). A form whose targets it cannot name is
reported as `unknown`, so the caller refuses it instead of guessing: a target in a variable it does not
know, a program named by a variable, Python writing to a computed path or running other programs, other
interpreters' code calling a write or process API (`node -e`, `ruby -e`, `perl -e`, `awk` printing to a
file), `xargs`/`find -exec` feeding a command that writes, `find -delete`, `patch`, `tar x`, `unzip`,
`sed` scripts with `w` or `e`, `env -S`. `ln` inside the project and `code-intel allow` are refused
outright (`refused`). What this reading cannot see at all (a script or program that writes on its own:
`make`, `./script.sh`, `python tool.py`) is caught by the server's outcome check (docs/enforcement.md).

Bounded (Limits): nesting depth, file patterns expanded (only inside the project), the command's length
and a time budget; past any of them the rest is `unknown`. Standard library only: the hook runs this
on every Bash call.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
import time
from pathlib import Path

from code_intel.hooks.git_policy import env_problem, git_problem

OPERATORS = ("&>>", ">>", "&>", ">|", ">&", "<&", "<<<", "<<-", "<<", "<>", "&&", "||", ";;", "|&",
             ";", "&", "|", "(", ")", "<", ">", "\n")
OPERATOR_CHARS = frozenset("&><|;()\n")  # every operator starts with one of these, and each is one alone
REDIRECTS_OUT = {">", ">>", ">|", "&>", "&>>", "<>"}
SEPARATORS = {";", "&", "|", "&&", "||", ";;", "|&", "(", ")", "\n"}
# programs that run the command after them; the value each option of theirs takes is skipped
WRAPPERS = {"sudo": ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"), "env": ("-u", "--unset", "-C", "--chdir"),
            "nohup": (), "time": ("-f", "-o"), "command": (), "exec": ("-a",), "nice": ("-n", "--adjustment"),
            "stdbuf": ("-i", "-o", "-e"), "builtin": (), "ionice": ("-c", "-n", "-p"), "chrt": (), "setsid": (),
            "doas": ("-u",), "unbuffer": ()}
EVERY_OPERAND_WRITTEN = {"tee", "rm", "rmdir", "touch", "mkdir", "unlink", "shred"}
IGNORED_TARGETS = ("/dev/",)

_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)?)?$")
# other interpreters that take code on their command line; their code is scanned for any write or process API
INTERPRETERS = {"node", "nodejs", "deno", "bun", "ruby", "php", "lua", "Rscript", "osascript", "awk", "gawk"}
_FOREIGN_WRITES = re.compile(
    r"writeFile|appendFile|createWriteStream|copyFile|\brename|unlink|rmSync|\brmdir|\bmkdir|truncate|symlink|"
    r"child_process|execSync|spawn|\bexec\b|\bsystem\b|\bfork\b|File\.(?:write|open|delete|rename)|FileUtils|IO\.write|"
    r"file_put_contents|fopen|\bopen\s*\(|\bopen\s+\w|print\s*>|printf\s*>|>\s*\"|\|\s*\"|Deno\.(?:write|remove|run)|Bun\.write|"
    r"os\.execute|io\.open|`")
_PYTHON_RUNS = re.compile(r"\bos\.(?:open|system|popen|exec\w*|spawn\w*|write|symlink|link|chmod|utime)\(|subprocess|"
                          r"\bexec\(|\beval\(|__import__|importlib|\bcompile\(|shutil\.")
_SED_WRITES = re.compile(r"(?:^|[;}\n0-9$/!])\s*[wWe](?:\s|$)|/[gpIiMm0-9]*[we]\s")
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))(/.*)?")
_MKTEMP = re.compile(r"\$\(\s*mktemp(?:\s+(?:-d|-q|-u|--directory|--quiet|--dry-run|-t|--tmpdir|--suffix=\S+|\S*XXX\S*))*\s*\)")
_DURATION = re.compile(r"[\d.]+[smhd]?")
# commands that write nothing whatever files they get (xargs and find -exec may feed them)
SAFE_ON_ANY_FILE = {"cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "ls", "file", "stat", "echo", "printf",
                    "md5sum", "sha1sum", "sha256sum", "du", "basename", "dirname", "realpath", "readlink", "test", "[",
                    "diff", "cmp", "nl", "less", "more", "sort", "uniq", "cut", "tr", "true", "false"}
MAX_COMMAND_CHARS = 100_000
ALLOW_REFUSED = ("`code-intel allow` records the user's own consent, so only the user runs it, in their terminal: "
                 "ask the user, naming the files and why they should be kept")
MAX_CODE_CHARS = 20_000
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
    """What a command writes: absolute target paths, git commands refused, other refusals with their reason, and
    write forms with unreadable targets."""

    __slots__ = ("files", "git", "refused", "unknown")

    def __init__(self, files: list[Path] | None = None, git: list[str] | None = None,
                 unknown: list[str] | None = None, refused: list[str] | None = None) -> None:
        self.files: list[Path] = files or []
        self.git: list[str] = git or []  # why a git command is not a reading one
        self.unknown: list[str] = unknown or []  # e.g. "> $OUT", "python code writing to a computed path"
        self.refused: list[str] = refused or []  # whole reasons, e.g. for `code-intel allow` or `ln`

    @property
    def any(self) -> bool:
        """Whether the command writes anything, or is refused outright."""
        return bool(self.files or self.git or self.unknown or self.refused)

    def extend(self, other: BashWrites) -> None:
        self.files.extend(other.files)
        self.git.extend(other.git)
        self.unknown.extend(other.unknown)
        self.refused.extend(other.refused)


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
            i, quoted_dynamic = _read_double_quoted(text, i + 1, out, substitutions)
            dynamic = dynamic or quoted_dynamic
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


def _read_double_quoted(text: str, i: int, out: list[str], substitutions: list[str]) -> tuple[int, bool]:
    """The inside of a double-quoted string from text[i] onto `out`: where it ends (past the closing quote), and
    whether it holds an expansion."""
    n = len(text)
    dynamic = False
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
    return i + 1, dynamic


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


class Limits:
    """What one reading of a command may spend: nesting depth, glob patterns expanded, and time. Past any of them
    the rest of the command is reported as unknown (and so refused during a session), never guessed."""

    __slots__ = ("deadline", "globs", "root")

    MAX_DEPTH = 12  # `$(...)`, `bash -c`, `eval` inside one another
    MAX_GLOBS = 24  # patterns expanded on the file system
    MAX_MATCHES = 500  # paths taken from one pattern
    MAX_WILD_PARTS = 3  # `a/*/b/*/c/*`: patterns walking deeper are not expanded
    SECONDS = 0.8  # of the process's CPU time: the machine's load does not turn a plain command into a refusal

    def __init__(self, root: Path | None = None) -> None:
        self.deadline = time.process_time() + self.SECONDS
        self.globs = 0
        self.root = root  # patterns are expanded only inside it (a write elsewhere is not the hook's business)

    def out_of_time(self) -> bool:
        return time.process_time() > self.deadline


class _Reader:
    """Reads one command line, relative to a working directory that `cd` may change."""

    def __init__(self, cwd: Path, limits: Limits, depth: int = 0) -> None:
        self.cwd = cwd
        self.result = BashWrites()
        self.limits = limits
        self.depth = depth
        self.variables: dict[str, str] = {}  # NAME=literal, and NAME=$(mktemp) as the temp folder

    def nested(self, command: str) -> None:
        """Read a command held in another one (`bash -c`, `eval`, `$(...)`): same limits, one level deeper."""
        if self.depth + 1 > Limits.MAX_DEPTH:
            self.result.unknown.append(f"commands nested more than {Limits.MAX_DEPTH} deep")
            return
        self.result.extend(_read_command(command, self.cwd, self.limits, self.depth + 1, self.variables))

    def _value(self, word: Word) -> str | None:
        """The word's text with the variables this command set (and $HOME, $PWD) put in; None when unknown."""
        if not word.dynamic:
            return word.text
        match = _VARIABLE.fullmatch(word.text)
        if match is None:
            return None
        name, rest = match.group(1) or match.group(2), match.group(3) or ""
        if name in self.variables:
            return self.variables[name] + rest
        if name == "PWD":
            return str(self.cwd) + rest
        if name == "HOME":
            return os.path.expanduser("~") + rest
        return None

    def target(self, word: Word, form: str) -> None:
        """Record a written path (globs expanded), or an unknown target when it cannot be read."""
        text = self._value(word)
        if text is None:
            self.result.unknown.append(f"{form} {word.text}")
            return
        text = os.path.expanduser(text)
        if any(text.startswith(prefix) for prefix in IGNORED_TARGETS) or not text:
            return
        self.result.files.extend(self._paths(text, form))

    def _paths(self, text: str, form: str) -> list[Path]:
        """The path a word names, relative to the working directory; a glob's matches, or the glob itself when
        it matches nothing (a file to be created under that name)."""
        path = Path(text) if os.path.isabs(text) else self.cwd / text
        if not any(ch in text for ch in "*?["):
            return [path]
        fixed = Path(*[part for part in path.parts[:next(i for i, p in enumerate(path.parts) if any(c in p for c in "*?["))]])
        if self.limits.root is not None and not (fixed == self.limits.root or self.limits.root in fixed.parents):
            return [path]  # a pattern outside the project: never walked
        wild_parts = sum(1 for part in path.parts if any(c in part for c in "*?["))
        if self.limits.globs >= Limits.MAX_GLOBS or wild_parts > Limits.MAX_WILD_PARTS or self.limits.out_of_time():
            problem = f"file patterns the hook does not expand (more than {Limits.MAX_GLOBS}, or deeper than {Limits.MAX_WILD_PARTS} levels)"
            if form and problem not in self.result.unknown:
                self.result.unknown.append(problem)
            return []
        self.limits.globs += 1
        import glob
        import itertools

        matches = sorted(itertools.islice(glob.iglob(str(path)), Limits.MAX_MATCHES))
        return [Path(m) for m in matches] or [path]

    def assign(self, word: Word) -> None:
        """NAME=VALUE: remember a literal value, or a temp file/folder from `$(mktemp)`; refuse git's own variables."""
        name, _, value = word.text.partition("=")
        problem = env_problem(name, value)
        if problem:
            self.result.git.append(f"setting {name}: {problem}")
        if not word.dynamic:
            self.variables[name] = value
        elif _MKTEMP.fullmatch(value):
            self.variables[name] = tempfile.gettempdir() + "/tmp.code-intel-mktemp"
        else:
            self.variables.pop(name, None)

    def read(self, command: list[Word | str]) -> None:
        if self.limits.out_of_time():
            self.result.unknown.append("a command too long to read in the hook's time")
            return
        words = self._redirections(command)  # first: they apply whatever the command is
        env: dict[str, str] = {}
        while words and _ASSIGNMENT.fullmatch(words[0].text):
            word = words.pop(0)  # FOO=bar cmd
            if words:
                name, _, value = word.text.partition("=")
                env[name] = value
            else:
                self.assign(word)
        words = self._unwrap(words, env)
        if not words:
            return
        if words[0].dynamic:
            self.result.unknown.append(f"a program named by a variable ({words[0].text})")
            return
        name = os.path.basename(words[0].text)
        args = words[1:]
        heredocs = [t.heredoc for t in command if isinstance(t, Word) and t.heredoc is not None]
        if name == "git":
            self.git(args, env)
        elif name == "code-intel" and args and args[0].text == "allow":
            self.result.refused.append(ALLOW_REFUSED)
        elif _PYTHON.match(name):
            self.python(args, heredocs)
        elif name in INTERPRETERS:
            self.interpreter(name, args, heredocs)
        elif name in EVERY_OPERAND_WRITTEN:
            for word in _options_and_args(args)[1]:
                self.target(word, name)
        elif (handler := getattr(self, "cmd_" + name.replace("-", "_").replace(".", "_"), None)) is not None:
            handler(args)
        for key, value in env.items():
            problem = env_problem(key, value)
            if problem and name != "git":
                self.result.git.append(f"setting {key} for {name}: {problem}")

    def _redirections(self, command: list[Word | str]) -> list[Word]:
        """Record the targets of the command's output redirections; its words without them."""
        words: list[Word] = []
        i = 0
        while i < len(command):
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
                i += 2 if isinstance(follow, Word) else 1  # <, <<<, <&: input only
                continue
            words.append(token)
            i += 1
        return words

    def _unwrap(self, words: list[Word], env: dict[str, str]) -> list[Word]:
        """The command behind `sudo`, `env -C DIR`, `nice -n 5`, `timeout 5`, ...; `env -C` moves the directory."""
        while words:
            name = os.path.basename(words[0].text)
            if name == "timeout":
                words = words[1:]
                while words and (words[0].text.startswith("-") or _DURATION.fullmatch(words[0].text)):
                    takes = words[0].text in ("-s", "--signal", "-k", "--kill-after")
                    words = words[2:] if takes else words[1:]
                continue
            if name not in WRAPPERS:
                return words
            takes_value = WRAPPERS[name]
            words = words[1:]
            while words and (words[0].text.startswith("-") or (name == "env" and _ASSIGNMENT.fullmatch(words[0].text))):
                option = words.pop(0)
                if name == "env" and option.text in ("-S", "--split-string") or option.text.startswith("--split-string="):
                    self.result.unknown.append("env -S (a command held in a string)")
                    return []
                if _ASSIGNMENT.fullmatch(option.text):
                    key, _, value = option.text.partition("=")
                    env[key] = value
                elif option.text in takes_value and words:
                    value_word = words.pop(0)
                    if name == "env" and option.text in ("-C", "--chdir"):
                        self.cmd_cd([value_word])
                elif option.text.startswith("--chdir=") and name == "env":
                    self.cmd_cd([Word(option.text.split("=", 1)[1])])
                elif name == "nice" and re.fullmatch(r"-\d+", option.text):
                    pass
        return words

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
            dest_text = self._value(dest)
            dest_path = Path(os.path.expanduser(dest_text if dest_text is not None else dest.text))
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

    def cmd_rsync(self, args: list[Word]) -> None:
        self._copy_like(args, "rsync", sources_change=False)

    def cmd_install(self, args: list[Word]) -> None:
        if any(w.text == "-d" for w in args):
            for word in _options_and_args(args, ("-m", "-o", "-g", "--mode", "--owner", "--group"))[1]:
                self.target(word, "install -d")
        else:
            self._copy_like(args, "install", sources_change=False)

    def cmd_ln(self, args: list[Word]) -> None:
        """A link inside the project lets one file be written under another's name: refused during a session."""
        probe = _Reader(self.cwd, self.limits, self.depth)
        probe.variables = self.variables
        probe._copy_like(args, "ln", sources_change=False)
        root = self.limits.root
        inside = [p for p in probe.result.files if root is None or p == root or root in p.parents]
        if inside or probe.result.unknown:
            self.result.refused.append("`ln` makes a link in the project, and a link lets one file be written under "
                                       "another's name; copy the file, or write it where it is")

    def cmd_mv(self, args: list[Word]) -> None:
        self._copy_like(args, "mv", sources_change=True)

    def cmd_dd(self, args: list[Word]) -> None:
        for word in args:
            if word.text.startswith("of="):
                self.target(Word(word.text[3:], word.dynamic), "dd of=")

    def _in_place(self, args: list[Word], form: str, *, takes_value: str, script_options: tuple[str, ...]) -> None:
        """sed -i / perl -i: the files after the script are rewritten. `-i` counts only as a switch of its own
        cluster (`-pi`, `-i.bak`, `-Ei`), not inside an option's value (`-Mstrict`, `-e'...'`)."""
        if not any(w.text.startswith("--in-place") or _cluster_has(w.text, "i", takes_value) for w in args):
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
        self._in_place(args, "sed -i", takes_value="efl", script_options=("-e", "-f", "--expression", "--file"))
        scripts = [args[i + 1].text for i, w in enumerate(args[:-1]) if w.text in ("-e", "--expression")]
        if not scripts:
            scripts = [w.text for w in _options_and_args(args, ("-l",))[1][:1]]
        if any(_SED_WRITES.search(script) for script in scripts):
            self.result.unknown.append("a sed script that writes or runs (w, W, e)")

    def cmd_perl(self, args: list[Word]) -> None:
        self._in_place(args, "perl -i", takes_value="eEMmIxdDCl0V", script_options=("-e", "-E"))
        self.interpreter("perl", args, [])

    def cmd_bash(self, args: list[Word]) -> None:
        """bash -c 'CODE' / sh -lc 'CODE': read CODE the same way."""
        for index, word in enumerate(args):
            if word.text.startswith("-") and not word.text.startswith("--") and "c" in word.text[1:] and index + 1 < len(args):
                self.nested(args[index + 1].text)
                return
            if not word.text.startswith("-"):
                return  # bash script.sh: the script's own writes are not visible here
        if not args or all(w.text.startswith("-") for w in args):
            heredocs = [w.heredoc for w in args if w.heredoc is not None]
            for body in heredocs:
                self.nested(body)

    cmd_sh = cmd_bash
    cmd_zsh = cmd_bash
    cmd_dash = cmd_bash
    cmd_ksh = cmd_bash

    def cmd_eval(self, args: list[Word]) -> None:
        if any(w.dynamic for w in args):
            self.result.unknown.append("eval of a computed command")
        else:
            self.nested(" ".join(w.text for w in args))

    def cmd_xargs(self, args: list[Word]) -> None:
        """xargs CMD: CMD gets its operands from the input, so a CMD that writes writes unknown files."""
        _, rest = _split_options(args, ("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
                                        "--max-args", "--max-procs", "--max-lines", "--replace"))
        self._runs_on_unknown_files(rest, "xargs")

    def cmd_find(self, args: list[Word]) -> None:
        for index, word in enumerate(args):
            if word.text in ("-delete",):
                self.result.unknown.append("find -delete")
            elif word.text in ("-fprint", "-fprint0", "-fprintf", "-fls") and index + 1 < len(args):
                self.target(args[index + 1], f"find {word.text}")
            elif word.text in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(index + 1, len(args)) if args[j].text in (";", "+")), len(args))
                self._runs_on_unknown_files(args[index + 1:end], f"find {word.text}")

    def _runs_on_unknown_files(self, command: list[Word], form: str) -> None:
        if not command:
            return
        name = os.path.basename(command[0].text)
        if command[0].dynamic or name not in SAFE_ON_ANY_FILE:
            self.result.unknown.append(f"{form} {command[0].text} (a command run on files the hook cannot list)")

    def cmd_patch(self, args: list[Word]) -> None:
        options, operands = _options_and_args(args, ("-p", "-i", "-o", "-d", "-r", "-B", "-D", "-F", "-V", "-z"))
        if operands:
            self.target(operands[0], "patch")
        else:
            self.result.unknown.append("patch (the files it changes are named in the patch)")

    def cmd_tar(self, args: list[Word]) -> None:
        first = args[0].text if args else ""
        extracting = any(w.text in ("-x", "--extract", "--get") for w in args) or (
            not first.startswith("-") and "x" in first) or re.fullmatch(r"-[A-Za-wyz]*x[A-Za-z]*", first) is not None
        creating = next((args[i + 1] for i, w in enumerate(args[:-1]) if w.text in ("-f", "--file")), None)
        if extracting:
            self.result.unknown.append("tar extracting (the files are named in the archive)")
        elif creating is not None and any(w.text in ("-c", "--create") or "c" in w.text.lstrip("-")[:3] for w in args[:2]):
            self.target(creating, "tar -f")

    def cmd_unzip(self, args: list[Word]) -> None:
        if not any(w.text in ("-l", "-t", "-v", "-p", "-Z") for w in args):
            self.result.unknown.append("unzip (the files are named in the archive)")

    def cmd_curl(self, args: list[Word]) -> None:
        for index, word in enumerate(args[:-1]):
            if word.text in ("-o", "--output"):
                self.target(args[index + 1], "curl -o")
        if any(w.text in ("-O", "--remote-name", "--remote-name-all") for w in args):
            self.result.unknown.append("curl -O (the file is named by the URL)")

    def cmd_wget(self, args: list[Word]) -> None:
        out = next((args[i + 1] for i, w in enumerate(args[:-1]) if w.text in ("-O", "--output-document")), None)
        if out is not None:
            self.target(out, "wget -O")
        elif not any(w.text == "--spider" for w in args):
            self.result.unknown.append("wget (the file is named by the URL)")

    def cmd_export(self, args: list[Word]) -> None:
        for word in args:
            if _ASSIGNMENT.fullmatch(word.text):
                self.assign(word)

    cmd_declare = cmd_export
    cmd_typeset = cmd_export
    cmd_readonly = cmd_export
    cmd_local = cmd_export

    def git(self, args: list[Word], env: dict[str, str]) -> None:
        if any(w.dynamic for w in args):
            self.result.git.append("a git command with computed arguments")
            return
        problem = git_problem([w.text for w in args], env)
        if problem:
            self.result.git.append(problem)

    def python(self, args: list[Word], heredocs: list[str]) -> None:
        texts = [w.text for w in args]
        if "-m" in texts and texts.index("-m") + 1 < len(texts):
            module = texts[texts.index("-m") + 1]
            if module.split(".")[0] in ("code_intel", "tools") and "allow" in texts[texts.index("-m") + 2:]:
                self.result.refused.append(ALLOW_REFUSED)
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
        if len(code) > MAX_CODE_CHARS:
            self.result.unknown.append("python code too long to read")
            return
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
        if not found and any_write.search(code) or _PYTHON_RUNS.search(code):
            self.result.unknown.append("python code writing to a computed path or running other programs")

    def interpreter(self, name: str, args: list[Word], heredocs: list[str]) -> None:
        """node -e, ruby -e, perl -e, php -r, ...: code whose file writes cannot be read here is refused when
        it calls a writing or process-running API at all."""
        if name in ("awk", "gawk"):
            operands = _options_and_args(args, ("-F", "-v", "-f", "--field-separator", "--assign", "--file"))[1]
            code = [operands[0].text] if operands else []
        else:
            code = [args[i + 1].text for i, w in enumerate(args[:-1]) if _cluster_has(w.text, "e", "") or
                    w.text in ("-e", "-E", "-r", "--eval", "-p", "--print", "-c")]
        code += heredocs if not any(not w.text.startswith("-") for w in args) else []
        if any(len(text) > MAX_CODE_CHARS or _FOREIGN_WRITES.search(text) for text in code):
            self.result.unknown.append(f"{name} code that writes files or runs programs")


def _cluster_has(word: str, flag: str, takes_value: str) -> bool:
    """Whether a short-option cluster (`-pi`, `-Ei.bak`) holds `flag` before any option that takes a value."""
    if not word.startswith("-") or word.startswith("--") or len(word) < 2:
        return False
    for ch in word[1:]:
        if ch == flag:
            return True
        if ch in takes_value or not ch.isalpha():
            return False
    return False


def _split_options(words: list[Word], takes_value: tuple[str, ...]) -> tuple[list[Word], list[Word]]:
    """Leading options (with their values) and the command that follows them."""
    index = 0
    while index < len(words) and words[index].text.startswith("-"):
        index += 2 if words[index].text in takes_value else 1
    return words[:index], words[index:]


def _read_command(command: str, cwd: Path, limits: Limits, depth: int, variables: dict[str, str]) -> BashWrites:
    reader = _Reader(cwd, limits, depth)
    reader.variables = dict(variables)
    tokens, substitutions = tokenize(command)
    for simple in _simple_commands(tokens):
        reader.read(simple)
    for inner in substitutions:
        reader.nested(inner)
    return reader.result


def write_targets(command: str, cwd: Path, limits: Limits | None = None) -> BashWrites:
    """What `command`, run in `cwd`, would write (and read), as far as reading it can tell in bounded time."""
    if len(command) > MAX_COMMAND_CHARS:
        return BashWrites(unknown=[f"a command longer than {MAX_COMMAND_CHARS} characters"])
    return _read_command(command, cwd, limits or Limits(), 0, {})
