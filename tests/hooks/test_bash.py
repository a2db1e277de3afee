"""Reading a shell command for the files it writes (tools/hooks/bash.py): each form the hook knows."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.hooks.bash import Limits, tokenize, write_targets

CWD = Path("/proj")


def files(command: str, cwd: Path = CWD) -> list[str]:
    return [p.as_posix() for p in write_targets(command, cwd).files]


@pytest.mark.parametrize(("command", "expected"), [
    ("echo hi > a.txt", ["/proj/a.txt"]),
    ("echo hi >> logs/a.txt", ["/proj/logs/a.txt"]),
    ("echo hi>|a.txt", ["/proj/a.txt"]),
    ("make &> build.log", ["/proj/build.log"]),
    ("make &>> build.log", ["/proj/build.log"]),
    ("cmd 2> err.txt", ["/proj/err.txt"]),
    ("cmd >&out.txt", ["/proj/out.txt"]),
    ('echo "a > b" > "my file.txt"', ["/proj/my file.txt"]),
    ("echo 'x' > /abs/elsewhere.txt", ["/abs/elsewhere.txt"]),
    ("cat <<EOF > gen.py\nprint('hi > x.txt')\nEOF", ["/proj/gen.py"]),
    ("cat <<'EOF' | tee out.md\n> not a redirect\nEOF\necho done > done.txt", ["/proj/out.md", "/proj/done.txt"]),
    ("ls | tee -a one.txt two.txt", ["/proj/one.txt", "/proj/two.txt"]),
    ("sed -i 's/a/b/' src/app.py", ["/proj/src/app.py"]),
    ("sed -i.bak -e 's/a/b/' -e 's/c/d/' a.py b.py", ["/proj/a.py", "/proj/b.py"]),
    ("sed -Ei 's/a/b/' a.py", ["/proj/a.py"]),
    ("sed --in-place=.orig 's/a/b/' a.py", ["/proj/a.py"]),
    ("perl -pi -e 's/a/b/' a.pl", ["/proj/a.pl"]),
    ("cp src/a.py src/b.py", ["/proj/src/b.py"]),
    ("cp -r a.py b.py dest/", ["/proj/dest/a.py", "/proj/dest/b.py"]),
    ("cp -t dest a.py", ["/proj/dest/a.py"]),
    ("mv old.py new.py", ["/proj/new.py", "/proj/old.py"]),
    ("rm -rf build dist", ["/proj/build", "/proj/dist"]),
    ("rm -- -weird", ["/proj/-weird"]),
    ("touch a b", ["/proj/a", "/proj/b"]),
    ("mkdir -p pkg/sub", ["/proj/pkg/sub"]),
    ("rmdir empty", ["/proj/empty"]),
    ("truncate -s 0 big.log", ["/proj/big.log"]),
    ("install -d -m 755 build/out", ["/proj/build/out"]),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", ["/proj/disk.img"]),
    ("install -m 644 a.conf etc/a.conf", ["/proj/etc/a.conf"]),
    ("cd sub && echo x > y.txt", ["/proj/sub/y.txt"]),
    ("FOO=1 sudo -E tee out.txt < in.txt", ["/proj/out.txt"]),
    ("timeout 5 tee out.txt", ["/proj/out.txt"]),
    ("bash -c 'echo x > inner.txt'", ["/proj/inner.txt"]),
    ("(cd /tmp; echo x > t.txt) && echo y > z.txt", ["/tmp/t.txt", "/tmp/z.txt"]),  # subshell cd leaks: best effort
    ("echo $(echo x > sub.txt)", ["/proj/sub.txt"]),
    ('python -c "open(\'out.json\', \'w\').write(data)"', ["/proj/out.json"]),
    ("python3 -c \"from pathlib import Path; Path('gen/x.py').write_text('1')\"", ["/proj/gen/x.py"]),
    ("python3 -c \"import os; os.remove('stale.txt')\"", ["/proj/stale.txt"]),
    ("python3 -c \"import shutil; shutil.move('a.txt', 'b.txt')\"", ["/proj/a.txt", "/proj/b.txt"]),
    ("python - <<'PY'\nwith open(\"notes.txt\", \"a\") as f:\n    f.write('x')\nPY", ["/proj/notes.txt"]),
])
def test_write_forms_name_their_targets(command: str, expected: list[str]) -> None:
    assert files(command) == expected


@pytest.mark.parametrize("command", [
    "ls -la", "cat a.txt | grep x", "pytest -q", "git status", "git diff HEAD~1", "git log --oneline",
    "git stash list", "git stash show -p", "echo hi 2>&1", "echo hi >&2", "cmd > /dev/null 2>&1",
    "echo 'a > b'", "grep -r '>' src", "ls # > not-a-file", "sed 's/a/b/' a.py", "cat < input.txt",
    "python -m pytest", "python script.py", "python -c \"print(open('a.txt').read())\"", "cp onlyone",
    "echo a#b",
])
def test_reading_commands_write_nothing(command: str) -> None:
    result = write_targets(command, CWD)
    assert not result.any, (result.files, result.git, result.unknown)


@pytest.mark.parametrize(("command", "words"), [
    ("git commit -am 'x'", "`git commit`"), ("git checkout -- src/a.py", "`git checkout`"),
    ("git -C sub reset --hard", "`git reset`"), ("git merge feature", "`git merge`"), ("git rebase main", "`git rebase`"),
    ("git stash", "`git stash`"), ("git stash pop", "`git stash`"), ("git switch -c x", "`git switch`"),
    ("git restore a.py", "`git restore`"), ("git cherry-pick abc", "`git cherry-pick`"), ("git clean -fd", "`git clean`"),
    ("cd repo && git -c user.name=x commit -m y", "`git -c`"), ("git update-index --skip-worktree a.py", "update-index"),
    ("GIT_INDEX_FILE=/tmp/i git read-tree HEAD", "GIT_INDEX_FILE"), ("git config core.hooksPath x", "`git config`"),
])
def test_git_commands_that_do_not_only_read_are_refused(command: str, words: str) -> None:
    refused = write_targets(command, CWD).git
    assert len(refused) == 1 and words in refused[0], refused


@pytest.mark.parametrize("command", [
    "echo x > $OUT", 'echo x > "$DIR/file"', "tee $(mktemp)", "rm -rf ${BUILD}",
    "python -c \"open(name, 'w')\"", "cp a.py `pick`",
])
def test_targets_that_cannot_be_read_are_unknown(command: str) -> None:
    result = write_targets(command, CWD)
    assert result.unknown and not result.files


def test_home_and_pwd_variables_are_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    assert files("echo x > $HOME/notes.txt") == ["/home/me/notes.txt"]
    assert files("echo x > $PWD/notes.txt") == ["/proj/notes.txt"]
    assert files("echo x > ~/notes.txt") == ["/home/me/notes.txt"]


def test_globs_expand_against_the_folder(tmp_path: Path) -> None:
    (tmp_path / "a.pyc").write_text("")
    (tmp_path / "b.pyc").write_text("")
    assert files("rm *.pyc", tmp_path) == [(tmp_path / "a.pyc").as_posix(), (tmp_path / "b.pyc").as_posix()]
    assert files("rm *.none", tmp_path) == [(tmp_path / "*.none").as_posix()]


def test_copy_into_an_existing_folder_names_the_file_inside(tmp_path: Path) -> None:
    (tmp_path / "dest").mkdir()
    assert files("cp a.py dest", tmp_path) == [(tmp_path / "dest" / "a.py").as_posix()]


def test_lexer_keeps_quotes_escapes_and_continuations() -> None:
    tokens, subs = tokenize("echo \"a \\\"b\\\" c\" 'd e' f\\ g \\\n h # tail > x")
    words = [t.text for t in tokens if not isinstance(t, str)]
    assert words == ['echo', 'a "b" c', 'd e', 'f g', 'h']
    assert subs == []


def test_unterminated_quotes_do_not_raise() -> None:
    assert files("echo 'open > x.txt") == []
    assert files('echo "x > y.txt') == []


@pytest.mark.parametrize("command", [
    "perl -Mstrict -ne 'print if /x/' src/app.py",  # -M takes a module: its `i` is no -i
    "perl -nle 'print $1 if /(\\d+)/' a.txt", "sed -n '/def/p' a.py", "sed -E 's/a/b/g' a.py",
    "tmp=$(mktemp) && git diff > \"$tmp\"", "out=$(mktemp -d) && cp a.py \"$out/\"", "log=/tmp/x.log; make > $log",
])
def test_former_false_alarms_write_nothing_in_the_project(command: str) -> None:
    result = write_targets(command, CWD, Limits(CWD))
    assert not result.unknown and not result.git and not result.refused, result.unknown
    assert all(not str(p).startswith("/proj") for p in result.files), result.files


@pytest.mark.parametrize(("command", "unknown"), [
    ("node -e \"require('fs').appendFileSync('a.py', 'x')\"", "node code"),
    ("bash -lc 'echo x > $T'", "> $T"), ("eval \"$CMD\"", "eval"), ("ls | xargs rm", "xargs rm"),
    ("find . -delete", "find -delete"), ("find . -exec rm {} +", "find -exec rm"), ("env -S 'touch a'", "env -S"),
    ("patch -p1 < x.diff", "patch"), ("tar xzf a.tgz", "tar"), ("unzip a.zip", "unzip"),
    ("sed 's/a/b/w out' a.py", "sed script"), ("$EDITOR a.py", "a program named by a variable"),
    ("python3 -c \"import subprocess; subprocess.run(['x'])\"", "python code"),
    ("echo " + "$(" * 50 + ")" * 50, "nested more than"),
])
def test_forms_it_cannot_name_are_unknown(command: str, unknown: str) -> None:
    result = write_targets(command, CWD, Limits(CWD))
    assert any(unknown in u for u in result.unknown), result.unknown


def test_links_in_the_project_and_code_intel_allow_are_refused_outright() -> None:
    assert write_targets("ln -s ../x src/a.md", CWD, Limits(CWD)).refused
    assert not write_targets("ln -s /a /tmp/b", CWD, Limits(CWD)).any
    assert write_targets("code-intel allow a.py", CWD, Limits(CWD)).refused
    assert write_targets("python -m code_intel.cli.main allow a.py", CWD, Limits(CWD)).refused


def test_wrappers_move_the_folder_and_skip_their_option_values() -> None:
    assert files("env -C sub touch x") == ["/proj/sub/x"]
    assert files("nice -n 5 touch y") == ["/proj/y"]
    assert files("timeout -s KILL 5 tee z") == ["/proj/z"]
    assert files("sudo -u root tee w") == ["/proj/w"]


def test_patterns_are_bounded_and_expanded_only_inside_the_project(tmp_path: Path) -> None:
    outside = write_targets("rm /*/*/*/*", tmp_path, Limits(tmp_path))
    assert outside.files == [Path("/*/*/*/*")] and not outside.unknown  # never walked: not the project's
    deep = write_targets("rm */*/*/*/x", tmp_path, Limits(tmp_path))
    assert deep.unknown and not deep.files
    many = write_targets("rm " + " ".join(f"*{i}" for i in range(Limits.MAX_GLOBS + 5)), tmp_path, Limits(tmp_path))
    assert any("file patterns" in u for u in many.unknown)
