#!/usr/bin/env python3
"""Recall of the security rules on the labelled corpus, and false positives on the clean set.

Corpus layout (see fixtures/security/README.md)::

    fixtures/security/malicious/<family>/<case>.json|yaml   one server per case
    fixtures/security/malicious/lookalike/<case>/           a folder of 2+ servers, linted in one run
    fixtures/security/clean/*.json                          honest, well-designed tools

A malicious case is detected when a rule whose tags include the family fires on it (any
severity). A clean case is a false positive when any security rule reports at warning or above.
Rules are the recommended set unless --all is given.

Usage::

    python bench/security_recall.py                # table for the closing note
    python bench/security_recall.py --markdown     # the same as a Markdown table
    python bench/security_recall.py --check        # exit 1 below 95% overall / 80% per family / any FP
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures" / "security"
SUFFIXES = {".json", ".yaml", ".yml"}


@dataclass
class Case:
    family: str
    path: Path
    findings: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.relative_to(CORPUS).as_posix()


def malicious_cases(corpus: Path = CORPUS) -> list[Case]:
    out = []
    root = corpus / "malicious"
    for family in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        for entry in sorted(family.iterdir()):
            if entry.is_dir() or entry.suffix in SUFFIXES:
                out.append(Case(family.name, entry))
    return out


def clean_cases(corpus: Path = CORPUS) -> list[Case]:
    root = corpus / "clean"
    return [Case("clean", p) for p in sorted(root.iterdir()) if p.suffix in SUFFIXES] if root.is_dir() else []


def lint_case(path: Path, all_rules: bool = False) -> list:
    from toolschema_lint.engine import lint
    from toolschema_lint.settings import Settings, resolve

    settings = Settings(paths=[str(path)], select=["ALL"] if all_rules else None)
    return lint(resolve(settings)).active()


def detected(case: Case) -> bool:
    return any(case.family in f.tags for f in case.findings)


def false_positives(case: Case) -> list:
    from toolschema_lint.model import Severity

    return [f for f in case.findings if "security" in f.tags and f.severity >= Severity.WARNING]


def run(all_rules: bool = False) -> tuple[list[Case], list[Case]]:
    bad, good = malicious_cases(), clean_cases()
    for case in (*bad, *good):
        case.findings = lint_case(case.path, all_rules)
    return bad, good


def table(bad: list[Case], good: list[Case], markdown: bool) -> tuple[str, float, dict[str, float], int]:
    rows: list[tuple[str, str, str, str]] = []
    per_family: dict[str, float] = {}
    for family in sorted({c.family for c in bad}):
        cases = [c for c in bad if c.family == family]
        hits = sum(detected(c) for c in cases)
        per_family[family] = hits / len(cases)
        rows.append((family, str(len(cases)), str(hits), f"{100 * hits / len(cases):.0f}%"))
    total_hits = sum(detected(c) for c in bad)
    overall = total_hits / len(bad) if bad else 0.0
    rows.append(("overall", str(len(bad)), str(total_hits), f"{100 * overall:.0f}%"))
    fp_cases = [c for c in good if false_positives(c)]
    fp_total = sum(len(false_positives(c)) for c in good)
    head = ("family", "cases", "detected", "recall")
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---:|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        lines = [f"{head[0]:<18}{head[1]:>7}{head[2]:>10}{head[3]:>8}"]
        lines += [f"{r[0]:<18}{r[1]:>7}{r[2]:>10}{r[3]:>8}" for r in rows]
    lines.append("")
    lines.append(f"clean cases: {len(good)}, with a security finding at warning or above: {len(fp_cases)} "
                 f"({fp_total} findings)")
    for c in bad:
        if not detected(c):
            lines.append(f"  missed: {c.name}")
    for c in fp_cases:
        for f in false_positives(c):
            lines.append(f"  false positive: {c.name} {f.rule_id} {f.message}")
    return "\n".join(lines), overall, per_family, fp_total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--all", action="store_true", help="enable every rule, opt-in ones included")
    ap.add_argument("--check", action="store_true", help="exit 1 unless recall >= 95%% overall, >= 80%% per family, no FP")
    args = ap.parse_args(argv)
    bad, good = run(args.all)
    if not bad and not good:
        print(f"no corpus under {CORPUS}")
        return 2
    text, overall, per_family, fp = table(bad, good, args.markdown)
    print(text)
    if args.check and (overall < 0.95 or any(v < 0.80 for v in per_family.values()) or fp):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
