"""Reading a shell command for the files it writes (tools/hooks/bash.py): each form the hook knows."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.hooks.bash import tokenize, write_targets

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
    ("ln -s target link", ["/proj/link"]),
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


@pytest.mark.parametrize(("command", "operation"), [
    ("git commit -am 'x'", "git commit"), ("git checkout -- src/a.py", "git checkout"),
    ("git -C sub reset --hard", "git reset"), ("git merge feature", "git merge"), ("git rebase main", "git rebase"),
    ("git stash", "git stash"), ("git stash pop", "git stash"), ("git switch -c x", "git switch"),
    ("git restore a.py", "git restore"), ("git cherry-pick abc", "git cherry-pick"), ("git clean -fd", "git clean"),
    ("cd repo && git -c user.name=x commit -m y", "git commit"),
])
def test_git_operations_that_change_the_repository(command: str, operation: str) -> None:
    assert write_targets(command, CWD).git == [operation]


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


@pytest.mark.parametrize(("command", "expected"), [
    ("cat src/app.py", ["/proj/src/app.py"]),
    ("sed -n '1,40p' src/app.py", ["/proj/1,40p", "/proj/src/app.py"]),  # the script is dropped later: no such file
    ("nl -ba lib/a.py | sed -n 10,20p", ["/proj/lib/a.py", "/proj/10,20p"]),
    ("head -n 5 a.py b.py && tail -f log.txt", ["/proj/5", "/proj/a.py", "/proj/b.py", "/proj/log.txt"]),
    ("grep -n 'def add' src/app.py", ["/proj/def add", "/proj/src/app.py"]),
    ("cd src && cat app.py", ["/proj/src/app.py"]),
    ("python3 - < script.py", ["/proj/script.py"]),
    ("sudo less /etc/hosts", ["/etc/hosts"]),
    ("cat $FILE", []),  # a variable: not known here
    ("ls src && pytest -q", []),
    ("sed -i 's/a/b/' src/app.py", ["/proj/s/a/b", "/proj/src/app.py"]),  # also a write, read by the write table
])
def test_reading_commands_name_what_they_read(command: str, expected: list[str]) -> None:
    assert [p.as_posix() for p in write_targets(command, CWD).reads] == expected


def test_read_globs_expand_against_the_folder(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a")
    (tmp_path / "b.py").write_text("b")
    assert [p.name for p in write_targets("cat *.py", tmp_path).reads] == ["a.py", "b.py"]
