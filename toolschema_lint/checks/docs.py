"""Descriptions (TSL2xx): text the model chooses a tool by."""

from __future__ import annotations

from typing import Any, Iterator

from ..model import Hit, Tool
from ..registry import check


@check("TSL201")
def missing_tool_description(tool: Tool, ctx: Any) -> Iterator[Hit]:
    desc = tool.description
    if desc is None or (isinstance(desc, str) and not desc.strip()):
        yield ctx.at(tool, "description" if desc is not None else "name")
