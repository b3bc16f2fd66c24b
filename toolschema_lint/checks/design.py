"""Design hygiene (TSL4xx, input side): schemas that constrain what the model may send."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterator

from ..model import Hit, Severity, Tool
from ..registry import check
from ._schema_walk import children, is_object_schema, leaf, properties, resolve_local, walk
from ..lazyre import lazy_compile

MAX_NAME = 200  # longer names are not words anyone reads; cap before tokenizing
MAX_DESC = 4000
_WORD = lazy_compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
CONSTRAINTS = ("enum", "const", "format", "pattern")  # keywords that pin a string's shape


def words(name: Any) -> tuple[str, ...]:
    """`crm.get_customer`, `getCustomer`, `get-customer`, `GETCustomer` -> ('crm', 'get', 'customer')."""
    return _words(name[:MAX_NAME]) if isinstance(name, str) else ()


@lru_cache(maxsize=4096)
def _words(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(name))


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


DEF_KEYS = ("$defs", "definitions")
MAX_NODES = 50_000


def reachable(schema: Any) -> Iterator[tuple[tuple, dict]]:
    """Every (sub)schema an argument can meet: the tree below the root, and the definitions that
    local `$ref`s reach (transitively), each node once. Unused definitions are not visited, so a
    definitions block copied into every tool is not reported for every tool.
    """
    if not isinstance(schema, dict):
        return
    seen: set[int] = set()
    stack: list[tuple[tuple, dict]] = [((), schema)]
    while stack and len(seen) < MAX_NODES:
        path, node = stack.pop()
        if id(node) in seen or len(path) > 256:
            continue
        seen.add(id(node))
        yield path, node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            found, target, target_path = resolve_local(schema, ref)
            if found and isinstance(target, dict):
                stack.append((target_path, target))
        if leaf(node):
            continue
        kids = [(rel, child) for rel, child in children(node) if rel[0] not in DEF_KEYS]
        for rel, child in reversed(kids):
            stack.append((path + rel, child))


class Shape:
    """A schema's reachable object schemas, their properties, and its arrays: from the shared walk
    when it is plain, else by following references (`reachable`)."""

    __slots__ = ("objects", "params", "arrays")

    def __init__(self, schema: Any):
        nodes = walk(schema)
        if nodes.plain and len(nodes) <= MAX_NODES:
            self.objects: list[tuple[tuple, dict]] = nodes.objects  # the walk tested each node already
        else:
            nodes = list(reachable(schema))  # references to follow, definitions to leave out unless used
            self.objects = [(path, node) for path, node in nodes if is_object_schema(node)]
        self.params: list[tuple[tuple, str, dict]] = [
            (path + ("properties", name), name, prop)
            for path, node in self.objects for name, prop in properties(node).items() if isinstance(prop, dict)]
        self.arrays: list[tuple[tuple, dict]] = []
        for path, node in nodes:
            t = node.get("type")
            if t == "array" or (isinstance(t, list) and "array" in t and "null" in t and len(t) == 2):
                self.arrays.append((path, node))


_last: list[Any] = [object(), None]  # (schema, Shape): the checks of one tool run back to back


def shape(schema: Any) -> Shape:
    """The Shape of `schema`, computed once for the several checks that ask about the same schema."""
    if _last[0] is not schema:
        _last[0], _last[1] = schema, Shape(schema)
    return _last[1]


def object_schemas(schema: Any) -> list[tuple[tuple, dict]]:
    return shape(schema).objects


def parameters(schema: Any) -> list[tuple[tuple, str, dict]]:
    """(pointer tokens, name, schema) of every declared property of every reachable object schema."""
    return shape(schema).params


def gemini_parameters(tool: Tool) -> bool:
    """Gemini's OpenAPI-subset `parameters` (not `parametersJsonSchema`)."""
    return tool.dialect == "gemini" and tool.fields.get("input_schema", "").endswith("/parameters")


# -- well-known string kinds ------------------------------------------------------------------
_DESC_KINDS = (
    ("a duration", re.compile(r"\bduration\b", re.I)),  # not a date-time: no finding
    ("a date-time", re.compile(r"\bISO[ -]?8601\b|\bRFC[ -]?3339\b|YYYY-MM-DDT", re.I)),
    ("a date", re.compile(r"\bYYYY-MM-DD\b", re.I)),
    ("an email address", re.compile(r"\be-?mail address(es)?\b", re.I)),
    ("a UUID", re.compile(r"\b(UUID|GUID)\b", re.I)),
)


# a description that allows free-form values ("2 weeks ago") or names choices: no format applies
_FREE_FORM = lazy_compile(r"\b(relative|ago|yesterday|tomorrow|natural[- ]language|human[- ]readable|"
                          r"possible values|one of|values include|supported values|allowed values)\b", re.I)


@lru_cache(maxsize=4096)
def string_kind(name: str, desc: str) -> str | None:
    """What a string parameter holds, judged by its name and description; None when unclear."""
    if _FREE_FORM.search(desc):
        return None
    w = words(name)
    last = w[-1] if w else ""
    if last in ("uuid", "guid"):
        return "a UUID"
    if last == "email" or w[-2:] == ("email", "address"):
        return "an email address"
    if last in ("url", "uri", "href"):
        return "a URL"
    if last in ("datetime", "timestamp") or w[-2:] == ("date", "time") or (last == "at" and len(w) > 1):
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
        extra = {"_severity": Severity.INFO} if kind == "a URL" else {}  # models rarely garble URLs
        yield ctx.at(tool, "input_schema", *path, param=name, kind=kind, **extra)


def id_like(name: str) -> bool:
    w = words(name)
    return bool(w) and w[-1] == "id"


@check("TSL403")
def id_without_pattern(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, prop in parameters(tool.input_schema):
        if id_like(name) and is_plain_string(prop) and not has_any(prop, CONSTRAINTS):
            yield ctx.at(tool, "input_schema", *path, param=name)


_COUNT = lazy_compile(r"(limit|count|topk|topn|(page|batch|chunk)size|perpage|pagelimit|"
                      r"(max|num|n)(results|items|hits|entries|rows|records|pages|count))")


def count_like(name: str) -> bool:
    if not isinstance(name, str):
        return False
    return _count_like(name[:MAX_NAME])  # `words` reads no further: the cache never holds a long key


@lru_cache(maxsize=4096)
def _count_like(name: str) -> bool:
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


def arrays(schema: Any) -> list[tuple[tuple, dict]]:
    return shape(schema).arrays


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


_BOOL_FIRST = frozenset(("is", "has", "should", "can", "enable", "enabled", "disable", "disabled", "allow", "use"))
_BOOL_NAMES = frozenset(("force", "recursive", "verbose", "dryrun", "overwrite", "private", "public", "draft",
                         "archived", "enabled", "disabled", "confirm", "confirmed", "async", "debug"))
_NUMBER_LAST = frozenset(("count", "limit", "size", "port", "age", "price", "amount", "quantity", "qty", "offset",
                          "page", "index", "timeout", "seconds", "minutes", "ms", "width", "height", "depth",
                          "days", "hours", "percent", "percentage", "ratio", "score", "total", "num"))
_DESC_TYPES = (
    ("a boolean", re.compile(r"\btrue\b[^.]{0,40}\bfalse\b|\byes\b or \bno\b", re.I)),
    ("a number", re.compile(r"\b(integer|number of|in (milli)?seconds|in minutes)\b", re.I)),
    ("a choice", re.compile(r"\b(one of|possible values|valid values|allowed values|supported values|"
                            r"options are|values include)\b|['\"`][\w-]{1,30}['\"`][^.]{0,60}\bor\b[^.]{0,40}"
                            r"['\"`][\w-]{1,30}['\"`]", re.I)),
    ("a list", re.compile(r"\bcomma[- ]separated\b", re.I)),
)


def looks_typed(name: str, prop: dict) -> str | None:
    """What a string parameter really holds when that is not text: a number, a flag, a date, ..."""
    w, desc = words(name), text(prop.get("description"))
    kind = string_kind(name, desc)
    if kind and kind != "a URL":
        return kind
    if w and (w[0] in _BOOL_FIRST and len(w) > 1 or "".join(w) in _BOOL_NAMES):
        return "a boolean"
    if w and w[-1] in _NUMBER_LAST:
        return "a number"
    return next((k for k, rx in _DESC_TYPES if rx.search(desc)), None)


@check("TSL408")
def stringly_typed_parameters(tool: Tool, ctx: Any) -> Iterator[Hit]:
    props = properties(tool.input_schema)
    if len(props) < ctx.options.get("min_params", 3) or not all(unconstrained_string(p) for p in props.values()):
        return
    typed = next(((n, k) for n, p in props.items() if (k := looks_typed(n, p))), None)
    if typed:  # all strings is only an anti-pattern when some of them are not text
        yield ctx.at(tool, "input_schema", "properties", count=len(props), param=typed[0], kind=typed[1])


@check("TSL409")
def too_many_parameters(tool: Tool, ctx: Any) -> Iterator[Hit]:
    count = len(properties(tool.input_schema))
    limit = ctx.options.get("max", 20)
    if count > limit:
        yield ctx.at(tool, "input_schema", "properties", count=count, max=limit)


def nesting(schema: Any, limit: int) -> tuple | None:
    """Pointer tokens of the first node nested deeper than `limit` object/array levels, or None.

    A level is one step into a property value that is itself an object or an array; an array's
    items sit on the array's level, and composition keywords (anyOf, allOf, ...) and definitions
    do not add a level of their own.
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
        if leaf(node):
            continue
        for rel, child in children(node):
            step = 1 if rel[0] in ("properties", "patternProperties", "additionalProperties") else 0
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


@check("TSL412")
def object_without_required(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if not isinstance(tool.input_schema, dict):
        return
    for path, node in object_schemas(tool.input_schema):
        props = properties(node)
        if props and "required" not in node:
            yield ctx.at(tool, "input_schema", *path, where="/" + "/".join(map(str, path)) if path else "the root",
                         count=len(props), plural="y" if len(props) == 1 else "ies")


@check("TSL401")
def open_object_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.input_schema
    if gemini_parameters(tool):
        return  # Gemini's `parameters` subset rejects `additionalProperties`
    nested = ctx.options.get("nested", True)
    for path, node in object_schemas(schema):
        if path and not nested:
            continue
        if not properties(node):
            continue  # no parameters (TSL411), a free-form object, a typed map or a composition
        if node.get("additionalProperties") is not None or node.get("unevaluatedProperties") is False:
            continue  # closed, or opened on purpose (`true`, or a schema for the extra values)
        yield ctx.at(tool, "input_schema", *path, where="/" + "/".join(map(str, path)) if path else "the root")
