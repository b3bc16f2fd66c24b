"""Bad input is normal input: every malformed file gives a located finding, never a traceback,
and the other files of the same run are still linted."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

GOOD_TOOL = {"name": "get_weather", "description": "Get the current weather for one city. Not for forecasts.",
             "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}}


def _deep(levels: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return node


def _bomb() -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\ntools:\n  - name: bomb\n    description: *a9\n    inputSchema: {type: object}\n"


CASES: dict[str, tuple[bytes, str]] = {
    "truncated.json": (b'{"tools": [{"name": "a", "inputSchema": {"type": "obj', "TSL001"),
    "garbage.json": (b"\x00\x01\x02not json at all", "TSL001"),
    "broken.yaml": (b"tools:\n  - name: a\n   bad: [unclosed\n", "TSL001"),
    "dupkey.json": (b'{"tools": [{"name": "a", "name": "b", "inputSchema": {"type": "object"}}]}', "TSL002"),
    "notools.json": (b'{"compilerOptions": {"strict": true}}', "TSL003"),
    "latin1.json": ('{"tools": [{"name": "café"}]}'.encode("latin-1"), "TSL005"),
    "deep.json": (json.dumps({"tools": [{"name": "d", "inputSchema": {"type": "object", "properties": {"x": _deep(200)}}}]}).encode(), "TSL008"),
    "very-deep.json": (b"[" * 100_000 + b"]" * 100_000, "TSL008"),
    "deep.yaml": (b"tools:\n  - name: d\n    inputSchema: " + b"[" * 5000 + b"]" * 5000 + b"\n", "TSL008"),
    "bomb.yaml": (_bomb().encode(), "TSL009"),
    "recursive.yaml": (b"tools: &t\n  - name: loop\n    self: *t\n", "TSL009"),
    "big.json": (json.dumps({"tools": [dict(GOOD_TOOL, name=f"tool_{i}", description="x" * 1000) for i in range(5000)]}).encode(), "TSL007"),
    "refcycle.json": (json.dumps({"tools": [{"name": "c", "description": "Cycle.", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
                                  "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}}]}).encode(), "TSL011"),
    "utf16.json": (json.dumps({"tools": [GOOD_TOOL]}).encode("utf-16"), "TSL010"),
    "jsonc.json": (b'{"tools": [ // comment\n' + json.dumps(GOOD_TOOL).encode() + b",\n]}", "TSL006"),
    "hostile.json": (json.dumps({"tools": [{"name": "\x1b[31m[bold]x\u202e", "inputSchema": {"type": "object"}}]}).encode(), "TSL201"),
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    for name, (content, _) in CASES.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "zz-good.json").write_text(json.dumps({"tools": [dict(GOOD_TOOL, name="execute")]}))
    return tmp_path


def test_every_bad_input_is_a_located_finding_and_the_run_goes_on(corpus: Path) -> None:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "toolschema_lint", "check", str(corpus), "--format", "json", "--select", "ALL"],
        capture_output=True, text=True, timeout=120,
    )
    elapsed = time.perf_counter() - start
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    by_file: dict[str, set[str]] = {}
    for f in out["findings"]:
        by_file.setdefault(Path(f["path"]).name, set()).add(f["id"])
        assert f["line"] >= 1 and f["column"] >= 1
    for name, (_, rule) in CASES.items():
        if rule == "TSL003":  # found while walking the folder: skipped quietly (named on the command line: TSL003)
            assert name not in by_file, by_file.get(name)
            continue
        assert rule in by_file.get(name, set()), f"{name}: expected {rule}, got {by_file.get(name)}"
    # the good file after all the bad ones was still linted
    assert "TSL202" in by_file["zz-good.json"]
    quiet = sum(1 for _, rule in CASES.values() if rule == "TSL003")
    assert out["summary"]["files"] == len(CASES) + 1 - quiet
    assert elapsed < 60


def test_hostile_text_is_escaped_in_every_format(corpus: Path) -> None:
    for fmt in ("text", "github", "sarif", "json"):
        proc = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", str(corpus / "hostile.json"), "--format", fmt,
                               "--select", "TSL201"], capture_output=True, text=True)
        assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout, fmt


def test_unreadable_path_is_exit_2_and_others_still_checked(corpus: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", str(corpus / "nope.json"), str(corpus / "zz-good.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "nope.json" in proc.stderr and "Traceback" not in proc.stderr
    # the readable file was still linted and reported
    proc = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", str(corpus / "nope.json"), str(corpus / "zz-good.json"),
                           "--format", "json"], capture_output=True, text=True)
    out = json.loads(proc.stdout)
    assert proc.returncode == 2
    assert out["summary"]["files"] == 1 and any(f["id"] == "TSL202" for f in out["findings"])
    assert out["errors"] == [f"{corpus / 'nope.json'}: no such file or directory"]


def test_jsonc_stripping_is_linear_on_unclosed_comments() -> None:
    """Comments and trailing commas are blanked in two linear passes: an unclosed `/*` after many
    commas (`,/*,/*...`) once took quadratic time, minutes on a few hundred kilobytes."""
    import time

    from toolschema_lint.loaders.json_ import strip_jsonc

    for hostile in ("[" + ",/*" * 100_000, "[" + ", //x\n" * 50_000 + "/*", "[" + '"a",' * 100_000 + "/*"):
        started = time.perf_counter()
        strip_jsonc(hostile)
        assert time.perf_counter() - started < 5, hostile[:20]
    assert strip_jsonc('{"a": 1 /* open') is None  # an unclosed comment is left for the parser to report


def test_depth_limit_found_level_by_level_points_where_a_full_walk_does() -> None:
    """`too_deep` counts levels without paths; the pointer it reports is the first deep node's."""
    import random

    from toolschema_lint.loaders import MAX_DEPTH, too_deep
    from toolschema_lint.model import join_pointer

    def reference(node, limit, depth=0, tokens=()):
        if depth > limit:
            return join_pointer("", *tokens)
        kids = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        found = [reference(v, limit, depth + 1, (*tokens, k)) for k, v in kids if isinstance(v, (dict, list))]
        return next((f for f in reversed(found) if f is not None), None)  # the walk pops the last child first

    rng = random.Random(5)

    def nested(levels):
        node = rng.choice([{}, [], {"k": 1}, [1, "x"]])
        for _ in range(levels):
            node = {"a": 1, "b~/": node, "c": []} if rng.random() < 0.5 else [None, node, {}]
        return node

    for levels in (0, 1, 5, 9, 10, 11, 12, 30):
        data = {"tools": [nested(levels), nested(rng.randint(0, 12))]}
        assert too_deep(data, 10) == reference(data, 10), levels
    shared = nested(8)  # one node under two parents, as a YAML alias makes it
    assert too_deep([shared, {"x": shared}], 8) == reference([shared, {"x": shared}], 8) is not None
    assert too_deep(_deep(MAX_DEPTH + 5), MAX_DEPTH) is not None and too_deep(_deep(MAX_DEPTH - 5), MAX_DEPTH) is None
    assert too_deep("scalar", 0) is None and too_deep([], 0) is None and too_deep([[]], 0) == "/0"

