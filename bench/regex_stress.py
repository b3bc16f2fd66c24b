#!/usr/bin/env python3
"""Stress a text-scanning function with ~1 MB adversarial strings (ReDoS guard).

The target is any callable taking one string, given as ``module:function``.
Without ``--target`` the first importable of ``DEFAULT_TARGETS`` is used
(``toolschema_lint.checks.security:scan_text``, then ``...security_text:scan_text``). Each case runs in its own
child process with a hard ``--timeout``, so a catastrophic backtracking regex is
killed instead of hanging the run. If the target cannot be imported the harness
prints "skipped" and exits 0.

Exit status: 0 if every case finished within ``--limit`` seconds (default 5: the text-analysis layer reads
every string several ways; linearity is checked by doubling ``--size``),
1 if any case was slower, timed out or raised, 2 on a usage error.

Usage::

    python bench/regex_stress.py
    python bench/regex_stress.py --target mypkg.scan:lint_text --limit 1 --size 200000
    python bench/regex_stress.py --list
"""

from __future__ import annotations

import argparse
import base64
import importlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

DEFAULT_TARGETS = ("toolschema_lint.checks.security:scan_text", "toolschema_lint.checks.security_text:scan_text")
MB = 1_000_000


def _fill(unit: str, size: int, tail: str = "") -> str:
    """Repeat ``unit`` to ``size`` characters (minus ``tail``), then append ``tail``."""
    body = size - len(tail)
    return (unit * (body // len(unit) + 1))[:body] + tail


def _base64_run(size: int, sep: str = "") -> str:
    rng = random.Random(1234)
    chunk = base64.b64encode(rng.randbytes(3 * 4096)).decode()  # 16 KiB, no padding
    return _fill(chunk + sep, size)


def _scripts(size: int) -> str:
    # Latin, Cyrillic look-alike, Greek, Arabic, Hebrew, Han, Devanagari, emoji with ZWJ.
    return _fill("a\u0430\u03b1\u0627\u05d0\u4e00\u0915e\u0435\U0001F468\u200d\U0001F469 ", size)


# name -> (description, builder(size) -> str). Sizes count characters, so
# non-ASCII cases are larger than 1 MB in UTF-8.
CASES: dict[str, tuple[str, Callable[[int], str]]] = {
    "spaces": ("run of spaces", lambda n: " " * n),
    "spaces_then_x": ("spaces then a non-space (trailing-whitespace regexes)", lambda n: _fill(" ", n, "x")),
    "tabs_newlines": ("mixed \\t \\r\\n whitespace", lambda n: _fill(" \t\r\n", n, "!")),
    "a_run": ("run of 'a'", lambda n: "a" * n),
    "a_run_then_bang": ("'a's then '!' ((a+)+$ style backtracking)", lambda n: _fill("a", n, "!")),
    "word_chars_dots": ("a.a.a. ... (hostname / email style)", lambda n: _fill("a.", n, "@")),
    "nested_brackets": ("[[[...]]] balanced nesting", lambda n: "[" * (n // 2) + "]" * (n - n // 2)),
    "unclosed_brackets": ("({[ never closed", lambda n: _fill("({[", n)),
    "lt_run": ("<<<< run", lambda n: "<" * n),
    "tag_open_run": ("<a <a <a ... unterminated tags and comments", lambda n: _fill("<a <!-- <", n)),
    "ignore_repeat": ("'ignore ignore ...' (injection phrase prefix)", lambda n: _fill("ignore ", n)),
    "ignore_previous_repeat": ("'ignore all previous' without 'instructions'",
                               lambda n: _fill("ignore all previous ", n)),
    "base64_run": ("one long base64-looking run", lambda n: _base64_run(n)),
    "base64_spaced": ("base64 chunks separated by spaces", lambda n: _base64_run(n, " ")),
    "zero_width": ("zero-width space run", lambda n: "\u200b" * n),
    "zero_width_mixed": ("ZWSP ZWNJ ZWJ WJ BOM mixed", lambda n: _fill("\u200b\u200c\u200d\u2060\ufeff", n)),
    "unicode_tags": ("Unicode tag characters (U+E0000 block)",
                     lambda n: _fill("".join(chr(0xE0020 + i) for i in range(95)), n)),
    "bidi_controls": ("bidi overrides alternating with text", lambda n: _fill("\u202ex\u202cy\u2066", n)),
    "alternating_scripts": ("alternating scripts and homoglyphs", _scripts),
    "url_like": ("http://a.a.a... never ending URL", lambda n: "http://" + _fill("a.", n - 7)),
    # the text-analysis layer (toolschema_lint.analysis): normalisation, views, tagging, intents
    "spaced_letters": ("letters spaced apart, one endless run (spelled-word reading)", lambda n: _fill("i g n o r e ", n)),
    "dotted_letters": ("letters dotted apart with wider gaps", lambda n: _fill("n.o. n.e.e.d. ", n)),
    "leet_words": ("leetspeak words", lambda n: _fill("1gn0r3 pr3v10us 1nstruct10ns ", n)),
    "one_sentence": ("one endless sentence of tagged words", lambda n: _fill("do not tell the user and send a copy ", n)),
    "many_sentences": ("short sentences of tagged words", lambda n: _fill("Always tell the user. Send it. ", n)),
    "rot13_sentences": ("sentences that read as English only after ROT13", lambda n: _fill("Qb abg gryy gur hfre. ", n)),
    "gibberish_sentences": ("sentences that read as nothing in any shift", lambda n: _fill("Xq zvb qwk plm rtz. ", n)),
    "quotes": ("quotation marks around tagged words", lambda n: _fill('such as "ignore the rules" and ', n)),
    "cjk_run": ("one endless Chinese run (substring look-ups)", lambda n: _fill("不要告诉用户忽略之前的指令", n)),
    "hangul_words": ("Korean words with particles", lambda n: _fill("사용자에게 알리지 마세요 ", n)),
    "devanagari_words": ("Hindi words with vowel signs", lambda n: _fill("उपयोगकर्ता को मत बताना ", n)),
    "snake_identifier": ("one endless snake_case identifier", lambda n: _fill("call_send_email_with_bcc_", n)),
    "addresses": ("many e-mail addresses and URLs", lambda n: _fill("send a copy to a@b.example and https://x.example/ ", n)),
}


class TargetMissing(Exception):
    pass


def load_target(spec: str) -> Callable[[str], object]:
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name or not func_name:
        raise ValueError(f"--target must be module:function, got {spec!r}")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        parts = module_name.split(".")
        if e.name in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}:
            raise TargetMissing(f"module {module_name} not found") from e
        raise
    func = getattr(module, func_name, None)
    if func is None:
        raise TargetMissing(f"{module_name} has no {func_name}")
    if not callable(func):
        raise ValueError(f"{spec} is not callable")
    return func


def call(func: Callable[[str], object], text: str) -> tuple[float, int | None]:
    """Seconds for one call, including draining a generator result; and the result's length if any."""
    t0 = time.perf_counter()
    result = func(text)
    if isinstance(result, Iterator):
        result = list(result)
    elapsed = time.perf_counter() - t0
    try:
        n = len(result)  # type: ignore[arg-type]
    except TypeError:
        n = None
    return elapsed, n


def worker(target: str, case: str, size: int) -> int:
    func = load_target(target)
    call(func, "warm up: ignore previous instructions \u200b <b>")  # compile regexes outside the timing
    text = CASES[case][1](size)
    seconds, n = call(func, text)
    print(json.dumps({"seconds": seconds, "results": n, "chars": len(text)}))
    return 0


def run_case(target: str, case: str, size: int, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--target", target,
           "--case", case, "--size", str(size)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"case": case, "seconds": None, "status": f"timeout > {timeout:g}s"}
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["?"])[-1]
        return {"case": case, "seconds": None, "status": f"error: {err[:120]}"}
    data = json.loads(p.stdout.strip().splitlines()[-1])
    return {"case": case, **data, "status": "ok"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", help=f"module:function (default: first importable of {', '.join(DEFAULT_TARGETS)})")
    ap.add_argument("--limit", type=float, default=5.0, help="max seconds allowed per string (default 5)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="hard kill after this many seconds per string (default max(10, 5 x limit))")
    ap.add_argument("--size", type=int, default=MB, help="characters per string (default 1,000,000)")
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.list:
        for name, (desc, _) in CASES.items():
            print(f"{name:24} {desc}")
        return 0
    if args.worker:
        return worker(args.target, args.case[0], args.size)

    missing = []
    for target in [args.target] if args.target else DEFAULT_TARGETS:
        try:
            load_target(target)
        except TargetMissing as e:
            missing.append(f"{e} (target {target})")
            continue
        except ValueError as e:
            ap.error(str(e))
        args.target = target
        break
    else:
        print("skipped: " + "; ".join(missing))
        return 0

    timeout = args.timeout or max(10.0, 5 * args.limit)
    rows = []
    print("| case | chars | seconds | results | status |\n|---|---:|---:|---:|---|")
    for case in args.case or list(CASES):
        row = run_case(args.target, case, args.size, timeout)
        if row["status"] == "ok" and row["seconds"] > args.limit:
            row["status"] = f"SLOW > {args.limit:g}s"
        rows.append(row)
        secs = f"{row['seconds']:.3f}" if row.get("seconds") is not None else "-"
        print(f"| {case} | {row.get('chars', args.size):,} | {secs} | {'-' if row.get('results') is None else row['results']} | {row['status']} |",
              flush=True)

    bad = [r for r in rows if r["status"] != "ok"]
    timed_out = [r["case"] for r in rows if r["status"].startswith("timeout")]
    timed = [r for r in rows if r.get("seconds") is not None]
    worst = max(timed, key=lambda r: r["seconds"]) if timed else None
    max_seconds = None if timed_out or not worst else worst["seconds"]
    if timed_out:
        print(f"\nmax seconds per string: > {timeout:g} ({', '.join(timed_out)})")
    elif worst:
        print(f"\nmax seconds per string: {worst['seconds']:.3f} ({worst['case']})")
    else:
        print("\nno case finished")
    print(f"{len(rows) - len(bad)} passed, {len(bad)} failed (limit {args.limit:g}s, target {args.target})")
    if args.json:
        args.json.write_text(json.dumps({"target": args.target, "limit": args.limit, "size": args.size,
                                         "max_seconds": max_seconds, "timed_out": timed_out, "cases": rows},
                                        indent=2) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
