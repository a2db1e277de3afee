"""The tool table is built on first need, not before the server answers its first message: connecting
imports none of the result models, and the table then listed is the one an eager build gives, built
once even when the event loop and worker threads ask for it at the same moment."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

import code_intel_server
from code_intel.server.app import CodeIntelApp
from code_intel_server import RESULT_MODELS, TOOLS, build_server, tool_entry

REPO = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter: the test process has long imported every model.
CONNECT_ONLY = """
import json, sys
import anyio
from mcp import Client
from code_intel_server import RESULT_MODELS, build_server
from code_intel.server.app import CodeIntelApp

def loaded():
    return sorted(name for name in RESULT_MODELS if name in sys.modules)

async def main():
    app = CodeIntelApp.for_path(sys.argv[1])
    server = build_server(app)
    seen = {"at_import": loaded()}
    async with Client(server) as client:
        seen["connected"] = loaded()
        seen["built_when_connected"] = server._registered is not None
        seen["prompts"] = [prompt.name for prompt in (await client.list_prompts()).prompts]
        seen["after_prompts"] = loaded()
        seen["tools"] = len((await client.list_tools()).tools)
        seen["after_tools"] = loaded()
    app.close()
    print(json.dumps(seen))

anyio.run(main)
"""


@pytest.mark.slow  # a fresh interpreter
def test_connecting_imports_no_result_model_and_listing_tools_does(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", CONNECT_ONLY, str(tmp_path)], cwd=REPO, capture_output=True,
                         text=True, timeout=120, check=True)
    seen = json.loads(out.stdout)
    assert seen["at_import"] == seen["connected"] == seen["after_prompts"] == []
    assert seen["built_when_connected"] is False
    assert seen["prompts"] == ["code"]
    assert seen["tools"] == len(TOOLS)
    assert seen["after_tools"] == sorted(RESULT_MODELS)


def _dumps(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, mode="json") for tool in tools]


async def test_the_lazy_table_lists_what_an_eager_build_lists(tmp_path: Path) -> None:
    app = CodeIntelApp.for_path(tmp_path)
    try:
        lazy = _dumps(await build_server(app).list_tools())
    finally:
        app.close()
    # built second, from the model schemas the first build cached: equal only if that build left them as they were
    eager = MCPServer("eager", tools=[tool_entry(name, spec) for name, spec in TOOLS.items()])
    assert lazy == _dumps(await eager.list_tools())
    assert [tool["name"] for tool in lazy] == list(TOOLS)


def test_the_table_is_built_once_when_threads_ask_at_once(tmp_path: Path, monkeypatch: Any) -> None:
    built: list[str] = []
    real_entry = code_intel_server.tool_entry

    def counting_entry(name: str, spec: Any) -> Any:
        built.append(name)
        return real_entry(name, spec)

    monkeypatch.setattr(code_intel_server, "tool_entry", counting_entry)
    app = CodeIntelApp.for_path(tmp_path)
    try:
        server = build_server(app)
        start = threading.Barrier(8)
        tables: list[Any] = []

        def ask() -> None:
            start.wait()
            tables.append(server.tools())

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(tables) == 8 and all(table is tables[0] for table in tables)
        assert sorted(built) == sorted(TOOLS)  # each tool built exactly once
        assert server._tool_input_schema("search_text") == tables[0]["search_text"].parameters
    finally:
        app.close()


def _settle() -> None:
    for thread in threading.enumerate():
        if thread.name == "code-intel-tool-table":
            thread.join(60)


async def test_a_saved_listing_answers_the_next_server_before_its_table_is_built(tmp_path: Path) -> None:
    """tools/server/tool_listing.py: the first server saves its listing; the next one answers tools/list from it (the
    same listing) and builds its table in the background; a listing saved under another fingerprint, or a
    damaged file, is never used, and the build replaces it."""
    (tmp_path / ".code-intel").mkdir()
    saved = tmp_path / ".code-intel" / "cache" / "tool-table.json"
    app = CodeIntelApp.for_path(tmp_path)
    try:
        first = build_server(app)
        built = _dumps(await first.list_tools())
        _settle()  # the listing is saved after the answer, on a thread
        assert first._registered is not None and saved.is_file()

        second = build_server(app)
        second.build_in_background = False
        assert _dumps(await second.list_tools()) == built
        assert second._registered is None  # answered from the saved listing, nothing built

        third = build_server(app)  # the default: the table is built in the background after that answer
        assert _dumps(await third.list_tools()) == built
        _settle()
        assert third._registered is not None and list(third._registered) == list(TOOLS)

        other_code = json.dumps({**json.loads(saved.read_text(encoding="utf-8")), "version": "other"})
        for damage in (other_code, '{"version":', ""):
            saved.write_text(damage, encoding="utf-8")
            server = build_server(app)
            server.build_in_background = False
            assert _dumps(await server.list_tools()) == built
            _settle()
            assert server._registered is not None  # built, not taken from the file
            assert json.loads(saved.read_text())["version"] != "other"
    finally:
        app.close()


def test_the_fingerprint_follows_the_server_code_and_the_library_versions(tmp_path: Path) -> None:
    from code_intel.server import tool_listing as tool_table

    server = tmp_path / "code_intel_server.py"
    server.write_text("one", encoding="utf-8")
    key = tool_table.fingerprint(server, ("mcp 1", "pydantic 1"))
    assert tool_table.fingerprint(server, ("mcp 1", "pydantic 1")) == key
    assert tool_table.fingerprint(server, ("mcp 2", "pydantic 1")) != key
    server.write_text("two", encoding="utf-8")
    assert tool_table.fingerprint(server, ("mcp 1", "pydantic 1")) != key


async def test_a_failing_fingerprint_only_means_the_table_is_built(tmp_path: Path, monkeypatch: Any) -> None:
    from code_intel.server import tool_listing as tool_table

    def gone(*_: Any) -> str:
        raise FileNotFoundError("a module file went away while it was read")

    monkeypatch.setattr(tool_table, "fingerprint", gone)
    (tmp_path / ".code-intel").mkdir()
    app = CodeIntelApp.for_path(tmp_path)
    try:
        server = build_server(app)
        assert [tool.name for tool in await server.list_tools()] == list(TOOLS)
        _settle()
        assert server._registered is not None
        assert not (tmp_path / ".code-intel" / "cache" / "tool-table.json").exists()
    finally:
        app.close()


def test_init_saves_the_listing_so_the_first_server_answers_from_it(tmp_path: Path, capsys: Any,
                                                                          monkeypatch: Any) -> None:
    """`code-intel init` saves the listing into the project; the first server started there answers tools/list
    from it without building its table. A second init finds it current and does not build again; a failure
    to save is said, and init still succeeds."""
    from code_intel.cli.main import main
    from code_intel.server import tool_listing as tool_table

    saved = tmp_path / ".code-intel" / "cache" / "tool-table.json"
    assert main(["init", str(tmp_path), "--no-hooks"]) == 0
    assert "saved       .code-intel/cache/tool-table.json" in capsys.readouterr().out
    assert tool_table.load(saved, tool_table.current_key()) is not None

    app = CodeIntelApp.for_path(tmp_path)
    try:
        server = build_server(app)
        server.build_in_background = False
        listed = _dumps(anyio.run(server.list_tools))  # init runs no event loop: nor does this test
        assert server._registered is None  # answered from the file init wrote
        assert [tool["name"] for tool in listed] == list(TOOLS)
    finally:
        app.close()

    def must_not_build(project: Any) -> None:
        raise AssertionError("the listing is current: init must not build it again")

    monkeypatch.setattr(code_intel_server, "save_tool_listing", must_not_build)
    assert main(["init", str(tmp_path), "--no-hooks"]) == 0
    assert "tool listing" not in capsys.readouterr().out

    saved.unlink()

    def fails(project: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(code_intel_server, "save_tool_listing", fails)
    assert main(["init", str(tmp_path), "--no-hooks"]) == 0
    assert "tool listing was not saved" in capsys.readouterr().err
    assert not saved.exists()
    assert main(["init", str(tmp_path), "--remove-hooks"]) == 0  # takes hooks out, saves nothing
    assert not saved.exists()


def test_session_completes_asking_for_exactly_record_outcomes_arguments() -> None:
    """SESSION_COMPLETE's expected_payload (responses.RECORD_OUTCOME_PAYLOAD) names the record_outcome tool's own
    arguments, so an agent sending what it lists is never refused as an unknown argument."""
    from code_intel.workflow.responses import RECORD_OUTCOME_PAYLOAD

    schema = tool_entry("record_outcome", TOOLS["record_outcome"]).parameters
    assert set(RECORD_OUTCOME_PAYLOAD) == set(schema["properties"])
    assert schema.get("required") == ["outcome"] and "optional" not in RECORD_OUTCOME_PAYLOAD["outcome"]
