"""benchmarks/replay.py: a replayed question is ranked and scored as the benchmarks score it, and its figures read
back as a `dev_sets.py run` file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import dev_sets  # noqa: E402
import replay  # noqa: E402
import semble  # noqa: E402

from code_intel.index.retrieval import Scored  # noqa: E402


def _record(tmp_path: Path, **extra: object) -> dict[str, object]:
    candidates = [Scored("a1", 0.9, 0.0, "src/a.py", "f", ["f"], "function", "implementation", lines=(1, 5)),
                  Scored("b1", 0.2, 0.0, "src/b.py", "g", ["g"], "function", "implementation"),
                  Scored("t1", 0.8, 0.0, "tests/test_a.py", "test_f", ["test_f"], "function", "test")]
    return {"key": "0:what does f do", "query": "what does f do", "ranked_query": "what does f do",
            "ranked_keywords": [], "candidates": candidates, "read": {}, "file_text": False, "root": str(tmp_path),
            "spans": {"a1": ("src/a.py", 1, 5), "b1": ("src/b.py", 10, 20), "t1": ("tests/test_a.py", 3, 9)},
            **extra}


def test_a_replayed_question_takes_its_lines_and_semble_ndcg(tmp_path: Path) -> None:
    record = _record(tmp_path, targets=[semble.Target("src/b.py")])
    top = replay.ranked_spans(record)
    assert top[0] == ("src/a.py", 1, 5) and ("src/b.py", 10, 20) in top
    assert record["candidates"][0].score == 0.0  # ranked on copies: a second variant starts from the same scores
    score = replay.score_of("eight", record, top)
    assert score == pytest.approx(semble.ndcg10(top, [semble.Target("src/b.py")])) and 0 < score < 1
    fixed = replay.ranked_spans(record, rank=lambda cs, q, k, file_text=None: sorted(cs, key=lambda c: c.id)[::-1])
    assert fixed[0] == ("tests/test_a.py", 3, 9)
    assert replay.score_of("eight", record, fixed) == pytest.approx(1 / 1.5849625, abs=1e-6)  # b.py 2nd


def test_a_developer_question_scores_the_reciprocal_rank_of_the_first_overlapping_span(tmp_path: Path) -> None:
    record = _record(tmp_path, key="semantic_search:q1", answers=[("tests/test_a.py", 8, 12)])
    assert replay.score_of("questions", record, [("src/a.py", 1, 5), ("tests/test_a.py", 3, 9)]) == 0.5
    assert replay.score_of("questions", record, [("tests/test_a.py", 10, 11)]) == 1.0  # inside the span
    assert replay.score_of("questions", record, [("tests/test_a.py", 1, 2)]) == 0.0  # the file, not the lines


def test_replayed_figures_read_back_as_a_dev_sets_run(tmp_path: Path) -> None:
    semble_record = _record(tmp_path, targets=[semble.Target("src/b.py")])
    question = _record(tmp_path, key="semantic_search:q1", answers=[("src/b.py", 12, 12)])
    for group, record in (("eight", semble_record), ("questions", question)):
        data = {"group": group, "sets": [{"label": "demo", "records": [record]}]}
        scored = replay.replay(data)
        path = tmp_path / f"{group}.json"
        path.write_text(json.dumps(replay.as_run(group, data, scored)))
        read = {k: v for k, v in dev_sets.scores(path).items() if not k[1].startswith("query:")}  # not replayed
        assert read == {key: pytest.approx(value[0]) for key, value in scored.items()}
        figures = replay.against(read, scored)
        assert figures["equal"] == figures["in_base"] == 1 and figures["summed"] == pytest.approx(0.0)
    assert [replay.fold(n, ["b", "a", "d", "c"]) for n in "abcd"] == ["A", "B", "A", "B"]


def test_a_capture_lists_every_group_before_its_first_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A set that appears once the capture is under way (a held folder merged meanwhile) is not asked.
    listed: list[str] = []
    asked: list[str] = []

    def sets(group: str, corpus: Path, only: list[str]) -> list[tuple[str, object, list[dict[str, object]]]]:
        listed.append(group)
        return [(f"{group}-set", object(), [])]

    def checkout(source: object, corpus: Path) -> Path:
        asked.append(f"after {len(listed)} listings")
        return tmp_path

    monkeypatch.setattr(replay.dev_sets, "link_annotations", lambda corpus: None)
    monkeypatch.setattr(replay, "_sets", sets)
    monkeypatch.setattr(semble, "checkout", checkout)
    monkeypatch.setattr(replay, "_ask_all", lambda root, records, config: None)
    replay.capture(tmp_path / "out2", ["eight", "other"], tmp_path, [])
    assert asked == ["after 2 listings", "after 2 listings"]
