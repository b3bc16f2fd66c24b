"""Turn provider shapes (MCP, OpenAI, Anthropic, Gemini) into `Tool`s.

Detection is structural and explainable: every decision records a short reason that
`toolschema-lint check --explain-format` prints. A new dialect is a change here, never in a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Tool, join_pointer

# normalized field -> source key, per dialect
_FIELD_KEYS: dict[str, dict[str, str]] = {
    "mcp": {
        "name": "name",
        "title": "title",
        "description": "description",
        "input_schema": "inputSchema",
        "output_schema": "outputSchema",
        "annotations": "annotations",
        "meta": "_meta",
        "version": "version",
        "risk": "risk",
        "runtime": "runtime",
    },
    "openai-chat": {
        "name": "name",
        "description": "description",
        "input_schema": "parameters",
    },
    "openai-responses": {
        "name": "name",
        "description": "description",
        "input_schema": "parameters",
        "output_schema": "output_schema",
    },
    "openai-legacy": {
        "name": "name",
        "description": "description",
        "input_schema": "parameters",
    },
    "anthropic": {
        "name": "name",
        "description": "description",
        "input_schema": "input_schema",
    },
    "gemini": {
        "name": "name",
        "description": "description",
        "input_schema": "parameters",
        "output_schema": "response",
    },
}

INPUT_FORMATS = ("auto", "mcp", "openai", "anthropic", "gemini")

_GEMINI_KEYS = ("functionDeclarations", "function_declarations")


@dataclass
class Detection:
    dialect: str | None = None  # the document's dominant dialect, None when no tools were found
    reason: str = ""
    tools: list[Tool] = field(default_factory=list)
    problems: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (rule, pointer, args)
    server_info: dict[str, Any] | None = None


def _lower_types(schema: Any, depth: int = 0) -> Any:
    """Gemini `parameters` use the OpenAPI subset with upper-case type names; normalise a copy."""
    if depth > 64:
        return schema
    if isinstance(schema, dict):
        out = {}
        for k, v in schema.items():
            if k == "type" and isinstance(v, str):
                out[k] = v.lower()
            else:
                out[k] = _lower_types(v, depth + 1)
        return out
    if isinstance(schema, list):
        return [_lower_types(v, depth + 1) for v in schema]
    return schema


def make_tool(obj: dict, pointer: str, dialect: str) -> Tool:
    """Build a `Tool` from one tool object of `dialect` at `pointer`."""
    base = obj
    base_ptr = pointer
    if dialect == "openai-chat":
        fn = obj.get("function")
        if isinstance(fn, dict):
            base, base_ptr = fn, join_pointer(pointer, "function")
    keys = dict(_FIELD_KEYS[dialect])
    if dialect == "gemini":
        if "parametersJsonSchema" in base and "parameters" not in base:
            keys["input_schema"] = "parametersJsonSchema"
        if "responseJsonSchema" in base and "response" not in base:
            keys["output_schema"] = "responseJsonSchema"
    tool = Tool(name=base.get("name"), dialect=dialect, pointer=base_ptr, raw=obj)
    for fld, key in keys.items():
        if key in base:
            setattr(tool, fld, base[key])
            tool.fields[fld] = join_pointer(base_ptr, key)
    if isinstance(tool.name, str) or "name" in base:
        tool.fields.setdefault("name", join_pointer(base_ptr, "name"))
    if dialect == "gemini":  # the OpenAPI-subset forms (`parameters`, `response`) use upper-case types
        if keys["input_schema"] == "parameters" and tool.input_schema is not None:
            tool.input_schema = _lower_types(tool.input_schema)
        if keys["output_schema"] == "response" and tool.output_schema is not None:
            tool.output_schema = _lower_types(tool.output_schema)
    meta = tool.meta if isinstance(tool.meta, dict) else {}
    # production metadata may also live under _meta (reverse-DNS keys or plain)
    for fld in ("version", "risk", "runtime"):
        if getattr(tool, fld) is None:
            for k, v in meta.items():
                if k == fld or k.endswith("/" + fld):
                    setattr(tool, fld, v)
                    tool.fields[fld] = join_pointer(tool.fields["meta"], k)
                    break
    tool.has_production_metadata = any(getattr(tool, f) is not None for f in ("version", "risk", "runtime"))
    return tool


def tool_dialect(obj: Any, context: str | None) -> tuple[str | None, str]:
    """Which dialect one tool object is written in, with the reason; (None, why) if it is no tool."""
    if not isinstance(obj, dict):
        return None, "not an object"
    typ = obj.get("type")
    if isinstance(obj.get("function"), dict):
        return "openai-chat", "has a `function` object"
    if "inputSchema" in obj:
        return "mcp", "has `inputSchema`"
    if "input_schema" in obj:
        return "anthropic", "has `input_schema`"
    if typ == "function" and "name" in obj:
        return "openai-responses", "`type: function` with a top-level `name`"
    if "parametersJsonSchema" in obj or "responseJsonSchema" in obj:
        return "gemini", "has `parametersJsonSchema`"
    if context == "gemini":
        return "gemini", "inside `functionDeclarations`"
    if context == "openai-legacy":
        return "openai-legacy", "inside a `functions` array"
    if isinstance(typ, str) and typ not in ("function", "custom") and "name" in obj:
        return None, f"provider built-in tool of type {typ!r}"
    if "name" in obj and ("parameters" in obj or "description" in obj):
        if context in ("anthropic", "openai-chat", "openai-responses"):
            return context, f"`name` + `parameters` in a {context} list"
        return ("openai-legacy", "`name` + `parameters` (function declaration)") if "parameters" in obj else (
            context or "mcp",
            "`name` + `description` without a schema",
        )
    if "name" in obj and context == "mcp":
        return "mcp", "`name` in an MCP tools list"
    return None, "no tool keys (`name` with `inputSchema`, `input_schema`, `parameters` or `function`)"


def _looks_like_tool(obj: Any) -> bool:
    return tool_dialect(obj, None)[0] is not None


def _force(dialect_family: str, obj: Any) -> str | None:
    """With --input-format, the family decides; the exact variant still comes from the shape."""
    if dialect_family in ("mcp", "anthropic", "gemini"):
        return dialect_family
    found, _ = tool_dialect(obj, dialect_family if dialect_family != "openai" else "openai-legacy")
    if dialect_family == "openai":
        return found if found and found.startswith("openai") else "openai-legacy"
    return found


class _Walker:
    def __init__(self, forced: str | None):
        self.forced = forced if forced and forced != "auto" else None
        self.det = Detection()
        self.reasons: list[str] = []
        self.index = 0

    def add_tool(self, obj: Any, pointer: str, context: str | None) -> None:
        if self.forced:
            dialect = _force(self.forced, obj) if isinstance(obj, dict) else None
            why = f"--input-format {self.forced}"
        else:
            dialect, why = tool_dialect(obj, context)
        if dialect is None:
            if isinstance(obj, dict) and isinstance(obj.get("type"), str) and "built-in" in why:
                self.reasons.append(f"{pointer or '/'}: skipped {why}")
                return
            self.det.problems.append(("TSL004", pointer, {"reason": why}))
            return
        tool = make_tool(obj, pointer, dialect)
        tool.index = self.index
        self.index += 1
        self.det.tools.append(tool)
        if not self.reasons or len(self.reasons) < 4:
            self.reasons.append(f"{pointer or '/'}: {dialect} ({why})")

    def add_list(self, items: Any, pointer: str, context: str | None) -> None:
        if not isinstance(items, list):
            self.det.problems.append(("TSL004", pointer, {"reason": "the tools list is not an array"}))
            return
        for i, item in enumerate(items):
            p = join_pointer(pointer, i)
            if isinstance(item, dict):
                gem = next((k for k in _GEMINI_KEYS if k in item), None)
                if gem and "name" not in item:
                    self.add_list(item[gem], join_pointer(p, gem), "gemini")
                    continue
                if item.get("type") == "namespace" and isinstance(item.get("tools"), list):
                    self.add_list(item["tools"], join_pointer(p, "tools"), "openai-responses")
                    continue
            self.add_tool(item, p, context)

    def container(self, data: Any, pointer: str) -> bool:
        """Find tool definitions in `data`; False when nothing tool-like is there."""
        if isinstance(data, list):
            if data and all(isinstance(x, dict) and ("tools" in x or "result" in x) for x in data):
                self.reasons.append(f"{pointer or '/'}: {len(data)} pages of a tools/list listing")
                found = False
                for i, page in enumerate(data):
                    found = self.container(page, join_pointer(pointer, i)) or found
                return found
            if data and any(_looks_like_tool(x) or (isinstance(x, dict) and any(k in x for k in _GEMINI_KEYS)) for x in data):
                self.add_list(data, pointer, None)
                return True
            if not data:
                self.reasons.append(f"{pointer or '/'}: empty list of tools")
                return True
            return False
        if not isinstance(data, dict):
            return False
        if "jsonrpc" in data:
            if isinstance(data.get("result"), dict):
                self.reasons.append(f"{pointer or '/'}: JSON-RPC response")
                return self.container(data["result"], join_pointer(pointer, "result"))
            if "error" in data:
                self.det.problems.append(("TSL004", pointer, {"reason": "a JSON-RPC error response, not a tools/list result"}))
                return True
            return False
        if isinstance(data.get("serverInfo"), dict):
            self.det.server_info = data["serverInfo"]
        for key, ctx in (("tools", None), ("functions", "openai-legacy")):
            if key in data and isinstance(data[key], list):
                if ctx is None:
                    ctx = "mcp" if any(isinstance(t, dict) and "inputSchema" in t for t in data[key]) else None
                self.reasons.append(f"{pointer or '/'}: `{key}` array")
                self.add_list(data[key], join_pointer(pointer, key), ctx)
                return True
        for key in _GEMINI_KEYS:
            if key in data:
                self.reasons.append(f"{pointer or '/'}: Gemini `{key}`")
                self.add_list(data[key], join_pointer(pointer, key), "gemini")
                return True
        for key in ("config", "body", "request", "params"):
            if isinstance(data.get(key), dict) and self.container(data[key], join_pointer(pointer, key)):
                return True
        if _looks_like_tool(data) or (self.forced and "name" in data):
            self.reasons.append(f"{pointer or '/'}: a single tool object")
            self.add_tool(data, pointer, "mcp" if "inputSchema" in data else None)
            return True
        return False


def detect(data: Any, forced: str | None = None, pointer: str = "") -> Detection:
    w = _Walker(forced)
    if not w.container(data, pointer):
        w.det.problems.append(("TSL003", pointer, {}))
    det = w.det
    dialects = {t.dialect for t in det.tools}
    if len(dialects) == 1:
        det.dialect = dialects.pop()
    elif dialects:
        det.dialect = "mixed"
    det.reason = "; ".join(w.reasons[:6])
    return det
