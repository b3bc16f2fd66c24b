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
from . import fix_hints, rule_statistics, summary_line as _summary
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
    statistics = getattr(settings, "statistics", False)
    for f in () if statistics else active:  # --statistics: the table alone, as ruff prints it
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
    if statistics and active:
        for row in rule_statistics(active):
            console.print(Text(f"{row['count']:6d}  {row['id']}  {row['name']}  ({row['severity']})"))
    if not quiet:
        if active:
            console.print()
        console.print(Text(_summary(result), style="bold" if active else "green"))
    return buf.getvalue()
