"""`--format json`: one object, a documented and stable contract (see README, "JSON output")."""

from __future__ import annotations

import json
from functools import lru_cache
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any, Iterator

from .. import __version__
from ..text import dumps_safe, escape_invisible
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


def summary(result: Any, settings: Any = None) -> dict[str, Any]:
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
    if getattr(settings, "statistics", False):
        from . import rule_statistics

        out["statistics"] = rule_statistics(active)
    return out


def render(result: Any, settings: Any) -> Iterator[str]:
    """The report as chunks of text, byte for byte what `json.dumps(report, indent=2)` would write.

    Findings are encoded one at a time, so a run with tens of thousands of them never holds the
    whole report (or a dict per finding) in memory at once.
    """
    findings = result.findings
    doc = {
        "version": __version__,
        "schema_version": SCHEMA_VERSION,
        "findings": [_MARK] if findings else [],
        "summary": summary(result, settings),
        "errors": list(getattr(result, "errors", [])),  # sources that could not be read (exit code 2)
    }
    text = dumps_safe(doc, indent=2) + "\n"
    if not findings:
        yield text
        return
    head, tail = text.split(_MARK_LINE, 1)
    yield head
    batch: list[str] = []
    for i, f in enumerate(findings):
        batch.append(_finding_text(f) if i == 0 else ",\n" + _finding_text(f))
        if len(batch) >= 512:
            yield "".join(batch)
            batch = []
    batch.append(tail)
    yield "".join(batch)


def prepare(findings: list[Finding]) -> None:
    """Encode the members that differ from finding to finding (positions, pointer, tool) ahead of
    `render`, where the findings are made: worker processes then share that work. The members shared
    by a rule's or a file's findings are cached, and the message is encoded by `render`, so a
    prepared finding holds little more text than it did."""
    for f in findings:
        f.rendered = _located(f)


_MARK = "\x00findings\x00"
_MARK_LINE = '    "\\u0000findings\\u0000"'
_PAD = "\n      "


def _scalar(v: Any) -> str:
    kind = type(v)
    if kind is str:
        return encode_basestring(v)
    if kind is int:
        return int.__repr__(v)  # what json.dumps writes for an int (bool is not `int` here)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return encode_basestring(v)
    return json.dumps(v)


@lru_cache(maxsize=1024)
def _head(rule_id: str, name: str, severity: Any) -> str:
    """The opening of a finding's object: the same for every finding of a rule at one severity."""
    s = _scalar  # catalog text, escaped all the same (cached: once per rule and severity)
    return escape_invisible(f'    {{{_PAD}"id": {s(rule_id)},{_PAD}"name": {s(name)},{_PAD}"severity": {s(str(severity))},')


@lru_cache(maxsize=1024)
def _tags(tags: tuple[str, ...]) -> str:
    """A finding's last member, `tags` (one tuple per rule); the caller closes the object."""
    if not tags:
        return f'{_PAD}"tags": []'
    return escape_invisible(f'{_PAD}"tags": [' + ",".join(_PAD + "  " + _scalar(t) for t in tags) + _PAD + "]")


_path = lru_cache(maxsize=4096)(encode_basestring)  # the findings of one file share its path


def _located(f: Finding) -> str:
    """The members from `line` to `tool` (`finding_dict`'s order), as json.dumps with indent 2
    writes them at the depth of the findings array, invisible characters escaped."""
    line, column, end_line, end_column, tool = f.line, f.column, f.end_line, f.end_column, f.tool
    if type(line) is int and type(column) is int and type(end_line) is int and type(end_column) is int:
        numbers = f'{_PAD}"line": {line},{_PAD}"column": {column},{_PAD}"end_line": {end_line},{_PAD}"end_column": {end_column},'
    else:
        s = _scalar
        numbers = f'{_PAD}"line": {s(line)},{_PAD}"column": {s(column)},{_PAD}"end_line": {s(end_line)},{_PAD}"end_column": {s(end_column)},'
    return escape_invisible(f'{numbers}{_PAD}"pointer": {_scalar(f.pointer)},{_PAD}"tool": {_scalar(tool)}')


def _finding_text(f: Finding) -> str:
    """One finding's object: the keys and their order of `finding_dict`, filled in without building
    the dict."""
    path = _path(f.path) if type(f.path) is str else _scalar(f.path)
    tags = f.tags if type(f.tags) is tuple else tuple(f.tags)
    text = (f'{_head(f.rule_id, f.name, f.severity)}{_PAD}"message": {escape_invisible(_scalar(f.message))},'
            f'{_PAD}"path": {escape_invisible(path)},{_located(f) if f.rendered is None else f.rendered},{_tags(tags)}')
    if f.suppressed is not None:
        text += escape_invisible(f',{_PAD}"suppressed": {_scalar(f.suppressed)}')
    return text + "\n    }"
