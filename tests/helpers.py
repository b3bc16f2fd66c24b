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


def ids(result: RunResult) -> list[str]:
    return [f.rule_id for f in result.active()]
