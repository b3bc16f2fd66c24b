"""`--format text`: human output, grouped by file. The only module that imports rich.

Everything taken from the input reaches the terminal through `Text` objects (never markup) and
after `sanitize`, so escapes and markup in a hostile description print as inert text.
"""

from __future__ import annotations

import io
import os
from collections import Counter
from typing import Any

from rich.console import Console
from rich.text import Text

from ..model import Severity
from . import fix_hints
from ..text import sanitize

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def use_color(settings: Any, stream: Any) -> bool:
    if getattr(settings, "color", None) is not None:
        return bool(settings.color)
    if os.environ.get("NO_COLOR"):
        return False
    if getattr(settings, "output", None):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def render(result: Any, settings: Any) -> str:
    buf = io.StringIO()
    color = bool(getattr(settings, "color", False))
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        markup=False,
        emoji=False,
        width=10_000,
        soft_wrap=True,
    )
    active = result.active()
    hints = fix_hints(settings)
    current = None
    hinted: set[str] = set()  # rules whose fix has been shown in the current file
    for f in active:
        if f.path != current:
            if current is not None:
                console.print()
            current = f.path
            hinted = set()
        line = Text()
        line.append(f"{sanitize(f.path, 400)}:{f.line}:{f.column}", style="bold")
        line.append("  ")
        line.append(f.rule_id, style=_STYLE[f.severity])
        line.append("  ")
        line.append(f.message)
        if f.tool:
            line.append("  ")
            line.append(f"[{sanitize(f.tool, 80)}]", style="dim")
        console.print(line)
        if f.rule_id in hints and f.rule_id not in hinted:  # the fix, under a rule's first finding in a file
            hinted.add(f.rule_id)
            console.print(Text(f"    help: {hints[f.rule_id]}", style="dim"))
    quiet = getattr(settings, "quiet", False)
    if getattr(settings, "statistics", False) and active:
        console.print()
        counts = Counter((f.rule_id, f.name, f.severity) for f in active)
        for (rid, name, sev), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0])):
            console.print(Text(f"{n:6d}  {rid}  {name}  ({sev})"))
    if not quiet:
        if active:
            console.print()
        console.print(Text(_summary(result), style="bold" if active else "green"))
    return buf.getvalue()


def _summary(result: Any) -> str:
    active = result.active()
    where = f"{result.tools} tool{'s' if result.tools != 1 else ''} in {result.files} file{'s' if result.files != 1 else ''}"
    unread = len(getattr(result, "errors", []))
    if unread:
        where += f"; {unread} source{'s' if unread != 1 else ''} could not be read"
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
