#!/usr/bin/env python3
"""Security findings at warning or above on public tool sets nobody on the team wrote.

Each file of the corpora (../shared/corpora/livemcp, ../shared/corpora/bfcl by default) is linted on its
own with the default rules, as one server. The BFCL files repeat many functions across files; the
table gives findings per tool over every tool and over distinct tool definitions (a definition
linted twice counts once).

Usage::

    python bench/security_corpora.py                    # table and every finding
    python bench/security_corpora.py DIR [DIR ...]      # other corpora
    python bench/security_corpora.py --summary          # table only
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT = [ROOT.parent / "shared" / "corpora" / "livemcp", ROOT.parent / "shared" / "corpora" / "bfcl"]


def run(folder: Path) -> tuple[int, int, list[tuple[str, str, str, str, str]]]:
    from toolschema_lint.engine import lint
    from toolschema_lint.model import Severity
    from toolschema_lint.settings import Settings, resolve

    tools = distinct = 0
    seen_tools: set[str] = set()
    found: list[tuple[str, str, str, str, str]] = []
    for path in sorted(folder.glob("*.json")):
        if path.name == "labels.json":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        raw = data.get("tools", []) if isinstance(data, dict) else data
        keys = {}
        for t in raw if isinstance(raw, list) else []:
            key = json.dumps(t, sort_keys=True)
            keys[t.get("name") if isinstance(t, dict) else None] = key
            tools += 1
            if key not in seen_tools:
                seen_tools.add(key)
                distinct += 1
        for f in lint(resolve(Settings(paths=[str(path)]))).active():
            if "security" in f.tags and f.severity >= Severity.WARNING:
                found.append((path.name, f.rule_id, str(f.tool), f.message, keys.get(f.tool, f"{path.name}:{f.tool}")))
    return tools, distinct, found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--summary", action="store_true")
    args = ap.parse_args(argv)
    for folder in args.folders or DEFAULT:
        tools, distinct, found = run(folder)
        unique = {(r, k, m) for _f, r, _t, m, k in found}
        print(f"{folder.name}: {tools} tools ({distinct} distinct), {len(found)} security findings at warning+ "
              f"({len(found) / max(1, tools):.3f} per tool); over distinct definitions {len(unique)} "
              f"({len(unique) / max(1, distinct):.3f} per tool)")
        print("  by rule: " + ", ".join(f"{r} {n}" for r, n in Counter(r for _f, r, *_ in found).most_common()))
        if not args.summary:
            for name, rid, tool, msg, _k in found:
                print(f"  {name}  {rid}  {tool}  {msg[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
