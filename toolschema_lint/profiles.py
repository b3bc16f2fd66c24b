"""Compatibility profiles (`rules/profiles.json`): what a provider or an MCP revision accepts.

`check --target PROFILE` checks every tool against the named profiles; without it each tool is checked
against its own format's newest profile (an OpenAI or Anthropic tool that sets `strict: true`, against
that provider's strict profile). The TSL3xx rules read the profiles; the facts live in the data file.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .model import Tool

PROFILES_FILE = "profiles.json"
NEWEST_MCP = "mcp-2026-07-28"


@lru_cache(maxsize=1)
def profiles() -> dict[str, dict[str, Any]]:
    """Every profile by its id, in the file's order."""
    text = resources.files("toolschema_lint.catalog").joinpath(PROFILES_FILE).read_text(encoding="utf-8")
    return json.loads(text)["profiles"]


def names() -> tuple[str, ...]:
    return tuple(profiles())


def is_strict(tool: Tool) -> bool:
    """The tool asks for its provider's strict mode (`strict: true`, on the function or the tool object)."""
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else raw
    return fn.get("strict") is True or raw.get("strict") is True


def own_profile(tool: Tool) -> str:
    """The newest profile of the tool's own format."""
    dialect = tool.dialect or "mcp"
    if dialect.startswith("openai"):
        return "openai-strict" if is_strict(tool) else "openai"
    if dialect == "anthropic":
        return "anthropic-strict" if is_strict(tool) else "anthropic"
    if dialect == "gemini":
        return "gemini"
    return NEWEST_MCP


def targets(tool: Tool, settings: Any) -> list[tuple[str, dict[str, Any]]]:
    """(id, profile) of each profile the tool is checked against in this run."""
    chosen = list(getattr(settings, "targets", None) or ()) or [own_profile(tool)]
    table = profiles()
    return [(t, table[t]) for t in chosen if t in table]
