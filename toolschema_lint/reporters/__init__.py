"""Reporters: each a pure function (run result, settings) -> text, or chunks of text. The registry feeds `--format`.

A reporter's module is imported when its format is asked for: `rich`, which only the text
reporter needs, costs a tenth of a JSON or SARIF run's start-up.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Mapping
from typing import Any, Callable, Iterator

from ..model import Severity

_MODULES = {
    "text": "text",
    "json": "json_",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
}


def _module(name: str) -> Any:
    """The reporter module of format `name` (KeyError for an unknown format, as a dict would raise)."""
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


class _Reporters(Mapping):
    """format name -> render function, importing the reporter module on first lookup."""

    def __getitem__(self, name: str) -> Callable:
        return _module(name).render

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


REPORTERS: Mapping[str, Callable] = _Reporters()


def preparer(name: str) -> Callable | None:
    """The format's `prepare(findings)`, which encodes findings where they are made (in worker
    processes), or None when the format has none."""
    return getattr(_module(name), "prepare", None)


def fix_hints(settings: Any) -> dict[str, str]:
    """Rule id -> its fix on one line, for the reports that show it beside findings; {} with --no-hints."""
    if not getattr(settings, "hints", True):
        return {}
    from ..registry import catalog

    return {rid: meta.hint for rid, meta in catalog().items() if meta.hint}


def rule_statistics(active: list) -> list[dict]:
    """Findings per rule, most first: [{id, name, severity, count}] (text table and JSON `summary.statistics`)."""
    counts = Counter((f.rule_id, f.name, f.severity) for f in active)
    return [{"id": rid, "name": name, "severity": str(sev), "count": n}
            for (rid, name, sev), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))]


def summary_line(result: Any) -> str:
    """The one-line summary of a run (`Found 3 problems (...) in 2 tools in 1 file.`)."""
    active = result.active()
    # live captures (`mcp+stdio:...`, `mcp+http:...`) are servers, not files
    servers = sum(1 for d in getattr(result, "documents", []) if str(getattr(d, "path", "")).startswith("mcp+"))
    files = max(0, result.files - servers)
    places = ([f"{files} file{'s' if files != 1 else ''}"] if files or not servers else []) + \
        ([f"{servers} server{'s' if servers != 1 else ''}"] if servers else [])
    where = f"{result.tools} tool{'s' if result.tools != 1 else ''} in {' and '.join(places)}"
    unread = len(getattr(result, "errors", []))
    if unread:
        where += f"; {unread} source{'s' if unread != 1 else ''} could not be read"
    if not active and not result.files and not result.tools and unread:
        # consent-gated or unreachable servers, missing paths: nothing was read, so nothing passed
        return f"Nothing was checked: {unread} source{'s' if unread != 1 else ''} could not be read (see the errors)."
    if not active and not result.files and not result.tools and not unread:
        skipped = len(getattr(result, "skipped", []))
        why = (f"{skipped} file{'s' if skipped != 1 else ''} found, none holds tool definitions (--explain lists them)"
               if skipped else "no tool definition files found")
        return f"Nothing was checked: {why}."
    if not active:
        return f"No problems found ({where})." if unread else f"All checks passed ({where})."
    by = Counter(f.severity for f in active)
    parts = [f"{by[s]} {s}{'s' if by[s] != 1 else ''}" for s in sorted(Severity, reverse=True) if by[s]]
    sup = len(result.findings) - len(active)
    extra = f", {sup} suppressed" if sup else ""
    return f"Found {len(active)} problem{'s' if len(active) != 1 else ''} ({', '.join(parts)}{extra}) in {where}."
