"""Descriptions (TSL2xx): text the model chooses a tool by."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Iterator

from ..model import Hit, Severity, Tool, per_tool
from ..registry import check
from ._schema_walk import anchors, is_local_ref, refs, resolve_local, tool_params
from .naming import name_words
from .schema import param_label
from ..lazyre import lazy_compile


@check("TSL201")
def missing_tool_description(tool: Tool, ctx: Any) -> Iterator[Hit]:
    desc = tool.description
    if desc is None or (isinstance(desc, str) and not desc.strip()):
        yield ctx.at(tool, "description" if desc is not None else "name")


# -- text helpers ---------------------------------------------------------------------------------

_CJK = lazy_compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = lazy_compile(r"[^\W_]+")
_STOP = frozenset((
    "a", "an", "the", "this", "that", "tool", "function", "to", "of", "for", "and", "or", "by", "with", "in",
    "on", "from", "at", "into", "it", "its", "is", "are", "be", "given", "specified", "provided", "specific",
    "one", "all", "some", "any", "via", "using", "use", "used", "you", "your", "can",
))


def cjk_count(text: str) -> int:
    return 0 if text.isascii() else len(_CJK.findall(text))


def estimate_tokens(text: str) -> int:
    """Rough token count: ~4 characters per token for Latin text, one per CJK character."""
    cjk = cjk_count(text)
    return cjk + -(-(len(text) - cjk) // 4)


def _stem(word: str) -> str:
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def restates_name(name: Any, desc: Any) -> bool:
    """The description's words (minus filler) are all words of the tool name."""
    if not isinstance(name, str) or not isinstance(desc, str) or len(desc) > 300 or cjk_count(desc):
        return False
    words = [w for w in _WORD.findall(desc) if w.lower() not in _STOP]
    if not words or len(words) > 8:
        return False  # decided before stemming: most descriptions are longer than any name
    in_name = {_stem(w) for w in name_words(name)}
    return all(_stem(w) in in_name for w in words)


@per_tool
def _param_descriptions(tool: Tool) -> tuple[tuple[tuple, str, Any, dict], ...]:
    """(path of the object, property name, description, property schema) for every input property."""
    return tuple((path[:-2], name, prop.get("description"), prop)
                 for path, name, prop, _parent in tool_params(tool) if isinstance(prop, dict))


# -- rules ----------------------------------------------------------------------------------------

@check("TSL207")
def description_too_short(tool: Tool, ctx: Any) -> Iterator[Hit]:
    desc = tool.description
    if not isinstance(desc, str) or not desc.strip():
        return  # TSL201
    cjk = cjk_count(desc)
    words = len(_WORD.findall(_CJK.sub(" ", desc) if cjk else desc))
    if cjk and cjk >= words:
        short = cjk + words < ctx.options.get("min_cjk_chars", 6)
        size = f"{cjk + words} characters"
    else:
        short = words < ctx.options.get("min_words", 3)
        size = f"{words} word{'s' if words != 1 else ''}"
    if short:  # a short description that only restates the name is TSL209's to report, when it does
        yield ctx.at(tool, "description", size=size, _unless=("TSL209", True))


_WHEN_NOT = lazy_compile(
    r"(?i)\b(?:do not|don't|never|avoid|instead|rather than|unless|not (?:for|to be|suitable|intended|meant|"
    r"designed|recommended)|only (?:use|for|when|if|works|applies)|should not|shouldn't|must not|cannot be used|"
    r"prefer)\b|不要|不适用|不用于|不能用于|请勿|勿用|而不是|仅用于|只用于|只能用于|禁止|不可用于"
)


@check("TSL208")
def missing_when_not_to_use(tool: Tool, ctx: Any) -> Iterator[Hit]:
    desc = tool.description
    if isinstance(desc, str) and desc.strip() and not _WHEN_NOT.search(desc[:20_000]):
        yield ctx.at(tool, "description")


@check("TSL209")
def description_restates_name(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if restates_name(tool.name, tool.description):
        yield ctx.at(tool, "description", name=tool.name)


def _referenced_definitions(schema: Any) -> set[tuple[str, str]]:
    """(`$defs`|`definitions`, name) of every definition some local `$ref` points into."""
    out: set[tuple[str, str]] = set()
    index = anchors(schema)
    for _, ref in refs(schema):
        found, _, target = resolve_local(schema, ref, index) if is_local_ref(ref) else (False, None, ())
        if found and len(target) >= 2 and target[0] in ("$defs", "definitions"):
            out.add((target[0], target[1]))
    return out


def _described(prop: dict) -> bool:
    """A non-empty description on the property or on one of its anyOf/oneOf/allOf branches."""
    if isinstance(prop.get("description"), str) and prop["description"].strip():
        return True
    branches = [b for k in ("anyOf", "oneOf", "allOf") if isinstance(prop.get(k), list) for b in prop[k]]
    return any(isinstance(b, dict) and isinstance(b.get("description"), str) and b["description"].strip() for b in branches)


@check("TSL210")
def param_without_description(tool: Tool, ctx: Any) -> Iterator[Hit]:
    nested = ctx.options.get("nested", True)
    used: set[tuple[str, str]] | None = None
    for path, name, desc, prop in _param_descriptions(tool):
        if path and not nested:
            continue
        if _described(prop) or ("$ref" in prop and len(prop) == 1):
            continue  # described, or described (or not) where the reference points
        if path and path[0] in ("$defs", "definitions"):
            used = _referenced_definitions(tool.input_schema) if used is None else used
            if tuple(map(str, path[:2])) not in used:
                continue  # a definition this tool never uses
        sev = {"_severity": Severity.INFO} if path else {}  # nested fields: a hint, not a warning
        yield ctx.at(tool, "input_schema", *path, "properties", name, param=param_label(path, name), **sev)


# "one of: a, b, c", "either 'x' or 'y'", "possible values include `asc` and `desc`", "可选值: a、b"
_LIST_TRIGGER = lazy_compile(
    r"(?i)\b(?:(?:must|should) be )?one of\b(?: the following)?|\b(?:possible|allowed|valid|accepted|supported|"
    r"available) (?:values|options)\b(?: (?:are|include))?|\b(?:values|options) are\b|可选值|取值范围|取值|可选项"
)
_QUOTED_TRIGGER = lazy_compile(r"(?i)\b(?:either|must be|can be|may be)\b|可以是|只能是|必须是")
_EXAMPLE = lazy_compile(r"(?i)(?:e\.g\.|i\.e\.|for example|for instance|such as|like|例如|比如)\W*$")
_QUOTED = lazy_compile(r"\s*[:：]?\s*(?:'([^'\n]{1,40})'|\"([^\"\n]{1,40})\"|`([^`\n]{1,40})`|“([^”\n]{1,40})”)")
_BARE = lazy_compile(r"\s*[:：]?\s*([^\W_][\w.\-/]{0,29})(?=[\s,;.)、，。]|$)")
_SEP = lazy_compile(r"\s*(?:,\s*(?:or|and)\s+|,|/|\||\s+or\s+|\s+and\s+|、|，|或|和)\s*")


def _values_after(text: str, pos: int, bare: bool) -> list[str]:
    """The list of literal values that starts at `pos` (quoted ones, or bare words when `bare`)."""
    values: list[str] = []
    while len(values) < 50:
        m = _QUOTED.match(text, pos) or (_BARE.match(text, pos) if bare else None)
        if not m:
            break
        values.append(next(g for g in m.groups() if g is not None).rstrip(".-/"))
        pos = m.end()
        sep = _SEP.match(text, pos)
        if not sep:
            break
        pos = sep.end()
    return values


def _case(word: str) -> str:
    return "upper" if word.isupper() else "title" if word[:1].isupper() else "lower"


def enumerated_values(text: str) -> tuple[str, ...]:
    """Values a description enumerates as the only accepted ones; () when it does not."""
    return _enumerated_values(text[:5000])


@lru_cache(maxsize=8192)  # parameter descriptions repeat across the tools of a server
def _enumerated_values(text: str) -> tuple[str, ...]:
    for pattern, bare, least in ((_LIST_TRIGGER, True, 2), (_QUOTED_TRIGGER, False, 1)):
        for m in pattern.finditer(text):
            if _EXAMPLE.search(text[max(0, m.start() - 20):m.start()]):
                continue
            values = _values_after(text, m.end(), bare)
            quoted = _QUOTED.match(text, m.end()) is not None
            if not quoted and len({_case(v) for v in values}) > 1:
                continue  # "one of China, province, city": prose, not a closed set of literals
            if len(values) >= (1 if quoted else least):
                return tuple(values)
    return ()


def _closed(prop: dict) -> bool:
    return any(k in prop for k in ("enum", "const", "anyOf", "oneOf", "$ref")) or prop.get("type") in ("boolean", "object")


@check("TSL211")
def enum_only_in_description(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, desc, prop in _param_descriptions(tool):
        target = prop.get("items") if prop.get("type") == "array" else prop
        if not isinstance(desc, str) or not isinstance(target, dict) or _closed(target):
            continue
        values = enumerated_values(desc)
        if values:
            shown = ", ".join(values[:4]) + (", ..." if len(values) > 4 else "")
            yield ctx.at(tool, "input_schema", *path, "properties", name, "description",
                         param=param_label(path, name), values=shown)


_CALL = lazy_compile(
    r"(?i)\b(?:call|calls|calling|invoke|invokes|invoking|use|uses|using|run|runs|instead of|followed by|then)\b"
    r"|先调用|调用|使用|改用"
)
_TOOLISH = lazy_compile(
    r"\s*(?:the\s+)?(?:tool\s+)?([`'\"“]?)([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+){1,8})([`'\"”]?)"
)
# "use snake_case keys", "use the user_id field": the identifier names something other than a tool
_NOT_A_TOOL = lazy_compile(
    r"\s*[`'\"”]?\s*(?:keys?|names?|format|style|convention|casing|fields?|param(?:eter)?s?|arguments?|args?|"
    r"options?|flags?|variables?|propert(?:y|ies)|columns?|values?|env|mode|attribute)\b",
    re.IGNORECASE,
)
_CONVENTIONS = frozenset(("snake_case", "kebab-case", "camelcase", "pascalcase", "screaming_snake_case", "lower_case", "upper_case"))
_FILE_EXT = lazy_compile(r"(?i)\.(?:json|ya?ml|md|txt|py|js|ts|html?|csv|xml|gz|zip|png|jpe?g|pdf|log|sh|toml)$")


def tool_references(text: str) -> tuple[str, ...]:
    """Tool-like identifiers right after call/use/invoke/调用 ...: backticked or quoted, or snake_case."""
    return _tool_references(text[:20_000])


@lru_cache(maxsize=8192)  # parameter descriptions repeat across the tools of a server
def _tool_references(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for m in _CALL.finditer(text):
        t = _TOOLISH.match(text, m.end())
        if not t:
            continue
        opening, ident, closing = t.groups()
        quoted = bool(opening) and bool(closing)
        if not (quoted or "_" in ident) or ident.isupper() or _FILE_EXT.search(ident):
            continue
        if ident.lower() in _CONVENTIONS or _NOT_A_TOOL.match(text, t.end()):
            continue
        found.append(ident)
    return tuple(found)


def _param_names(server: Any) -> set[str]:
    return {name.lower() for tool in server.tools for _p, name, _s, _o in tool_params(tool) if isinstance(name, str)}


def _texts(tool: Tool) -> Iterator[tuple[tuple, str]]:
    """(pointer tokens under the tool, text) of the tool description and every parameter description."""
    if isinstance(tool.description, str):
        yield ("description",), tool.description
    for path, name, desc, _ in _param_descriptions(tool):
        if isinstance(desc, str):
            yield ("input_schema", *path, "properties", name, "description"), desc


@check("TSL212", scope="server")
def unknown_tool_reference(server: Any, ctx: Any) -> Iterator[Hit]:
    declared = ctx.options.get("known_tools", [])
    # a single tool is not the whole server: "when not to use, use X" names a sibling the file cannot show. The
    # set is known to be complete for a list of several tools, a live capture, or when known_tools is set
    live = any(d.text for d in server.documents)  # a live capture keeps its text; a file does not
    if len(server.tools) < 2 and not declared and not live:
        return
    found = [(tool, tokens, ident) for tool in server.tools for tokens, text in _texts(tool) for ident in tool_references(text)]
    if not found:
        return
    known = {n.lower() for n in server.tool_names} | {n.lower() for n in declared}
    params = _param_names(server)

    def is_known(ident: str) -> bool:
        low = ident.lower()
        return low in known or low in params or any(p in params for p in low.split(".")) or any(
            k.endswith(("." + low, "_" + low, "-" + low)) or low.endswith(("." + k, "__" + k)) for k in known
        )

    seen: set[tuple[int, str]] = set()
    for tool, tokens, ident in found:
        if (id(tool), ident) not in seen and not is_known(ident):
            seen.add((id(tool), ident))
            yield ctx.at(tool, tokens[0], *tokens[1:], ref=ident)


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)  # built once, not per call


@per_tool
def tool_tokens(tool: Tool) -> int:
    """Estimated tokens of what a client sends the model for this tool: name, description, input schema."""
    payload = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
    try:
        text = _COMPACT.encode(payload)
    except (ValueError, RecursionError):
        return 0
    return estimate_tokens(text)


@check("TSL213")
def tool_definition_too_large(tool: Tool, ctx: Any) -> Iterator[Hit]:
    tokens = tool_tokens(tool)
    limit = ctx.options.get("max_tokens", 1000)
    if tokens > limit:
        yield ctx.at(tool, "description" if tool.description is not None else None, tokens=tokens, limit=limit)


@check("TSL214", scope="server")
def server_definitions_too_large(server: Any, ctx: Any) -> Iterator[Hit]:
    sizes = [(tool_tokens(t), t) for t in server.tools]
    total = sum(s for s, _ in sizes)
    limit = ctx.options.get("max_tokens", 20_000)
    if total > limit and sizes:
        largest = max(sizes, key=lambda st: st[0])
        tools_list = server.tools[0].pointer.rsplit("/", 1)[0]  # the array holding the tools
        yield ctx.hit(tools_list, tokens=total, limit=limit, count=len(sizes),
                      largest=largest[1].display_name, largest_tokens=largest[0])
