"""Atomic writes keep the permissions a plain open() would give and leave no temp file behind."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_intel.core.fsutil import current_umask, write_atomic


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_gets_umask_permissions_not_the_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.json"
    assert write_atomic(target, "{}") == 2
    assert target.read_text() == "{}"
    assert _mode(target) == 0o666 & ~current_umask()
    script = tmp_path / "run.sh"
    write_atomic(script, b"#!/bin/sh\n", executable=True, fsync=True)
    assert _mode(script) == 0o777 & ~current_umask()


def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_atomic(target, "new")
    assert target.read_text() == "new" and _mode(target) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old")

    def broken(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_pieces_are_written_in_order_and_a_failure_among_them_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    assert write_atomic(target, iter([b"ab", b"", b"cde"])) == 5 and target.read_bytes() == b"abcde"

    def failing() -> Iterator[bytes]:
        yield b"new"
        raise RuntimeError("stopped half way")

    with pytest.raises(RuntimeError):
        write_atomic(target, failing())
    assert target.read_bytes() == b"abcde" and [p.name for p in tmp_path.iterdir()] == ["file.txt"]
