"""SemanticIndex on the real embedding model and a persistent Chroma: sync, search, detail, relevance, Map."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument
from code_intel.index.service import SemanticIndex
from code_intel.index.sync import FILES_PER_BATCH
from tests.conftest import write_files

pytestmark = pytest.mark.slow


def _files(results: list[dict]) -> list[str]:
    return [r["file"] for r in results]


def test_first_sync_indexes_everything_and_search_finds_by_meaning(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    index = make_index(sample_project)
    assert not index.is_available()
    events: list[tuple[float, float | None, str]] = []
    report = index.sync(progress=lambda done, total, msg: events.append((done, total, msg)))
    assert report["complete"] is True and "partial_reason" not in report
    assert report["files_scanned"] == 4 and report["files_added"] == 4 and report["chunks_added"] >= 4
    assert report["store"].startswith("chroma persistent") and report["model"] == "all-MiniLM-L6-v2-code"
    assert (4, 4, "indexed 4/4 files") in events  # the file pass, then the full model's chunks on top
    assert events[-1][0] == events[-1][1] == 4 + report["chunks_total"]
    assert [e[0] for e in events] == sorted(e[0] for e in events)  # progress only grows
    assert index.is_available()
    assert (sample_project / ".code-intel" / "chroma").is_dir()

    found = index.semantic_search("mail a greeting to a new user", n_results=3)
    assert found["source"] == "forest" and found["map_shortcut"] is False and found["index_complete"] is True
    top = found["results"][0]
    assert top["file"] == "src/mailer.py" and top["symbol"] == "send_welcome_email"
    assert top["line"] <= 4 and top["end_line"] == 8 and top["source"] == "forest"  # tiny import merged in
    tax = index.semantic_search("compute the price including tax", n_results=3)["results"][0]
    assert tax["file"] == "src/invoices.py" and tax["symbol"].startswith("InvoiceCalculator")
    thumb = index.semantic_search("scale a picture down to a smaller width", n_results=3)["results"][0]
    assert thumb["file"] == "src/images.js" and thumb["symbol"] == "resizeThumbnail"

    detail = index.fetch_chunk_detail(top["chunk_id"])
    assert "def send_welcome_email(address, name):" in detail["content"] and detail["stale"] is False
    assert len(detail["content_hash"]) == 64 and detail["language"] == "python"


def test_incremental_sync_handles_change_add_delete_and_rename(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    index = make_index(sample_project)
    index.sync()
    old_chunk = index.semantic_search("mail a greeting to a new user", n_results=1)["results"][0]["chunk_id"]

    unchanged = index.sync()
    assert unchanged["files_unchanged"] == 4 and unchanged["chunks_added"] == 0

    os.utime(sample_project / "src/images.js")  # touched, not edited: hashed, not re-embedded
    assert index.sync()["chunks_added"] == 0

    mailer = sample_project / "src/mailer.py"
    mailer.write_text(mailer.read_text().replace("welcome aboard", "your account is ready"), encoding="utf-8")
    assert index.fetch_chunk_detail(old_chunk)["stale"] is True
    write_files(sample_project, {"src/reports.py": "def export_sales_report_csv(rows):\n    return '\\n'.join(rows)\n"})
    (sample_project / "docs/guide.md").unlink()
    (sample_project / "src/invoices.py").rename(sample_project / "src/billing.py")

    report = index.sync()
    assert report["files_changed"] == 1 and report["files_added"] == 2 and report["files_removed"] == 2
    assert report["complete"] is True
    with pytest.raises(InvalidArgument):
        index.fetch_chunk_detail(old_chunk)  # replaced by the edit
    everything = index.semantic_search("anything at all", n_results=20)["results"]
    files = set(_files(everything))
    assert "docs/guide.md" not in files and "src/invoices.py" not in files
    assert {"src/billing.py", "src/reports.py", "src/mailer.py"} <= files
    assert index.semantic_search("write sales rows to a csv export", 1)["results"][0]["file"] == "src/reports.py"


def test_edit_inside_a_file_re_embeds_only_the_changed_chunk(
    project_dir: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    body = "".join(f"    value = value * {i} + {i}\n" for i in range(10))
    functions = [f"def step_{n}(value):\n{body}    return value\n" for n in range(4)]
    write_files(project_dir, {"steps.py": "\n\n".join(functions)})
    index = make_index(project_dir)
    first = index.sync()
    assert first["chunks_added"] == 4
    functions[2] = functions[2].replace("return value", "return -value")
    write_files(project_dir, {"steps.py": "\n\n\n" + "\n\n".join(functions)})  # lines shift, text of 3 stays
    second = index.sync()
    assert second["chunks_added"] == 1 and second["chunks_kept"] == 3 and second["chunks_removed"] == 1
    hit = index.semantic_search("step_3", 5)["results"]
    step3 = next(r for r in hit if r["symbol"] == "step_3")
    assert step3["line"] == 1 + 3 * 14 + 3  # 14 lines per function, moved down by three blank lines


def test_force_rebuild_and_a_new_instance_reuses_the_stored_index(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    make_index(sample_project).sync()
    reopened = make_index(sample_project)
    assert reopened.is_available()
    again = reopened.sync()
    assert again["files_unchanged"] == 4 and again["chunks_added"] == 0
    assert reopened.semantic_search("tax", 1)["results"][0]["file"] == "src/invoices.py"  # BM25 reloaded
    rebuilt = reopened.sync(force=True)
    assert rebuilt["files_added"] == 4 and rebuilt["chunks_total"] == again["chunks_total"]


def test_a_changed_chunk_format_rebuilds_the_index_without_orphans(
    sample_project: Path, make_index: Callable[..., SemanticIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    from code_intel.index import service

    current = service.CHUNKER_VERSION
    monkeypatch.setattr(service, "CHUNKER_VERSION", "ast-v0-older-format")
    old = make_index(sample_project)
    first = old.sync()
    old.close()
    (sample_project / "src" / "images.js").unlink()  # its chunks would linger if the old vectors stayed

    monkeypatch.setattr(service, "CHUNKER_VERSION", current)
    index = make_index(sample_project)
    assert not index.is_available()  # the older manifest is not trusted
    report = index.sync()
    assert report["files_added"] == 3 and report["files_unchanged"] == 0
    assert report["chunks_added"] == report["chunks_total"] < first["chunks_total"]
    parts = index._get_parts()
    assert parts.store.count("forest") == parts.manifest.chunk_count
    found = index.semantic_search("scale a picture down to a smaller width", n_results=10)["results"]
    assert "src/images.js" not in _files(found)


def test_stopped_sync_reports_a_partial_index(sample_project: Path, make_index: Callable[..., SemanticIndex]) -> None:
    extra = FILES_PER_BATCH + 4  # more than one batch, so the stop lands half way
    write_files(sample_project, {f"extra/mod_{i}.py": f"def helper_{i}():\n    return {i}\n" for i in range(extra)})
    index = make_index(sample_project)

    def stop_after_first_batch(done: float, total: float | None, message: str) -> None:
        if done > 0:
            index._stop.set()  # what close() does while a sync runs

    report = index.sync(progress=stop_after_first_batch)
    assert report["complete"] is False and "stopped" in report["partial_reason"]
    found = index.semantic_search("helper", 3)
    assert found["index_complete"] is False and "partial" in found["note"]
    index._stop.clear()
    assert index.sync()["complete"] is True
    assert "note" not in index.semantic_search("helper", 3)


def test_background_sync_does_not_block_and_respects_ttl(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    index = make_index(sample_project, sync_ttl_hours=1)
    started = time.perf_counter()
    index.start_background_sync()
    index.start_background_sync()  # a second call while one runs is a no-op
    assert time.perf_counter() - started < 0.5
    assert index.wait_for_background_sync(timeout=120)
    assert index.status()["complete"] is True
    first_thread = index._thread
    index.start_background_sync()  # synced moments ago: within the TTL, nothing starts
    assert index._thread is first_thread

    disabled = make_index(sample_project / "src", sync_on_start=False)
    disabled.start_background_sync()
    assert disabled._thread is None


def test_map_shortcut_and_validate_symbol_relevance(
    sample_project: Path, make_index: Callable[..., SemanticIndex]
) -> None:
    index = make_index(sample_project)
    index.sync()
    stored = index.add_agreement("Add VAT to invoice totals", ["InvoiceCalculator.total_with_tax"],
                                 ["src/invoices.py"], session_id="s-1")
    assert stored["stored"] is True
    assert (sample_project / ".code-intel" / "agreements" / f"{stored['agreement_id']}.json").is_file()

    hit = index.semantic_search("add VAT to the invoice totals", n_results=3)
    assert hit["source"] == "map" and hit["map_shortcut"] is True
    assert hit["results"][0]["symbol"] == "InvoiceCalculator.total_with_tax"
    assert hit["results"][0]["file"] == "src/invoices.py" and hit["results"][0]["score"] >= 0.7
    assert hit["results"][0]["line"] <= 5 <= hit["results"][0]["end_line"]
    forest_only = index.semantic_search("add VAT to the invoice totals", n_results=3, collection="forest")
    assert forest_only["source"] == "forest" and not forest_only["map_shortcut"]
    miss = index.semantic_search("resize thumbnails", n_results=3)
    assert miss["map_shortcut"] is False and miss["results"][0]["source"] == "forest"

    verdicts = index.validate_symbol_relevance(
        "send a welcome email to new users", ["send_welcome_email", "InvoiceCalculator", "resizeThumbnail"])
    by_name = {r["symbol"]: r for r in verdicts["results"]}
    assert by_name["send_welcome_email"]["verdict"] == "relevant"
    assert by_name["send_welcome_email"]["file"] == "src/mailer.py" and by_name["send_welcome_email"]["line"] <= 4
    assert by_name["InvoiceCalculator"]["verdict"] == "unrelated"
    assert by_name["send_welcome_email"]["similarity"] > by_name["resizeThumbnail"]["similarity"]


def test_bad_input_is_refused_clearly(sample_project: Path, make_index: Callable[..., SemanticIndex]) -> None:
    index = make_index(sample_project)
    with pytest.raises(InvalidArgument):
        index.semantic_search("   ")
    with pytest.raises(InvalidArgument):
        index.semantic_search("x", n_results=0)
    with pytest.raises(InvalidArgument):
        index.semantic_search("x", collection="trees")
    with pytest.raises(InvalidArgument):
        index.fetch_chunk_detail("")
    with pytest.raises(InvalidArgument):
        index.validate_symbol_relevance("q", [])
    empty = index.semantic_search("anything")
    assert empty["results"] == [] and "empty" in empty["note"]
