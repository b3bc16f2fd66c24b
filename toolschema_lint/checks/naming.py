"""Naming (TSL2xx, first half): tool names a model can choose by."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..model import Hit, Tool
from ..registry import check

_SPLIT = re.compile(r"[._\-\s/:]+|(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """`crm.get_customer`, `getCustomer`, `get-customer` -> ['crm', 'get', 'customer']."""
    return [w.lower() for w in _SPLIT.split(name) if w]


@check("TSL202")
def vague_tool_name(tool: Tool, ctx: Any) -> Iterator[Hit]:
    name = tool.name
    if not isinstance(name, str) or not name:
        return
    deny = {d.lower() for d in ctx.options.get("deny", [])}
    words = name_words(name)
    normalized = "_".join(words)
    # the whole name is generic, or the last segment of a dotted name is (`crm.execute`)
    last = "_".join(name_words(name.rsplit(".", 1)[-1]))
    if normalized in deny or (last in deny and "." in name and len(words) <= 2):
        yield ctx.at(tool, "name", name=name)
