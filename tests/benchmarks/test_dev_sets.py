"""benchmarks/dev_sets.py: the held sets exist, never reach a dev group, and two runs compare question by question."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import dev_sets  # noqa: E402


def test_every_held_set_is_data_of_ours_and_judges_are_held() -> None:
    for name, repos in dev_sets.HELD.items():
        if repos:  # a blind semble-manner set: each repository has its questions and a pinned revision
            for repo in repos:
                assert (BENCHMARKS / "semble_dev" / "annotations" / f"{repo}.json").is_file(), repo
        else:  # a developer-question set
            assert list((BENCHMARKS / "questions" / name).glob("*.yml")), name
    assert set(dev_sets.JUDGES) <= set(dev_sets.HELD)


def test_no_held_set_reaches_a_dev_group(tmp_path: Path) -> None:
    eight, other = dev_sets.dev_repositories(tmp_path)  # only the committed annotations
    held = {repo for repos in dev_sets.HELD.values() for repo in repos}
    assert eight and not held & (set(eight) | set(other))
    assert "grape" in eight and "monolog" in other  # Ruby is one of the eight languages, PHP is not
    dev_folders = {p.name for p in dev_sets.question_folders(held=False)}
    assert "dev" in dev_folders and not dev_folders & set(dev_sets.HELD)
    assert {p.name for p in dev_sets.question_folders(held=True)} == {j for j in dev_sets.JUDGES
                                                                      if not dev_sets.HELD[j]}
    argv = dev_sets.commands("judges", tmp_path, tmp_path)[0][1]
    assert {argv[i + 1] for i, a in enumerate(argv) if a == "--repo"} == {
        repo for j in dev_sets.JUDGES for repo in dev_sets.HELD[j]}


def test_the_held_docstring_split_judges_and_shares_no_module(tmp_path: Path) -> None:
    import semantic

    held, dev, test, dev2, dev3 = (set(semantic.SPLITS[name]) for name in ("held", "dev", "test", "dev2", "dev3"))
    assert held and not held & (dev | test)
    assert dev2 and not dev2 & (held | dev | test)
    assert dev3 and not dev3 & (held | dev | test | dev2)
    # a module is named once, and no split names a package inside another's (idlelib's tests stay out)
    names = [name.removesuffix(".py") for split in semantic.SPLITS.values() for name in split]
    assert len(names) == len(set(names)) and not any(n.startswith(m + "/") for n in names for m in names)
    runs = dict(dev_sets.commands("judges", tmp_path, tmp_path))
    argv = runs["docstrings-held"]
    assert argv[argv.index("--set") + 1] == "held" and argv[-1] == str(tmp_path / "docstrings-held.json")
    runs = dict(dev_sets.commands("docstrings", tmp_path, tmp_path))
    assert {name: argv[argv.index("--set") + 1] for name, argv in runs.items()} == {
        "docstrings": "dev", "docstrings-dev2": "dev2", "docstrings-dev3": "dev3"}


def test_a_split_whose_module_this_python_lacks_is_refused_not_shrunk(tmp_path: Path) -> None:
    import semantic

    with pytest.raises(SystemExit, match="has no no_such_module.py in its standard library"):
        semantic.build_corpus(tmp_path, 100, ["json", "no_such_module.py"])
    assert not list(tmp_path.iterdir())  # refused before anything was copied


def _semble_run(path: Path, scores: list[float]) -> None:
    questions = [{"query": f"q{i}", "ndcg10": s} for i, s in enumerate(scores)]
    path.write_text(json.dumps({"summary": {}, "runs": [{"repo": "gin", "questions": questions}]}))


def test_compare_counts_questions_up_and_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    _semble_run(old / "eight.json", [1.0, 0.5, 0.0])
    _semble_run(new / "eight.json", [1.0, 0.25, 1.0])
    ranks = {"old": (2, None), "new": (1, 4)}
    for folder, (semantic, query) in ranks.items():
        data = {"questions": {"saq": [{"id": "retry", "results": {"semantic_search": {"rank": semantic},
                                                                   "query": {"rank": query}}}]}}
        (tmp_path / folder / "questions.json").write_text(json.dumps(data))
    for folder, mrr in (("old", 0.4925), ("new", 0.4927)):
        (tmp_path / folder / "docstrings.json").write_text(json.dumps({"mrr10_semantic_search": mrr}))
    dev_sets.compare(old, new)
    out = capsys.readouterr().out
    assert "docstrings: MRR@10 0.4925 -> 0.4927" in out
    assert "eight: 3 questions, 0.5000 -> 0.7500, summed +0.750 (1 up, 1 down)" in out
    assert "questions semantic_search: 1 questions, 0.5000 -> 1.0000, summed +0.500 (1 up, 0 down)" in out
    assert "questions query: 1 questions, 0.0000 -> 0.2500, summed +0.250 (1 up, 0 down)" in out


def test_an_unknown_group_is_refused_with_the_groups_to_send(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="send some of eight, other"):
        dev_sets.main(["run", str(tmp_path), "eights"])


def test_a_build_reaches_every_run_of_a_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # semble.py hands PYTHONPATH on to the server it starts (test_semble_dev's server_parameters test)
    build = tmp_path / "build"
    (build / "code_intel").mkdir(parents=True)
    seen: list[dict[str, str]] = []

    class Done:
        returncode = 0

    def fake_run(argv: list[str], env: dict[str, str], **kwargs: object) -> Done:
        seen.append(env)
        return Done()

    monkeypatch.setattr(dev_sets.subprocess, "run", fake_run)
    assert dev_sets.run(tmp_path / "out", build, tmp_path / "corpus", ["docstrings"]) == 0
    assert seen[0]["PYTHONPATH"] == str(build)
    assert seen[0]["SEMBLE_DEV"] == str(tmp_path / "corpus")


def test_a_question_folder_that_appears_during_a_run_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The thirty-sixth round merged a held folder while a run was under way; the run had read HELD before it existed.
    folders = [tmp_path / "dev"]
    monkeypatch.setattr(dev_sets, "question_folders", lambda held: list(folders))
    asked: list[list[str]] = []

    class Done:
        returncode = 0

    def fake_run(argv: list[str], **kwargs: object) -> Done:
        asked.append(argv)
        folders.append(tmp_path / "dev99")  # merged after the first run started
        return Done()

    monkeypatch.setattr(dev_sets.subprocess, "run", fake_run)
    assert dev_sets.run(tmp_path / "out", None, tmp_path / "corpus", ["docstrings", "questions"]) == 0
    assert [a for a in asked if "questions.py" in a[1]] and not any(str(tmp_path / "dev99") in a for a in asked)
