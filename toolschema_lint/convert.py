"""`toolschema-lint convert --to PROFILE`: a tool set in another provider's shape.

Each target gets the transformations its profile (`rules/profiles.json`) needs, and whatever cannot be kept
is reported, never dropped silently:

- strict targets (`openai-strict`, `anthropic-strict`): optional properties become required and nullable,
  every object is closed (`additionalProperties: false`), keywords the strict subset rejects are removed;
- `gemini`: JSON Schema becomes the OpenAPI subset of `parameters` (upper-case types, `nullable` for a
  type list, string enums, other keywords removed);
- from a strict tool to a non-strict target, a required property whose type admits null is made optional
  again (strict mode's way of writing "optional" is undone); a property that was both required and nullable
  before a strict conversion therefore comes back optional;
- names a target rejects are rewritten with the characters it accepts; fields the target has no place for
  (annotations, output schema, title outside MCP) are left out.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from .model import Tool
from .checks._schema_walk import resolve_local
from .profiles import is_strict, profiles

SHAPES = ("chat", "responses")  # OpenAI: Chat Completions or Responses API tool objects
MAX_DEPTH = 64


@dataclass
class Conversion:
    data: Any
    notes: list[tuple[str, str]] = field(default_factory=list)  # (tool name, what could not be kept)


def _source_schema(tool: Tool) -> Any:
    """The input schema as written (for a Gemini `parameters` one, with JSON Schema type names)."""
    schema = copy.deepcopy(tool.input_schema)
    return schema if schema is not None else {"type": "object", "properties": {}}


def convert(tools: list[Tool], to: str, shape: str = "chat") -> Conversion:
    prof = profiles()[to]
    family = prof["family"]
    out: list[dict[str, Any]] = []
    notes: list[tuple[str, str]] = []
    for tool in tools:
        name = tool.display_name
        say = lambda msg, _n=name: notes.append((_n, f"{to}: {msg}"))  # noqa: E731
        schema = _source_schema(tool)
        if is_strict(tool) and not prof.get("strict"):
            schema = _unstrict(schema)
        if prof.get("strict"):
            schema = _strictify(schema, prof, say)
        new_name = _rename(tool.name, prof, say)
        if family == "mcp":
            out.append(_mcp_tool(tool, new_name, schema, prof, say))
        elif family in ("openai", "anthropic"):
            fn = _function(new_name, tool, "parameters" if family == "openai" else "input_schema", schema, prof)
            out.append({"type": "function", "function": fn} if family == "openai" and shape == "chat" else
                       {"type": "function", **fn} if family == "openai" else fn)
            _dropped(tool, say, ("title", "output_schema", "annotations"))
        else:  # gemini
            g: dict[str, Any] = {"name": new_name}
            if isinstance(tool.description, str):
                g["description"] = tool.description
            g["parameters"] = _openapi(schema, prof, say, "parameters")
            if isinstance(tool.output_schema, dict):
                g["response"] = _openapi(copy.deepcopy(tool.output_schema), prof, say, "response")
            out.append(g)
            _dropped(tool, say, ("title", "annotations"))
    if family == "mcp":
        return Conversion({"tools": out}, notes)
    if family == "gemini":
        return Conversion({"functionDeclarations": out}, notes)
    return Conversion(out, notes)


def _function(name: Any, tool: Tool, key: str, schema: Any, prof: dict) -> dict[str, Any]:
    """An OpenAI function or an Anthropic tool: name, description, the schema under `key`, strict when the target is."""
    fn: dict[str, Any] = {"name": name}
    if isinstance(tool.description, str):
        fn["description"] = tool.description
    fn[key] = schema
    if prof.get("strict"):
        fn["strict"] = True
    return fn


def _dropped(tool: Tool, say: Any, fields: tuple[str, ...]) -> None:
    for f in (*fields, "meta"):
        if getattr(tool, f) is not None:
            say(f"`{_SHOWN.get(f, f)}` has no place in this format and is left out")
    if tool.dialect == "mcp" and isinstance(tool.raw, dict):
        for key in ("icons", "execution"):
            if key in tool.raw:
                say(f"`{key}` has no place in this format and is left out")


_SHOWN = {"output_schema": "outputSchema", "meta": "_meta"}


def _rename(name: Any, prof: dict, say: Any) -> Any:
    spec = prof.get("name")
    if not isinstance(name, str) or not spec or re.fullmatch(spec["pattern"], name):
        return name
    new = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "tool"
    if prof["family"] == "gemini" and not re.match(r"[A-Za-z_]", new):
        new = "_" + new[:63]
    say(f"name '{name}' renamed '{new}' ({spec['rule']})")
    return new


def _mcp_tool(tool: Tool, name: Any, schema: Any, prof: dict, say: Any) -> dict[str, Any]:
    allowed = set(prof.get("tool_fields", ()))
    t: dict[str, Any] = {"name": name}
    for key, value in (("title", tool.title), ("description", tool.description), ("inputSchema", schema),
                       ("outputSchema", tool.output_schema), ("annotations", tool.annotations), ("_meta", tool.meta)):
        if value is None:
            continue
        if key not in allowed:
            say(f"`{key}` is not part of this revision's Tool and is left out")
            continue
        t[key] = copy.deepcopy(value) if isinstance(value, (dict, list)) else value
    if isinstance(tool.raw, dict) and tool.dialect == "mcp":
        for key in ("icons", "execution"):
            if key in tool.raw:
                if key in allowed:
                    t[key] = copy.deepcopy(tool.raw[key])
                else:
                    say(f"`{key}` is not part of this revision's Tool and is left out")
    return t


# --- strict mode ---------------------------------------------------------------------------------

def _nullable(prop: Any) -> Any:
    """The property with null allowed as well (strict mode's way of saying "optional")."""
    if not isinstance(prop, dict):
        return prop
    prop = dict(prop)
    t = prop.get("type")
    if isinstance(t, str):
        prop["type"] = [t, "null"] if t != "null" else t
    elif isinstance(t, list):
        prop["type"] = t if "null" in t else [*t, "null"]
    elif "anyOf" in prop and isinstance(prop["anyOf"], list):
        prop["anyOf"] = [*prop["anyOf"], {"type": "null"}]
    else:
        return {"anyOf": [prop, {"type": "null"}]}
    if isinstance(prop.get("enum"), list) and None not in prop["enum"]:
        prop["enum"] = [*prop["enum"], None]
    return prop


def _strictify(schema: Any, prof: dict, say: Any, path: str = "", depth: int = 0) -> Any:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return schema
    node = dict(schema)
    for key, why in {**(prof.get("rejected_keywords") or {}), **(prof.get("unconfirmed_keywords") or {})}.items():
        if key in node:
            value = node.pop(key)
            if key == "oneOf" and isinstance(value, list):
                node["anyOf"] = value  # the alternatives are kept; that more than one may match is not
                say(f"`oneOf` at {path or '/'} became `anyOf` ({why})")
            elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                         "maxLength", "maxItems"):
                desc = node.get("description", "")
                node["description"] = (desc + " " if desc else "") + f"({key} {value})"
                say(f"`{key}` at {path or '/'} moved into the description ({why})")
            else:
                say(f"`{key}` at {path or '/'} removed ({why})")
    fmt = node.get("format")
    formats = prof.get("formats")
    if isinstance(fmt, str) and formats is not None and fmt not in formats:
        node.pop("format")
        say(f"format '{fmt}' at {path or '/'} removed (not supported)")
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
        if isinstance(node.get(key), dict):
            node[key] = _strictify(node[key], prof, say, f"{path}/{key}", depth + 1)
    for key in ("anyOf", "allOf", "prefixItems"):
        if isinstance(node.get(key), list):
            node[key] = [_strictify(s, prof, say, f"{path}/{key}/{i}", depth + 1) for i, s in enumerate(node[key])]
    for key in ("$defs", "definitions"):
        if isinstance(node.get(key), dict):
            node[key] = {k: _strictify(s, prof, say, f"{path}/{key}/{k}", depth + 1) for k, s in node[key].items()}
    t = node.get("type")
    if t == "object" or (isinstance(t, list) and "object" in t) or (t is None and "properties" in node):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        required = [r for r in node.get("required", []) if isinstance(r, str)] if isinstance(node.get("required"), list) else []
        new_props = {}
        for k, s in props.items():
            s = _strictify(s, prof, say, f"{path}/properties/{k}", depth + 1)
            if prof.get("all_required") and k not in required:
                s = _nullable(s)
            new_props[k] = s
        node["properties"] = new_props
        if prof.get("all_required"):
            node["required"] = list(props)
        if prof.get("closed_objects") and node.get("additionalProperties", True) is not False:
            if node.get("additionalProperties", True) is not True:
                say(f"`additionalProperties` at {path or '/'} replaced by false: extra properties are no longer accepted")
            node["additionalProperties"] = False
    return node


def _unstrict(schema: Any, depth: int = 0) -> Any:
    """Strict mode's required-and-nullable properties made optional again (the form strict mode writes
    an optional property in)."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return schema
    node = dict(schema)
    props = node.get("properties")
    if isinstance(props, dict):
        required = [r for r in node.get("required", []) if isinstance(r, str)] if isinstance(node.get("required"), list) else []
        new_props, keep = {}, []
        for k, s in props.items():
            s = _unstrict(s, depth + 1)
            plain = _without_null(s)
            if k in required and plain is not None:
                s = plain
            elif k in required:
                keep.append(k)
            new_props[k] = s
        node["properties"] = new_props
        if "required" in node:
            node["required"] = keep
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            node[key] = _unstrict(node[key], depth + 1)
    return node


def _without_null(prop: Any) -> Any:
    """`prop` without the null it admits, or None when it admits none."""
    if not isinstance(prop, dict):
        return None
    t = prop.get("type")
    if isinstance(t, list) and "null" in t and len(t) > 1:
        rest = [x for x in t if x != "null"]
        out = {**prop, "type": rest[0] if len(rest) == 1 else rest}
        if isinstance(out.get("enum"), list):
            out["enum"] = [v for v in out["enum"] if v is not None]
        return out
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and {"type": "null"} in any_of:
        rest = [s for s in any_of if s != {"type": "null"}]
        if len(rest) == 1 and len(prop) == 1 and isinstance(rest[0], dict):
            return rest[0]
        return {**prop, "anyOf": rest}
    return None


# --- Gemini's OpenAPI subset ---------------------------------------------------------------------------

def _openapi(schema: Any, prof: dict, say: Any, where: str, path: str = "", depth: int = 0, root: Any = None) -> Any:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return schema
    root = schema if root is None else root
    allowed = set(prof.get("parameters_keywords", ()))
    node = dict(schema)
    ref = node.pop("$ref", None)
    if isinstance(ref, str):
        found, target, _path = resolve_local(root, ref) if ref.startswith("#") else (False, None, ())
        if not found or not isinstance(target, dict) or depth > 16:
            say(f"`$ref` {ref} at {where}{path or '/'} removed (cannot be resolved or is recursive)")
        else:
            node = {**target, **node}
            say(f"`$ref` {ref} at {where}{path or '/'} inlined (`parameters` have no references)")
    if "const" in node and "enum" not in node:
        node["enum"] = [node.pop("const")]
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
    t = node.get("type")
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        node["type"] = rest[0] if rest else "null"
        if "null" in t:
            node["nullable"] = True
        if len(rest) > 1:
            say(f"types {', '.join(rest)} at {where}{path or '/'} reduced to {rest[0]} (one type only)")
    if isinstance(node.get("type"), str):
        node["type"] = node["type"].upper()
    if isinstance(node.get("enum"), list) and any(not isinstance(v, str) for v in node["enum"]):
        node["enum"] = [str(v) if v is not None else "null" for v in node["enum"]]
        node["type"] = "STRING"
        say(f"enum at {where}{path or '/'} made of strings (Gemini's enums hold strings only)")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in allowed:
            say(f"`{key}` at {where}{path or '/'} removed (not part of Gemini's `{where}` schema)")
            continue
        if key == "properties" and isinstance(value, dict):
            value = {k: _openapi(s, prof, say, where, f"{path}/properties/{k}", depth + 1, root) for k, s in value.items()}
        elif key == "items" and isinstance(value, dict):
            value = _openapi(value, prof, say, where, f"{path}/items", depth + 1, root)
        elif key == "anyOf" and isinstance(value, list):
            value = [_openapi(s, prof, say, where, f"{path}/anyOf/{i}", depth + 1, root) for i, s in enumerate(value)]
        out[key] = value
    return out
