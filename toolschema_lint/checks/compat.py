"""Provider compatibility (TSL3xx): what a profile (`rules/profiles.json`) rejects, ignores or changes.

Each finding names the profile it is about, in its message and as a `profile:` tag. The profiles a tool
is checked against come from `--target` (config `target`), else from the tool's own format
(`profiles.own_profile`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterator

from ..model import Hit, Severity, Tool, join_pointer
from ..profiles import targets
from ..registry import check
from ._schema_walk import object_schemas, properties, walk
from ..lazyre import lazy_compile

# Tool fields by the MCP revision that introduced them (PROVIDERS.md 1.7, 1.8)
_ADDED_IN = {"annotations": "2025-03-26", "title": "2025-06-18", "outputSchema": "2025-06-18", "_meta": "2025-06-18",
             "icons": "2025-11-25", "execution": "2025-11-25"}
_MCP_FIELDS = frozenset({"name", "description", "inputSchema", *_ADDED_IN})


@lru_cache(maxsize=64)
def _pattern(text: str) -> re.Pattern:
    return re.compile(text)


def _schema_targets(tool: Tool, ctx: Any, needs: str | None = None) -> Iterator[tuple[dict, str, dict[str, Any]]]:
    """(input schema, profile id, profile) for each profile of the run (that sets `needs`), when the tool has an
    input schema."""
    schema = tool.input_schema
    if isinstance(schema, dict):
        for pid, prof in targets(tool, ctx.settings):
            if needs is None or prof.get(needs):
                yield schema, pid, prof


def _hit(ctx: Any, tool: Tool, pid: str, field_name: str, *tokens: str | int, **args: Any) -> Hit:
    return ctx.at(tool, field_name, *tokens, profile=pid, _profile=pid, **args)


@check("TSL301")
def name_rejected_by_target(tool: Tool, ctx: Any) -> Iterator[Hit]:
    name = tool.name
    if not isinstance(name, str):
        return
    for pid, prof in targets(tool, ctx.settings):
        spec = prof.get("name")
        if spec and not _pattern(spec["pattern"]).fullmatch(name):
            yield _hit(ctx, tool, pid, "name", name=name[:80], rule=spec["rule"])


@check("TSL302")
def root_schema_rejected_by_target(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    for pid, prof in targets(tool, ctx.settings):
        if isinstance(schema, dict):
            for key in prof.get("root_combinators", ()):
                if key in schema:
                    yield _hit(ctx, tool, pid, "input_schema", key, what=f"`{key}` at the root of the input schema",
                               fix="describe one object with properties; move the alternatives into a parameter")
        out = tool.output_schema
        if prof.get("family") == "mcp" and prof.get("output_root_object") and isinstance(out, dict) \
                and out.get("type", "object") != "object":
            yield _hit(ctx, tool, pid, "output_schema", what="an output schema whose root is not `type: object`",
                       fix="wrap the value in an object property")


@check("TSL303")
def keyword_rejected_by_target(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for schema, pid, prof in _schema_targets(tool, ctx):
        rejected: dict[str, str] = prof.get("rejected_keywords") or {}
        unconfirmed: dict[str, str] = prof.get("unconfirmed_keywords") or {}
        allowed = prof.get("parameters_keywords")
        gemini_params = allowed is not None and not _json_schema_path(tool)
        if not rejected and not unconfirmed and not gemini_params:
            continue
        own = tool.dialect == "gemini"
        at_root = set(prof.get("root_combinators", ()))  # TSL302 reports those at the root
        for path, node in walk(schema):
            for key in node:
                if not isinstance(key, str) or not path and key in at_root:
                    continue
                if key in rejected:
                    yield _hit(ctx, tool, pid, "input_schema", *path, key, keyword=key, why=rejected[key],
                               verdict="is rejected")
                elif key in unconfirmed:  # outside the documented subset, no rejection on record: a warning
                    yield _hit(ctx, tool, pid, "input_schema", *path, key, keyword=key, why=unconfirmed[key],
                               verdict="may be rejected", _severity=Severity.WARNING)
                elif gemini_params and key not in allowed:
                    why = ("unknown fields fail the request" if own else
                           "declare the tool with `parametersJsonSchema` to keep it, or drop it")
                    yield _hit(ctx, tool, pid, "input_schema", *path, key, keyword=key, verdict="is rejected",
                               why=f"not part of Gemini's `parameters` schema: {why}",
                               **({} if own else {"_severity": Severity.WARNING}))


def _json_schema_path(tool: Tool) -> bool:
    """A Gemini declaration given with `parametersJsonSchema` (plain JSON Schema: unsupported keywords are
    ignored there, not rejected)."""
    return tool.dialect == "gemini" and str(tool.fields.get("input_schema", "")).endswith("/parametersJsonSchema")


def _objects_under(tool: Tool, ctx: Any, flag: str) -> Iterator[tuple[str, tuple[str | int, ...], dict]]:
    """(profile id, path, object schema) of every object of the input schema, for each profile that sets `flag`."""
    for schema, pid, _prof in _schema_targets(tool, ctx, flag):
        for path, node in object_schemas(schema):
            yield pid, path, node


@check("TSL305")
def strict_optional_property(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for pid, path, node in _objects_under(tool, ctx, "all_required"):
        req = node.get("required")
        listed = set(req) if isinstance(req, list) else set()
        for name in properties(node):
            if name not in listed:
                yield _hit(ctx, tool, pid, "input_schema", *path, "properties", name, param=name)


@check("TSL306")
def strict_open_object(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for pid, path, node in _objects_under(tool, ctx, "closed_objects"):
        if node.get("additionalProperties", True) is not False:
            has = "additionalProperties" in node
            what = "sets `additionalProperties` to something other than false" if has else \
                "does not set `additionalProperties`"
            where = "the input schema" if not path else "object '" + "/".join(map(str, path)) + "'"
            yield _hit(ctx, tool, pid, "input_schema", *path, *(("additionalProperties",) if has else ()),
                       where=where, what=what)


@check("TSL309")
def field_not_in_revision(tool: Tool, ctx: Any) -> Iterator[Hit]:
    raw = tool.raw
    if tool.dialect != "mcp" or not isinstance(raw, dict):
        return
    for pid, prof in targets(tool, ctx.settings):
        if prof.get("family") != "mcp":
            continue
        allowed = set(prof.get("tool_fields", ()))
        revision = pid.removeprefix("mcp-")
        for key in raw:
            if key in _MCP_FIELDS and key not in allowed:
                added = _ADDED_IN.get(key, "")
                why = (f"added in {added}; clients of {revision} ignore it" if added > revision else
                       f"{revision} removed it, tasks moved to an extension; its clients ignore it")
                args: dict[str, Any] = {"profile": pid, "_profile": pid, "field": key, "why": why}
                if not getattr(ctx.settings, "targets", None) and added <= revision:
                    # no target named: a field the newest revision dropped is still right for the clients of the
                    # revision that has it (2025-11-25 servers declare `execution`); say so, do not fail on it
                    args["_severity"] = Severity.INFO
                yield Hit(join_pointer(tool.pointer, key), args, tool)


@check("TSL307")
def format_unsupported_by_target(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for schema, pid, prof in _schema_targets(tool, ctx, "formats"):
        formats = prof["formats"]
        for path, node in walk(schema):
            fmt = node.get("format")
            if isinstance(fmt, str) and fmt not in formats:
                yield _hit(ctx, tool, pid, "input_schema", *path, "format", format=fmt[:60],
                           supported=", ".join(formats))


@check("TSL308")
def gemini_type_form(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if _json_schema_path(tool):
        return
    sev = {} if tool.dialect == "gemini" else {"_severity": Severity.WARNING}
    for schema, pid, _prof in _schema_targets(tool, ctx, "nullable_keyword"):
        for path, node in walk(schema):
            t = node.get("type")
            if isinstance(t, list):
                yield _hit(ctx, tool, pid, "input_schema", *path, "type", what=f"a list of types ({', '.join(map(str, t))[:60]})",
                           fix="give one type and `nullable: true` where null is allowed", **sev)
            enum = node.get("enum")
            if isinstance(enum, list) and any(not isinstance(v, str) for v in enum):
                yield _hit(ctx, tool, pid, "input_schema", *path, "enum", what="an enum with values that are not strings",
                           fix="use string values (`\"1\"`), or a number with minimum and maximum", **sev)


@check("TSL310")
def strict_limit_exceeded(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for schema, pid, prof in _schema_targets(tool, ctx, "limits"):
        limits = prof["limits"]
        nodes = walk(schema)
        objects = object_schemas(schema)
        found: list[tuple[str, int, int]] = []  # (what, count, limit)
        if "depth" in limits:
            depth = max((sum(1 for t in path if t == "properties") for path, _n in objects), default=0) + 1
            found.append(("levels of object nesting", depth, limits["depth"]))
        if "properties" in limits:
            found.append(("properties", sum(len(properties(n)) for _p, n in objects), limits["properties"]))
        enums = [n["enum"] for _p, n in nodes if isinstance(n.get("enum"), list)]
        if "enum_values" in limits:
            found.append(("enum values", sum(len(e) for e in enums), limits["enum_values"]))
        if "large_enum" in limits:
            for e in enums:
                if len(e) > limits["large_enum"]:
                    chars = sum(len(v) for v in e if isinstance(v, str))
                    found.append((f"characters in an enum of {len(e)} values", chars, limits["large_enum_chars"]))
        if "optional" in limits:
            optional = sum(1 for _p, n in objects for k in properties(n)
                           if k not in (n.get("required") if isinstance(n.get("required"), list) else []))
            found.append(("optional parameters", optional, limits["optional"]))
        if "union_params" in limits:
            unions = sum(1 for _p, n in nodes if "anyOf" in n or isinstance(n.get("type"), list))
            found.append(("parameters with anyOf or a type list", unions, limits["union_params"]))
        for what, count, limit in found:
            if count > limit:
                yield _hit(ctx, tool, pid, "input_schema", what=what, count=count, limit=limit)


@check("TSL304")
def keyword_ignored_by_target(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for schema, pid, prof in _schema_targets(tool, ctx):
        if _json_schema_path(tool) and prof.get("json_schema_keywords"):
            known = set(prof["json_schema_keywords"])
            why = "not among the JSON Schema keywords Gemini documents; it is ignored, not enforced"
            ignored = {k: why for _p, n in walk(schema) for k in n if isinstance(k, str) and k not in known}
        else:
            ignored = prof.get("ignored_keywords") or {}
            if not ignored or (prof.get("parameters_keywords") is not None and tool.dialect != "gemini"):
                continue
        for path, node in walk(schema):
            for key in node:
                if isinstance(key, str) and key in ignored:
                    yield _hit(ctx, tool, pid, "input_schema", *path, key, keyword=key, why=ignored[key])


_TOKEN = lazy_compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 token


@check("TSL311")
def header_annotation_rejected(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for schema, pid, prof in _schema_targets(tool, ctx, "header_annotation"):
        key = prof["header_annotation"]
        reachable = {id(sub) for sub in properties(schema).values()}  # statically reachable: the root's properties
        seen: dict[str, str] = {}
        for path, node in walk(schema):
            if key not in node:
                continue
            value = node[key]
            t = node.get("type")
            why = None
            if not isinstance(value, str) or not value or not _TOKEN.fullmatch(value):
                why = "its value must be a non-empty header name: an RFC 9110 token, no spaces or line breaks"
            elif t not in ("string", "integer", "boolean"):
                why = "only a string, integer or boolean property may carry it, not a number, object or array"
            elif id(node) not in reachable:
                why = "only a property of the input schema's root is statically reachable"
            elif value.lower() in seen:
                why = f"the header name repeats '{seen[value.lower()]}', compared without regard to case"
            else:
                seen[value.lower()] = value
            if why:
                yield _hit(ctx, tool, pid, "input_schema", *path, key, why=why)
