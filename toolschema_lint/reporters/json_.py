"""`--format json`: one object, a documented and stable contract (see README, "JSON output")."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..text import dumps_safe
from ..model import Finding, Severity

SCHEMA_VERSION = 1


def finding_dict(f: Finding) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": f.rule_id,
        "name": f.name,
        "severity": str(f.severity),
        "message": f.message,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "pointer": f.pointer,
        "tool": f.tool,
        "tags": list(f.tags),
    }
    if f.suppressed is not None:
        d["suppressed"] = f.suppressed
    return d


def summary(result: Any) -> dict[str, Any]:
    active = result.active()
    out = {
        "files": result.files,
        "tools": result.tools,
        "findings": len(active),
        "by_severity": {str(s): sum(1 for f in active if f.severity == s) for s in sorted(Severity, reverse=True)},
        "suppressed": len(result.findings) - len(active),
    }
    baseline = getattr(result, "baseline", None)  # set by `check --baseline` (baseline.BaselineResult)
    if baseline is not None:
        out["baseline"] = baseline.summary()
    return out


def render(result: Any, settings: Any) -> str:
    doc = {
        "version": __version__,
        "schema_version": SCHEMA_VERSION,
        "findings": [finding_dict(f) for f in result.findings],
        "summary": summary(result),
        "errors": list(getattr(result, "errors", [])),  # sources that could not be read (exit code 2)
    }
    return dumps_safe(doc, indent=2) + "\n"
