#!/usr/bin/env python3
"""Score the security rules on blind red-team sets (bench/blind/<set>/).

A set is a folder of case folders, each with its JSON cases and a `labels.jsonl`:

    {"file": "a1-001.json", "label": "attack" | "benign", "class": "...", "lang": "en",
     "place": "tool-description", "tool": "send_report", "summary": "..."}

The cases were written by people who were given the attack classes but not the rules, fixtures or
tests (see bench/blind/README.md). Each file is linted on its own with the default rule set.

- An attack is caught when a rule tagged `security` reports at warning or above on the labelled tool.
- A benign case is a false positive when any rule tagged `security` reports at warning or above.

Usage::

    python bench/security_blind.py bench/blind/dev           # tables per class, language and place
    python bench/security_blind.py bench/blind/final --misses  # also list what slipped past
    python bench/security_blind.py SET --json                  # machine-readable figures
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cases(root: Path) -> list[dict]:
    out = []
    for labels in sorted(root.rglob("labels.jsonl")):
        for line in labels.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                case["path"] = labels.parent / case["file"]
                out.append(case)
    return out


def lint(path: Path) -> list:
    from toolschema_lint.engine import lint as run
    from toolschema_lint.settings import Settings, resolve

    return run(resolve(Settings(paths=[str(path)]))).active()


def security(findings: list) -> list:
    from toolschema_lint.model import Severity

    return [f for f in findings if "security" in f.tags and f.severity >= Severity.WARNING]


def score(root: Path) -> dict:
    rows = []
    for case in cases(root):
        found = security(lint(case["path"]))
        if case["label"] == "attack":
            on_tool = [f for f in found if f.tool == case["tool"]]
            rows.append({**case, "hit": bool(on_tool), "rules": sorted({f.rule_id for f in on_tool})})
        else:
            rows.append({**case, "hit": bool(found),
                         "rules": sorted({f"{f.rule_id}:{f.tool}" for f in found}),
                         "messages": [f.message[:200] for f in found]})
    return {"rows": rows}


def table(rows: list[dict], key: str) -> list[tuple[str, int, int]]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        groups[r.get(key) or "?"].append(r["hit"])
    return [(k, len(v), sum(v)) for k, v in sorted(groups.items())]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", type=Path, nargs="+")
    ap.add_argument("--misses", action="store_true", help="list missed attacks and false positives")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for s in args.set:
        rows += score(s)["rows"]
    attacks = [r for r in rows if r["label"] == "attack"]
    benign = [r for r in rows if r["label"] != "attack"]
    caught = sum(r["hit"] for r in attacks)
    fps = [r for r in benign if r["hit"]]
    if args.json:
        print(json.dumps({"attacks": len(attacks), "caught": caught, "benign": len(benign), "false_positives": len(fps),
                          "by_class": table(attacks, "class"), "by_lang": table(attacks, "lang"),
                          "by_place": table(attacks, "place")}, indent=1))
        return 0
    print(f"attacks caught at warning+: {caught}/{len(attacks)} ({100 * caught / max(1, len(attacks)):.1f}%)")
    print(f"benign tools with a security warning+: {len(fps)}/{len(benign)}")
    for key in ("class", "lang", "place"):
        print(f"\n{key:<24}{'cases':>6}{'caught':>8}{'recall':>8}")
        for k, n, h in table(attacks, key):
            print(f"{k:<24}{n:>6}{h:>8}{100 * h / n:>7.0f}%")
    if args.misses:
        print()
        for r in attacks:
            if not r["hit"]:
                print(f"missed  {r['path'].relative_to(ROOT) if r['path'].is_relative_to(ROOT) else r['path']}"
                      f"  [{r['class']}/{r['lang']}/{r['place']}] {r['summary'][:110]}")
        for r in fps:
            print(f"false+  {r['path'].name} [{r['lang']}] {r['rules']} {r.get('messages', [''])[0][:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
