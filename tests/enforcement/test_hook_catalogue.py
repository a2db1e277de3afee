"""The enforcement catalogue, hook side: attempts an agent can make with its own tools during a session, each
of which the PreToolUse hook must deny, and everyday reading commands it must let through.

Each attempt names where it is made: `early` (EXPLORATION, before any write is allowed), `ready` (READY, with
src/app.py explored and lib/other.py not) or `late` (QUALITY_REVIEW, after the commit). Attempts the hook cannot
see at all (a subagent's write, a program writing on its own) are in test_transition_catalogue.py: the server
refuses them at the next transition. docs/enforcement.md says which class each belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from code_intel.workflow.seal import key_dir
from tests.enforcement.conftest import SESSION_ID, Ask

P = pytest.param
PATCH = "*** Begin Patch\n*** {kind} File: {path}\n+x\n*** End Patch\n"

SHELL_WRITES = [
    P("early", "echo x >> src/app.py", id="append-redirect"),
    P("early", "printf x > src/app.py", id="printf-redirect"),
    P("early", "echo x >| src/app.py", id="clobber-redirect"),
    P("early", "echo x &> src/app.py", id="both-streams-redirect"),
    P("early", "exec 3>src/app.py", id="exec-fd-redirect"),
    P("early", "tee -a src/app.py <<< x", id="tee"),
    P("early", "sed -i s/total/result/ src/app.py", id="sed-in-place"),
    P("early", "perl -pi -e s/total/result/ src/app.py", id="perl-in-place"),
    P("early", "cp lib/other.py src/app.py", id="cp"),
    P("early", "mv src/app.py src/moved.py", id="mv"),
    P("early", "rm src/app.py", id="rm"),
    P("early", "touch src/new.py", id="touch"),
    P("early", "mkdir src/newpkg", id="mkdir"),
    P("early", "truncate -s 0 src/app.py", id="truncate"),
    P("early", "dd if=/dev/zero of=src/app.py count=1", id="dd"),
    P("early", "install -m 644 lib/other.py src/app.py", id="install"),
    P("early", "rsync lib/other.py src/app.py", id="rsync"),
    P("early", "ln -sf ../lib/other.py src/app.py", id="ln-over-file"),
    P("ready", "ln -s ../lib/other.py src/notes.md", id="symlink-as-markup"),
    P("early", "cat <<EOF > src/app.py\nx = 1\nEOF", id="heredoc-redirect"),
    P("early", "cd src && echo x > app.py", id="cd-then-write"),
    P("early", "f=src/app.py; echo x > $f", id="variable-holding-the-path"),
    P("early", "echo x > $TARGET", id="unknown-variable-target"),
    P("early", "$WRITER src/app.py", id="program-in-a-variable"),
    P("early", "g=git; $g commit -qam x", id="git-in-a-variable"),
    P("early", "echo $(echo x > src/app.py)", id="command-substitution"),
    P("early", "echo `echo x > src/app.py`", id="backquote-substitution"),
    P("early", "bash -c 'echo x >> src/app.py'", id="bash-c"),
    P("early", "bash -lc 'echo x >> src/app.py'", id="bash-lc"),
    P("early", "sh -c \"echo x > src/app.py\"", id="sh-c"),
    P("early", "eval 'echo x >> src/app.py'", id="eval"),
    P("early", "eval \"$CMD\"", id="eval-computed"),
    P("early", "ls src | xargs rm", id="xargs-rm"),
    P("early", "find src -name '*.py' -delete", id="find-delete"),
    P("early", "find src -exec sed -i s/a/b/ {} +", id="find-exec"),
    P("early", "find . -fprint src/listing.txt", id="find-fprint"),
    P("early", "env -C src touch new.py", id="env-chdir"),
    P("early", "env -S 'touch src/new.py'", id="env-split-string"),
    P("early", "nice -n 5 touch src/new.py", id="nice"),
    P("early", "timeout -s KILL 5 tee src/app.py", id="timeout"),
    P("early", "sudo -u root tee src/app.py", id="sudo"),
    P("early", "FOO=1 nohup tee src/app.py", id="assignment-and-nohup"),
    P("early", "patch -p1 < fix.diff", id="patch"),
    P("early", "tar xzf archive.tgz", id="tar-extract"),
    P("early", "unzip -o archive.zip", id="unzip"),
    P("early", "sed 's/a/b/w src/out.py' src/app.py", id="sed-w-command"),
    P("early", "sed '1e touch src/x.py' src/app.py", id="sed-e-command"),
    P("early", "awk 'BEGIN { print \"x\" > \"src/app.py\" }'", id="awk-print-to-file"),
    P("early", "curl -o src/app.py http://127.0.0.1:9/x", id="curl-output"),
    P("early", "wget -O src/app.py http://127.0.0.1:9/x", id="wget-output"),
    P("early", "python3 -c \"open('src/app.py', 'a').write('x')\"", id="python-open"),
    P("early", "python3 -c \"import os; fd = os.open('src/app.py', os.O_WRONLY); os.write(fd, b'x')\"", id="python-os-open"),
    P("early", "python3 -c \"import shutil; shutil.copy('lib/other.py', 'src/app.py')\"", id="python-shutil"),
    P("early", "python3 -c \"import subprocess; subprocess.run(['touch', 'src/x.py'])\"", id="python-subprocess"),
    P("early", "python3 - <<'PY'\nfrom pathlib import Path\nPath('src/app.py').write_text('x')\nPY", id="python-heredoc"),
    P("early", "python3 -c \"exec('op' + 'en(\\'src/app.py\\', \\'w\\')')\"", id="python-exec-string"),
    P("early", "node -e \"require('fs').appendFileSync('src/app.py', 'x')\"", id="node-append"),
    P("early", "node -e \"require('child_process').execSync('touch src/x.py')\"", id="node-child-process"),
    P("early", "ruby -e \"File.write('src/app.py', 'x')\"", id="ruby-file-write"),
    P("early", "perl -e 'open(my $f, \">>\", \"src/app.py\")'", id="perl-open"),
    P("early", "php -r \"file_put_contents('src/app.py', 'x');\"", id="php"),
    P("ready", "echo x >> lib/other.py", id="ready-unexplored-file"),
    P("ready", "touch tools/new.py", id="ready-new-file-in-unexplored-folder"),
    P("late", "echo x >> src/app.py", id="after-pre-commit-append"),
    P("late", "sed -i s/a/b/ src/app.py", id="after-pre-commit-sed"),
]

GIT = [
    "git commit -qam wip", "git checkout -- src/app.py", "git switch -c other", "git reset --hard",
    "git restore src/app.py", "git merge other", "git rebase main", "git cherry-pick HEAD~1", "git revert HEAD",
    "git stash", "git stash pop", "git apply fix.diff", "git am < mail.mbox", "git pull", "git push origin main",
    "git fetch", "git clean -fdx", "git rm src/app.py", "git mv src/app.py src/b.py", "git add -A",
    "GIT_INDEX_FILE=/tmp/idx git read-tree HEAD", "git read-tree HEAD",
    "git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,src/evil.py",
    "git update-index --skip-worktree src/app.py", "git update-index --assume-unchanged src/app.py",
    "git commit-tree HEAD^{tree} -m forged", "git update-ref refs/heads/main HEAD", "git symbolic-ref HEAD refs/heads/x",
    "git hash-object -w src/app.py", "git write-tree", "git mktree < tree.txt", "git replace HEAD~1 HEAD",
    "git config core.hooksPath /tmp/hooks", "git config --add alias.x '!sh -c true'", "git config --unset user.name",
    "git -c core.hooksPath=/tmp/h status", "git -c core.fsmonitor='touch x' status", "git --config-env=a=B status",
    "git --git-dir=.git --work-tree=. checkout main", "git --exec-path=/tmp/bin status",
    "git branch -f main HEAD", "git branch -D other", "git branch newbranch", "git tag v9", "git tag -d v1",
    "git notes add -m x", "git worktree add /tmp/wt", "git remote add evil /tmp/x", "git submodule add /tmp/x",
    "git reflog expire --expire=now --all", "git gc --prune=now", "git filter-branch --all", "git init",
    "git diff --output=src/app.py", "git log --output=/tmp/x", "git grep -Otouch add", "git difftool",
    "GIT_DIR=/tmp/other.git git log", "GIT_CONFIG_PARAMETERS=\"'core.pager=touch x'\" git log",
    "PAGER='touch x' git log", "export GIT_INDEX_FILE=/tmp/idx", "env GIT_INDEX_FILE=/tmp/i git diff",
    "git $(echo commit) -m x", "cd src && git commit -am x",
]

CLIENT_TOOLS = [
    P("early", "Edit", {"file_path": "src/app.py", "old_string": "total", "new_string": "result"}, id="claude-edit"),
    P("early", "Write", {"file_path": "src/new.py", "content": "x"}, id="claude-write"),
    P("early", "MultiEdit", {"file_path": "src/app.py", "edits": []}, id="claude-multiedit"),
    P("early", "NotebookEdit", {"notebook_path": "src/nb.ipynb", "new_source": "x"}, id="claude-notebook"),
    P("early", "apply_patch", {"command": PATCH.format(kind="Update", path="src/app.py")}, id="codex-update"),
    P("early", "apply_patch", {"command": PATCH.format(kind="Add", path="src/new.py")}, id="codex-add"),
    P("early", "apply_patch", {"command": PATCH.format(kind="Delete", path="src/app.py")}, id="codex-delete"),
    P("ready", "apply_patch", {"command": "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: lib/moved.py\n"
                                          "*** End Patch\n"}, id="codex-move-to-unexplored"),
    P("ready", "apply_patch", {"command": "this is not a patch"}, id="codex-patch-naming-no-file"),
    P("ready", "Write", {"content": "no path"}, id="write-without-path"),
    P("ready", "Edit", {"file_path": "lib/other.py", "old_string": "x", "new_string": "y"}, id="ready-unexplored"),
    P("ready", "Write", {"file_path": "/etc/hosts", "content": "x"}, id="outside-project"),
    P("ready", "Write", {"file_path": "../sibling.py", "content": "x"}, id="parent-folder"),
    P("ready", "Write", {"file_path": ".git/config", "content": "[core]\nhooksPath=/tmp\n"}, id="git-config-file"),
    P("ready", "Write", {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}, id="git-hook-file"),
    P("ready", "Write", {"file_path": ".claude/settings.json", "content": "{}"}, id="claude-settings"),
    P("ready", "Edit", {"file_path": ".codex/hooks.json", "old_string": "a", "new_string": "b"}, id="codex-hooks"),
    P("late", "Edit", {"file_path": "src/app.py", "old_string": "total", "new_string": "result"}, id="after-pre-commit-edit"),
    P("late", "apply_patch", {"command": PATCH.format(kind="Update", path="src/app.py")}, id="after-pre-commit-patch"),
]

STATE_FORGERY = [
    P("ready", "Edit", {"file_path": f".code-intel/sessions/{SESSION_ID}.json", "old_string": "[", "new_string": "[\"lib/other.py\","},
      id="edit-checkpoint"),
    P("ready", "Write", {"file_path": ".code-intel/config.json", "content": '{"verify": {"commands": ["true"]}}'},
      id="rewrite-verify-commands"),
    P("ready", "Bash", {"command": f"echo '{{}}' >> .code-intel/sessions/{SESSION_ID}.writes.jsonl"}, id="append-write-log"),
    P("early", "Bash", {"command": f"echo '{{}}' >> .code-intel/sessions/{SESSION_ID}.reads.jsonl"}, id="append-read-log"),
    P("ready", "Bash", {"command": f"cp /tmp/forged.json .code-intel/sessions/{SESSION_ID}.json"}, id="copy-over-checkpoint"),
    P("ready", "Bash", {"command": "sed -i 's/pytest -q/true/' .code-intel/config.json"}, id="sed-verify-commands"),
    P("ready", "Bash", {"command": f"node -e \"require('fs').appendFileSync('.code-intel/sessions/{SESSION_ID}.writes.jsonl', 'x')\""},
      id="node-append-write-log"),
    P("ready", "Bash", {"command": "python3 -c \"open('.code-intel/contract.yml', 'w').write('')\""}, id="python-contract"),
    P("ready", "apply_patch", {"command": PATCH.format(kind="Add", path=".code-intel/verifiers/backend.md")}, id="patch-verifier"),
    P("early", "Bash", {"command": "rm -rf .code-intel/sessions"}, id="remove-the-session"),
    P("ready", "Read", {"file_path": str(key_dir() / "0123.key")}, id="read-the-seal-key"),
    P("early", "Bash", {"command": "cat ~/.local/state/code-intel/keys/*.key | xxd"}, id="cat-the-seal-key"),
    P("ready", "Bash", {"command": "code-intel allow src/app.py"}, id="agent-runs-code-intel-allow"),
    P("ready", "Bash", {"command": "python -m code_intel.cli.main allow src/app.py"}, id="agent-runs-allow-module"),
]


@pytest.mark.parametrize(("where", "command"), SHELL_WRITES)
def test_shell_writes_are_denied(ask: Callable[[str], Ask], where: str, command: str) -> None:
    decision = ask(where)("Bash", command=command)
    assert not decision.allow, command
    assert "code-intel blocked this Bash call" in decision.reason


# every form in READY, where writing is allowed; the first few before READY and after PRE_COMMIT too
GIT_ATTEMPTS = [("ready", command) for command in GIT] + [(where, command) for where in ("early", "late")
                                                          for command in GIT[:8]]


@pytest.mark.parametrize(("where", "command"), GIT_ATTEMPTS)
def test_git_is_an_allow_list(ask: Callable[[str], Ask], where: str, command: str) -> None:
    decision = ask(where)("Bash", command=command)
    assert not decision.allow, command
    assert "git" in decision.reason and ("only to read" in decision.reason or "name the file" in decision.reason)


@pytest.mark.parametrize(("where", "tool", "tool_input"), CLIENT_TOOLS)
def test_client_tools_in_both_event_shapes(ask: Callable[[str], Ask], where: str, tool: str,
                                           tool_input: dict[str, Any]) -> None:
    decision = ask(where)(tool, **tool_input)
    assert not decision.allow, (tool, tool_input)
    assert f"code-intel blocked this {tool} call" in decision.reason


@pytest.mark.parametrize(("where", "tool", "tool_input"), STATE_FORGERY)
def test_session_state_cannot_be_forged_through_the_agents_tools(ask: Callable[[str], Ask], where: str, tool: str,
                                                                 tool_input: dict[str, Any]) -> None:
    decision = ask(where)(tool, **tool_input)
    assert not decision.allow, (tool, tool_input)


EVERYDAY = [
    "ls -la", "ls src | wc -l", "cat src/app.py", "head -20 src/app.py", "tail -n 5 src/app.py",
    "sed -n '1,5p' src/app.py", "awk '{print $1}' src/app.py", "grep -rn 'def add' src", "rg -n add src",
    "find . -name '*.py' -not -path './.git/*'", "find src -name '*.py' -exec grep -l add {} +",
    "ls src | xargs grep -n add", "wc -l src/app.py lib/other.py", "diff src/app.py lib/other.py", "stat src/app.py",
    "git status", "git status --short", "git diff", "git diff --stat HEAD~1", "git diff --cached",
    "git log --oneline -5", "git log -p -- src/app.py | head -50", "git show HEAD:src/app.py", "git show --stat HEAD",
    "git blame src/app.py", "git grep -n add", "git ls-files", "git rev-parse HEAD", "git rev-parse --show-toplevel",
    "git cat-file -p HEAD", "git branch", "git branch -a", "git branch --show-current", "git tag -l", "git stash list",
    "git config --get user.name", "git config user.email", "git remote -v", "git log --graph --all --oneline | head",
    "git -C src status", "git --no-pager log -1", "GIT_PAGER=cat git log -3",
    "git diff --output-indicator-new=+ HEAD", "git log --stat --format='%h %s' -- src",
    "python -m pytest -q", "pytest -x tests", "python3 -c 'print(1 + 1)'",
    "python3 -c \"import json; print(json.load(open('package.json')))\"",
    "perl -Mstrict -ne 'print if /add/' src/app.py", "tmp=$(mktemp) && git diff > \"$tmp\" && wc -l \"$tmp\"",
    "out=$(mktemp -d) && cp src/app.py \"$out/\"", "echo hi > /tmp/code-intel-scratch.txt", "cmd > /dev/null 2>&1",
    "which python3", "env | sort | head", "echo $HOME", "cd src && ls", "make -n", "npm test",
    "node -e 'console.log(process.version)'", "jq . package.json",
]


@pytest.mark.parametrize("where", ["early", "ready"])
@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_reading_commands_stay_allowed(ask: Callable[[str], Ask], where: str, command: str) -> None:
    decision = ask(where)("Bash", command=command)
    assert decision.allow, (command, decision.reason)


def test_the_catalogue_is_as_large_as_promised() -> None:
    attempts = len(SHELL_WRITES) + len(GIT_ATTEMPTS) + len(CLIENT_TOOLS) + len(STATE_FORGERY)
    assert attempts >= 100 and len(EVERYDAY) >= 30, (attempts, len(EVERYDAY))
