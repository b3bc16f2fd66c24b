"""Schema validity (TSL1xx): schemas must be valid JSON Schema for their dialect, and coherent."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

import jsonschema
import jsonschema_rs

from ..model import Hit, Tool
from ..registry import check
from ._schema_walk import object_schemas, properties

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
_PY_VALIDATORS = {
    "2020-12": jsonschema.Draft202012Validator,
    "2019-09": jsonschema.Draft201909Validator,
    "draft-07": jsonschema.Draft7Validator,
    "draft-06": jsonschema.Draft6Validator,
    "draft-04": jsonschema.Draft4Validator,
}
_RS_DRAFTS = {
    "2020-12": jsonschema_rs.Draft202012,
    "2019-09": jsonschema_rs.Draft201909,
    "draft-07": jsonschema_rs.Draft7,
    "draft-06": jsonschema_rs.Draft6,
    "draft-04": jsonschema_rs.Draft4,
}


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
    cls = _PY_VALIDATORS[dialect]
    return cls(cls.META_SCHEMA)


def _fast_valid(schema: Any, dialect: str) -> bool:
    """Native meta-validation; the schema carries a known `$schema` (or none), so nothing is fetched."""
    try:
        return jsonschema_rs.meta.is_valid(schema)  # no `$schema` means 2020-12 here too
    except (ValueError, TypeError, OverflowError, jsonschema_rs.ReferencingError):
        return False


def meta_errors(schema: Any, dialect: str) -> Iterator[tuple[tuple, str]]:
    """(path inside the schema, message) for every meta-schema violation.

    The native validator answers the common case (valid) fast; only an invalid schema is
    re-validated by `jsonschema`, whose errors carry the path to the offending keyword.
    """
    if isinstance(schema, dict) and _fast_valid(schema, dialect):
        return
    errors = sorted(_meta_validator(dialect).iter_errors(schema), key=lambda e: list(map(str, e.absolute_path)))
    for err in errors:
        if err.validator in ("anyOf", "oneOf") and err.context:
            best = jsonschema.exceptions.best_match(err.context)
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
    for path, message in meta_errors(schema, dialect):
        if (path, message) in reported:
            continue  # the meta-schema reaches one keyword through several branches
        reported.add((path, message))
        if len(reported) > ctx.options.get("max_errors", 20):
            break
        yield ctx.at(tool, field, *path, detail=message)


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
