"""Design hygiene (TSL4xx, input side): schemas that constrain what the model may send."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..model import Hit, Tool
from ..registry import check
from ._schema_walk import is_object_schema, object_schemas, properties, subschemas, walk

MAX_NAME = 200  # longer names are not words anyone reads; cap before tokenizing
MAX_DESC = 4000
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
CONSTRAINTS = ("enum", "const", "format", "pattern")  # keywords that pin a string's shape


def words(name: Any) -> list[str]:
    """`crm.get_customer`, `getCustomer`, `get-customer`, `GETCustomer` -> ['crm', 'get', 'customer']."""
    if not isinstance(name, str):
        return []
    return [w.lower() for w in _WORD.findall(name[:MAX_NAME])]


def text(value: Any) -> str:
    return value[:MAX_DESC] if isinstance(value, str) else ""


def branches(node: dict) -> list[dict]:
    """The node plus, for a nullable union (`anyOf: [X, {type: null}]`), the non-null branch X.

    Pydantic and Zod write optional parameters that way; the constraints then sit in X.
    """
    out = [node]
    for key in ("anyOf", "oneOf"):
        alts = node.get(key)
        if isinstance(alts, list):
            real = [a for a in alts if isinstance(a, dict) and a.get("type") != "null"]
            if len(real) == 1:
                out.append(real[0])
    return out


def types_of(node: dict) -> set[str]:
    found: set[str] = set()
    for b in branches(node):
        t = b.get("type")
        if isinstance(t, str):
            found.add(t)
        elif isinstance(t, list):
            found.update(x for x in t if isinstance(x, str))
    found.discard("null")
    return found


def has_any(node: dict, keys: tuple[str, ...]) -> bool:
    return any(k in b for b in branches(node) for k in keys)


def is_plain_string(node: dict) -> bool:
    """A string parameter, possibly nullable, that is not also a number, object, ..."""
    return types_of(node) == {"string"}


def parameters(schema: Any) -> Iterator[tuple[tuple, str, dict]]:
    """(pointer tokens, name, schema) of every declared property of every object schema."""
    for path, node in object_schemas(schema):
        for name, prop in properties(node).items():
            if isinstance(prop, dict):
                yield path + ("properties", name), name, prop


def gemini_parameters(tool: Tool) -> bool:
    """Gemini's OpenAPI-subset `parameters` (not `parametersJsonSchema`)."""
    return tool.dialect == "gemini" and tool.fields.get("input_schema", "").endswith("/parameters")


# -- well-known string kinds ------------------------------------------------------------------
_DESC_KINDS = (
    ("a duration", re.compile(r"\bduration\b", re.I)),  # not a date-time: no finding
    ("a date-time", re.compile(r"\bISO[ -]?8601\b|\bRFC[ -]?3339\b|\btimestamp\b|YYYY-MM-DDT", re.I)),
    ("a date", re.compile(r"\bYYYY-MM-DD\b", re.I)),
    ("an email address", re.compile(r"\be-?mail address(es)?\b", re.I)),
    ("a UUID", re.compile(r"\b(UUID|GUID)\b", re.I)),
)


def string_kind(name: str, desc: str) -> str | None:
    """What a string parameter holds, judged by its name and description; None when unclear."""
    w = words(name)
    last = w[-1] if w else ""
    if last in ("uuid", "guid"):
        return "a UUID"
    if last == "email" or w[-2:] == ["email", "address"]:
        return "an email address"
    if last in ("url", "uri", "href"):
        return "a URL"
    if last in ("datetime", "timestamp") or w[-2:] == ["date", "time"] or (last == "at" and len(w) > 1):
        return "a date-time"
    if last == "date" or (w and w[0] == "date" and len(w) == 2 and w[1] in ("from", "to", "start", "end")):
        return "a date"
    for kind, rx in _DESC_KINDS:
        if rx.search(desc):
            return None if kind == "a duration" else kind
    return None


@check("TSL402")
def string_without_format(tool: Tool, ctx: Any) -> Iterator[Hit]:
    gemini = gemini_parameters(tool)
    for path, name, prop in parameters(tool.input_schema):
        if not is_plain_string(prop) or has_any(prop, CONSTRAINTS):
            continue
        kind = string_kind(name, text(prop.get("description")))
        if kind is None or (gemini and kind != "a date-time"):
            continue  # Gemini's `parameters` only know the date-time string format
        yield ctx.at(tool, "input_schema", *path, param=name, kind=kind)


def id_like(name: str) -> bool:
    w = words(name)
    return bool(w) and w[-1] == "id"


@check("TSL403")
def id_without_pattern(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, prop in parameters(tool.input_schema):
        if id_like(name) and is_plain_string(prop) and not has_any(prop, CONSTRAINTS):
            yield ctx.at(tool, "input_schema", *path, param=name)


_COUNT = re.compile(r"(limit|count|topk|topn|(page|batch|chunk)size|perpage|pagelimit|"
                    r"(max|num|n)(results|items|hits|entries|rows|records|pages|count))")


def count_like(name: str) -> bool:
    w = words(name)
    if not w or len(w) > 4:
        return False
    return bool(_COUNT.fullmatch("".join(w))) or (w[-1] == "limit" and len(w) <= 3)


@check("TSL404")
def count_param_without_bounds(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, prop in parameters(tool.input_schema):
        if not count_like(name) or not types_of(prop) or not types_of(prop) <= {"integer", "number"}:
            continue
        if has_any(prop, ("enum", "const")):
            continue
        missing = [b for b, keys in (("minimum", ("minimum", "exclusiveMinimum")),
                                     ("maximum", ("maximum", "exclusiveMaximum"))) if not has_any(prop, keys)]
        if missing:
            yield ctx.at(tool, "input_schema", *path, param=name, missing=" or ".join(missing))


def arrays(schema: Any) -> Iterator[tuple[tuple, dict]]:
    for path, node in walk(schema):
        t = node.get("type")
        if t == "array" or (isinstance(t, list) and "array" in t and "null" in t and len(t) == 2):
            yield path, node


def where(path: tuple) -> str:
    """A short human name for a schema position: the last property name, or the root."""
    names = [str(path[i + 1]) for i in range(len(path) - 1) if path[i] == "properties"]
    return names[-1] if names else "/" + "/".join(map(str, path)) if path else "the root"


@check("TSL405")
def array_without_items(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, node in arrays(tool.input_schema):
        if not any(k in node for k in ("items", "prefixItems", "$ref", "anyOf", "oneOf", "allOf")):
            yield ctx.at(tool, "input_schema", *path, param=where(path))


@check("TSL406")
def array_without_max_items(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, node in arrays(tool.input_schema):
        if "maxItems" not in node and not (isinstance(node.get("items"), dict) and "enum" in node["items"]
                                           and node.get("uniqueItems") is True):
            yield ctx.at(tool, "input_schema", *path, param=where(path))


@check("TSL407")
def free_text_without_max_length(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, prop in parameters(tool.input_schema):
        if not is_plain_string(prop) or has_any(prop, CONSTRAINTS + ("maxLength",)):
            continue
        if id_like(name) or string_kind(name, text(prop.get("description"))):
            continue  # TSL402 / TSL403 say what is missing there
        yield ctx.at(tool, "input_schema", *path, param=name)


def unconstrained_string(prop: Any) -> bool:
    return isinstance(prop, dict) and is_plain_string(prop) and not has_any(prop, CONSTRAINTS + ("maxLength",))


@check("TSL408")
def stringly_typed_parameters(tool: Tool, ctx: Any) -> Iterator[Hit]:
    props = properties(tool.input_schema)
    if len(props) >= ctx.options.get("min_params", 3) and all(unconstrained_string(p) for p in props.values()):
        yield ctx.at(tool, "input_schema", "properties", count=len(props))


@check("TSL409")
def too_many_parameters(tool: Tool, ctx: Any) -> Iterator[Hit]:
    count = len(properties(tool.input_schema))
    limit = ctx.options.get("max", 20)
    if count > limit:
        yield ctx.at(tool, "input_schema", "properties", count=count, max=limit)


def nesting(schema: Any, limit: int) -> tuple | None:
    """Pointer tokens of the first node nested deeper than `limit` object/array levels, or None.

    A level is one step into a property value or an array's items; composition keywords
    (anyOf, allOf, ...) and definitions do not add a level of their own.
    """
    if not isinstance(schema, dict):
        return None
    seen: set[int] = set()
    stack: list[tuple[tuple, dict, int]] = [((), schema, 0)]
    while stack:
        path, node, depth = stack.pop()
        if id(node) in seen or len(path) > 256:
            continue
        seen.add(id(node))
        if depth > limit:
            return path
        for rel, child in subschemas(node):
            step = 1 if rel[0] in ("properties", "patternProperties", "additionalProperties", "items",
                                   "prefixItems") else 0
            if rel[0] in ("$defs", "definitions"):
                continue
            stack.append((path + rel, child, depth + step if step and is_container(child) else depth))
    return None


def is_container(node: dict) -> bool:
    return is_object_schema(node) or "items" in node or bool(types_of(node) & {"object", "array"})


@check("TSL410")
def schema_nesting_too_deep(tool: Tool, ctx: Any) -> Iterator[Hit]:
    limit = ctx.options.get("max_depth", 5)
    path = nesting(tool.input_schema, limit)
    if path is not None:
        yield ctx.at(tool, "input_schema", *path, max=limit)


@check("TSL411")
def open_empty_input_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    if not isinstance(schema, dict) or gemini_parameters(tool) or properties(schema):
        return
    if schema.get("type", "object") != "object" or schema.get("additionalProperties") is False:
        return
    if any(k in schema for k in ("anyOf", "oneOf", "allOf", "$ref", "patternProperties", "unevaluatedProperties")):
        return
    if isinstance(schema.get("additionalProperties"), dict):
        return  # a typed map: the tool takes free-form named values on purpose
    yield ctx.at(tool, "input_schema")


@check("TSL401")
def open_object_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    if gemini_parameters(tool):
        return  # Gemini's `parameters` subset rejects `additionalProperties`
    nested = ctx.options.get("nested", True)
    for path, node in object_schemas(schema):
        if path and not nested:
            continue
        if not path and not properties(node):
            continue  # a tool without parameters: TSL411 reports it
        if any(k in node for k in ("anyOf", "oneOf", "allOf", "$ref")) and not properties(node):
            continue  # composition: closing is the branches' business
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            continue
        if isinstance(node.get("additionalProperties"), dict) and not properties(node):
            continue  # a typed map (`additionalProperties: {type: string}`) is intentional
        yield ctx.at(tool, "input_schema", *path, where="/" + "/".join(map(str, path)) if path else "the root")
