#!/usr/bin/env python3
"""Benchmark toolschema-lint against Spectral on a generated MCP corpus.

Generates the corpus (bench/gen_corpus.py) into a temporary directory, once as
JSON and once as YAML, then times, best of ``--repeat`` runs each (in rounds that run every
command once, so a slow spell of the machine slows every row alike):

  a. ``toolschema-lint check <json dir> --format json --exit-zero -o FILE``
  b. the same on the YAML copy
  c. ``spectral lint "<json dir>/*.json" -r bench/spectral/ruleset.yaml -f json``
     (when node is available; spectral-cli is installed into bench/.node/ if missing)

Each run happens in a fresh Python wrapper process, which reports the wall time
of the command and ``getrusage(RUSAGE_CHILDREN).ru_maxrss``, i.e. the peak RSS
of the largest process of that command alone.

Usage::

    python bench/run.py                       # 10,000 tools / 200 files, best of 3
    python bench/run.py --tools 2000 --files 40 --repeat 1 --json /tmp/bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

BENCH = Path(__file__).resolve().parent
NODE_PREFIX = BENCH / ".node"
SPECTRAL_PKG = "@stoplight/spectral-cli@6"
RULESET = BENCH / "spectral" / "ruleset.yaml"
RESOLVER = BENCH / "spectral" / "resolver.cjs"
# toolschema-lint rules that the ten Spectral rules mirror (spectral/verify.py, README).
SPECTRAL_EQUIVALENT = "TSL103,TSL104,TSL106,TSL107,TSL201,TSL202,TSL203,TSL204,TSL210,TSL401,TSL404,TSL405"

sys.path.insert(0, str(BENCH))
import gen_corpus  # noqa: E402

# Runs one command and prints {"wall": s, "cpu": s, "maxrss_kib": n, "tree_rss_kib": n, "rc": n, "stderr": "..."}.
# A fresh process per run, so RUSAGE_CHILDREN covers exactly that command: ru_maxrss is the peak of its
# largest process. tree_rss_kib samples (every 20 ms, Linux /proc) the memory of the whole process tree,
# which is what counts for a tool that forks workers: the sum of each process's proportional set size
# (PSS: a page shared by n processes, as a forked worker shares its parent's, counts 1/n in each), or of
# RSS where the kernel has no smaps_rollup.
_WRAPPER = r"""
import json, os, resource, subprocess, sys, threading, time
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024

def tree_rss_kib(root):
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            try:
                with open(f"/proc/{pid}/smaps_rollup") as f:
                    total += next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
            except (OSError, StopIteration):
                with open(f"/proc/{pid}/statm") as f:
                    total += int(f.read().split()[1]) * PAGE_KIB
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return total

cmd = json.loads(sys.argv[1])
peak = [0]
t0 = time.perf_counter()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

def sample():
    while p.poll() is None:
        peak[0] = max(peak[0], tree_rss_kib(p.pid))
        time.sleep(0.02)

sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
stderr = p.communicate()[1]
wall = time.perf_counter() - t0
sampler.join()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kib": ru.ru_maxrss,
                  "tree_rss_kib": peak[0], "rc": p.returncode,
                  "stderr": stderr.decode("utf-8", "replace")[-2000:]}))
"""


@dataclass
class Result:
    name: str
    corpus: str
    command: list[str]
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)  # user + system seconds, per run
    peak_rss_mib: float = 0.0  # largest single process (ru_maxrss), max over runs
    tree_rss_mib: float = 0.0  # sampled sum over the process tree (PSS), max over runs
    findings: int | None = None
    tools_reported: int | None = None
    skipped: str | None = None  # tool not available: not an error
    error: str | None = None  # the tool failed or was inconsistent

    @property
    def best(self) -> float | None:
        return min(self.walls) if self.walls else None

    @property
    def best_cpu(self) -> float | None:
        return self.cpus[self.walls.index(min(self.walls))] if self.walls else None


def measure(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    """One run of `cmd`. toolschema-lint's result cache is pointed at a new, empty folder for each run, so every
    timed run is a cold run (one that also writes its cache); `cache_bench.py` times the warm ones."""
    with tempfile.TemporaryDirectory(prefix="tsl-bench-cache-") as cache:
        env = {**(env if env is not None else os.environ), "TOOLSCHEMA_LINT_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(cmd)],
                             capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


@dataclass
class Job:
    """One command to time: its result row, the exit codes that mean success, how to read its output."""

    res: Result
    ok_codes: tuple[int, ...]
    read_output: Callable[[], tuple[int, int | None]]
    counts: set[int] = field(default_factory=set)


def run_once(job: Job) -> None:
    res = job.res
    if res.error:
        return
    m = measure(res.command)
    if m["rc"] not in job.ok_codes:
        res.error = f"exit code {m['rc']}: {m['stderr'].strip()[-500:]}"
        return
    res.walls.append(m["wall"])
    res.cpus.append(m["cpu"])
    res.peak_rss_mib = max(res.peak_rss_mib, m["maxrss_kib"] / 1024)
    res.tree_rss_mib = max(res.tree_rss_mib, m["tree_rss_kib"] / 1024)
    findings, tools = job.read_output()
    job.counts.add(findings)
    res.findings, res.tools_reported = findings, tools


def run_interleaved(jobs: list[Job], repeat: int) -> list[Result]:
    """`repeat` rounds, each running every command once in turn: a slow spell of a shared machine
    then slows every row alike instead of the one that happened to be timed during it."""
    for i in range(repeat):
        print(f"round {i + 1}/{repeat}: " + ", ".join(f"{j.res.name} ({j.res.corpus})" for j in jobs), file=sys.stderr)
        for job in jobs:
            run_once(job)
    for job in jobs:
        if len(job.counts) > 1 and not job.res.error:
            job.res.error = f"finding counts differ between runs: {sorted(job.counts)}"
    return [job.res for job in jobs]


# --------------------------------------------------------------------------
# toolschema-lint
# --------------------------------------------------------------------------

def find_toolschema_lint() -> list[str] | None:
    exe = shutil.which("toolschema-lint", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                                 os.environ.get("PATH", "")]))
    if exe:
        return [exe]
    probe = subprocess.run([sys.executable, "-c", "import toolschema_lint.cli"], capture_output=True)
    return [sys.executable, "-m", "toolschema_lint.cli"] if probe.returncode == 0 else None


def warm_bytecode(tsl: list[str], corpus: Path) -> None:
    """One untimed run on one file that may write the package's bytecode (`__pycache__`).

    `pip install` compiles a wheel's modules when it installs them; a checkout installed with
    `pip install -e .` under `PYTHONDONTWRITEBYTECODE=1` never gets them, and every timed run
    would compile the package's sources again (some 70 ms of start-up).
    """
    first = min(corpus.iterdir())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(tsl + ["check", str(first), "--format", "json", "--exit-zero", "-o", os.devnull],
                   env=env, capture_output=True)


def bench_toolschema_lint(base: list[str], corpus: Path, label: str, out: Path,
                          select: str | None = None) -> Job:
    extra = ["--select", select] if select else []
    if select == SPECTRAL_EQUIVALENT:
        name = "toolschema-lint, Spectral's rules"
    else:
        name = f"toolschema-lint --select {select}" if select else "toolschema-lint"
    res = Result(name, label, base + ["check", str(corpus), *extra, "--format", "json", "--exit-zero",
                                      "-o", str(out)])

    def read() -> tuple[int, int | None]:
        data = json.loads(out.read_text(encoding="utf-8"))
        summary = data.get("summary", {})
        return summary.get("findings", len(data.get("findings", []))), summary.get("tools")

    return Job(res, (0,), read)


# --------------------------------------------------------------------------
# Spectral
# --------------------------------------------------------------------------

def find_spectral(install: bool = True) -> list[str] | None:
    """Command prefix for spectral: bench/.node first, then PATH; install into bench/.node if allowed."""
    node = shutil.which("node")
    if not node:
        return None
    local = NODE_PREFIX / "node_modules" / "@stoplight" / "spectral-cli" / "dist" / "index.js"
    if not local.exists():
        on_path = shutil.which("spectral")
        if on_path:
            return [on_path]
        npm = shutil.which("npm")
        if not (install and npm):
            return None
        print(f"installing {SPECTRAL_PKG} into {NODE_PREFIX} ...", file=sys.stderr)
        subprocess.run([npm, "install", "--prefix", str(NODE_PREFIX), SPECTRAL_PKG, "--no-audit", "--no-fund",
                        "--loglevel", "error"], check=True, stdout=sys.stderr)
    return [node, str(local)] if local.exists() else None


def spectral_command(spectral: list[str], pattern: str, out: Path) -> list[str]:
    return spectral + ["lint", pattern, "-r", str(RULESET), "--resolver", str(RESOLVER),
                       "-f", "json", "-o", str(out), "-q"]


def bench_spectral(spectral: list[str], corpus: Path, out: Path) -> Job:
    res = Result("spectral", "json", spectral_command(spectral, f"{corpus}/*.json", out))

    def read() -> tuple[int, None]:
        return len(json.loads(out.read_text(encoding="utf-8"))), None

    # spectral exits 1 when it reports errors: that is a successful lint here.
    return Job(res, (0, 1), read)


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def tool_version(cmd: list[str]) -> str | None:
    """The first version-looking token of ``cmd``'s output ("toolschema-lint, version 0.1.0" -> "0.1.0")."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"v?\d+\.\d+[\w.+-]*", p.stdout or p.stderr or "")
    return m.group(0) if p.returncode == 0 and m else None


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "os": platform.platform()}


def round_ratios(slow: Result, fast: Result) -> str:
    """The wall ratio within each round (both commands timed minutes apart at most): its median
    and range, steadier than the ratio of two bests that may come from different rounds."""
    if not slow.walls or len(slow.walls) != len(fast.walls) or not all(fast.walls):
        return ""
    per_round = sorted(s / f for s, f in zip(slow.walls, fast.walls))
    mid = len(per_round) // 2
    median = per_round[mid] if len(per_round) % 2 else (per_round[mid - 1] + per_round[mid]) / 2
    return f"; per round: median {median:.1f}x (from {per_round[0]:.1f}x to {per_round[-1]:.1f}x)"


def table(results: list[Result], n_tools: int, repeat: int) -> str:
    lines = [f"| tool | corpus | wall s (best of {repeat}) | CPU s | tools/s | peak RSS MiB | all processes MiB "
             "| findings |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if r.best is None or r.error:
            why = f"skipped: {r.skipped}" if r.skipped else f"failed: {(r.error or '').splitlines()[0][:80]}"
            lines.append(f"| {r.name} | {r.corpus} | {why} | | | | | |")
            continue
        lines.append(f"| {r.name} | {r.corpus} | {r.best:.2f} | {r.best_cpu:.2f} | {n_tools / r.best:,.0f} | "
                     f"{r.peak_rss_mib:,.0f} | {r.tree_rss_mib:,.0f} | {r.findings:,} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=gen_corpus.DEFAULT_SEED)
    ap.add_argument("--repeat", type=int, default=3, help="runs per command; the best wall time is reported")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--tsl", type=Path, metavar="EXE",
                    help="toolschema-lint executable to time (default: the one next to this Python, then PATH)")
    ap.add_argument("--tsl-select", metavar="SELECTORS", default=SPECTRAL_EQUIVALENT,
                    help="also time toolschema-lint on the JSON corpus with --select SELECTORS (default: the "
                         "rules the Spectral ruleset mirrors; ALL for every rule; '' for no extra row)")
    ap.add_argument("--no-spectral", action="store_true", help="skip Spectral")
    ap.add_argument("--no-install", action="store_true", help="do not npm-install spectral-cli if missing")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="generate the corpus here and keep it")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still remove the temporary corpus
    work = args.keep or Path(tempfile.mkdtemp(prefix="tsl-bench-"))
    try:
        t0 = time.perf_counter()
        json_dir, yaml_dir = work / "json", work / "yaml"
        for d in (json_dir, yaml_dir):
            if d.exists():
                shutil.rmtree(d)
        gen_corpus.write_corpus(json_dir, args.tools, args.files, args.seed)
        gen_corpus.write_corpus(yaml_dir, args.tools, args.files, args.seed, as_yaml=True)
        mb = sum(p.stat().st_size for p in json_dir.iterdir()) / 1e6
        print(f"corpus: {args.tools} tools in {args.files} files ({mb:.1f} MB JSON), "
              f"generated in {time.perf_counter() - t0:.1f}s under {work}", file=sys.stderr)

        skipped: list[Result] = []
        jobs: list[Job] = []
        versions: dict[str, str | None] = {}
        tsl = [str(args.tsl)] if args.tsl else find_toolschema_lint()
        if tsl is None:
            for label in ("json", "yaml"):
                skipped.append(Result("toolschema-lint", label, [], skipped="toolschema-lint CLI not installed"))
        else:
            versions["toolschema-lint"] = tool_version(tsl + ["--version"])
            warm_bytecode(tsl, json_dir)
            for label, d in (("json", json_dir), ("yaml", yaml_dir)):
                jobs.append(bench_toolschema_lint(tsl, d, label, work / f"tsl-{label}.json"))
            if args.tsl_select:
                jobs.append(bench_toolschema_lint(tsl, json_dir, "json", work / "tsl-select.json", select=args.tsl_select))

        spectral = None if args.no_spectral else find_spectral(install=not args.no_install)
        if spectral is None:
            skipped.append(Result("spectral", "json", [],
                                  skipped="disabled" if args.no_spectral else "node or spectral-cli not available"))
        else:
            versions["spectral"] = tool_version(spectral + ["--version"])
            versions["node"] = tool_version([shutil.which("node") or "node", "--version"])
            jobs.append(bench_spectral(spectral, json_dir, work / "spectral.json"))
        results = run_interleaved(jobs, args.repeat) + skipped

        for r in results:
            if r.tools_reported is not None and r.tools_reported != args.tools:
                print(f"warning: {r.name} ({r.corpus}) counted {r.tools_reported} tools, expected {args.tools}",
                      file=sys.stderr)
            if r.skipped:
                print(f"note: {r.name} ({r.corpus}) skipped: {r.skipped}", file=sys.stderr)
            if r.error:
                print(f"error: {r.name} ({r.corpus}): {r.error}", file=sys.stderr)

        print(table(results, args.tools, args.repeat))
        by = {(r.name, r.corpus): r for r in results}
        ratio = cpu_ratio = None
        tsl_json, spec = by.get(("toolschema-lint", "json")), by.get(("spectral", "json"))
        if tsl_json and spec and tsl_json.best and spec.best:
            ratio = spec.best / tsl_json.best
            cpu_ratio = spec.best_cpu / tsl_json.best_cpu if tsl_json.best_cpu else None
            print(f"\nspeed ratio toolschema-lint / Spectral (JSON): {ratio:.1f}x wall"
                  + (f", {cpu_ratio:.1f}x CPU" if cpu_ratio else "") + round_ratios(spec, tsl_json))
        same = by.get(("toolschema-lint, Spectral's rules", "json"))
        same_ratio = same_cpu_ratio = None
        if same and spec and same.best and spec.best:
            same_ratio, same_cpu_ratio = spec.best / same.best, spec.best_cpu / same.best_cpu
            print(f"speed ratio on the same ten rules: {same_ratio:.1f}x wall, {same_cpu_ratio:.1f}x CPU"
                  + round_ratios(spec, same))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        if load is not None and load > 1.5:
            print(f"\nwarning: load average {load:.1f} on {os.cpu_count()} cores; wall times are inflated, "
                  "CPU seconds less so", file=sys.stderr)
        info = machine_info()
        print(f"\n{args.tools:,} tools, {args.files} files ({mb:.1f} MB JSON); {info['cpu']}, {info['cores']} cores; "
              + ", ".join(f"{k} {v}" for k, v in versions.items() if v))

        if args.json:
            payload = {
                "tools": args.tools, "files": args.files, "seed": args.seed, "repeat": args.repeat,
                "corpus_mb_json": round(mb, 2), "machine": info, "versions": versions,
                "speed_ratio_tsl_over_spectral": ratio, "cpu_ratio_tsl_over_spectral": cpu_ratio,
                "same_rules_ratio": same_ratio, "same_rules_cpu_ratio": same_cpu_ratio,
                "load_average_1min": load,
                "results": [dict(asdict(r), best_wall_s=r.best, best_cpu_s=r.best_cpu,
                                 tools_per_s=(args.tools / r.best if r.best else None)) for r in results],
            }
            args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        return 1 if any(r.error for r in results) else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
