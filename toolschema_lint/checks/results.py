"""Recorded tool results (TSL75x): what a tool returned against what it declares."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..model import Exchange, Hit
from ..registry import check
from .schema import py_validator, schema_dialect
from ..lazyre import lazy_compile

_ENVELOPE_KEYS = {"content"}


def _schema_failures() -> tuple[type[BaseException], ...]:
    """A schema that cannot be used to validate: reported by the schema rules, skipped here."""
    from jsonschema.exceptions import SchemaError
    from referencing.exceptions import Unresolvable

    return (SchemaError, Unresolvable, RecursionError)

# words that tell a model what to do next after an error
_ACTIONABLE = lazy_compile(
    r"\b(?:try|retry|use|call|provide|pass|set|check|must|should|expected|expect|valid|allowed|required|missing|"
    r"instead|format|between|at most|at least|one of|not found|does not exist|exceeds?|too (?:long|many|large)|"
    r"rate.?limit|wait|later|permission|unauthori[sz]ed|forbidden)\b|必须|应|请|重试|格式",
    re.I,
)
_GENERIC = lazy_compile(r"^\W*(?:error|failed|failure|exception|internal (?:server )?error|something went wrong|unknown error|oops)\W*$", re.I)


def _definition(ex: Exchange, ctx: Any) -> Any:
    tools = ctx.tools_for(ex)
    return tools[0] if tools else None


def _result(ex: Exchange) -> dict | None:
    return ex.result if isinstance(ex.result, dict) else None


def _texts(result: dict) -> list[str]:
    content = result.get("content")
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]


@check("TSL751", scope="result")
def missing_structured_content(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    tool, result = _definition(ex, ctx), _result(ex)
    if tool is None or result is None or result.get("isError") is True:
        return
    if isinstance(tool.output_schema, dict) and "structuredContent" not in result:
        yield ctx.on(ex, "result")


@check("TSL752", scope="result")
def structured_content_schema_mismatch(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    tool, result = _definition(ex, ctx), _result(ex)
    if tool is None or result is None or "structuredContent" not in result or not isinstance(tool.output_schema, dict):
        return
    dialect = schema_dialect(tool.output_schema)
    if dialect is None:
        return
    try:
        validator = py_validator(dialect)(tool.output_schema)
        errors = sorted(validator.iter_errors(result["structuredContent"]), key=lambda e: list(map(str, e.absolute_path)))
        for err in errors[: ctx.options.get("max_errors", 20)]:
            yield ctx.on(ex, "result", "structuredContent", *err.absolute_path, detail=err.message)
    except _schema_failures():
        return  # an invalid output schema is TSL102's finding


@check("TSL753", scope="result")
def structured_content_without_text(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    result = _result(ex)
    if result is not None and result.get("structuredContent") is not None and not _texts(result):
        yield ctx.on(ex, "result", "content" if "content" in result else "structuredContent")


@check("TSL754", scope="result")
def structured_content_mirrors_envelope(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    result = _result(ex)
    sc = result.get("structuredContent") if result else None
    if isinstance(sc, dict) and set(sc) <= _ENVELOPE_KEYS | {"isError"} and isinstance(sc.get("content"), list):
        if all(isinstance(b, dict) and "type" in b for b in sc["content"]):
            yield ctx.on(ex, "result", "structuredContent")


@check("TSL755", scope="result")
def unhelpful_error_result(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    result = _result(ex)
    if result is None or result.get("isError") is not True:
        return
    text = " ".join(_texts(result)).strip()
    min_words = ctx.options.get("min_words", 4)
    words = len(text.split()) + sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") // 2
    if not text or _GENERIC.match(text) or (words < min_words and not _ACTIONABLE.search(text)) or "Traceback (most recent call last)" in text:
        yield ctx.on(ex, "result", "content" if "content" in result else None, text=text[:80] or "(no text)")
    elif not _ACTIONABLE.search(text):
        yield ctx.on(ex, "result", "content", text=text[:80])


@check("TSL756", scope="result")
def result_for_unknown_tool(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    if not ctx.tools_by_name:
        return  # no definitions in this run: nothing to compare with
    if not ctx.tools_for(ex):
        yield ctx.on(ex, "tool", name=str(ex.tool))


@check("TSL757", scope="result")
def malformed_call_result(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    if ex.error is not None and ex.result is None:
        return  # a JSON-RPC error instead of a result is a protocol error, not a malformed result
    result = ex.result
    if not isinstance(result, dict):
        yield ctx.on(ex, "result", detail="the result is not an object")
        return
    content = result.get("content")
    if not isinstance(content, list):
        yield ctx.on(ex, "result", detail="`content` must be an array of content blocks")
        return
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            yield ctx.on(ex, "result", "content", i, detail="a content block needs a string `type`")
        elif block["type"] == "text" and not isinstance(block.get("text"), str):
            yield ctx.on(ex, "result", "content", i, detail="a text block needs a string `text`")
    if "structuredContent" in result and result["structuredContent"] is not None and not isinstance(result["structuredContent"], dict):
        yield ctx.on(ex, "result", "structuredContent", detail="`structuredContent` must be an object (MCP 2025-11-25)")
    if "isError" in result and not isinstance(result["isError"], bool):
        yield ctx.on(ex, "result", "isError", detail="`isError` must be a boolean")


@check("TSL758", scope="result")
def arguments_violate_input_schema(ex: Exchange, ctx: Any) -> Iterator[Hit]:
    tool = _definition(ex, ctx)
    if tool is None or not isinstance(tool.input_schema, dict) or ex.arguments is None:
        return
    dialect = schema_dialect(tool.input_schema)
    if dialect is None:
        return
    try:
        errors = sorted(py_validator(dialect)(tool.input_schema).iter_errors(ex.arguments), key=lambda e: list(map(str, e.absolute_path)))
        for err in errors[:10]:
            yield ctx.on(ex, "arguments", *err.absolute_path, detail=err.message)
    except _schema_failures():
        return
