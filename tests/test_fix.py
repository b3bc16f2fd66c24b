"""`check --fix`, `--unsafe-fixes` and `--diff`: findings gone, nothing new, the rest of the file as written."""

from __future__ import annotations

import difflib
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolschema_lint.cli import main
from toolschema_lint.registry import catalog

RULES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
FIXABLE = sorted((rid, p) for rid, m in catalog().items() if m.autofix != "none"
                 for p in (RULES / rid).glob("bad.*") if p.suffix in (".json", ".yaml"))


def _findings(path: Path, select: str | None = None) -> Counter:
    args = ["check", str(path), "--format", "json", "--exit-zero"] + (["--select", select] if select else [])
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    return Counter((f["id"], f["message"]) for f in json.loads(res.stdout)["findings"])


def _fix(path: Path, *extra: str) -> str:
    return CliRunner().invoke(main, ["check", str(path), "--fix", "--exit-zero", *extra], catch_exceptions=False).stderr


def test_every_fixable_rule_has_a_fixture() -> None:
    assert {rid for rid, _p in FIXABLE} == {rid for rid, m in catalog().items() if m.autofix != "none"}


@pytest.mark.parametrize("rid,src", FIXABLE, ids=[f"{r}/{p.name}" for r, p in FIXABLE])
def test_a_fix_removes_the_finding_adds_none_and_a_second_run_changes_nothing(tmp_path, rid: str, src: Path) -> None:
    path = tmp_path / src.name
    shutil.copy(src, path)
    unsafe = ("--unsafe-fixes",) if catalog()[rid].autofix == "unsafe" else ()
    before, before_all = _findings(path, rid), _findings(path)
    _fix(path, "--select", rid, *unsafe)
    after, after_all = _findings(path, rid), _findings(path)
    assert sum(after.values()) < sum(before.values()), f"{rid}: nothing was fixed"
    assert all(k in before for k in after), f"{rid}: a fix left a finding it did not have: {after - before}"
    assert not (after_all - before_all), f"{rid}: the fix brought new findings: {after_all - before_all}"
    text = path.read_text(encoding="utf-8")
    _fix(path, "--select", rid, *unsafe)
    assert path.read_text(encoding="utf-8") == text, f"{rid}: a second --fix changed the file"
    original = src.read_text(encoding="utf-8").splitlines()
    changed = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in
                  difflib.SequenceMatcher(None, original, text.splitlines()).get_opcodes() if tag != "equal")
    assert changed <= 4 * sum(before.values()), f"{rid}: the fix rewrote more than the lines it touched"


def test_yaml_comments_quoting_and_untouched_lines_stay_as_written(tmp_path) -> None:
    src = """# billing tools, reviewed 2026-05
tools:
  - name: send_invoice   # the only writer
    description: 'Email an invoice to the customer on file.'
    inputSchema:
      type: object
      properties:
        invoice_id:
          type: str      # was a Python type
        amount: {type: number, minimum: 0}
      required: [invoice_id, invoice_id]
"""
    path = tmp_path / "tools.yaml"
    path.write_text(src, encoding="utf-8")
    _fix(path, "--select", "TSL108,TSL121")
    got = path.read_text(encoding="utf-8")
    assert got == src.replace("type: str      #", "type: string   #").replace("[invoice_id, invoice_id]", "[invoice_id]")


def test_json_keeps_indentation_key_order_and_line_endings(tmp_path) -> None:
    data = {"tools": [{"name": "t", "description": "Does t. Not u.", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "int"}}, "required": ["a", "a"]}}]}
    src = json.dumps(data, indent=4).replace("\n", "\r\n") + "\r\n"
    path = tmp_path / "t.json"
    path.write_bytes(src.encode())
    _fix(path, "--select", "TSL108,TSL121")
    got = path.read_bytes().decode()
    expected = json.loads(src)
    expected["tools"][0]["inputSchema"]["properties"]["a"]["type"] = "integer"
    expected["tools"][0]["inputSchema"]["required"] = ["a"]
    assert json.loads(got) == expected
    assert got.count("\r\n") == got.count("\n") and '\r\n                "properties": {' in got  # 4-space indent kept
    assert list(json.loads(got)["tools"][0]) == ["name", "description", "inputSchema"]


def test_a_file_with_parse_errors_is_never_touched_and_diff_writes_nothing(tmp_path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [{"name": "t", "inputSchema": {"type": "str"}}', encoding="utf-8")
    before = broken.read_bytes()
    _fix(broken)
    assert broken.read_bytes() == before
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "str"}}}}]}, indent=2), encoding="utf-8")
    before = ok.read_bytes()
    res = CliRunner().invoke(main, ["check", str(ok), "--diff", "--select", "TSL121"], catch_exceptions=False)
    assert res.exit_code == 1 and '-            "type": "str"' in res.stdout and '+            "type": "string"' in res.stdout
    assert ok.read_bytes() == before


def test_the_catalog_says_which_rules_fix_what() -> None:
    res = CliRunner().invoke(main, ["rules", "--format", "json"])
    by_id = {r["id"]: r["autofix"] for r in json.loads(res.stdout)}
    assert by_id["TSL108"] == "safe" and by_id["TSL401"] == "unsafe" and by_id["TSL501"] == "none"
    assert "Autofix: safe (check --fix)" in CliRunner().invoke(main, ["rule", "TSL121"]).stdout


def test_sarif_results_carry_the_fix_as_a_replacement(tmp_path) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    path = tmp_path / "t.yaml"
    path.write_text("tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n"
                    "        a: {type: str}\n      required: [a, a]\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["check", str(path), "--select", "TSL108,TSL121,TSL501", "--format", "sarif"])
    log = json.loads(res.stdout)
    jsonschema.validate(log, schema)
    fixes = {r["ruleId"]: r["fixes"][0]["artifactChanges"][0]["replacements"][0] for r in log["runs"][0]["results"]}
    assert fixes["TSL121"]["deletedRegion"]["startLine"] == 6
    assert fixes["TSL121"]["insertedContent"]["text"] == "        a: {type: string}\n"
    assert fixes["TSL108"]["insertedContent"]["text"] == "      required: [a]\n"


def test_every_rule_declares_whether_it_can_be_fixed() -> None:
    import yaml

    for path in sorted((Path(__file__).resolve().parent.parent / "rules").glob("TSL*.yaml")):
        assert yaml.safe_load(path.read_text(encoding="utf-8")).get("autofix") in ("safe", "unsafe", "none"), path.name
