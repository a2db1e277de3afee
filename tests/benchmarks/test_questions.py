"""benchmarks/questions.py: question files, scoring, file roles, checkouts, and one real run over a tiny repository."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from code_intel.index.embedder import Embedder

REPO_ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO_ROOT / "benchmarks"


def _load() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("questions_benchmark", BENCHMARKS / "questions.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


qb = _load()

GOOD = """\
repo: https://github.com/example/tiny
commit: {commit}
language: python
questions:
  - id: totals
    q: how is the invoice total with tax computed?
    style: sentence
    kind: how-it-works
    answers:
      - {{file: src/invoices.py, start: 1, end: 3}}
  - q: send welcome mail
    style: keyword
    kind: where-is
    keywords: [send_welcome]
    code_hint: "def send(address): ..."
    answers:
      - {{file: src/mailer.py, start: 1, end: 2}}
"""


def _write(tmp_path: Path, text: str, name: str = "tiny.yml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------ committed files
def test_committed_question_sets_meet_the_minimums() -> None:
    test_sets = [qb.load_question_set(p) for p in qb.question_files([qb.SETS["test"]])]
    dev_sets = [qb.load_question_set(p) for p in qb.question_files([qb.SETS["dev"]])]
    assert len(test_sets) >= 3 and len(dev_sets) >= 2
    assert {"python", "go"} <= {s.language for s in test_sets}
    assert {"typescript", "javascript"} & {s.language for s in test_sets}
    assert all(len(s.questions) >= 40 for s in test_sets)
    assert all(len(s.questions) >= 20 for s in dev_sets)
    for s in test_sets + dev_sets:
        assert {q.style for q in s.questions} == set(qb.STYLES), s.label
        assert any(q.kind == "how-it-works" for q in s.questions), s.label
    # the reported set and the set used for choosing levers never share a repository
    assert not {s.repo for s in test_sets} & {s.repo for s in dev_sets}


# ------------------------------------------------------------------------------------------ file format
def test_a_good_file_loads_with_defaults_and_optional_fields(tmp_path: Path) -> None:
    qset = qb.load_question_set(_write(tmp_path, GOOD.format(commit="a" * 40)))
    assert (qset.owner, qset.name, qset.language) == ("example", "tiny", "python")
    first, second = qset.questions
    assert first.id == "totals" and first.answers == [qb.Answer("src/invoices.py", 1, 3)]
    assert second.id == "2" and second.keywords == ["send_welcome"] and second.code_hint.startswith("def send")


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("a" * 40, "abc123"), "full 40-digit commit"),
    (lambda t: t.replace("style: sentence", "style: prose"), "question 1: style 'prose'"),
    (lambda t: t.replace("kind: where-is", "kind: why"), "question 2: kind 'why'"),
    (lambda t: t.replace("start: 1, end: 3", "start: 4, end: 3"), "1 <= start <= end"),
    (lambda t: t.replace("src/mailer.py", "../outside.py"), "relative to the repository root"),
    (lambda t: t.replace("  - q: send", "  - id: totals\n    q: send"), "id 'totals' is used twice"),
    (lambda t: t.replace("    kind: how-it-works", "    kind: how-it-works\n    answer: x"), "unknown keys ['answer']"),
    (lambda t: t.replace("language: python", "language: cobol"), "language"),
    (lambda t: t.replace("https://github.com/example/tiny", "example/tiny"), "https://github.com/<owner>/<name>"),
    (lambda t: t.replace("keywords: [send_welcome]", "keywords: send_welcome"), "keywords must be a list"),
])
def test_bad_files_are_refused_with_where_and_why(tmp_path: Path, change: Any, message: str) -> None:
    path = _write(tmp_path, change(GOOD.format(commit="a" * 40)))
    with pytest.raises(qb.QuestionFileError) as err:
        qb.load_question_set(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_dev_guesses_cover_every_dev_question_and_bad_entries_are_refused(tmp_path: Path) -> None:
    sets = [qb.load_question_set(p) for p in qb.question_files([qb.SETS["dev"]])]
    qb.add_guesses(sets, BENCHMARKS / "questions" / "guesses" / "dev.yml")
    # The guesses were written blind, for the first three dev repositories and later for the second three
    # (rq, got, websocket): every dev question has both, and no guess names a question that is not there.
    assert {"tornado", "express", "resty", "rq", "got", "websocket"} <= {s.name for s in sets}
    questions = [q for s in sets for q in s.questions]
    assert all(q.keywords and q.code_hint for q in questions)
    wrong = tmp_path / "wrong.yml"
    wrong.write_text(f"{sets[0].name}:\n  no-such-question: {{keywords: [x]}}\n", encoding="utf-8")
    with pytest.raises(qb.QuestionFileError, match="no such question"):
        qb.add_guesses(sets, wrong)
    wrong.write_text(f"{sets[0].name}:\n  {questions[0].id}: {{keywords: [1]}}\n", encoding="utf-8")
    with pytest.raises(qb.QuestionFileError, match="keywords must be"):
        qb.add_guesses(sets, wrong)


def test_question_files_lists_yaml_in_a_folder_and_refuses_an_empty_one(tmp_path: Path) -> None:
    _write(tmp_path, GOOD.format(commit="a" * 40), "b.yml")
    _write(tmp_path, GOOD.format(commit="a" * 40), "a.yaml")
    (tmp_path / "notes.md").write_text("not a question file")
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", GOOD.format(commit="a" * 40), "c.yml")
    assert [p.name for p in qb.question_files([tmp_path])] == ["a.yaml", "b.yml"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(qb.QuestionFileError, match="no question files"):
        qb.question_files([tmp_path / "empty"])
    with pytest.raises(qb.QuestionFileError, match="no such file or folder"):
        qb.question_files([tmp_path / "missing"])


# ------------------------------------------------------------------------------------------ scoring
@pytest.mark.parametrize("path, role", [
    ("src/app.py", "implementation"), ("gin.go", "implementation"), ("lib/response.js", "implementation"),
    ("tests/test_app.py", "test"), ("context_test.go", "test"), ("src/hono.test.ts", "test"),
    ("benchmarks/run.js", "test"), ("docs/guide.md", "doc"), ("README.rst", "doc"), ("examples/echo.py", "doc"),
    ("testdata/protoexample/test.pb.go", "generated"), ("dist/bundle.min.js", "generated"),
])
def test_file_roles(path: str, role: str) -> None:
    assert qb.file_role(path) == role


def test_hits_mrr_recall_and_the_implementation_share() -> None:
    questions = [
        qb.Question("1", "a", "keyword", "how-it-works", [qb.Answer("src/a.py", 10, 20)]),
        qb.Question("2", "b", "sentence", "how-it-works", [qb.Answer("src/b.py", 5, 8)]),
        qb.Question("3", "c", "sentence", "where-is", [qb.Answer("src/c.py", 1, 2)]),
    ]
    tops = [
        [("tests/test_a.py", 1, 50), ("src/a.py", 18, 30)],  # hit at rank 2 (overlap 18-20), a test first
        [("src/b.py", 1, 4), ("docs/b.md", 1, 9), ("src/b.py", 8, 9)],  # hit at rank 3; implementation first
        [("src/c.py", 3, 9)],  # right file, no overlap: a miss
    ]
    outcomes = [qb.Outcome(q.id, qb.semantic.first_hit(t, qb.answer_spans(q)), t) for q, t in zip(questions, tops, strict=True)]
    assert [o.rank for o in outcomes] == [2, 3, None]
    summary = qb.summarize(outcomes, questions)
    assert summary["mrr10"] == round((1 / 2 + 1 / 3) / 3, 4)
    assert summary["recall10"] == round(2 / 3, 4)
    assert summary["how_it_works"] == 2 and summary["impl_outranks_tests_docs"] == 0.5
    assert summary["first_result_test_or_doc"] == round(1 / 3, 4)


def test_result_spans_give_one_line_results_a_one_line_span() -> None:
    results = [{"file": "a.py", "line": 4, "end_line": 9}, {"file": "b.py", "line": 7}, {"file": None, "line": 1}]
    assert qb.result_spans(results) == [("a.py", 4, 9), ("b.py", 7, 7)]


def test_optional_arguments_only_for_tools_that_accept_them() -> None:
    q = qb.Question("1", "q", "keyword", "where-is", [qb.Answer("a.py", 1, 1)], ["send_mail"], "def send(): ...")
    assert qb.optional_arguments({"properties": {"query": {}}}, q) == {}
    assert qb.optional_arguments({"properties": {"query": {}, "keywords": {}}}, q) == {"keywords": ["send_mail"]}
    both = {"properties": {"question": {}, "keywords": {}, "code_hint": {}}}
    assert qb.optional_arguments(both, q) == {"keywords": ["send_mail"], "code_hint": "def send(): ..."}
    bare = qb.Question("2", "q", "keyword", "where-is", [qb.Answer("a.py", 1, 1)])
    assert qb.optional_arguments(both, bare) == {}


# ------------------------------------------------------------------------------------------ checkouts and a real run
def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, str, str]:
    """A bare mirror laid out like /work/.mirror/<owner>+<name>/repo with two commits; (mirror root, old, new)."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    _git(tmp_path, "init", "-q", str(work))
    (work / "src" / "invoices.py").write_text(
        "def total_with_tax(amounts, rate):\n    subtotal = sum(amounts)\n    return round(subtotal * (1 + rate), 2)\n")
    (work / "src" / "mailer.py").write_text(
        "import smtplib\n\n\ndef send_welcome_email(address, name):\n"
        "    with smtplib.SMTP('localhost') as server:\n        server.sendmail('me', [address], f'Hello {name}')\n")
    (work / "tests").mkdir()
    (work / "tests" / "test_invoices.py").write_text(
        "from src.invoices import total_with_tax\n\n\ndef test_total_with_tax():\n"
        "    assert total_with_tax([10], 0.5) == 15\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "one")
    old = _git(work, "rev-parse", "HEAD")
    (work / "src" / "invoices.py").write_text("# moved\n")
    _git(work, "commit", "-qam", "two")
    new = _git(work, "rev-parse", "HEAD")
    root = tmp_path / "mirror"
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(root / "example+tiny" / "repo"))
    return root, old, new


def test_checkout_from_the_mirror_at_the_pinned_commit_and_reuse(tmp_path: Path, mirror: tuple[Path, str, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, old, _new = mirror
    qset = qb.load_question_set(_write(tmp_path, GOOD.format(commit=old)))
    folder = qb.checkout(qset, corpus=tmp_path / "corpus", mirror=root)
    assert _git(folder, "rev-parse", "HEAD") == old
    assert "total_with_tax" in (folder / "src" / "invoices.py").read_text()
    assert qb.check_spans(qset, folder) == []
    assert qb.checkout(qset, corpus=tmp_path / "corpus", mirror=root) == folder  # reused, not cloned again
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")  # never reach the network from a test
    missing = qb.load_question_set(_write(tmp_path, GOOD.format(commit="b" * 40), "missing.yml"))
    with pytest.raises(RuntimeError, match="neither in"):
        qb.checkout(missing, corpus=tmp_path / "corpus2", mirror=root)


def test_the_fetch_list_names_a_repository_once_when_its_mirror_lacks_the_commit(tmp_path: Path,
                                                                                 mirror: tuple[Path, str, str]) -> None:
    root, old, _new = mirror
    held = qb.load_question_set(_write(tmp_path, GOOD.format(commit=old)))
    assert qb.fetch_list([held], mirror=root) == []
    lacking = qb.load_question_set(_write(tmp_path, GOOD.format(commit="b" * 40), "lacking.yml"))
    assert qb.fetch_list([held, lacking, lacking], mirror=root) == ["github:example/tiny"]
    assert qb.fetch_list([held], mirror=tmp_path / "no-mirror") == ["github:example/tiny"]


def test_span_checks_name_missing_files_and_spans_off_a_definition(tmp_path: Path,
                                                                   mirror: tuple[Path, str, str]) -> None:
    root, old, _new = mirror
    text = GOOD.format(commit=old).replace("src/mailer.py, start: 1, end: 2", "src/mailer.py, start: 4, end: 40")
    qset = qb.load_question_set(_write(tmp_path, text.replace("src/invoices.py", "src/gone.py")))
    folder = qb.checkout(qset, corpus=tmp_path / "corpus", mirror=root)
    problems = qb.check_spans(qset, folder)
    assert any("src/gone.py does not exist" in p for p in problems)
    assert any("ends after line" in p for p in problems)
    fine = qb.load_question_set(_write(tmp_path, GOOD.format(commit=old).replace(
        "src/mailer.py, start: 1, end: 2", "src/mailer.py, start: 4, end: 6"), "fine.yml"))
    assert qb.span_warnings(fine, folder) == []
    off = qb.load_question_set(_write(tmp_path, GOOD.format(commit=old).replace(
        "src/mailer.py, start: 1, end: 2", "src/mailer.py, start: 4, end: 5"), "off.yml"))
    assert qb.span_warnings(off, folder) == ["tiny question 2: src/mailer.py:4-5 is not one syntax node"]


@pytest.mark.slow
def test_a_real_run_through_the_server_tools_and_bm25(tmp_path: Path, mirror: tuple[Path, str, str],
                                                     embedding_model: Embedder) -> None:
    """Index a tiny repository with the default model and ask through the MCP server's own tools."""
    root, old, _new = mirror
    text = GOOD.format(commit=old).replace("src/mailer.py, start: 1, end: 2", "src/mailer.py, start: 4, end: 6")
    qset = qb.load_question_set(_write(tmp_path, text))
    folder = qb.checkout(qset, corpus=tmp_path / "corpus", mirror=root)
    outcomes, timings = qb.run_set(qset, folder, untuned=False)
    assert set(outcomes) == {"semantic_search", "query", "bm25"}
    for method, got in outcomes.items():
        assert len(got) == 2 and all(o.error is None for o in got), method
        assert got[0].rank is not None, method  # the invoice question is answered by src/invoices.py
    assert timings["default"]["chunks"] >= 3
    assert timings["default"]["optional_arguments"]["semantic_search"] == ["code_hint", "keywords"]
    figures = qb.report([qset], {qset.label: outcomes})
    assert figures["semantic_search"]["repositories"]["tiny"]["questions"] == 2
    assert set(figures["bm25"]["styles"]) == {"keyword", "sentence"}
    again, timings2 = qb.run_set(qset, folder, untuned=False)  # cached: nothing embedded again
    assert timings2["default"]["chunks_embedded"] == 0
    assert [o.rank for o in again["semantic_search"]] == [o.rank for o in outcomes["semantic_search"]]
