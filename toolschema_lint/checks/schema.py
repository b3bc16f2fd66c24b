"""Schema validity (TSL1xx): schemas must be valid JSON Schema for their dialect, and coherent."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Iterator

from ..model import Hit, Severity, Tool, join_pointer
from ..registry import check
from ._schema_walk import (anchors, embedded_ids, is_local_ref, object_schemas, path_pointer, properties, refs,
                           remembered, resolve_local, walk)

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
# the validator class of each dialect: `jsonschema` and `jsonschema_rs` use the same names
_VALIDATORS = {
    "2020-12": "Draft202012Validator",
    "2019-09": "Draft201909Validator",
    "draft-07": "Draft7Validator",
    "draft-06": "Draft6Validator",
    "draft-04": "Draft4Validator",
}


def py_validator(dialect: str) -> Any:
    """`jsonschema`'s validator class for `dialect`. Imported on first use: the native validator
    answers the common case, and `jsonschema` is a fifth of the start-up time of a run."""
    import jsonschema

    return getattr(jsonschema, _VALIDATORS[dialect])


def _rs() -> Any:
    """`jsonschema_rs`, imported on first use: a run whose rules validate no schema never loads it
    (a tenth of such a run's start-up)."""
    import jsonschema_rs

    return jsonschema_rs


def schema_dialect(schema: Any) -> str | None:
    """The dialect named by `$schema` (2020-12 when absent), None for an unknown one."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return "2020-12"
    uri = schema["$schema"]
    if not isinstance(uri, str):
        return None
    key = uri.rstrip("#").replace("https://json-schema.org/draft-0", "http://json-schema.org/draft-0")
    return _DIALECTS.get(key) or _DIALECTS.get(key.replace("http://", "https://"))


@lru_cache(maxsize=8)
def _meta_validator(dialect: str) -> Any:
    cls = py_validator(dialect)
    return cls(cls.META_SCHEMA)


def _fast_valid(schema: Any, dialect: str) -> bool:
    """Native meta-validation; the schema carries a known `$schema` (or none), so nothing is fetched."""
    try:
        return _rs().meta.is_valid(schema)  # no `$schema` means 2020-12 here too
    except (ValueError, TypeError, OverflowError, _rs().ReferencingError):
        return False


def meta_errors(schema: Any, dialect: str) -> Iterator[tuple[tuple, str]]:
    """(path inside the schema, message) for every meta-schema violation.

    The native validator answers the common case (valid) fast; only an invalid schema is
    re-validated by `jsonschema`, whose errors carry the path to the offending keyword.
    """
    if isinstance(schema, dict) and _fast_valid(schema, dialect):
        return
    from jsonschema.exceptions import best_match

    errors = sorted(_meta_validator(dialect).iter_errors(schema), key=lambda e: list(map(str, e.absolute_path)))
    for err in errors:
        if err.validator in ("anyOf", "oneOf") and err.context:
            best = best_match(err.context)
            yield tuple(err.absolute_path) + tuple(best.absolute_path)[len(err.absolute_path):], best.message
        else:
            yield tuple(err.absolute_path), err.message


def _schema_validity(tool: Tool, field: str, schema: Any, ctx: Any) -> Iterator[Hit]:
    if schema is None:
        return
    if not isinstance(schema, (dict, bool)):
        yield ctx.at(tool, field, detail=f"a schema must be an object, not {type(schema).__name__}")
        return
    dialect = schema_dialect(schema)
    if dialect is None:
        return  # TSL105 reports the unknown dialect; nothing to validate against
    reported: set[tuple[tuple, str]] = set()
    counted = 0  # errors no enabled dedicated rule takes over: what `max_errors` bounds
    for path, message in meta_errors(schema, dialect):
        if (path, message) in reported:
            continue  # the meta-schema reaches one keyword through several branches
        reported.add((path, message))
        dedicated = _deferred(schema, path)  # a rule that reports this one more precisely, where it does
        if dedicated is None or dedicated not in ctx.settings.enabled:
            counted += 1
            if counted > ctx.options.get("max_errors", 20):
                break
        yield ctx.at(tool, field, *path, detail=message, _unless=(dedicated, True) if dedicated else None)


def _deferred(schema: Any, path: tuple) -> str | None:
    """The dedicated rule that reports the meta-schema violation at `path`, if there is one."""
    toks = list(path[:-1]) if path and isinstance(path[-1], int) else list(path)
    if not toks or (len(toks) > 1 and toks[-2] in _MAP_KEYS):
        return None
    parent: Any = schema
    for tok in toks[:-1]:
        if isinstance(parent, dict) and tok in parent:
            parent = parent[tok]
        elif isinstance(parent, list) and isinstance(tok, int) and tok < len(parent):
            parent = parent[tok]
        else:
            return None
    key = toks[-1]
    value = parent.get(key) if isinstance(parent, dict) else None
    if key == "required" and isinstance(value, bool) and len(toks) >= 3 and toks[-3] in ("properties", "patternProperties"):
        return "TSL109"
    if key == "required" and isinstance(value, list) and next(_duplicate_indexes(value), None):
        return "TSL108"
    if key == "type" and unknown_type_names(value):
        return "TSL121"
    if key == "enum" and isinstance(value, list) and not value:
        return "TSL114"
    if key == "enum" and isinstance(value, list) and next(_duplicate_indexes(value), None):
        return "TSL115"
    return None


@check("TSL101")
def invalid_input_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    yield from _schema_validity(tool, "input_schema", tool.input_schema, ctx)


@check("TSL102")
def invalid_output_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    yield from _schema_validity(tool, "output_schema", tool.output_schema, ctx)


def _declared_names(node: dict) -> set[str]:
    """Property names an object schema declares, including those of its allOf/anyOf/oneOf branches."""
    names = set(properties(node))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key) or []:
            if isinstance(branch, dict):
                names |= set(properties(branch))
    return names


@check("TSL103")
def required_unknown_property(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field in ("input_schema", "output_schema"):
        for path, node in object_schemas(getattr(tool, field)):
            req = node.get("required")
            if not isinstance(req, list) or node.get("patternProperties"):
                continue
            props = _declared_names(node)
            if not props and node.get("additionalProperties") is not False:
                continue  # a free-form map: names are not declared, nothing to compare with
            for i, name in enumerate(req):
                if isinstance(name, str) and name not in props:
                    yield ctx.at(tool, field, *path, "required", i, param=name)


@check("TSL104")
def missing_input_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.dialect in ("mcp", "anthropic") and tool.input_schema is None:
        key = "inputSchema" if tool.dialect == "mcp" else "input_schema"
        yield ctx.at(tool, "name", key=key)


@check("TSL105")
def unknown_schema_dialect(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field in ("input_schema", "output_schema"):
        schema = getattr(tool, field)
        if isinstance(schema, dict) and "$schema" in schema and schema_dialect(schema) is None:
            yield ctx.at(tool, field, "$schema", uri=str(schema["$schema"]))


# -- keyword vocabulary -------------------------------------------------------------------------

# every keyword of JSON Schema draft-04 .. 2020-12 (a schema may mix drafts; misspellings are the target)
KEYWORDS = frozenset((
    "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
    "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
    "prefixItems", "items", "additionalItems", "contains", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "format", "contentEncoding", "contentMediaType", "contentSchema",
))
# OpenAPI 3.0 / Gemini `Schema` fields that are not JSON Schema but are written on purpose
EXTENSION_KEYWORDS = frozenset(("nullable", "example", "propertyOrdering", "discriminator", "xml", "externalDocs"))
# property-level flags that try to say "required" / "optional" (a draft-3 habit and its cousins)
REQUIRED_FLAGS = frozenset(("optional", "isOptional", "is_optional", "mandatory", "isRequired", "is_required"))
SIMPLE_TYPES = frozenset(("string", "number", "integer", "boolean", "object", "array", "null"))
_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LOWER_KEYWORDS = {k.lower(): k for k in KEYWORDS}


def _schemas(tool: Tool, fields: tuple[str, ...] = ("input_schema", "output_schema")) -> Iterator[tuple[str, Any]]:
    for field in fields:
        schema = getattr(tool, field)
        if isinstance(schema, dict):
            yield field, schema


def _is_extension(key: str) -> bool:
    return key.startswith(("x-", "x_", "_")) or key in EXTENSION_KEYWORDS or key in REQUIRED_FLAGS


def keyword_suggestion(key: str) -> str | None:
    """The keyword `key` most likely misspells (`maxlength` -> `maxLength`), None when nothing is close."""
    if not isinstance(key, str) or not key or len(key) > 64:
        return None
    low = key.lower()
    if low in _LOWER_KEYWORDS:
        return _LOWER_KEYWORDS[low]
    from difflib import get_close_matches  # only for a keyword not known as it is written

    close = get_close_matches(low.lstrip("$"), [k.lstrip("$") for k in _LOWER_KEYWORDS], n=1, cutoff=0.8)
    if not close:
        return None
    return next(v for k, v in _LOWER_KEYWORDS.items() if k.lstrip("$") == close[0])


def param_label(path: tuple, name: Any = None) -> str:
    """('properties', 'address', 'properties', 'city') -> 'address.city'; items become '[]'."""
    parts: list[str] = []
    toks = list(path) + (["properties", name] if name is not None else [])
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok in ("properties", "patternProperties", "$defs", "definitions") and i + 1 < len(toks):
            parts.append(("#" if tok in ("$defs", "definitions") else "") + str(toks[i + 1]))
            i += 2
            continue
        if tok in ("items", "prefixItems", "additionalItems"):
            parts.append("[]")
        i += 1
    label = ".".join(parts).replace(".[]", "[]")
    return label or "(root)"


def _typed_nodes(tool: Tool) -> Iterator[tuple[str, tuple, dict, set[str]]]:
    """(field, path, node, types) for every (sub)schema whose declared types are all JSON Schema types."""
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            types = _types(node)
            if types and types <= SIMPLE_TYPES:
                yield field, path, node, types


def _types(node: dict) -> set[str] | None:
    """Declared types as a set, None when `type` is absent or not a string / list of strings."""
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list) and t and all(isinstance(x, str) for x in t):
        return set(t)
    return None


def _has_type(value: Any, types: set[str]) -> bool:
    if "number" in types and isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    if "integer" in types and not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    ):
        return True
    return any(
        (t == "string" and isinstance(value, str)) or (t == "boolean" and isinstance(value, bool))
        or (t == "null" and value is None) or (t == "object" and isinstance(value, dict))
        or (t == "array" and isinstance(value, list))
        for t in types
    )


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)  # built once, not per call


def _canonical(value: Any) -> str:
    """Equality as JSON Schema sees it (1 == 1.0, but 1 != true)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        return _CANONICAL.encode(value)
    except (ValueError, TypeError, RecursionError):
        return repr(value)


def _duplicate_indexes(values: list) -> Iterator[tuple[int, Any]]:
    """(index, value) of the first repetition of each repeated value."""
    seen: set[str] = set()
    reported: set[str] = set()
    for i, v in enumerate(values):
        key = _canonical(v)
        if key in seen and key not in reported:
            reported.add(key)
            yield i, v
        seen.add(key)


def _show(value: Any) -> str:
    text = _canonical(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- $ref: cycles, recursion, dangling and external references -----------------------------------

_REF_SITES: dict[int, tuple[Any, Any]] = {}


def _local_ref_sites(schema: dict) -> dict[tuple[str, ...], tuple[str, tuple[str, ...] | None]]:
    """Local `$ref` sites by path (as strings) -> (ref, target path or None when it does not resolve).

    Three rules ask about the same schema (TSL011, TSL118, TSL119): worked out once, read-only after."""
    return remembered(_REF_SITES, schema, lambda: _find_ref_sites(schema))


def _find_ref_sites(schema: dict) -> dict[tuple[str, ...], tuple[str, tuple[str, ...] | None]]:
    sites: dict[tuple[str, ...], tuple[str, tuple[str, ...] | None]] = {}
    index = None
    for path, ref in refs(schema):
        if is_local_ref(ref):
            if index is None:
                index = anchors(schema)
            found, _, target = resolve_local(schema, ref, index)
            sites[tuple(map(str, path))] = (ref, target if found else None)
    return sites


def _on_cycles(edges: dict[tuple, list[tuple]]) -> set[tuple]:
    """Nodes that lie on a cycle of the graph (iterative Tarjan: strongly connected components)."""
    index: dict[tuple, int] = {}
    low: dict[tuple, int] = {}
    stack: list[tuple] = []
    on_stack: set[tuple] = set()
    out: set[tuple] = set()
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            succ = edges.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succ:
                    out.update(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def _pure_cycles(sites: dict) -> list[list[tuple[str, ...]]]:
    """Loops of `$ref`s whose targets are themselves `$ref`s: evaluation never reaches a schema.

    Each site points at one target, so this is cycle finding in a functional graph: linear time.
    """
    cycles: list[list[tuple[str, ...]]] = []
    done: set[tuple[str, ...]] = set()
    for start in sites:
        path: dict[tuple[str, ...], int] = {}
        node: tuple[str, ...] | None = start
        while node is not None and node in sites and node not in done and node not in path:
            path[node] = len(path)
            node = sites[node][1]
        if node is not None and node in path:
            cycles.append(list(path)[path[node]:])
        done.update(path)
    return cycles


@check("TSL011")
def ref_cycle(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        sites = _local_ref_sites(schema)
        for loop in _pure_cycles(sites):
            chain = " -> ".join("'#" + path_pointer(p) + "'" for p in loop + loop[:1])
            yield ctx.at(tool, field, *loop[0], "$ref", chain=chain)


@check("TSL118")
def unresolvable_ref(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        if embedded_ids(schema):
            continue  # nested resources change the base URI: not judged here
        for path, (ref, target) in _local_ref_sites(schema).items():
            if target is None:
                yield ctx.at(tool, field, *path, "$ref", ref=ref)


@check("TSL119")
def recursive_ref(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        sites = _local_ref_sites(schema)
        if len(sites) > ctx.options.get("max_refs", 500):
            continue
        looped = {p for loop in _pure_cycles(sites) for p in loop}  # TSL011's business
        live = {p: t for p, (_, t) in sites.items() if t is not None and p not in looped}
        # a site leads to every site inside its target's subtree
        edges = {p: [q for q in live if q[: len(t)] == t] for p, t in live.items()}
        cyclic = _on_cycles(edges)
        reported: set[str] = set()
        for start in live:
            ref = sites[start][0]
            if start in cyclic and ref not in reported:
                reported.add(ref)
                yield ctx.at(tool, field, *start, "$ref", ref=ref)


@check("TSL120")
def external_ref(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        ids = embedded_ids(schema) | ({schema["$id"]} if isinstance(schema.get("$id"), str) else set())
        for path, ref in refs(schema):
            if not is_local_ref(ref) and ref.split("#", 1)[0] not in ids:
                yield ctx.at(tool, field, *path, "$ref", ref=ref)


# -- root and properties --------------------------------------------------------------------------

@check("TSL106")
def input_schema_not_object(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    if schema is None or (not isinstance(schema, (dict, bool))):
        return  # TSL104 / TSL101
    if isinstance(schema, bool):
        yield ctx.at(tool, "input_schema", detail=f"is the boolean schema `{str(schema).lower()}`")
        return
    t = schema.get("type")
    if t == "object":
        return
    if t is None:
        yield ctx.at(tool, "input_schema", detail="has no `type`")
    elif isinstance(t, list):
        yield ctx.at(tool, "input_schema", "type", detail=f"allows types {_show(t)}")
    else:
        yield ctx.at(tool, "input_schema", "type", detail=f"is of type {_show(t)}")


_TYPE_STANDINS = ("type", "enum", "const", "$ref", "$dynamicRef", "$recursiveRef", "anyOf", "oneOf", "allOf", "not", "if")


@check("TSL107")
def property_without_type(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, node in object_schemas(tool.input_schema):
        for name, prop in properties(node).items():
            if isinstance(prop, dict) and not any(k in prop for k in _TYPE_STANDINS):
                yield ctx.at(tool, "input_schema", *path, "properties", name, param=param_label(path, name))


@check("TSL108")
def duplicate_required_entry(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            req = node.get("required")
            if isinstance(req, list):
                for i, name in _duplicate_indexes(req):
                    yield ctx.at(tool, field, *path, "required", i, param=_show(name).strip('"'))


@check("TSL109")
def required_flag_on_property(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            if len(path) < 2 or path[-2] not in ("properties", "patternProperties"):
                continue  # only property schemas carry this habit
            flags = [k for k in node if k in REQUIRED_FLAGS and isinstance(node[k], bool)]
            if isinstance(node.get("required"), bool):
                flags.insert(0, "required")
            for key in flags:
                sev = None if key == "required" else Severity.WARNING  # `required: true` is invalid; the rest is ignored
                yield ctx.at(tool, field, *path, key, param=param_label(path), flag=f"{key}: {str(node[key]).lower()}",
                             **({"_severity": sev} if sev else {}))


def _schema_key(tool: Tool) -> str:
    ptr = tool.fields.get("input_schema")
    if ptr:
        return ptr.rsplit("/", 1)[-1]
    return {"mcp": "inputSchema", "anthropic": "input_schema"}.get(tool.dialect, "parameters")


@check("TSL110")
def required_outside_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    base = raw.get("function") if tool.dialect == "openai-chat" and isinstance(raw.get("function"), dict) else raw
    places = [(base, tool.pointer)]
    if base is not raw:
        places.append((raw, tool.pointer.rsplit("/", 1)[0]))
    for obj, ptr in places:
        for key in ("required", "properties"):
            if key in obj:
                yield ctx.hit(join_pointer(ptr, key), key=key, schema_key=_schema_key(tool))


# -- keywords -------------------------------------------------------------------------------------

def _unknown_keys(tool: Tool) -> Iterator[tuple[str, tuple, str, str | None]]:
    """(field, path, key, suggestion) for every key of a (sub)schema that is no keyword."""
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            for key in node:
                if isinstance(key, str) and key not in KEYWORDS and not _is_extension(key):
                    yield field, path, key, keyword_suggestion(key)


@check("TSL111")
def misspelled_schema_keyword(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, path, key, suggestion in _unknown_keys(tool):
        if suggestion:
            yield ctx.at(tool, field, *path, key, key=key, suggestion=suggestion)


@check("TSL112")
def unknown_schema_keyword(tool: Tool, ctx: Any) -> Iterator[Hit]:
    allowed = set(ctx.options.get("allow", []))
    for field, path, key, suggestion in _unknown_keys(tool):
        if not suggestion and key not in allowed:
            yield ctx.at(tool, field, *path, key, key=key)


_TYPE_ALIASES = {
    "str": "string", "text": "string", "char": "string", "date": "string", "datetime": "string",
    "int": "integer", "long": "integer", "int32": "integer", "int64": "integer", "uint": "integer",
    "float": "number", "double": "number", "decimal": "number", "numeric": "number",
    "bool": "boolean", "dict": "object", "map": "object", "record": "object", "hash": "object", "json": "object",
    "list": "array", "tuple": "array", "set": "array", "none": "null", "nil": "null",
}


def unknown_type_names(value: Any) -> list[tuple[int | None, str]]:
    """(index in a type list or None, name) for every `type` entry that is no JSON Schema type."""
    items = [(None, value)] if isinstance(value, str) else list(enumerate(value)) if isinstance(value, list) else []
    return [(i, v) for i, v in items if isinstance(v, str) and v not in SIMPLE_TYPES]


def suggest(name: str, known: Any, aliases: dict[str, str], cutoff: float) -> str | None:
    """The known name meant by `name`: a case variant, a common alias, or a close spelling."""
    low = name.lower()
    if low in known:
        return low
    if low in aliases:
        return aliases[low]
    from difflib import get_close_matches

    close = get_close_matches(low, sorted(known), n=1, cutoff=cutoff)
    return close[0] if close else None


def type_suggestion(name: str) -> str | None:
    return suggest(name, SIMPLE_TYPES, _TYPE_ALIASES, 0.75)


@check("TSL121")
def unknown_type_name(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            for i, name in unknown_type_names(node.get("type")):
                if tool.dialect == "gemini" and name.lower() in SIMPLE_TYPES:
                    continue  # Gemini's `Schema` type names are case-insensitive (`STRING`)
                hint = type_suggestion(name)
                yield ctx.at(tool, field, *path, "type", *([] if i is None else [i]), value=name,
                             hint=f" (did you mean '{hint}'?)" if hint else "")


# -- enum, const, default ---------------------------------------------------------------------------

@check("TSL113")
def enum_type_mismatch(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, path, node, types in _typed_nodes(tool):
        if node.get("nullable") is True:
            types = types | {"null"}
        values = node.get("enum")
        cases = list(enumerate(values))[:1000] if isinstance(values, list) else []
        for i, value in cases:
            if not _has_type(value, types):
                yield ctx.at(tool, field, *path, "enum", i, value=_show(value), type="/".join(sorted(types)))
        if "const" in node and not _has_type(node["const"], types):
            yield ctx.at(tool, field, *path, "const", value=_show(node["const"]), type="/".join(sorted(types)))


@check("TSL114")
def empty_enum(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            if node.get("enum") == []:
                yield ctx.at(tool, field, *path, "enum", param=param_label(path))


@check("TSL115")
def duplicate_enum_value(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            values = node.get("enum")
            if isinstance(values, list) and len(values) <= 10_000:
                for i, value in _duplicate_indexes(values):
                    yield ctx.at(tool, field, *path, "enum", i, value=_show(value))


def _default_errors(root: dict, node: dict, dialect: str) -> list[str]:
    """Why `node["default"]` fails `node`; [] when it is valid or the question is undecidable here.

    The native validator is used (its regexes cannot backtrack catastrophically). References into the
    root's `$defs`/`definitions` are kept resolvable by carrying those over; any other reference makes
    the default undecidable.
    """
    if any(k in node for k in ("$defs", "definitions")):
        return []
    schema = {k: v for k, v in node.items() if k != "default"}
    pending = [ref for _, ref in refs(node, cached=False)]  # a one-off node: its walk is not kept
    while pending:  # carry over the definitions the node needs, transitively
        ref = pending.pop()
        parts = ref.split("/")
        if len(parts) != 3 or parts[0] != "#" or parts[1] not in ("$defs", "definitions"):
            return []
        defs = root.get(parts[1])
        target = defs.get(parts[2]) if isinstance(defs, dict) else None
        if not isinstance(target, dict):
            return []
        carried = schema.setdefault(parts[1], {})
        if parts[2] not in carried:
            carried[parts[2]] = target
            pending.extend(r for _, r in refs(target, cached=False))
    try:
        validator = _compiled(_canonical(schema), dialect)
        return [e.message for e in validator.iter_errors(node["default"])][:1] if validator else []
    except Exception:  # a value the validator cannot take: undecidable here
        return []


@lru_cache(maxsize=1024)
def _compiled(schema_json: str, dialect: str) -> Any:
    """A native validator for a schema (given as canonical JSON; generated tools repeat schemas a lot)."""
    try:
        return getattr(_rs(), _VALIDATORS[dialect])(json.loads(schema_json), offline=True)
    except Exception:  # a schema the validator cannot compile is TSL101's business
        return None


@check("TSL116")
def invalid_default(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        dialect = schema_dialect(schema)
        if dialect is None:
            continue
        for path, node in walk(schema):
            if "default" not in node:
                continue
            for message in _default_errors(schema, node, dialect):
                # `default: null` on an optional property is a common generator idiom for "omit"
                sev = {"_severity": Severity.INFO} if node["default"] is None else {}
                yield ctx.at(tool, field, *path, "default", param=param_label(path), detail=message, **sev)


@check("TSL117")
def default_on_required_property(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, node in object_schemas(tool.input_schema):
        req = node.get("required")
        props = properties(node)
        for name in dict.fromkeys(n for n in req if isinstance(n, str)) if isinstance(req, list) else ():
            prop = props.get(name)
            if isinstance(prop, dict) and "default" in prop:
                yield ctx.at(tool, "input_schema", *path, "properties", name, "default", param=param_label(path, name))


# -- value constraints ------------------------------------------------------------------------------

_BOUND_PAIRS = (
    ("minimum", "maximum", False), ("exclusiveMinimum", "exclusiveMaximum", True), ("minimum", "exclusiveMaximum", True),
    ("exclusiveMinimum", "maximum", True), ("minLength", "maxLength", False), ("minItems", "maxItems", False),
    ("minProperties", "maxProperties", False), ("minContains", "maxContains", False),
)


_LOW_KEYS = frozenset(low for low, _high, _strict in _BOUND_PAIRS)
_HIGH_KEYS = frozenset(high for _low, high, _strict in _BOUND_PAIRS)


def _num(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@check("TSL122")
def impossible_bounds(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            if _LOW_KEYS.isdisjoint(node) or _HIGH_KEYS.isdisjoint(node):
                continue  # a pair needs a lower and an upper bound
            for low_kw, high_kw, strict in _BOUND_PAIRS:
                low, high = _num(node.get(low_kw)), _num(node.get(high_kw))
                if low is None or high is None:
                    continue
                if low > high or (strict and low == high):
                    yield ctx.at(tool, field, *path, low_kw, param=param_label(path),
                                 low=f"{low_kw} {node[low_kw]}", high=f"{high_kw} {node[high_kw]}")


@lru_cache(maxsize=4096)
def _bad_regex(pattern: str) -> bool:
    """True when ECMA-262 (as the native validator reads it) and Python both reject `pattern`."""
    if len(pattern) > 10_000:
        return False
    try:
        _rs().validator_for({"pattern": pattern})
        return False
    except _rs().ValidationError:
        pass
    except Exception:
        return False
    try:
        re.compile(pattern)
        return False
    except (re.error, RecursionError, OverflowError, ValueError):
        return True


@check("TSL123")
def invalid_pattern(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            pattern = node.get("pattern")
            if isinstance(pattern, str) and _bad_regex(pattern):
                yield ctx.at(tool, field, *path, "pattern", pattern=pattern)
            pprops = node.get("patternProperties")
            for key in pprops if isinstance(pprops, dict) else ():
                if isinstance(key, str) and _bad_regex(key):
                    yield ctx.at(tool, field, *path, "patternProperties", key, pattern=key)


KNOWN_FORMATS = frozenset((
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
    "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
    "relative-json-pointer", "regex",
    # OpenAPI 3 / Gemini
    "int32", "int64", "float", "double", "byte", "binary", "password", "enum",
    # pydantic
    "path", "file-path", "directory-path", "base64", "base64url", "ipvanyaddress", "ipvanyinterface",
    "ipvanynetwork", "ipv4network", "ipv6network", "ipv4interface", "ipv6interface", "name-email",
    "json-string", "multi-host-uri", "color", "phone", "payment-card-number", "decimal",
))
_FORMAT_ALIASES = {
    "url": "uri", "datetime": "date-time", "date_time": "date-time", "timestamp": "date-time", "e-mail": "email",
    "mail": "email", "guid": "uuid", "ip": "ipv4", "host": "hostname", "domain": "hostname", "iso8601": "date-time",
}


def format_suggestion(name: str) -> str | None:
    return suggest(name, KNOWN_FORMATS, _FORMAT_ALIASES, 0.85)


@check("TSL124")
def unknown_string_format(tool: Tool, ctx: Any) -> Iterator[Hit]:
    allowed = set(ctx.options.get("allow", []))
    for field, schema in _schemas(tool):
        for path, node in walk(schema):
            fmt = node.get("format")
            if not isinstance(fmt, str) or fmt in KNOWN_FORMATS or fmt in allowed:
                continue
            hint = format_suggestion(fmt)
            yield ctx.at(tool, field, *path, "format", value=fmt, hint=f" (did you mean '{hint}'?)" if hint else "",
                         **({} if hint else {"_severity": Severity.INFO}))


_TYPE_KEYWORDS = {
    "string": ("minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
              "minContains", "maxContains", "unevaluatedItems"),
    "object": ("properties", "patternProperties", "additionalProperties", "required", "minProperties",
               "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
               "unevaluatedProperties"),
}
_KEYWORD_TYPE = {kw: t for t, kws in _TYPE_KEYWORDS.items() for kw in kws}


@check("TSL125")
def inapplicable_keyword(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for field, path, node, types in _typed_nodes(tool):
        applicable = {"number" if t == "integer" else t for t in types}
        for key, value in node.items():
            owner = _KEYWORD_TYPE.get(key)
            if owner and owner not in applicable and not (key == "required" and isinstance(value, bool)):
                yield ctx.at(tool, field, *path, key, keyword=key, type="/".join(sorted(types)))
