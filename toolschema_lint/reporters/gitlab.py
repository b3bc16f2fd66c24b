"""`--format gitlab`: a GitLab code quality report (a JSON array of issues).

GitLab reads `description`, `check_name`, `fingerprint`, `severity` (info, minor, major, critical,
blocker) and `location.path` + `location.lines.begin`. Paths must be relative to the repository
root, so run from there. Suppressed findings (baseline) are left out: GitLab has no notion of a
suppressed issue, and its merge-request widget compares against the target branch anyway.
Fingerprints are the ones SARIF results carry (`fingerprint.py`): they survive reformatting and
reworded messages, so the widget does not report a finding as fixed and new again.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import Finding, Severity
from ..registry import catalog
from ..text import sanitize
from .fingerprint import fingerprinted

_SEVERITY = {Severity.INFO: "info", Severity.WARNING: "minor", Severity.ERROR: "major"}


def severity(f: Finding, security_severity: float | None) -> str:
    """Errors of security rules rise with their security severity: >= 9 blocker, >= 7 critical."""
    if f.severity == Severity.ERROR and security_severity is not None:
        if security_severity >= 9.0:
            return "blocker"
        if security_severity >= 7.0:
            return "critical"
    return _SEVERITY[f.severity]


def issue(f: Finding, rules: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    meta = rules.get(f.rule_id)
    tool = f" [{sanitize(f.tool, 80)}]" if f.tool else ""
    return {
        "type": "issue",
        "description": f"{f.rule_id} {f.message}{tool}",
        "check_name": f"{f.rule_id} {f.name}".strip(),
        "fingerprint": fingerprint,
        "severity": severity(f, meta.security_severity if meta is not None else None),
        "categories": ["Security"] if "security" in f.tags else ["Style"],
        "location": {"path": f.path, "lines": {"begin": max(1, f.line), "end": max(f.line, f.end_line)}},
    }


def render(result: Any, settings: Any) -> str:
    rules = catalog()
    # numbered over every finding, as in SARIF, then the suppressed ones are left out
    issues = [issue(f, rules, fp) for f, fp in fingerprinted(result.findings) if f.suppressed is None]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
