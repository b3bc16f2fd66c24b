"""Reporters: SARIF valid against the official schema, the JSON contract, safe text output."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from helpers import run_rules
from toolschema_lint.reporters import REPORTERS
from toolschema_lint.settings import Settings, resolve

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "fixtures" / "report"
SARIF_SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def result(monkeypatch):
    monkeypatch.chdir(ROOT)
    return run_rules(["fixtures/report"], select=None)


def _settings(**kw):
    return resolve(Settings(**kw))


def test_json_streamed_matches_one_shot_encoding(result) -> None:
    """The JSON report is written in chunks, yet it is exactly what one `dumps_safe(indent=2)` gives."""
    from dataclasses import replace

    from toolschema_lint.reporters.json_ import finding_dict
    from toolschema_lint.text import dumps_safe

    hostile = replace(result.findings[0], message='q"\\ \u202e\u200b\x1b[31m é \U0001f600 \ttab', tool=None, tags=())
    quiet = replace(result.findings[1], suppressed="baseline \u2066x")
    result.findings[:2] = [hostile, quiet]
    chunks = list(REPORTERS["json"](result, _settings()))
    text = "".join(chunks)
    assert text == dumps_safe(json.loads(text), indent=2) + "\n"
    # the findings are `finding_dict`'s, key order included (diff and baselines use that function)
    assert [list(d.items()) for d in json.loads(text)["findings"]] == [list(finding_dict(f).items()) for f in result.findings]
    assert "\\u202e" in text and "\u202e" not in text  # invisible characters stay escaped
    finding = json.loads(text)["findings"][0]
    assert finding["message"].startswith('q"\\ \u202e') and finding["tool"] is None and finding["tags"] == []
    assert json.loads(text)["findings"][1]["suppressed"] == "baseline \u2066x"
    result.findings[:] = []
    empty = "".join(REPORTERS["json"](result, _settings()))
    assert json.loads(empty)["findings"] == [] and empty == dumps_safe(json.loads(empty), indent=2) + "\n"


def test_sarif_validates_against_official_schema(result) -> None:
    log = json.loads(REPORTERS["sarif"](result, _settings()))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert run["results"], "the fixture has findings"
    for res in run["results"]:
        assert res["ruleId"] in rule_ids
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith("/")
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"]["startLine"] >= 1
        assert res["partialFingerprints"]["toolschemaLint/v1"]
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert len(rule["shortDescription"]["text"]) <= 1024
    assert run["columnKind"] == "unicodeCodePoints"
    # a path with a space is URI-encoded
    assert any("dir%20with%20space.yaml" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"])


def test_sarif_fingerprints_are_stable_when_lines_shift(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = {"tools": [{"name": "execute", "inputSchema": {"type": "object"}}]}
    Path("t.json").write_text(json.dumps(data))
    a = json.loads(REPORTERS["sarif"](run_rules(["t.json"]), _settings()))
    Path("t.json").write_text("\n\n\n" + json.dumps(data, indent=4))
    b = json.loads(REPORTERS["sarif"](run_rules(["t.json"]), _settings()))
    fa = sorted(r["partialFingerprints"]["toolschemaLint/v1"] for r in a["runs"][0]["results"])
    fb = sorted(r["partialFingerprints"]["toolschemaLint/v1"] for r in b["runs"][0]["results"])
    assert fa == fb
    assert a["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] != \
        b["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]


def test_sarif_fingerprints_are_unique_when_a_node_has_several_problems(tmp_path, monkeypatch) -> None:
    # TSL701 reports each validation error of an example: two here, on the same node
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}
    tool = {"name": "search", "description": "Search.", "inputSchema": schema, "input_examples": [{"page": 2}]}
    Path("t.json").write_text(json.dumps({"tools": [tool]}))
    log = json.loads(REPORTERS["sarif"](run_rules(["t.json"], select=["TSL701"]), _settings()))
    results = log["runs"][0]["results"]
    pointers = {r["properties"]["pointer"] for r in results}
    prints = [r["partialFingerprints"]["toolschemaLint/v1"] for r in results]
    assert len(results) == 2 and len(pointers) == 1 and len(set(prints)) == 2
    again = json.loads(REPORTERS["sarif"](run_rules(["t.json"], select=["TSL701"]), _settings()))
    assert [r["partialFingerprints"]["toolschemaLint/v1"] for r in again["runs"][0]["results"]] == prints
    # the first result on a node keeps the fingerprint it had before numbering existed
    import hashlib
    first = run_rules(["t.json"], select=["TSL701"]).findings[0]
    key = "\x1f".join(("TSL701", "t.json", first.pointer, "search"))
    assert prints[0] == hashlib.sha256(key.encode()).hexdigest()[:32]


def test_json_contract(result) -> None:
    out = json.loads("".join(REPORTERS["json"](result, _settings())))
    assert set(out) >= {"version", "findings", "summary"}
    assert set(out["summary"]) >= {"files", "tools", "findings", "by_severity"}
    assert out["summary"]["tools"] == 3
    assert out["summary"]["files"] == 2
    keys = {"id", "name", "severity", "message", "path", "line", "column", "end_line", "end_column", "pointer", "tool", "tags"}
    for f in out["findings"]:
        assert keys <= set(f)
        assert f["severity"] in ("error", "warning", "info")
    assert out["summary"]["findings"] == len(out["findings"])
    ordered = [(f["path"], f["line"], f["column"], f["id"]) for f in out["findings"]]
    assert ordered == sorted(ordered)


def test_text_output_is_inert(result) -> None:
    text = REPORTERS["text"](result, _settings(color=False))
    assert "\x1b" not in text and "\u200b" not in text
    # the input's text reaches the output as visible escapes
    hostile = run_rules([str(REPORT / "multi.json")], select=["TSL201"])
    assert "Found" in REPORTERS["text"](hostile, _settings(color=False))


def test_text_with_colour_does_not_render_input_markup(tmp_path) -> None:
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"tools": [{"name": "[bold red]x[/bold red]\u001b[2J", "inputSchema": {"type": "object"}}]}))
    out = REPORTERS["text"](run_rules([p], select=["TSL201"]), _settings(color=True))
    assert "[bold red]x[/bold red]" in out  # printed literally, not interpreted
    assert "\x1b[2J" not in out  # the input's escape is neutralised
    assert "\\x1b[2J" in out


def test_github_annotations(result) -> None:
    out = REPORTERS["github"](result, _settings())
    lines = out.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert all("\x1b" not in line for line in lines)


def test_quiet_and_clean_output(tmp_path) -> None:
    p = tmp_path / "ok.json"
    p.write_text(json.dumps({"tools": [{"name": "get_weather", "description": "Get the weather for one city today.", "inputSchema": {"type": "object", "additionalProperties": False}}]}))
    res = run_rules([p], select=["TSL201"])
    assert REPORTERS["text"](res, _settings(quiet=True)) == ""
    assert "All checks passed" in REPORTERS["text"](res, _settings())


def test_escape_invisible_leaves_ascii_alone_and_escapes_the_rest() -> None:
    """ASCII text is returned without a scan: that holds only while no escaped character is ASCII."""
    from toolschema_lint.text import _INVISIBLE, escape_invisible

    assert not any(_INVISIBLE.match(chr(cp)) for cp in range(128))
    ascii_text = "".join(map(chr, range(128)))
    assert escape_invisible(ascii_text) is ascii_text
    assert escape_invisible('"a\u200bb\u202e \U000e0041 é"') == '"a\\u200bb\\u202e \\udb40\\udc41 é"'
