"""`--format github`: GitHub Actions workflow commands (annotations on the changed files)."""

from __future__ import annotations

from typing import Any

from ..model import Severity
from . import fix_hints
from ..text import sanitize

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render(result: Any, settings: Any) -> str:
    hints = fix_hints(settings)
    lines = []
    for f in result.active():
        props = (
            f"file={_escape_prop(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={_escape_prop(f.rule_id + ' ' + f.name)}"
        )
        tool = f" [{sanitize(f.tool)}]" if f.tool else ""
        fix = f"\nFix: {hints[f.rule_id]}" if f.rule_id in hints else ""  # a second line of the annotation
        lines.append(f"::{_LEVEL[f.severity]} {props}::{_escape_data(f.message + tool + fix)}")
    return "\n".join(lines) + ("\n" if lines else "")
