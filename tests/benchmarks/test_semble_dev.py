"""benchmarks/semble.py's dev split: our own Ruby and Java questions and revisions beside semble's annotations."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import semble  # noqa: E402

SEMBLE_LANGUAGES = {"python", "javascript", "typescript", "go", "rust", "java", "kotlin", "ruby", "php", "csharp", "c",
                    "cpp", "scala", "swift", "elixir", "bash", "haskell", "lua", "zig"}
OWN = sorted(p.stem for p in (semble.DEV_LOCAL / "annotations").glob("*.json"))


def test_our_dev_questions_follow_semble_format_and_category_mix() -> None:
    # the sets of the earlier rounds stay; each round adds its own (the ninth: semble's unannotated repositories)
    assert {"aeson", "faraday", "grape", "guzzle", "jackson-core", "javapoet", "jsoup", "monolog", "net-http-persistent",
            "roda", "ruby-git", "scorched", "sequel", "thor", "xmonad", "zig-clap", "zls"} <= set(OWN)
    table = {r["name"]: r for r in json.loads((semble.DEV_LOCAL / "repos.json").read_text())}
    for name in OWN:
        questions = json.loads((semble.DEV_LOCAL / "annotations" / f"{name}.json").read_text())
        language = table[name]["language"]
        assert language in SEMBLE_LANGUAGES and len(table[name]["revision"]) == 40
        categories = [q["category"] for q in questions]
        assert 10 <= len(questions) <= 25 and set(categories) == {"semantic", "architecture", "symbol"}
        assert categories.count("semantic") * 2 >= len(questions)  # about half are topic phrases
        for q in questions:
            targets = [t if isinstance(t, str) else t["path"] for t in q["relevant"] + q["secondary"]]
            root = table[name]["benchmark_root"]  # None: the whole repository is indexed
            assert q["relevant"] and all(root is None or t.startswith(root + "/") for t in targets)
            for t in q["relevant"] + q["secondary"]:  # a line span is semble's shape: 1-based, start before end
                assert isinstance(t, str) or 1 <= t["start_line"] <= t["end_line"]
            if q["category"] == "symbol":
                # a bare name: a class or module (`Net::HTTP::Persistent::Pool`, `Plug.Upload`,
                # `Illuminate\Contracts\Cache\Repository`), a JavaScript or shell function, a Ruby method as Ruby
                # writes it (`Warden::Proxy#authenticate!`, `clear_strategies_cache!`)
                written = q["query"].replace("::", ".").replace("\\", ".").replace("#", ".")
                assert all(part.rstrip("!?").isidentifier() for part in written.split("."))


def test_dev_repositories_load_from_both_places_and_the_reported_set_refuses_them(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "annotations").mkdir()
    semble_copy = [{"query": "ObjectMapper", "relevant": ["src/main/java/x/ObjectMapper.java"], "secondary": [],
                    "category": "symbol"}]
    (tmp_path / "annotations" / "jackson-databind.json").write_text(json.dumps(semble_copy))
    monkeypatch.setattr(semble, "DEV", tmp_path)
    jackson, grape = semble.load_repos(["jackson-databind", "grape"], dev=True)
    assert jackson.questions == semble_copy and jackson.revision.startswith("1845f332")  # the mirror's revision
    assert grape.language == "ruby" and grape.root == "lib" and len(grape.questions) == 20
    with pytest.raises(SystemExit, match="grape"):
        semble.load_repos(["grape"], dev=False)
    assert semble.published()["jackson-databind"]["semble"]["ndcg10"] == pytest.approx(0.7333)


def test_the_symbol_set_covers_every_language_and_loads_from_its_own_folder() -> None:
    names = sorted(p.stem for p in (semble.DEV_LOCAL / "symbols").glob("*.json"))
    repos = semble.load_repos(names, dev=True, symbols="symbols")
    assert {r.language for r in repos} == {"go", "java", "javascript", "kotlin", "python", "ruby", "rust", "typescript"}
    questions = [q for r in repos for q in r.questions]
    assert 60 <= len(questions) <= 100 and {q["category"] for q in questions} == {"symbol"}
    assert all(q["relevant"] for q in questions)
    axios = next(r for r in repos if r.name == "axios")  # ours only: no semble annotations are read for it
    assert axios.root == "lib" and axios.revision.startswith("23a25af0")
    assert not set(names) & set(semble.REPORTED)
    [dev_axios] = semble.load_repos(["axios"], dev=True)  # the dev split asks it questions of its own (ho-pyjs)
    assert dev_axios.questions != axios.questions and dev_axios.revision == axios.revision


def test_the_second_symbol_set_asks_repositories_no_other_set_reads() -> None:
    names = sorted(p.stem for p in (semble.DEV_LOCAL / "symbols2").glob("*.json"))
    repos = semble.load_repos(names, dev=True, symbols="symbols2")
    assert {r.language for r in repos} == {"go", "java", "ruby", "rust"}
    questions = [q for r in repos for q in r.questions]
    assert len(questions) >= 100 and {q["category"] for q in questions} == {"symbol"}
    assert all(q["relevant"] for q in questions)
    elsewhere = {p.stem for folder in ("symbols", "annotations") for p in (semble.DEV_LOCAL / folder).glob("*.json")}
    urls = {r["url"] for r in json.loads((semble.DATA / "repos.json").read_text())}
    assert not set(names) & (elsewhere | set(semble.REPORTED))
    assert not {r.url for r in repos} & urls  # none of semble's 62 either


def test_the_third_symbol_set_asks_the_eight_languages_on_repositories_no_other_set_reads() -> None:
    names = sorted(p.stem for p in (semble.DEV_LOCAL / "symbols3").glob("*.json"))
    repos = semble.load_repos(names, dev=True, symbols="symbols3")
    assert {r.language for r in repos} == {"python", "javascript", "typescript", "go", "rust", "java", "kotlin", "ruby"}
    questions = [q for r in repos for q in r.questions]
    assert len(questions) >= 120 and {q["category"] for q in questions} == {"symbol"}
    assert all(q["relevant"] for q in questions)
    folders = ("symbols", "symbols2", "annotations")
    elsewhere = {p.stem for folder in folders for p in (semble.DEV_LOCAL / folder).glob("*.json")}
    urls = {r["url"] for r in json.loads((semble.DATA / "repos.json").read_text())}
    assert not set(names) & (elsewhere | set(semble.REPORTED))
    assert not {r.url for r in repos} & urls


def test_the_fourth_symbol_set_asks_the_eight_languages_on_repositories_no_other_set_reads() -> None:
    names = sorted(p.stem for p in (semble.DEV_LOCAL / "symbols4").glob("*.json"))
    repos = semble.load_repos(names, dev=True, symbols="symbols4")
    assert {r.language for r in repos} == {"python", "javascript", "typescript", "go", "rust", "java", "kotlin", "ruby"}
    assert all(15 <= len(r.questions) <= 20 for r in repos)
    questions = [q for r in repos for q in r.questions]
    assert {q["category"] for q in questions} == {"symbol"} and all(q["relevant"] for q in questions)
    folders = ("symbols", "symbols2", "symbols3", "annotations")
    elsewhere = {p.stem for folder in folders for p in (semble.DEV_LOCAL / folder).glob("*.json")}
    urls = {r["url"] for r in json.loads((semble.DATA / "repos.json").read_text())}
    assert not set(names) & (elsewhere | set(semble.REPORTED))
    assert not {r.url for r in repos} & urls


def test_the_fifth_symbol_set_asks_the_eight_languages_on_dev_repositories_only() -> None:
    names = sorted(p.stem for p in (semble.DEV_LOCAL / "symbols5").glob("*.json"))
    repos = semble.load_repos(names, dev=True, symbols="symbols5")
    assert {r.language for r in repos} == {"python", "javascript", "typescript", "go", "rust", "java", "kotlin", "ruby"}
    questions = [q for r in repos for q in r.questions]
    assert 80 <= len(questions) <= 120 and {q["category"] for q in questions} == {"symbol"}
    assert all(q["relevant"] for q in questions)
    folders = ("symbols", "symbols2", "symbols3", "symbols4", "annotations")
    dev = {p.stem for folder in folders for p in (semble.DEV_LOCAL / folder).glob("*.json")}
    dev |= {r["name"] for r in json.loads((semble.DATA / "repos.json").read_text())}  # semble's dev annotations
    judges = {"warp", "fiber", "javalin", "quart"}  # the seventeenth round's judges
    assert set(names) <= dev - judges - set(semble.REPORTED)


def test_the_fetch_list_names_each_mirror_that_lacks_its_pinned_revision_and_missing_dev_annotations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    held = tmp_path / "mirror" / "ruby-grape+grape" / "repo"  # a mirror that holds the pinned commit
    subprocess.run(["git", "init", "-q", "--bare", str(held)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "a.rb").write_text("x = 1\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    subprocess.run([*git, "push", "-q", str(held), "HEAD:refs/heads/main"], check=True)
    pinned = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / "mirror" / "lostisland+faraday" / "repo"  # a mirror without the pinned commit
    subprocess.run(["git", "init", "-q", "--bare", str(stale)], check=True)
    monkeypatch.setattr(semble, "MIRROR", tmp_path / "mirror")
    monkeypatch.setattr(semble, "DEV", tmp_path / "no-dev")
    real = semble.load_repos

    def pinned_grape(names: list[str], dev: bool, symbols: str = "") -> list[semble.Repo]:
        repos = real(names, dev, symbols)
        for repo in repos:
            if repo.name == "grape":
                repo.revision = pinned
        return repos

    monkeypatch.setattr(semble, "load_repos", pinned_grape)
    lines = semble.fetch_list(["grape", "faraday", "thor"], dev=True)
    assert lines[0] == "github:michalfedyna/semble"  # semble's own dev annotations come from a fetch of this fork
    assert lines[1].startswith("# ") and "again" in lines[1]  # the fork's annotations name more repositories
    assert lines[2].startswith("# ") and "rxswift" in lines[2] and "t-corpus" in lines[2]  # two are read by hand
    assert lines[3:] == ["github:lostisland/faraday", "github:rails/thor"]  # grape's mirror holds its revision
    assert semble.fetch_list(["grape"], dev=True, symbols="symbols") == []  # the symbol sets need no semble folder


def test_semble_dev_annotations_are_written_from_the_forks_pinned_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    work = tmp_path / "work"
    (work / "benchmarks" / "annotations").mkdir(parents=True)
    question = [{"query": "Command", "relevant": ["command.go"], "secondary": [], "category": "symbol"}]
    (work / "benchmarks" / "annotations" / "cobra.json").write_text(json.dumps(question))
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    pinned = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (work / "benchmarks" / "annotations" / "cobra.json").write_text("[]")  # a later commit the pin does not name
    subprocess.run([*git, "commit", "-qam", "b"], check=True)
    mirror = tmp_path / "mirror" / "michalfedyna+semble" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
    monkeypatch.setattr(semble, "MIRROR", tmp_path / "mirror")
    monkeypatch.setattr(semble, "DEV", tmp_path / "dev")
    monkeypatch.setattr(semble, "ANNOTATIONS_COMMIT", pinned)
    missing = semble.write_dev_annotations()
    assert json.loads((tmp_path / "dev" / "annotations" / "cobra.json").read_text()) == question
    assert "cobra" not in missing and {"rxswift", "nvim-lspconfig", "zod"} <= set(missing)  # not in this mirror
    assert "zig" not in semble.semble_dev_names() and not list((tmp_path / "dev" / "annotations").glob("*.part"))


def test_the_server_started_for_a_build_imports_that_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the MCP client hands the child only HOME, PATH and a few more variables: a build chosen with PYTHONPATH
    # (`dev_sets.py run --build`) ran the installed code_intel until semble.py passed it on
    from mcp.client.stdio import get_default_environment

    monkeypatch.setenv("PYTHONPATH", "/tmp/build-x")
    params = semble.server_parameters("code-intel", tmp_path)
    assert (get_default_environment() | (params.env or {}))["PYTHONPATH"] == "/tmp/build-x"
    monkeypatch.delenv("PYTHONPATH")
    assert semble.server_parameters("code-intel", tmp_path).env is None
