"""`--format sarif`: SARIF 2.1.0 with one run, as GitHub code scanning reads it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..model import RuleMeta, Severity
from ..registry import catalog
from ..text import dumps_safe, sanitize
from .fingerprint import fingerprinted

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/toolschema-lint/"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_PROBLEM = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}


def _clip(text: str, n: int = 1024) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _yaml_block(value: Any) -> str:
    import yaml

    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100).rstrip()


def rule_help_markdown(meta: RuleMeta) -> str:
    parts = [f"**{meta.id} {meta.name}**: {meta.summary}", "", meta.rationale.strip(), "", "**Fix:** " + meta.fix.strip()]
    for kind in ("bad", "good"):
        if kind in meta.examples:
            parts += ["", f"**{kind.capitalize()}:**", "", "```yaml", _yaml_block(meta.examples[kind]), "```"]
    if meta.references:
        parts += ["", "**References:** " + ", ".join(meta.references)]
    return "\n".join(parts)


def rule_descriptor(meta: RuleMeta, level: Severity) -> dict[str, Any]:
    props: dict[str, Any] = {
        "tags": list(meta.tags)[:20],
        "precision": "high" if "heuristic" not in meta.tags else "medium",
    }
    if meta.security_severity is not None:
        props["security-severity"] = f"{float(meta.security_severity):.1f}"
    else:
        props["problem.severity"] = _PROBLEM[meta.severity]
    return {
        "id": meta.id,
        "name": meta.name,
        "shortDescription": {"text": _clip(meta.summary)},
        "fullDescription": {"text": _clip(meta.rationale or meta.summary)},
        "help": {"text": _clip(f"{meta.rationale} Fix: {meta.fix}", 4000), "markdown": rule_help_markdown(meta)},
        "defaultConfiguration": {"level": _LEVEL[level]},
        "properties": props,
    }


def artifact(path: str) -> dict[str, Any]:
    p = Path(path)
    if "://" in path or path.startswith("mcp+"):
        return {"uri": path}
    if p.is_absolute():
        try:
            rel = p.relative_to(Path.cwd())
        except ValueError:
            return {"uri": p.as_uri()}
        path = rel.as_posix()
    return {"uri": quote(path), "uriBaseId": "%SRCROOT%"}


def render(result: Any, settings: Any) -> str:
    rules = catalog()
    severities = getattr(settings, "severities", {}) or {}
    ids = sorted(set(result.enabled) | {f.rule_id for f in result.findings})
    index = {rid: i for i, rid in enumerate(ids)}
    descriptors = [rule_descriptor(rules[rid], severities.get(rid, rules[rid].severity)) for rid in ids]
    results = []
    fix_cache: dict[str, Any] = {}
    for f, fp in fingerprinted(result.findings):
        message = f.message + (f" [{sanitize(f.tool, 80)}]" if f.tool else "")
        res: dict[str, Any] = {
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": _LEVEL[f.severity],
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact(f.path),
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": max(f.end_line, f.line),
                            "endColumn": f.end_column if f.end_line > f.line else max(f.end_column, f.column + 1),
                        },
                    },
                    "logicalLocations": [{"name": f.tool, "kind": "object", "fullyQualifiedName": f"{f.path}#{f.pointer}"}]
                    if f.tool
                    else [],
                }
            ],
            "partialFingerprints": {"toolschemaLint/v1": fp},
            "properties": {"pointer": f.pointer},
        }
        if rules[f.rule_id].autofix != "none":  # `check --fix` can fix it: the replacement, as SARIF `fixes`
            from ..fixes import text_fix

            change = text_fix(f, fix_cache)
            if change is not None:
                first, after, inserted = change
                res["fixes"] = [{"description": {"text": f"toolschema-lint --fix ({rules[f.rule_id].autofix})"},
                                 "artifactChanges": [{"artifactLocation": artifact(f.path), "replacements": [{
                                     "deletedRegion": {"startLine": first, "startColumn": 1, "endLine": after,
                                                       "endColumn": 1},
                                     "insertedContent": {"text": inserted}}]}]}]
        profile = next((t[8:] for t in f.tags if t.startswith("profile:")), None)
        if profile is not None:  # a compatibility finding (TSL3xx) names the profile it is about
            res["properties"]["profile"] = profile
        if not res["locations"][0]["logicalLocations"]:
            del res["locations"][0]["logicalLocations"]
        if f.suppressed is not None:
            res["suppressions"] = [{"kind": "external", "justification": f.suppressed}]
        results.append(res)
    cwd = Path(os.getcwd()).as_uri() + "/"
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolschema-lint",
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": cwd}},
                "invocations": [{"executionSuccessful": not getattr(result, "errors", [])}],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return dumps_safe(log, indent=2) + "\n"
