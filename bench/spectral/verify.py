#!/usr/bin/env python3
"""Check that the Spectral ruleset does what bench/README.md says it does.

1. samples/bad.json has one violation per rule: every rule must fire, exactly
   at the expected path, and nothing else may fire.
2. samples/good.json must produce no results at all.
3. On a small generated corpus, Spectral's per-rule counts must equal a plain
   Python implementation of the same ten checks (below).
4. If toolschema-lint is installed, its counts for the mirrored rules on that
   corpus are printed beside Spectral's (informational: our rules evolve).

Usage: python bench/spectral/verify.py   (exits 1 on any mismatch, 0 if node/spectral is unavailable)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import gen_corpus  # noqa: E402
from run import RESOLVER, RULESET, SPECTRAL_EQUIVALENT, find_spectral, find_toolschema_lint  # noqa: E402

EXPECTED_BAD = {
    ("tsl-missing-tool-description", "tools/0"),
    ("tsl-vague-tool-name", "tools/1/name"),
    ("tsl-invalid-tool-name", "tools/2/name"),
    ("tsl-input-schema-not-object", "tools/3/inputSchema/type"),
    ("tsl-open-object-schema", "tools/4/inputSchema"),
    ("tsl-open-object-schema", "tools/4/inputSchema/properties/prefs"),
    ("tsl-required-unknown-property", "tools/5/inputSchema/required/1"),
    ("tsl-param-without-description", "tools/6/inputSchema/properties/text"),
    ("tsl-param-without-type", "tools/7/inputSchema/properties/content"),
    ("tsl-unbounded-limit-param", "tools/8/inputSchema/properties/max_results"),
    ("tsl-array-without-items", "tools/9/inputSchema/properties/tags"),
}

# Spectral rule -> the toolschema-lint rule ids it mirrors.
MIRRORS = {
    "tsl-missing-tool-description": ["TSL201"],
    "tsl-vague-tool-name": ["TSL202"],
    "tsl-invalid-tool-name": ["TSL203", "TSL204"],
    "tsl-input-schema-not-object": ["TSL104", "TSL106"],
    "tsl-open-object-schema": ["TSL401"],
    "tsl-required-unknown-property": ["TSL103"],
    "tsl-param-without-description": ["TSL210"],
    "tsl-param-without-type": ["TSL107"],
    "tsl-unbounded-limit-param": ["TSL404"],
    "tsl-array-without-items": ["TSL405"],
}
assert sorted(i for ids in MIRRORS.values() for i in ids) == SPECTRAL_EQUIVALENT.split(",")

VAGUE = {"do_task", "api_call", "execute", "process_user_request", "run", "handle", "tool"}
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
LIMIT_RE = re.compile(r"^(limit|count|top_?[kn]|(page|batch|chunk)_?size|per_?page|page_?limit|"
                      r"(max|num|n)_?(results|items|hits|entries|rows|records|pages|count))$", re.I)
TYPED = ("type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const")


def spectral_lint(spectral: list[str], target: str) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        p = subprocess.run(spectral + ["lint", target, "-r", str(RULESET), "--resolver", str(RESOLVER),
                                       "-f", "json", "-o", out.name, "-q"], capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise SystemExit(f"spectral failed ({p.returncode}): {p.stderr}")
        return json.loads(Path(out.name).read_text() or "[]")


def _params(schema):
    """(name, schema) of every entry under any `properties`, at any depth (like JSONPath ..properties[*])."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    yield name, sub
                    yield from _params(sub)
            else:
                yield from _params(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _params(item)


def reference_counts(doc: dict) -> Counter:
    c: Counter = Counter()

    def object_schema(s: dict) -> None:
        has_props = isinstance(s.get("properties"), dict) and bool(s["properties"])
        if has_props and "additionalProperties" not in s and s.get("unevaluatedProperties") is not False:
            c["tsl-open-object-schema"] += 1
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        if isinstance(s.get("required"), list):
            c["tsl-required-unknown-property"] += sum(1 for r in s["required"] if r not in props)

    for tool in doc["tools"]:
        if not tool.get("description"):
            c["tsl-missing-tool-description"] += 1
        name = tool.get("name")
        if isinstance(name, str):
            c["tsl-vague-tool-name"] += name.lower() in VAGUE
            c["tsl-invalid-tool-name"] += not NAME_RE.match(name)
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            c["tsl-input-schema-not-object"] += 1
        else:
            object_schema(schema)
        for pname, p in _params(schema):
            if not isinstance(p, dict):
                continue
            c["tsl-param-without-description"] += not p.get("description")
            c["tsl-param-without-type"] += not any(k in p for k in TYPED)
            if p.get("type") == "integer" and LIMIT_RE.match(pname):
                c["tsl-unbounded-limit-param"] += not (("minimum" in p or "exclusiveMinimum" in p)
                                                       and ("maximum" in p or "exclusiveMaximum" in p))
            if p.get("type") == "array":
                c["tsl-array-without-items"] += not p.get("items")
            if p.get("type") == "object" or ("type" not in p and isinstance(p.get("properties"), dict)):
                object_schema(p)
    return +c


def compare_toolschema_lint(corpus: Path, spectral_counts: Counter) -> None:
    tsl = find_toolschema_lint()
    if tsl is None:
        return
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        p = subprocess.run(tsl + ["check", str(corpus), "--select", SPECTRAL_EQUIVALENT, "--format", "json",
                                  "--exit-zero", "-o", out.name], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"toolschema-lint failed ({p.returncode}): {p.stderr.strip()[-300:]}")
            return
        ours = Counter(f["id"] for f in json.loads(Path(out.name).read_text())["findings"])
    print("\n| Spectral rule | Spectral | toolschema-lint | ids |\n|---|---:|---:|---|")
    for rule, ids in MIRRORS.items():
        n = sum(ours[i] for i in ids)
        mark = "" if n == spectral_counts[rule] else " (differs)"
        print(f"| {rule} | {spectral_counts[rule]} | {n}{mark} | {', '.join(ids)} |")
    print()


def main() -> int:
    spectral = find_spectral(install=True)
    if spectral is None:
        print("skipped: node / spectral-cli not available")
        return 0
    failures = []

    bad = {(r["code"], "/".join(map(str, r["path"]))) for r in spectral_lint(spectral, str(HERE / "samples/bad.json"))}
    if bad != EXPECTED_BAD:
        failures.append(f"bad.json: missing {sorted(EXPECTED_BAD - bad)}, unexpected {sorted(bad - EXPECTED_BAD)}")
    good = spectral_lint(spectral, str(HERE / "samples/good.json"))
    if good:
        failures.append(f"good.json: expected no results, got {[(r['code'], r['path']) for r in good]}")

    with tempfile.TemporaryDirectory() as tmp:
        paths = gen_corpus.write_corpus(Path(tmp), 1000, 20)
        got = Counter(r["code"] for r in spectral_lint(spectral, f"{tmp}/*.json"))
        want: Counter = Counter()
        for p in paths:
            want += reference_counts(json.loads(p.read_text(encoding="utf-8")))
        if got != want:
            failures.append(f"corpus: spectral {dict(got)} != reference {dict(want)}")
        else:
            print(f"corpus: per-rule counts agree ({sum(got.values())} findings): {dict(sorted(got.items()))}")
        compare_toolschema_lint(Path(tmp), got)

    for f in failures:
        print("FAIL", f)
    if not failures:
        rules = len({code for code, _ in EXPECTED_BAD})
        print(f"ok: bad.json fires all {rules} rules at the expected paths, good.json is clean")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
