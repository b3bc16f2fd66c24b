"""Shared test helpers: lint files or text with chosen rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolschema_lint.engine import RunResult, lint
from toolschema_lint.loaders import Source
from toolschema_lint.settings import Settings, resolve


def run_rules(paths: list[str | Path], select: list[str] | None = None, **kw: Any) -> RunResult:
    settings = Settings(paths=[str(p) for p in paths], select=select, **kw)
    return lint(resolve(settings))


def lint_data(data: Any, select: list[str] | None = None, fmt: str = "json", name: str = "tools.json", **kw: Any) -> RunResult:
    """Lint an in-memory definition (dumped to JSON, or passed as YAML text)."""
    text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)
    settings = Settings(select=select, **kw)
    settings.extra_sources = [Source(path=None, display=name, text=text, format=fmt)]
    return lint(resolve(settings))


def lint_sources(sources: list[tuple[str, Any]], select: list[str] | None = None, **kw: Any) -> RunResult:
    """Lint several in-memory sources in one run: (name, data) pairs; names ending .jsonl are JSON Lines."""
    settings = Settings(select=select, **kw)
    for name, data in sources:
        if name.endswith(".jsonl"):
            text = "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in data)
            settings.extra_sources.append(Source(path=None, display=name, text=text, format="jsonl"))
        else:
            settings.extra_sources.append(Source(path=None, display=name, text=json.dumps(data, indent=2, ensure_ascii=False), format="json"))
    return lint(resolve(settings))


def example_sources(example: Any, scope: str) -> list[tuple[str, Any]]:
    """A catalog example as lint sources: one tool, a `{tools: [...]}` server, `{servers: {name: server}}`,
    or for result rules `{definitions: server, result: record}`."""
    if scope == "result":
        out = [("results.jsonl", [example["result"]])]
        if example.get("definitions") is not None:
            out.insert(0, ("tools.json", example["definitions"]))
        return out
    if isinstance(example, dict) and isinstance(example.get("servers"), dict):
        return [(f"{name}.json", server) for name, server in example["servers"].items()]
    if isinstance(example, dict) and isinstance(example.get("servers"), list):
        return [(f"server{i}.json", server) for i, server in enumerate(example["servers"])]
    if isinstance(example, list) or (isinstance(example, dict) and "tools" in example):
        return [("tools.json", example)]
    return [("tools.json", {"tools": [example]})]


def ids(result: RunResult) -> list[str]:
    return [f.rule_id for f in result.active()]
