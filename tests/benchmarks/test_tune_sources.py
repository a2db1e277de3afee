"""benchmarks/tune_sources.py: JS/TS and Go doc-comment pairs, the benchmark exclusion, question-like queries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from code_intel.index.chunker import Chunker

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import tune_sources as ts  # noqa: E402

GO = """\
package cache

// Store keeps values.
type Store struct{ items map[string]string }

// Get returns the value stored under key, or the empty string.
// It never blocks.
func (s *Store) Get(key string) string {
\treturn s.items[key]
}

func undocumented() {}

// short one.
func tiny() {}
"""

TS = """\
/**
 * Parses the charset out of a content type header.
 * @param header the raw header
 */
export function charsetOf(header: string): string {
  return header.split("charset=")[1] ?? "utf-8";
}

/** @internal */
function hidden(): void {}
"""


def test_go_pairs_drop_the_comment_and_the_leading_name() -> None:
    pairs = ts.code_file_pairs("store.go", GO, Chunker(512))
    assert len(pairs) == 1  # undocumented and three-word comments give nothing; a type is not a function
    sentence, document, documented = pairs[0]
    assert "returns the value stored" in documented and "never blocks" in documented
    assert sentence == "Returns the value stored under key, or the empty string."
    assert document.startswith("store.go: function Store.Get")
    assert "never blocks" not in document and "returns the value" not in document
    assert "func (s *store) get(key string) string" in document.lower()


def test_jsdoc_pairs_stop_at_tags() -> None:
    pairs = ts.code_file_pairs("pkg/src/charset.ts", TS, Chunker(512))
    assert [s for s, _, _ in pairs] == ["Parses the charset out of a content type header."]
    assert "@param" not in pairs[0][1] and "export function" in pairs[0][1]
    assert ts.code_file_pairs("pkg/README.md", TS, Chunker(512)) == []  # not a language we pair


def test_date_fns_style_comment_uses_the_description_after_the_tags() -> None:
    comment = ["/**", " * @name addDays", " * @summary Add days.", " *", " * @description",
               " * Add the specified number of days to the given date.", " * @param date the date", " */"]
    assert ts.comment_sentence(comment, "addDays") == "Add the specified number of days to the given date."


@pytest.mark.parametrize("name, repository", [
    ("express", ""), ("body-parser", "git+https://github.com/expressjs/body-parser.git"),
    ("router", "https://github.com/pillarjs/router"), ("gin-contrib/cors", "github.com/gin-contrib/cors"),
    ("go-resty/resty", "github.com/go-resty/resty"), ("hono", "https://github.com/honojs/hono"),
    ("got", "sindresorhus/got"), ("gorilla/mux", "github.com/gorilla/mux"), ("rq/rq", "github.com/rq/rq")])
def test_benchmark_sources_are_refused(name: str, repository: str) -> None:
    with pytest.raises(SystemExit, match="question benchmark"):
        ts.refuse_benchmark_source(name, repository)


@pytest.mark.parametrize("name, repository", [
    ("go-chi/chi", "github.com/go-chi/chi"), ("spf13/cobra", "github.com/spf13/cobra"),
    ("zod", "git+https://github.com/colinhacks/zod.git"), ("someone/gson", "github.com/someone/gson")])
def test_repositories_any_benchmark_reads_are_refused(name: str, repository: str) -> None:
    with pytest.raises(SystemExit, match="a benchmark here reads it"):
        ts.refuse_benchmark_source(name, repository)


def test_other_sources_pass() -> None:
    ts.refuse_benchmark_source("ajv", "git+https://github.com/ajv-validator/ajv.git")
    ts.refuse_benchmark_source("uber-go/zap", "github.com/uber-go/zap")


def test_every_pinned_source_passes() -> None:
    sources = json.loads(ts.SOURCES.read_text())
    for name in sources["npm"]:
        ts.refuse_benchmark_source(name, "")
    for name in sources["go"]:
        ts.refuse_benchmark_source(name, f"github.com/{name}")


def test_npm_sources_read_only_the_named_packages(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"tiny": "1.0.0"}}))
    for name, repo in [("tiny", "https://github.com/a/tiny"), ("other", "https://github.com/a/other")]:
        root = tmp_path / "node_modules" / name
        (root / "src").mkdir(parents=True)
        (root / "package.json").write_text(json.dumps({"version": "1.0.0", "repository": repo}))
        (root / "src" / "charset.ts").write_text(TS)
        (root / "dist").mkdir()
        (root / "dist" / "bundle.js").write_text(TS.replace("export ", ""))
        (root / "test").mkdir()
        (root / "test" / "charset.ts").write_text(TS)
        (root / "src" / "charset.d.ts").write_text(TS)
        (root / "src" / "charset.min.js").write_text(TS)
    data, report = ts.code_pairs(tmp_path, [], 10, set(), 0)
    assert data["packages"] == ["npm:tiny"] and data["files"] == ["tiny/src/charset.ts"]  # no dist copy, no test
    assert report == ["npm:tiny 1.0.0: 1 pairs from 1 files"]
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"express": "5.0.0"}}))
    (tmp_path / "node_modules" / "express").mkdir()
    (tmp_path / "node_modules" / "express" / "package.json").write_text(json.dumps({"repository": "expressjs/express"}))
    with pytest.raises(SystemExit, match="express"):
        ts.code_pairs(tmp_path, [], 10, set(), 0)


def test_go_repository_is_read_at_its_commit(tmp_path: Path) -> None:
    repo = tmp_path / "acme+cache"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "store.go").write_text(GO)
    (repo / "store_test.go").write_text(GO)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    (repo / "store.go").write_text("package cache\n")  # the working tree is not what is read
    data, report = ts.code_pairs(None, [f"{repo}@{commit}"], 10, set(), 0)
    assert data["packages"] == ["go:acme/cache"] and data["files"] == ["store.go"]
    assert report == [f"go:acme/cache {commit}: 1 pairs from 1 files"]
    banned = {"returns the value stored under key, or the empty string."}
    assert ts.code_pairs(None, [f"{repo}@{commit}"], 10, banned, 0)[0]["queries"] == []
    with pytest.raises(SystemExit, match="40-digit"):
        ts.go_source(f"{repo}@HEAD")


def test_question_forms() -> None:
    forms = ts.question_forms("Returns the charset of the response.")
    assert forms["keywords"] == "charset response"
    assert "the charset of the response" in forms["question"]
    assert forms == ts.question_forms("Returns the charset of the response.")  # deterministic
    parse = ts.question_forms("Parses HTTP headers into a map.")
    assert parse["keywords"] == "parse http headers map"
    assert "HTTP headers into a map" in parse["question"]
    assert any(v in parse["question"] for v in ("parse ", "parses "))
    assert ts.question_forms("Applies the retry policy to a request.")["keywords"].startswith("apply ")
    assert set(ts.question_forms("The default timeout for requests.")) == {"keywords"}


def test_mix_queries_is_seeded_and_keeps_the_shares_roughly() -> None:
    sentences = [f"Returns the value number {k} of the table." for k in range(400)]
    mixed, kinds = ts.mix_queries(sentences, (0.3, 0.3), 1)
    assert (mixed, kinds) == ts.mix_queries(sentences, (0.3, 0.3), 1)
    kept = sum(m == s for m, s in zip(mixed, sentences, strict=True))
    assert 120 < kept < 200 and kinds.count("sentence") == kept
    assert {k for k, m in zip(kinds, mixed, strict=True) if m.startswith("which") or m.startswith("how")} <= {"question"}
    assert ts.mix_queries(sentences, (0.0, 0.0), 1) == (sentences, ["sentence"] * 400)


def test_a_sources_file_names_the_go_mirrors_and_pins_the_npm_versions(tmp_path: Path) -> None:
    listed = tmp_path / "sources.json"
    listed.write_text(json.dumps({"npm": {"tiny": "1.0.0"}, "go": {"acme/cache": "a" * 40}}))
    npm = tmp_path / "npm"
    (npm / "node_modules" / "tiny").mkdir(parents=True)
    (npm / "package.json").write_text(json.dumps({"dependencies": {"tiny": "^1.0.0"}}))
    (npm / "node_modules" / "tiny" / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    assert ts.listed_sources(listed, npm, tmp_path / "mirror") == [f"{tmp_path}/mirror/acme+cache/repo@{'a' * 40}"]
    (npm / "node_modules" / "tiny" / "package.json").write_text(json.dumps({"version": "1.1.0"}))
    with pytest.raises(SystemExit, match="does not hold"):
        ts.listed_sources(listed, npm, tmp_path / "mirror")
