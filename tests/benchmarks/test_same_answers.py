"""benchmarks/same_answers.py: one side's answers for a corpus, and the verdict on two sides' answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import same_answers  # noqa: E402


def test_dump_writes_each_file_s_answers_as_the_server_would(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "site-packages").mkdir(parents=True)
    (corpus / "mod.py").write_text("X = 1\n\n\nclass Box:\n    def get(self):\n        return X\n", encoding="utf-8")
    (corpus / "notes.txt").write_text("no grammar for this\n", encoding="utf-8")
    (corpus / "site-packages" / "dep.py").write_text("def skipped(): pass\n", encoding="utf-8")
    out = tmp_path / "answers.jsonl"
    same_answers.dump(same_answers.REPO, corpus, out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["file"] for row in rows] == ["mod.py"]
    symbols = json.loads(rows[0]["get_symbols"])
    assert [(s["name"], s["kind"], [c["name"] for c in s["children"]]) for s in symbols["symbols"]] == [
        ("X", "variable", []), ("Box", "class", ["get"])]
    assert json.loads(rows[0]["analyze_structure"])["classes"][0]["methods"] == ["get"]
    at_lines = rows[0]["get_function_at_line"]
    assert len(at_lines) == 7  # a 7-line file: every line
    assert at_lines[0].startswith("refused: no function or method encloses line 1")
    assert json.loads(at_lines[5])["name"] == "get"
    assert not (corpus / ".code-intel").exists()  # nothing written to the corpus


def test_the_verdict_names_the_files_and_answers_that_differ() -> None:
    row = {"file": "a.py", "get_symbols": "{}", "analyze_structure": "{}", "get_function_at_line": ["x", "y"]}
    other = {**row, "file": "b.py"}
    assert same_answers.verdict([row, other], [dict(row), dict(other)]) == "identical: 2 files, 8 answers"
    changed = {**other, "analyze_structure": '{"classes": []}'}
    assert same_answers.verdict([row, other], [row, changed]) == \
        "DIFFERENT in 1 of 2 files, e.g. b.py (analyze_structure)"
    assert same_answers.verdict([row], [row, other]).startswith("DIFFERENT: the two sides listed different files")
