"""What the model reads of tools/list on every turn the tools are loaded (the descriptions and input schemas) stays
within 3,000 tokens, counted as characters / 3.5 (issue #40)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import anyio
from mcp import Client

from code_intel.server.app import CodeIntelApp
from code_intel_server import build_server

LIMIT_TOKENS = 3000


def test_the_tool_list_a_model_reads_fits_its_budget(tmp_path: Path) -> None:
    async def listed() -> list[tuple[str, str, dict[str, object]]]:
        async with Client(build_server(CodeIntelApp.for_path(str(tmp_path)))) as client:
            return [(t.name, t.description or "", t.input_schema) for t in (await client.list_tools()).tools]

    tools = anyio.run(listed)
    chars = sum(len(name) + len(text) + len(json.dumps(schema, separators=(",", ":"))) for name, text, schema in tools)
    assert math.ceil(chars / 3.5) <= LIMIT_TOKENS, f"{len(tools)} tools take {math.ceil(chars / 3.5)} tokens"
    # nothing a model needs is taken out: every tool says what it does and every argument has its type
    for name, text, schema in tools:
        assert len(text) > 30, name
        properties = schema.get("properties", {})
        assert isinstance(properties, dict)
        assert all("type" in p or "anyOf" in p or "enum" in p for p in properties.values()), (name, properties)
        assert "title" not in json.dumps(schema), name
