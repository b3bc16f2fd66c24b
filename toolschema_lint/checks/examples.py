"""Examples (TSL70x): example calls attached to a tool, checked against its input schema.

Examples come from `NAME.examples.jsonl` beside a registry schema, Anthropic `input_examples`
and a root-level JSON Schema `examples` array (see loaders.example_from_record). Validation is
offline (no `$ref` is fetched) and regexes run on a backtracking-limited engine.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import jsonschema_rs

from ..model import Example, Hit, Tool, join_pointer
from ..registry import check
from ._schema_walk import properties

MAX_ERRORS = 10
MAX_MESSAGE = 160


def validator(schema: Any) -> Any | None:
    """A validator for `schema`, or None when it cannot be built (TSL1xx reports broken schemas)."""
    if not isinstance(schema, (dict, bool)):
        return None
    try:
        return jsonschema_rs.validator_for(
            schema, offline=True, validate_formats=True,
            pattern_options=jsonschema_rs.FancyRegexOptions(backtrack_limit=100_000))
    except (ValueError, TypeError, OverflowError, RecursionError, jsonschema_rs.ValidationError,
            jsonschema_rs.ReferencingError):
        return None


def errors(v: Any, instance: Any) -> list[Any]:
    try:
        out = []
        for err in v.iter_errors(instance):
            out.append(err)
            if len(out) >= MAX_ERRORS:
                break
        return out
    except (ValueError, TypeError, OverflowError, RecursionError, jsonschema_rs.ReferencingError):
        return []


def short(err: Any) -> str:
    """The validator's message with a long offending value cut down to its start."""
    msg = str(err.message)
    try:
        shown = json.dumps(err.instance, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        shown = ""
    if len(shown) > 40 and msg.startswith(shown):
        msg = shown[:30] + "…" + msg[len(shown):]
    return msg if len(msg) <= MAX_MESSAGE else msg[:MAX_MESSAGE] + "…"


def example_hit(tool: Tool, ex: Example, pointer: str, **args: Any) -> Hit:
    """A hit inside the example, in whichever document holds it (the tool's or an examples file)."""
    return Hit(pointer=pointer, args=args, tool=tool, document=ex.document)


def label(ex: Example) -> str:
    """The example's id; a record without one is named by its line in the examples file."""
    head = ex.label[1:].split("/", 1)[0] if ex.label.startswith("/") else ""
    return f"line {int(head) + 1}" if head.isdigit() and ex.document is not None else ex.label


def declared(schema: Any) -> set[str] | None:
    """Names the input schema declares at the root; None when it takes names it does not list."""
    if not isinstance(schema, dict) or "patternProperties" in schema or isinstance(schema.get("additionalProperties"), dict):
        return None
    names = set(properties(schema))
    for key in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for b in branches:
                if isinstance(b, dict):
                    if "patternProperties" in b or isinstance(b.get("additionalProperties"), dict):
                        return None
                    names |= set(properties(b))
    return names


def forbidden_entries(ex: Example) -> Iterator[tuple[int, str, list[Any]]]:
    """(index, parameter, candidate values) of `forbidden_arguments` ("customer_id=Acme" or {name: value})."""
    for i, entry in enumerate(ex.forbidden[:100]):
        if isinstance(entry, str) and "=" in entry:
            name, _, raw = entry.partition("=")
            name, raw = name.strip(), raw.strip()
            if not name:
                continue
            values: list[Any] = [raw]
            try:
                parsed = json.loads(raw) if len(raw) < 10_000 else raw
            except ValueError:
                parsed = raw
            if parsed != raw:
                values.append(parsed)
            yield i, name, values
        elif isinstance(entry, dict) and len(entry) == 1:
            (name, value), = entry.items()
            yield i, str(name), [value]


@check("TSL701")
def example_violates_input_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    positives = [ex for ex in tool.examples if ex.positive and ex.arguments is not None]
    v = validator(tool.input_schema) if positives else None
    if v is None:
        return
    for ex in positives:
        for err in errors(v, ex.arguments):
            yield example_hit(tool, ex, join_pointer(ex.pointer, *err.instance_path), label=label(ex), detail=short(err))


@check("TSL702")
def negative_example_passes_schema(tool: Tool, ctx: Any) -> Iterator[Hit]:
    negatives = [ex for ex in tool.examples if not ex.positive and ex.arguments is not None]
    v = validator(tool.input_schema) if negatives else None
    if v is None:
        return
    for ex in negatives:
        if not errors(v, ex.arguments):
            yield example_hit(tool, ex, ex.pointer, label=label(ex))


@check("TSL703")
def forbidden_argument_accepted(tool: Tool, ctx: Any) -> Iterator[Hit]:
    withf = [ex for ex in tool.examples if ex.forbidden]
    v = validator(tool.input_schema) if withf else None
    names = set(properties(tool.input_schema))
    for ex in withf if v is not None else []:
        for i, name, values in forbidden_entries(ex):
            if name not in names:
                continue  # TSL704 reports a parameter the schema does not have
            for value in values:
                if not any(list(e.instance_path)[:1] == [name] for e in errors(v, {name: value})):
                    shown = value if isinstance(value, str) else json.dumps(value)
                    yield example_hit(tool, ex, join_pointer(ex.forbidden_pointer, i), param=name, value=shown,
                                      label=label(ex))
                    break


@check("TSL704")
def example_unknown_argument(tool: Tool, ctx: Any) -> Iterator[Hit]:
    names = declared(tool.input_schema)
    if names is None:
        return
    closed = isinstance(tool.input_schema, dict) and tool.input_schema.get("additionalProperties") is False
    for ex in tool.examples:
        if ex.positive and isinstance(ex.arguments, dict) and not closed:  # closed: TSL701 reports it
            for key in ex.arguments:
                if key not in names:
                    yield example_hit(tool, ex, join_pointer(ex.pointer, key), label=label(ex), param=key)
        for i, name, _ in forbidden_entries(ex):
            if name not in names:
                yield example_hit(tool, ex, join_pointer(ex.forbidden_pointer, i), label=label(ex), param=name)


@check("TSL705")
def too_few_examples(tool: Tool, ctx: Any) -> Iterator[Hit]:
    minimum = ctx.options.get("min", 10)
    if tool.has_production_metadata and len(tool.examples) < minimum:
        yield ctx.at(tool, "name", count=len(tool.examples), min=minimum)
