"""Shared helpers for checks that walk JSON Schemas (bounded depth, cycle-safe, pointer-aware)."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..model import Tool, join_pointer, per_tool, unescape_pointer_token

MAX_WALK_DEPTH = 64

# keywords whose value is a single subschema
SCHEMA_KEYS = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
               "unevaluatedItems", "unevaluatedProperties", "additionalItems")
# keywords whose value is a list of subschemas
SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf", "prefixItems")
# keywords whose value maps names to subschemas
SCHEMA_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


_KIND: dict[str, int] = {**{k: 1 for k in SCHEMA_KEYS}, **{k: 2 for k in SCHEMA_LIST_KEYS}, **{k: 3 for k in SCHEMA_MAP_KEYS}}
# `leaf(node)`: no keyword that holds subschemas (most nodes: a property's type, format, description)
leaf = frozenset(_KIND).isdisjoint


def children(schema: dict, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], dict]]:
    """Direct subschemas of `schema`, each with its pointer tokens appended to `path`."""
    out: list[tuple[tuple[str | int, ...], dict]] = []
    add = out.append
    kind_of = _KIND.get
    for key, v in schema.items():
        kind = kind_of(key)
        if kind is None:
            continue
        if kind == 1:
            if type(v) is dict:
                add((path + (key,), v))
            elif key == "items" and type(v) is list:  # draft-07 tuple form
                for i, s in enumerate(v):
                    if type(s) is dict:
                        add((path + (key, i), s))
        elif kind == 2:
            if type(v) is list:
                for i, s in enumerate(v):
                    if type(s) is dict:
                        add((path + (key, i), s))
        elif type(v) is dict:
            for name, s in v.items():
                if type(s) is dict:
                    add((path + (key, name), s))
    return out


# Many checks walk the same schema: the last answers are kept, keyed by the schema's identity, with
# the schema itself held so that its id cannot be reused by another object while the entry lives.
_CACHE_SIZE = 1024
_WALK_CACHE: dict[int, tuple[Any, list]] = {}


def remembered(cache: dict[int, tuple[Any, Any]], schema: dict, compute: Callable[[], Any]) -> Any:
    hit = cache.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    out = compute()
    if len(cache) > _CACHE_SIZE:
        cache.clear()
    cache[id(schema)] = (schema, out)
    return out


class Walk(list):
    """`walk`'s answer: (path, node) pairs; `objects`, the object-typed ones among them; and
    whether the walk was `plain`: every node met once within the depth bound, and no `$ref` or
    definitions block anywhere. The nodes of a plain walk are exactly the ones an argument can
    meet, in the same order (what `design.reachable` finds by following references)."""

    __slots__ = ("plain", "objects")


_PLAIN_NODE = frozenset(("$ref", "$defs", "definitions")).isdisjoint  # True: none of these keys


_EMPTY = Walk()
_EMPTY.plain, _EMPTY.objects = True, []


def walk(schema: Any) -> Walk:
    """Every (sub)schema object, depth-first, with its pointer tokens relative to `schema`.

    Bounded by depth, and safe on shared nodes (YAML aliases): each object is visited once.
    """
    if not isinstance(schema, dict):
        return _EMPTY
    return remembered(_WALK_CACHE, schema, lambda: _walk(schema, MAX_WALK_DEPTH))


def _walk(schema: dict, max_depth: int) -> Walk:
    out = Walk()
    add = out.append
    objects: list[tuple[tuple[str | int, ...], dict]] = []
    plain = True
    seen: set[int] = set()
    stack: list[tuple[tuple[str | int, ...], dict]] = [((), schema)]
    pop, push = stack.pop, stack.extend
    limit = 2 * max_depth
    while stack:
        entry = pop()
        path, node = entry
        nid = id(node)
        if nid in seen or len(path) > limit:
            plain = False
            continue
        seen.add(nid)
        add(entry)
        t = node.get("type")
        if t == "object" or (t is None and "properties" in node) or (type(t) is list and "object" in t):
            objects.append(entry)  # `is_object_schema`, inline: this runs for every node of every schema
        if plain and not _PLAIN_NODE(node):
            plain = False
        if not leaf(node):
            push(reversed(children(node, path)))
    out.plain = plain
    out.objects = objects
    return out


def is_object_schema(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or (t is None and "properties" in schema)


def properties(schema: Any) -> dict[str, Any]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def object_schemas(schema: Any) -> list[tuple[tuple[str | int, ...], dict]]:
    """Every object-typed (sub)schema: part of `walk`'s cached answer (a dozen checks ask for it)."""
    return walk(schema).objects


def params(schema: Any) -> Iterator[tuple[tuple[str | int, ...], str, Any, dict]]:
    """(pointer tokens, name, property schema, enclosing object) for every declared parameter."""
    for path, node in object_schemas(schema):
        for name, sub in properties(node).items():
            yield (*path, "properties", name), name, sub, node


@per_tool
def tool_params(tool: Tool) -> tuple[tuple[tuple[str | int, ...], str, Any, dict], ...]:
    """`params` of the tool's input schema, walked once for every check that asks."""
    return tuple(params(tool.input_schema))


# -- $ref helpers ------------------------------------------------------------------------------

def path_pointer(path: tuple[str | int, ...]) -> str:
    """Walk tokens -> an RFC 6901 pointer relative to the walked schema."""
    return join_pointer("", *path)


def refs(schema: Any, cached: bool = True) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path of the schema holding it, value) for every string `$ref` reachable by `walk`.
    `cached=False` for a one-off look inside a node: its walk is not kept."""
    nodes = walk(schema) if cached else (_walk(schema, MAX_WALK_DEPTH) if isinstance(schema, dict) else [])
    for path, node in nodes:
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield path, ref


def is_local_ref(ref: str) -> bool:
    return ref.startswith("#")


def anchors(root: Any) -> dict[str, tuple[dict, tuple[str, ...]]]:
    """Plain-name fragments of `root` (`$anchor`, draft-07 `$id: "#name"`) -> (node, path)."""
    out: dict[str, tuple[dict, tuple[str, ...]]] = {}
    for path, node in walk(root):
        for key in ("$anchor", "$id", "id"):
            val = node.get(key)
            if isinstance(val, str) and val:
                name = val if key == "$anchor" else val[1:] if val.startswith("#") else None
                if name:
                    out.setdefault(name, (node, tuple(map(str, path))))
    return out


def resolve_local(root: Any, ref: str, anchor_index: dict | None = None) -> tuple[bool, Any, tuple[str, ...]]:
    """(found, target, target path) of a local `$ref` (`#`, `#/json/pointer` or `#anchor`) in `root`.

    Pass `anchor_index` (from `anchors(root)`) when resolving many references of one schema.
    """
    from urllib.parse import unquote

    if not ref.startswith("#"):
        return False, None, ()
    frag = unquote(ref[1:])
    if frag and not frag.startswith("/"):
        hit = (anchor_index if anchor_index is not None else anchors(root)).get(frag)
        return (True, hit[0], hit[1]) if hit else (False, None, ())
    node, path = root, []
    for tok in (frag[1:].split("/") if frag else []):
        tok = unescape_pointer_token(tok)
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return False, None, ()
        path.append(tok)
    return True, node, tuple(path)


def embedded_ids(schema: Any) -> set[str]:
    """`$id`s of subschemas below the root: refs relative to those resources are not judged here."""
    return {n["$id"] for p, n in walk(schema) if p and isinstance(n.get("$id"), str) and not n["$id"].startswith("#")}
