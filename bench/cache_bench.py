#!/usr/bin/env python3
"""Cold and warm runs of `toolschema-lint check`, interleaved: what the result cache saves.

Each round runs the command twice on the same corpus: first with a new, empty cache folder (cold: everything is
linted, and the cache written), then again with that folder (warm: nothing changed). Reported: wall and CPU seconds
per round, their medians, and warm / cold. A third run per round (`--edit`) first rewrites one file of the corpus
copy, so one server is linted again.

    python bench/cache_bench.py --exe /path/to/toolschema-lint --rounds 3 /tmp/corpus
    python bench/cache_bench.py --small          # one small file: the pre-commit case, min of 15 runs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMALL = {"tools": [{"name": "get_forecast", "description": "Return the weather forecast for a city for the next three "
                    "days.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description":
                    "City name, e.g. Berlin"}}, "required": ["city"], "additionalProperties": False}}]}


def once(cmd: list[str], cache: str | None) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if cache is not None:
        env["TOOLSCHEMA_LINT_CACHE_DIR"] = cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd + ([] if cache is not None else ["--no-cache"]), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def corpus_rounds(exe: str, corpus: Path, rounds: int, edit: bool) -> dict:
    rows: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": [], "one file edited": []}
    with tempfile.TemporaryDirectory(prefix="tsl-cache-bench-") as tmp:
        work = Path(tmp) / "corpus"
        shutil.copytree(corpus, work)
        cmd = [exe, "check", str(work), "--format", "json", "--exit-zero", "-o", os.devnull]
        for r in range(rounds):
            cache = str(Path(tmp) / f"cache-{r}")
            rows["cold"].append(once(cmd, cache))
            rows["warm"].append(once(cmd, cache))
            if edit:
                target = min(work.iterdir())
                data = json.loads(target.read_text(encoding="utf-8"))
                data["tools"][0]["description"] = (data["tools"][0].get("description") or "") + f" (edit {r})"
                target.write_text(json.dumps(data, indent=2), encoding="utf-8")
                rows["one file edited"].append(once(cmd, cache))
    return {k: v for k, v in rows.items() if v}


def small_runs(exe: str, runs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="tsl-cache-bench-") as tmp:
        f = Path(tmp) / "tools.json"
        f.write_text(json.dumps(SMALL), encoding="utf-8")
        cmd = [exe, "check", str(f), "-q", "--exit-zero"]
        cache = str(Path(tmp) / "cache")
        once(cmd, cache)  # the derived tables and this file's result are in the cache now
        rows: dict[str, list[tuple[float, float]]] = {"python -c pass": [], "no cache": [], "changed file": [],
                                                      "unchanged file": []}
        for i in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            rows["python -c pass"].append((time.perf_counter() - t, 0.0))
            rows["no cache"].append(once(cmd, None))
            data = dict(SMALL, tools=[dict(SMALL["tools"][0], description=SMALL["tools"][0]["description"] + f" ({i})")])
            f.write_text(json.dumps(data), encoding="utf-8")
            rows["changed file"].append(once(cmd, cache))
            rows["unchanged file"].append(once(cmd, cache))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=shutil.which("toolschema-lint") or "toolschema-lint")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--edit", action="store_true", help="also time a run after one file of the corpus changed")
    ap.add_argument("--small", action="store_true", help="time one small file (min of 15 runs) instead of a corpus")
    ap.add_argument("corpus", nargs="?")
    args = ap.parse_args(argv)
    if args.small:
        rows = small_runs(args.exe, 15)
        for name, vals in rows.items():
            walls = [w for w, _c in vals]
            print(f"{name:<16} min {min(walls) * 1000:6.0f} ms   median {statistics.median(walls) * 1000:6.0f} ms")
        return 0
    if not args.corpus:
        ap.error("a corpus folder, or --small")
    rows = corpus_rounds(args.exe, Path(args.corpus), args.rounds, args.edit)
    cold = statistics.median(w for w, _c in rows["cold"])
    for name, vals in rows.items():
        walls, cpus = [w for w, _c in vals], [c for _w, c in vals]
        print(f"{name:<16} wall {' '.join(f'{w:6.2f}' for w in walls)}  median {statistics.median(walls):6.2f} s"
              f"  CPU median {statistics.median(cpus):6.2f} s  ({statistics.median(walls) / cold:.1%} of cold)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
