"""keywords / code_hint on semantic_search and query, the index state and sync_index(wait), through the MCP
server in memory (the SDK client validates every result against the tool's output schema)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from code_intel.server.app import CodeIntelApp
from code_intel_server import build_server
from tests.index.conftest import write_files
from tests.index.test_ranking import IMPLEMENTATION_AND_TESTS

pytestmark = pytest.mark.slow


async def test_new_arguments_and_index_state_through_the_server(project_dir: Path) -> None:
    write_files(project_dir, IMPLEMENTATION_AND_TESTS)
    (project_dir / ".code-intel").mkdir(exist_ok=True)
    (project_dir / ".code-intel" / "config.json").write_text('{"sync_on_start": false}')
    app = CodeIntelApp.for_path(project_dir)
    try:
        async with Client(build_server(app)) as client:
            schemas = {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
            assert {"keywords", "code_hint"} <= set(schemas["semantic_search"]) and "wait" in schemas["sync_index"]
            assert {"keywords", "code_hint"} <= set(schemas["query"])

            synced = (await client.call_tool("sync_index", {"wait": True})).structured_content
            assert synced["complete"] is True and synced["index"]["quality"] == "full"

            found = (await client.call_tool("semantic_search", {
                "query": "apply a function to every item", "n_results": 3, "keywords": ["zq_apply"],
                "code_hint": "return [fn(i) for i in items]"})).structured_content
            assert found["results"][0]["symbol"] == "zq_apply" and found["results"][0]["role"] == "implementation"
            assert found["index"]["state"] == "complete" and found["index"]["indexed_chunks"] >= 4

            answered = (await client.call_tool("query", {"question": "apply a function to every item",
                                                         "keywords": ["zq_apply"]})).structured_content
            assert answered["results"][0]["name"] == "zq_apply" and answered["results"][0]["role"] == "implementation"
            assert "zq_apply" in answered["candidates"]

            bad = await client.call_tool("semantic_search", {"query": "x", "keywords": "zq_apply"})
            assert bad.is_error is True and bad.structured_content["error"] == "invalid_argument"
            long_hint = await client.call_tool("query", {"question": "x", "code_hint": "y" * 3000})
            assert long_hint.is_error is True and long_hint.structured_content["error"] == "invalid_argument"
    finally:
        app.close()
