"""The index manifest is saved as the same JSON pydantic writes, a file's entry at a time: a large project's
manifest (sympy's: 8 MB) is never one string in memory at the end of a sync."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from code_intel.index.manifest import ChunkEntry, FileEntry, Manifest, load_manifest, save_manifest


def _large_manifest(files: int = 1500, chunks: int = 20) -> Manifest:
    manifest = Manifest(model="m", store="s", chunker="c", partial_reason='a "quoted" reason\n', complete=False)
    for n in range(files):
        manifest.files[f"pkg/mod_{n}/fïle \"{n}\".py"] = FileEntry(
            sha256=f"{n:064x}", size=n, mtime_ns=n * 1000, language="python",
            chunks=[ChunkEntry(id=f"{n}-{k}", start_line=k, end_line=k + 3, symbol=f"f{k}", symbols=[f"g{k}"],
                               kind="function", full=bool(k % 2)) for k in range(chunks)])
    return manifest


def test_the_manifest_is_saved_as_pydantics_json_without_holding_it_whole(tmp_path: Path) -> None:
    manifest = _large_manifest()
    expected = manifest.model_dump_json().encode()
    file = tmp_path / "index-manifest-x.json"
    tracemalloc.start()
    try:
        save_manifest(file, manifest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert file.read_bytes() == expected and len(expected) > 3_000_000
    assert peak < len(expected) / 20  # the whole JSON as a string and its bytes: more than twice its size
    again = load_manifest(file, model="m", store="s", chunker="c")
    assert again == manifest


def test_an_empty_manifest_is_saved_as_pydantics_json(tmp_path: Path) -> None:
    manifest = Manifest(model="m", store="s", chunker="c")
    save_manifest(tmp_path / "m.json", manifest)
    assert (tmp_path / "m.json").read_bytes() == manifest.model_dump_json().encode()
