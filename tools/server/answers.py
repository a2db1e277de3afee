"""What a tool call puts on the wire: its result model (or refusal) as one CallToolResult, and each tool's output
schema, "one of its result models, or the refusal".

The text content is the compact JSON of the structured content (clients that read only text see the same answer);
null fields are left out, `success` is always there, and an answer over MAX_RESPONSE_BYTES is cut with notes that
say so (tools/core/limits.py).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from code_intel.core.limits import MAX_RESPONSE_BYTES, bound_answer
from code_intel.core.pathnames import client_safe
from code_intel.server.refusals import Refusal


def answered(result: BaseModel) -> CallToolResult:
    """A tool's result model as its answer: JSON values, unset and null fields left out, `success: true`."""
    data = result.model_dump(mode="json", exclude_none=True)
    data.setdefault("success", True)
    return wire_result(data, is_error=False)


def wire_result(data: dict[str, Any], *, is_error: bool) -> CallToolResult:
    data, text = wire_json(data)
    if len(text) > MAX_RESPONSE_BYTES:  # serialised once; only an answer over the cap is cut and redone
        data, text = wire_json(bound_answer(data))
    return CallToolResult(content=[TextContent(type="text", text=text.decode())], structured_content=data,
                          is_error=is_error)


def wire_json(data: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """An answer as compact JSON (non-ASCII kept as is), with the data it was made from: a file name that is
    not UTF-8 cannot be encoded, so then the answer carries such names in their \\xNN form (tools/core/pathnames.py)."""
    try:
        return data, to_json(data, fallback=str)
    except PydanticSerializationError:
        safe = client_safe(data)
        return safe, to_json(safe, fallback=str)


def result_models(fn: Callable[..., Any]) -> tuple[type[BaseModel], ...]:
    """The models a tool function's return annotation names (one, or the members of a union)."""
    annotation = get_type_hints(fn)["return"]
    members = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    models = tuple(m for m in members if isinstance(m, type) and issubclass(m, BaseModel))
    if len(models) != len(members):
        raise TypeError(f"tool {fn.__name__} must return a pydantic model (or a union of them), not {annotation}")
    return models


SUCCESS = {"properties": {"success": {"const": True, "type": "boolean"}}, "required": ["success"]}


@cache
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, generated once (Refusal is part of every tool's output schema)."""
    return model.model_json_schema(ref_template="#/$defs/{model}")


def output_schema(models: tuple[type[BaseModel], ...]) -> dict[str, Any]:
    """One object schema for a tool: any of its result models (each with `success: true`) or the refusal."""
    definitions: dict[str, Any] = {}
    choices: list[dict[str, Any]] = []
    answers: tuple[type[BaseModel], ...] = (*models, Refusal)
    for model in answers:
        schema = dict(_model_schema(model))  # shallow: compact_schema below copies every level it keeps
        definitions.update(schema.pop("$defs", {}))
        definitions[model.__name__] = schema
        ref = {"$ref": f"#/$defs/{model.__name__}"}
        if "success" in schema["properties"]:
            choices.append({"title": model.__name__, "allOf": [ref]})
        else:  # the envelope's `success: true`, beside the model's own fields
            schema.pop("additionalProperties", None)
            choices.append({"title": model.__name__, "allOf": [ref, SUCCESS]})
    titles = [choice.pop("title") for choice in choices]
    compact = compact_schema({"type": "object", "anyOf": choices, "$defs": definitions})
    # the one null on the wire: a refusal with no session active has no current phase (step is 0)
    compact["$defs"]["Refusal"]["properties"]["current_phase"] = {
        "type": ["string", "null"], "description": "the session's phase; null when no session is active"}
    out = _inline_refs(compact)
    for choice, title in zip(out["anyOf"], titles, strict=True):  # the model each answer is, named
        choice["title"] = title
    return out


def compact_schema(schema: Any) -> Any:
    """A pydantic schema without what the wire never needs: titles, and null as an option (results go
    out with null fields left out, so an optional field is absent rather than null)."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: compact_schema(value) for key, value in schema.items()
           if key != "title" and not (key == "default" and value is None)}
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        del out["anyOf"]
        if len(rest) == 1:
            out.update(rest[0])
        else:
            out["anyOf"] = rest
    if isinstance(out.get("properties"), dict):  # property names are data, not keywords: keep them all
        out["properties"] = {name: compact_schema(value) for name, value in schema["properties"].items()}
    return out


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Every `$ref` replaced by the definition it names, except where a definition contains itself (an
    outline's children): validators then do not resolve a reference for every item of a long list."""
    definitions: dict[str, Any] = schema.pop("$defs", {})
    kept: set[str] = set()

    def expand(node: Any, inside: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [expand(item, inside) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in inside:
                kept.add(name)
                return node
            # keys beside the reference (an optional field's description) stay, over the definition's own
            siblings = {key: expand(value, inside) for key, value in node.items() if key != "$ref"}
            return {**expand(definitions[name], (*inside, name)), **siblings}
        return {key: expand(value, inside) for key, value in node.items()}

    out = expand(schema, ())
    pending = set(kept)
    while pending:  # a kept definition is expanded too (its own references to itself stay)
        name = pending.pop()
        definitions[name] = expand(definitions[name], (name,))
    if kept:
        out["$defs"] = {name: definitions[name] for name in sorted(kept)}
    return out
