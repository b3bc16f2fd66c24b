#!/usr/bin/env python3
"""Interleaved A/B timing of two toolschema-lint installs on one corpus: CPU and wall, per round.

Each round runs A then B (or B then A on odd rounds, so neither always runs first) as
`toolschema-lint check DIR --format json --exit-zero -o /dev/null [extra args]`, and reads the CPU
seconds of the child processes (user + system, all worker processes included) from getrusage.
Medians and best runs are printed, with the load average before and after.

Usage::

    python bench/gen_corpus.py --out /tmp/corpus
    python bench/ab.py --a /path/to/old/venv/bin/toolschema-lint --b .venv/bin/toolschema-lint /tmp/corpus
    python bench/ab.py --a OLD --b NEW --rounds 7 /tmp/corpus -- --jobs 1
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def once(exe: str, corpus: str, extra: list[str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="tsl-ab-cache-") as cache:  # a cold run: an empty result cache
        env = {**os.environ, "TOOLSCHEMA_LINT_CACHE_DIR": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([exe, "check", corpus, "--format", "json", "--exit-zero", "-o", os.devnull, *extra],
                       check=True, stdout=subprocess.DEVNULL, env=env)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="toolschema-lint executable A (e.g. the commit before)")
    ap.add_argument("--b", required=True, help="toolschema-lint executable B")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("corpus")
    ap.add_argument("extra", nargs="*", help="extra arguments for check (after --)")
    args = ap.parse_args(argv)
    runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for r in range(args.rounds):
        order = [("A", args.a), ("B", args.b)] if r % 2 == 0 else [("B", args.b), ("A", args.a)]
        for name, exe in order:
            runs[name].append(once(exe, args.corpus, args.extra))
        print(f"round {r + 1}: A {runs['A'][-1][1]:.2f} CPU s / {runs['A'][-1][0]:.2f} wall s, "
              f"B {runs['B'][-1][1]:.2f} CPU s / {runs['B'][-1][0]:.2f} wall s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for name in ("A", "B"):
        walls = [w for w, _ in runs[name]]
        cpus = [c for _, c in runs[name]]
        print(f"{name}: CPU median {statistics.median(cpus):.2f} s (best {min(cpus):.2f}), "
              f"wall median {statistics.median(walls):.2f} s (best {min(walls):.2f})")
    ca = statistics.median(c for _, c in runs["A"])
    cb = statistics.median(c for _, c in runs["B"])
    print(f"B/A CPU: {cb / ca:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
