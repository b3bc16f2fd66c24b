"""Baselines: accept today's findings, report only new ones.

An entry is keyed by rule id, file, tool, pointer and a hash of the offending node's content, never
by line or column, so it survives reformatting and reordering. The pointer is stored relative to
the tool when the finding names one (moving a tool within its file keeps its entries), and the file
path relative to the baseline file (the run may start from another directory). A finding whose key
matches an entry is kept in the report, marked `suppressed: "baseline"`; an entry that matches no
finding is stale (the problem was fixed, or its content changed and it is reported as new).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .model import Finding
from .text import sanitize

BASELINE_FORMAT = 1
BASELINE_KEY = "toolschema-lint-baseline"
SUPPRESSED_BY = "baseline"

Key = tuple[str, str, str, str, str]


class BaselineError(Exception):
    """A baseline file that cannot be read or has the wrong shape (exit code 2)."""


@dataclass
class BaselineResult:
    path: str
    matched: int = 0
    new: int = 0
    stale: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The `summary.baseline` object of the JSON report."""
        return {"path": self.path, "matched": self.matched, "new": self.new, "stale": len(self.stale),
                "stale_entries": self.stale}


def _rel_path(path: str, root: Path) -> str:
    if "://" in path or path.startswith("mcp+"):
        return path
    try:
        return Path(os.path.relpath(os.path.abspath(path), root)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()


def _tool_pointer(f: Finding) -> str:
    """The finding's pointer relative to its tool (`#` + rest) when it lies inside the tool."""
    base = f.tool_pointer
    if f.tool is None or base is None:
        return f.pointer
    if f.pointer == base or f.pointer.startswith(base + "/"):
        return "#" + f.pointer[len(base):]
    return f.pointer


def key(f: Finding, root: Path) -> Key:
    return (f.rule_id, _rel_path(f.path, root), f.tool or "", _tool_pointer(f), f.fingerprint_content)


def _entry(k: Key, message: str = "") -> dict[str, Any]:
    rule, path, tool, pointer, digest = k
    entry = {"rule": rule, "path": path, "tool": tool or None, "pointer": pointer, "hash": digest}
    if message:
        entry["message"] = message  # for the reader; not part of the key
    return entry


def _from_entry(e: Any) -> Key:
    if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("rule", "path", "pointer", "hash")):
        raise ValueError("an entry needs string rule, path, pointer and hash")
    tool = e.get("tool")
    return (e["rule"], e["path"], tool if isinstance(tool, str) else "", e["pointer"], e["hash"])


def build(findings: Iterable[Finding], baseline_path: str | Path) -> dict[str, Any]:
    root = Path(os.path.abspath(baseline_path)).parent
    entries = sorted((_entry(key(f, root), f.message) for f in findings),
                     key=lambda e: (e["path"], e["rule"], e["tool"] or "", e["pointer"], e["hash"]))
    return {BASELINE_KEY: BASELINE_FORMAT, "generator": f"toolschema-lint {__version__}", "findings": entries}


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(findings: Iterable[Finding], baseline_path: str | Path) -> int:
    data = build(findings, baseline_path)
    Path(baseline_path).write_text(dump(data), encoding="utf-8")
    return len(data["findings"])


def read(path: str | Path) -> list[Key]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: cannot read baseline ({getattr(e, 'strerror', None) or e})") from None
    except ValueError as e:
        raise BaselineError(f"{path}: baseline is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get(BASELINE_KEY) != BASELINE_FORMAT or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a baseline file (create one with `toolschema-lint check --write-baseline`)")
    try:
        return [_from_entry(e) for e in data["findings"]]
    except ValueError as e:
        raise BaselineError(f"{path}: {e}") from None


def apply(findings: list[Finding], entries: list[Key], baseline_path: str | Path) -> BaselineResult:
    """Mark findings that match an entry as suppressed; each entry matches at most one finding."""
    root = Path(os.path.abspath(baseline_path)).parent
    left = Counter(entries)
    res = BaselineResult(path=str(baseline_path))
    for f in findings:
        if f.suppressed is not None:
            continue
        k = key(f, root)
        if left[k] > 0:
            left[k] -= 1
            f.suppressed = SUPPRESSED_BY
            res.matched += 1
        else:
            res.new += 1
    res.stale = [_entry(k) for k, n in sorted(left.items()) for _ in range(n)]
    return res


def stale_note(res: BaselineResult, limit: int = 10) -> list[str]:
    """Lines for stderr: the baseline's counts and the first stale entries."""
    lines = [f"baseline {sanitize(res.path, 200)}: {res.matched} matched, {res.new} new, {len(res.stale)} stale"]
    for e in res.stale[:limit]:
        tool = f" [{sanitize(e['tool'], 80)}]" if e.get("tool") else ""
        lines.append(f"  stale: {e['rule']} {sanitize(e['path'], 200)}{tool} {sanitize(e['pointer'] or '/', 200)}")
    if len(res.stale) > limit:
        lines.append(f"  ... and {len(res.stale) - limit} more")
    if res.stale:
        lines.append("  (fixed or changed since the baseline was written; refresh it with --write-baseline)")
    return lines
