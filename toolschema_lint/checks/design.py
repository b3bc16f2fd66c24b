"""Design hygiene (TSL4xx): schemas that constrain what the model may send."""

from __future__ import annotations

from typing import Any, Iterator

from ..model import Hit, Tool
from ..registry import check
from ._schema_walk import object_schemas, properties


@check("TSL401")
def open_object_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    if tool.dialect == "gemini" and tool.fields.get("input_schema", "").endswith("/parameters"):
        return  # Gemini's `parameters` subset rejects `additionalProperties`
    nested = ctx.options.get("nested", True)
    for path, node in object_schemas(schema):
        if path and not nested:
            continue
        if any(k in node for k in ("anyOf", "oneOf", "allOf", "$ref")) and not properties(node):
            continue  # composition: closing is the branches' business
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            continue
        if isinstance(node.get("additionalProperties"), dict) and not properties(node):
            continue  # a typed map (`additionalProperties: {type: string}`) is intentional
        where = "/" + "/".join(map(str, path)) if path else "the root"
        yield ctx.at(tool, "input_schema", *path, where=where)
