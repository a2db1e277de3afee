"""review_changes on a real repository, and the garbage candidates it lists."""

from __future__ import annotations

from code_intel.git.garbage import ChangedFile, added_lines, find_garbage
from tests.git.conftest import TestRepo


def _session(repo: TestRepo, sid: str = "r1"):  # type: ignore[no-untyped-def]
    service = repo.service()
    return service, service.create_task_branch(sid, service.begin_session(sid))


def test_review_lists_status_counts_and_diff_of_session_changes_only(repo: TestRepo) -> None:
    repo.write("README.md", "# sample\nuser line\n")  # before the session: not part of the review
    service, info = _session(repo)
    repo.write("app.py", repo.read("app.py").replace("return 1", "return 11"))
    repo.write("new.py", "a = 1\nb = 2\n")
    (repo.path / "app_old.py").write_text("", encoding="utf-8")
    repo.git("rm", "-q", "--cached", "README.md")  # the index never matters: the working tree does
    review = service.review(info)
    by_file = {f.file: f for f in review.files}
    assert set(by_file) == {"app.py", "new.py", "app_old.py"}
    assert (by_file["app.py"].status, by_file["app.py"].added, by_file["app.py"].removed) == ("modified", 1, 1)
    assert (by_file["new.py"].status, by_file["new.py"].added) == ("added", 2)
    assert "user line" not in review.diff and review.diff_truncated is False


def test_review_cuts_a_large_diff_and_says_so(repo: TestRepo) -> None:
    service, info = _session(repo)
    repo.write("a.py", "".join(f"line_{i} = {i}\n" for i in range(400)))
    repo.write("b.py", "".join(f"other_{i} = {i}\n" for i in range(400)))
    repo.write("c.py", "small = 1\n")
    review = service.review(info, max_diff_bytes=3000)
    assert review.diff_truncated is True and len(review.diff.encode()) <= 3000 + 100
    assert review.diff_total_bytes > 3000
    assert "cut here" in review.diff
    assert review.diff_omitted_files == ["b.py", "c.py"] and "b.py" in review.note
    assert len(review.files) == 3  # the file list is never cut


def test_review_flags_files_outside_the_write_rules(repo: TestRepo) -> None:
    service, info = _session(repo)
    repo.write("app.py", "x = 1\n")
    repo.write("secret_area/conf.py", "y = 2\n")
    review = service.review(info, write_allowed=lambda path: path == "app.py")
    assert review.outside_write_rules == ["secret_area/conf.py"]


def test_review_lists_garbage_candidates_with_file_and_line(repo: TestRepo) -> None:
    service, info = _session(repo)
    repo.write("app.py", repo.read("app.py").replace("    return 1\n", "    print('debug', 1)\n    return 1\n"))
    repo.write("web/ui.js", "function f() {\n  console.log('here');\n  return 1;\n}\n")
    repo.write("backup.py.bak", "old\n")
    (repo.path / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    review = service.review(info)
    found = {(g.file, g.line, g.kind) for g in review.garbage}
    assert ("app.py", 2, "debug_output") in found
    assert ("web/ui.js", 2, "debug_output") in found
    assert ("backup.py.bak", 1, "temp_file") in found
    assert ("blob.bin", 1, "binary_file") in found
    assert not any(g.file == "app.py" and g.line != 2 for g in review.garbage)


def _patch(lines: list[str], start: int = 1) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return f"--- /dev/null\n+++ b/x\n@@ -0,0 +{start},{len(lines)} @@\n{body}"


def test_added_lines_follow_hunk_numbers() -> None:
    patch = "@@ -3,2 +3,3 @@\n context\n-old\n+new\n+newer\n"
    assert list(added_lines(patch)) == [(4, "new"), (5, "newer")]


def test_commented_out_code_block_is_a_candidate_but_prose_is_not() -> None:
    code = ["x = 1", "# old = compute(x)", "# if old:", "#     return old;", "y = 2"]
    prose = ["# This explains why we keep the cache", "# warm between calls, because the", "# backend is slow to answer"]
    found = find_garbage([
        ChangedFile(file="a.py", status="modified", binary=False, size=10, patch=_patch(code)),
        ChangedFile(file="b.py", status="modified", binary=False, size=10, patch=_patch(prose)),
    ])
    blocks = [g for g in found if g.kind == "commented_out_code"]
    assert [(g.file, g.line, g.end_line) for g in blocks] == [("a.py", 2, 4)]


def test_language_specific_debug_output_secrets_and_placeholders() -> None:
    cases = {
        "main.go": ['fmt.Println("got", v)'],
        "lib.rs": ["let x = dbg!(y);"],
        "page.php": ["var_dump($user);"],
        "conf.py": ['api_key = "sk-live-abcdef123456"', "# TODO wire the real client"],
        "notes.md": ["print('this is documentation')"],
    }
    found = find_garbage([
        ChangedFile(file=name, status="added", binary=False, size=50, patch=_patch(lines)) for name, lines in cases.items()
    ])
    kinds = {(g.file, g.kind) for g in found}
    assert {("main.go", "debug_output"), ("lib.rs", "debug_output"), ("page.php", "debug_output")} <= kinds
    assert {("conf.py", "secret"), ("conf.py", "placeholder")} <= kinds
    assert not any(g.file == "notes.md" for g in found)


def test_large_and_local_files_are_candidates() -> None:
    found = find_garbage([
        ChangedFile(file="data/dump.csv", status="added", binary=False, size=2_000_000, patch=""),
        ChangedFile(file=".env", status="added", binary=False, size=20, patch=_patch(["DEBUG=1"])),
        ChangedFile(file="gone.py", status="deleted", binary=False, size=None, patch=""),
    ])
    assert {(g.file, g.kind) for g in found} == {("data/dump.csv", "large_file"), (".env", "local_file")}
