"""Design hygiene (TSL45x, output side): output schemas that describe what a tool returns."""

from __future__ import annotations

from typing import Any, Iterator

from ..model import Hit, Tool
from ..registry import check
from ._schema_walk import is_object_schema, properties
from .annotations import effect, verb
from .design import object_schemas, types_of, words

LIST_VERBS = frozenset(("list", "search", "find", "query", "browse", "lookup", "grep", "explore"))
PAGINATION = frozenset((
    "hasmore", "nextcursor", "cursor", "nextpage", "nextpagetoken", "pagetoken", "nexttoken", "nextoffset",
    "nextlink", "next", "total", "totalcount", "totalresults", "totalitems", "count", "page", "pages",
    "totalpages", "pageinfo", "pagination", "truncated", "istruncated", "offset", "more", "islast",
    "lastpage", "remaining", "endcursor",
))
ENVELOPE_ITEM_KEYS = frozenset(("type", "text", "data", "mimeType", "resource", "uri"))


def _squash(name: str) -> str:
    return "".join(words(name))


def is_read_tool(tool: Tool) -> bool:
    """Declared read-only, or read by its verb unless it declares `readOnlyHint: false` (its own word wins)."""
    hint = tool.annotation_map.get("readOnlyHint")
    return hint is True or (hint is not False and effect(tool) == "read")


@check("TSL450")
def read_tool_without_output_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.dialect != "mcp" or tool.output_schema is not None:
        return
    if ctx.options.get("all_tools", False) or is_read_tool(tool):
        yield ctx.at(tool, "name")


@check("TSL451")
def output_schema_root_not_object(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if tool.dialect != "mcp" or not isinstance(schema, dict):
        return  # a non-object value is TSL102's; other dialects allow any root
    t = schema.get("type")
    if t != "object":
        found = "no type" if t is None else f"type {t!r}" if isinstance(t, (str, list)) else "an invalid type"
        yield ctx.at(tool, "output_schema", *(("type",) if "type" in schema else ()), found=found)


def envelope_items(schema: dict) -> dict | None:
    """The item schema of a root `content` array whose items look like MCP content blocks."""
    content = properties(schema).get("content")
    if not isinstance(content, dict) or "array" not in types_of(content):
        return None
    items = content.get("items")
    if not isinstance(items, dict):
        return None
    for block in [items] + [b for k in ("anyOf", "oneOf") for b in items.get(k) or [] if isinstance(b, dict)]:
        names = set(properties(block))
        if "type" in names and names <= ENVELOPE_ITEM_KEYS and names & {"text", "data", "resource"}:
            return block
    return None


@check("TSL452")
def output_schema_mirrors_content_envelope(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if isinstance(schema, dict) and envelope_items(schema) is not None:
        yield ctx.at(tool, "output_schema", "properties", "content")


@check("TSL453")
def output_object_without_required(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if not isinstance(schema, dict) or envelope_items(schema) is not None:
        return  # an envelope is TSL452's
    for path, node in object_schemas(schema):
        if properties(node) and "required" not in node and not any(k in node for k in ("anyOf", "oneOf", "allOf")):
            yield ctx.at(tool, "output_schema", *path, where="/" + "/".join(map(str, path)) if path else "the root")


def pagination_fields(schema: dict) -> bool:
    """A pagination field at the root or one level down (`meta.next_cursor`, `page_info.has_more`)."""
    for name, prop in properties(schema).items():
        if _squash(name) in PAGINATION:
            return True
        if isinstance(prop, dict) and any(_squash(n) in PAGINATION for n in properties(prop)):
            return True
    return False


@check("TSL454")
def list_output_without_pagination(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if not isinstance(schema, dict) or verb(tool) not in LIST_VERBS or envelope_items(schema) is not None:
        return
    arrays = [n for n, p in properties(schema).items() if isinstance(p, dict) and "array" in types_of(p)
              and not _bounded(p)]
    if arrays and not pagination_fields(schema) and not _caller_bounded(tool):
        yield ctx.at(tool, "output_schema", "properties", arrays[0], field=arrays[0])


BOUNDED = 100  # a list of at most this many items needs no pagination
_LIMIT_WORDS = frozenset(("limit", "k", "topk", "top", "maxresults", "numresults", "pagesize", "size", "n", "count",
                          "max", "first", "last"))


def _bounded(prop: dict) -> bool:
    """An array declared small (`maxItems` up to 100)."""
    m = prop.get("maxItems")
    return isinstance(m, int) and not isinstance(m, bool) and 0 <= m <= BOUNDED


def _caller_bounded(tool: Tool) -> bool:
    """A limit the caller sets, with a small maximum (`limit`, `top_k`, `max_results` up to 100), or any limit on a
    search: the results are the top k, not a list to page through."""
    searching = verb(tool) in ("search", "find", "query", "lookup", "grep")
    for name, p in properties(tool.input_schema if isinstance(tool.input_schema, dict) else {}).items():
        if not isinstance(p, dict) or "".join(words(name)) not in _LIMIT_WORDS or not types_of(p) & {"integer", "number"}:
            continue
        m = p.get("maximum")
        if searching or isinstance(m, (int, float)) and not isinstance(m, bool) and m <= BOUNDED:
            return True
    return False


@check("TSL455")
def empty_output_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if not isinstance(schema, dict) or not is_object_schema(schema) or properties(schema):
        return
    if any(k in schema for k in ("anyOf", "oneOf", "allOf", "$ref", "patternProperties", "if")):
        return
    if isinstance(schema.get("additionalProperties"), dict):
        return  # a typed map describes its values
    yield ctx.at(tool, "output_schema")
