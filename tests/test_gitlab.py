"""`--format gitlab`: the GitLab code quality report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolschema_lint.cli import main
from toolschema_lint.model import Finding, Severity
from toolschema_lint.reporters import REPORTERS
from toolschema_lint.reporters.gitlab import severity

ROOT = Path(__file__).resolve().parent.parent
# The fields GitLab requires of each issue (docs: "Code Quality report format").
ISSUE_SCHEMA = {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "check_name": {"type": "string", "minLength": 1},
        "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {
            "type": "object",
            "required": ["path", "lines"],
            "properties": {"path": {"type": "string"}, "lines": {"type": "object", "required": ["begin"],
                                                                  "properties": {"begin": {"type": "integer", "minimum": 1}}}},
        },
    },
}
TOOLS = {"tools": [
    {"name": "execute", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}},
    {"name": "get_weather", "description": "Get the weather for one city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "additionalProperties": False}},
]}


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tools").mkdir()
    Path("tools/server.json").write_text(json.dumps(TOOLS, indent=2))
    return tmp_path


def test_registered_as_a_format() -> None:
    assert "gitlab" in REPORTERS


def test_report_shape(project) -> None:
    import jsonschema

    res = invoke("check", "tools", "--select", "TSL103,TSL201,TSL202", "--format", "gitlab")
    assert res.exit_code == 1
    issues = json.loads(res.stdout)
    assert isinstance(issues, list) and len(issues) == 3
    for issue in issues:
        jsonschema.validate(issue, ISSUE_SCHEMA)
        assert issue["location"]["path"] == "tools/server.json"
    by_rule = {i["check_name"].split()[0]: i for i in issues}
    assert by_rule["TSL103"]["severity"] == "major"  # error
    assert by_rule["TSL201"]["severity"] == "minor"  # warning
    assert by_rule["TSL201"]["check_name"] == "TSL201 missing-tool-description"
    assert "execute" in by_rule["TSL201"]["description"]
    lines = Path("tools/server.json").read_text().splitlines()
    assert '"b"' in lines[by_rule["TSL103"]["location"]["lines"]["begin"] - 1]  # the unknown required name
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_fingerprints_are_stable_across_reformatting(project) -> None:
    first = json.loads(invoke("check", "tools", "--select", "TSL201,TSL202", "--format", "gitlab").stdout)
    Path("tools/server.json").write_text(json.dumps(TOOLS, separators=(",", ":")))
    second = json.loads(invoke("check", "tools", "--select", "TSL201,TSL202", "--format", "gitlab").stdout)
    assert sorted(i["fingerprint"] for i in first) == sorted(i["fingerprint"] for i in second)
    assert {i["location"]["lines"]["begin"] for i in second} == {1}


def test_fingerprints_survive_a_reworded_message(project) -> None:
    # TSL570 counts the other servers offering the name: a third server rewords the first finding
    search = {"name": "search", "description": "Search the index.", "inputSchema": {"type": "object"}}
    for name in ("a", "b"):
        Path(f"tools/{name}.json").write_text(json.dumps({"tools": [search]}))
    before = json.loads(invoke("check", "tools/a.json", "tools/b.json", "--select", "TSL570", "--format", "gitlab").stdout)
    Path("tools/c.json").write_text(json.dumps({"tools": [search]}))
    after = json.loads(invoke("check", "tools/a.json", "tools/b.json", "tools/c.json", "--select", "TSL570",
                              "--format", "gitlab").stdout)
    first_before = next(i for i in before if i["location"]["path"] == "tools/a.json")
    first_after = next(i for i in after if i["location"]["path"] == "tools/a.json")
    assert first_before["description"] != first_after["description"]
    assert "1 more server" in first_after["description"]
    assert first_before["fingerprint"] == first_after["fingerprint"]


def test_fingerprints_are_the_sarif_ones(project) -> None:
    # two problems on one node (TSL701: one per validation error) get two fingerprints, as in SARIF
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}
    tool = {"name": "search", "description": "Search.", "inputSchema": schema, "input_examples": [{"page": 2}]}
    Path("tools/ex.json").write_text(json.dumps({"tools": [tool]}))
    args = ("check", "tools", "--select", "TSL103,TSL201,TSL202,TSL701")
    issues = json.loads(invoke(*args, "--format", "gitlab").stdout)
    sarif = json.loads(invoke(*args, "--format", "sarif").stdout)["runs"][0]["results"]
    prints = [i["fingerprint"] for i in issues]
    assert sorted(prints) == sorted(r["partialFingerprints"]["toolschemaLint/v1"] for r in sarif)
    assert len(set(prints)) == len(prints) == 5
    assert sum(i["check_name"].startswith("TSL701") for i in issues) == 2


def test_a_baselined_finding_keeps_its_number_for_the_next_one(project) -> None:
    # two TSL701 problems on one node, the first baselined: the second keeps SARIF's number 1
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}
    tool = {"name": "search", "description": "Search.", "inputSchema": schema, "input_examples": [{"page": 2}]}
    Path("tools/ex.json").write_text(json.dumps({"tools": [tool]}))
    args = ("check", "tools/ex.json", "--select", "TSL701")
    invoke(*args, "--write-baseline", "b.json")
    doc = json.loads(Path("b.json").read_text())
    doc["findings"] = doc["findings"][:1]  # identical keys: it matches the first finding in report order
    Path("b.json").write_text(json.dumps(doc))
    issues = json.loads(invoke(*args, "--baseline", "b.json", "--format", "gitlab").stdout)
    results = json.loads(invoke(*args, "--baseline", "b.json", "--format", "sarif").stdout)["runs"][0]["results"]
    assert [("suppressions" in r) for r in results] == [True, False] and len(issues) == 1
    assert issues[0]["fingerprint"] == results[1]["partialFingerprints"]["toolschemaLint/v1"]
    assert issues[0]["fingerprint"] != results[0]["partialFingerprints"]["toolschemaLint/v1"]


def test_clean_run_is_an_empty_array(project) -> None:
    res = invoke("check", "tools", "--select", "TSL103", "--ignore", "TSL103", "--format", "gitlab", "-o", "gl.json")
    assert res.exit_code == 0 and json.loads(Path("gl.json").read_text()) == []


def test_security_errors_rank_higher() -> None:
    f = Finding("TSL999", "m", "x.json", severity=Severity.ERROR)
    assert severity(f, None) == "major"
    assert severity(f, 7.5) == "critical"
    assert severity(f, 9.0) == "blocker"
    assert severity(Finding("TSL999", "m", "x.json", severity=Severity.WARNING), 9.5) == "minor"
    assert severity(Finding("TSL999", "m", "x.json", severity=Severity.INFO), None) == "info"
