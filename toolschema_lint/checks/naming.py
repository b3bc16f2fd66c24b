"""Naming (TSL2xx, first half): tool names a model can choose by."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from ..model import Hit, Severity, Tool
from ..registry import check
from ..lazyre import lazy_compile

_SPLIT = lazy_compile(r"[._\-\s/:]+|(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """`crm.get_customer`, `getCustomer`, `get-customer` -> ['crm', 'get', 'customer']."""
    return [w.lower() for w in _SPLIT.split(name) if w]


@check("TSL202")
def vague_tool_name(tool: Tool, ctx: Any) -> Iterator[Hit]:
    name = tool.name
    if not isinstance(name, str) or not name:
        return
    deny = ctx.derived.get("deny")
    if deny is None:  # the option's words, lower-cased once per run (not hashed again for every tool)
        deny = ctx.derived["deny"] = frozenset(w.lower() for w in ctx.options.get("deny", ()) if isinstance(w, str))
    if (_vague_cached if len(name) <= 256 else _vague)(name, deny):  # hostile names stay out of the cache
        yield ctx.at(tool, "name", name=name)


def _vague(name: str, deny: frozenset[str]) -> bool:
    words = name_words(name)
    normalized = "_".join(words)
    # the whole name is generic, or the last segment of a dotted name is (`crm.execute`)
    last = "_".join(name_words(name.rsplit(".", 1)[-1]))
    return normalized in deny or (last in deny and "." in name and len(words) <= 2)


_vague_cached = lru_cache(maxsize=4096)(_vague)  # names repeat across servers


MCP_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_CHAR_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "/": "'/'", ",": "','", ":": "':'"}


@check("TSL203")
def tool_name_too_long(tool: Tool, ctx: Any) -> Iterator[Hit]:
    name = tool.name
    if not isinstance(name, str):
        return
    limit = ctx.options.get("max_length", 128)
    if not name:
        yield ctx.at(tool, "name", name=name, detail="is empty")
    elif len(name) > limit:
        yield ctx.at(tool, "name", name=name[:40] + "...", detail=f"is {len(name)} characters long (limit {limit})")


@check("TSL204")
def tool_name_invalid_characters(tool: Tool, ctx: Any) -> Iterator[Hit]:
    name = tool.name
    if not isinstance(name, str):
        return
    allowed = ":" if tool.dialect == "gemini" else ""  # Gemini declarations also accept ':'
    bad: list[str] = []
    for ch in name[:1024]:
        if ch not in MCP_NAME_CHARS and ch not in allowed:
            label = _CHAR_NAMES.get(ch) or (f"'{ch}'" if ch.isprintable() else f"U+{ord(ch):04X}")
            if label not in bad:
                bad.append(label)
    if bad:
        yield ctx.at(tool, "name", name=name, chars=", ".join(bad[:5]) + (", ..." if len(bad) > 5 else ""))


def name_style(name: str) -> str | None:
    """The convention a tool name follows; None for a single lower-case word, which fits any."""
    if "." in name.strip("."):
        return "dotted"
    has_us, has_dash = "_" in name.strip("_"), "-" in name.strip("-")
    letters = [c for c in name if c.isalpha()]
    upper_inside = any(c.isupper() for c in name[1:])
    if has_us and has_dash:
        return "mixed separators"
    if has_us:
        if letters and all(c.isupper() for c in letters):
            return "SCREAMING_SNAKE_CASE"
        return "snake_case"
    if has_dash:
        return "kebab-case"
    if not letters:
        return None
    if name[0].isupper() and upper_inside:
        return "PascalCase"
    if upper_inside and name[0].islower():
        return "camelCase"
    return None


@check("TSL205", scope="server")
def mixed_naming_conventions(server: Any, ctx: Any) -> Iterator[Hit]:
    styled = [(t, name_style(t.name)) for t in server.tools if isinstance(t.name, str)]
    styled = [(t, s) for t, s in styled if s is not None]
    counts: dict[str, int] = {}
    for _, style in styled:
        counts[style] = counts.get(style, 0) + 1
    if len(counts) < 2:
        return
    majority = max(counts, key=lambda s: counts[s])  # ties: the first style seen (dict order)
    for tool, style in styled:
        if style != majority:
            yield ctx.at(tool, "name", name=tool.name, style=style, majority=majority,
                         count=counts[majority], total=len(styled))


@check("TSL206", scope="server")
def duplicate_tool_name(server: Any, ctx: Any) -> Iterator[Hit]:
    first: dict[str, Tool] = {}
    folded: dict[str, Tool] = {}
    for tool in server.tools:
        name = tool.name
        if not isinstance(name, str):
            continue
        if name in first:
            yield ctx.at(tool, "name", name=name, detail="is defined more than once")
        elif name.casefold() in folded:
            other = folded[name.casefold()]
            yield ctx.at(tool, "name", name=name, detail=f"differs from '{other.name}' only in case", _severity=Severity.WARNING)
        else:
            first[name] = tool
            folded.setdefault(name.casefold(), tool)
