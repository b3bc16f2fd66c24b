"""Baselines: `check --write-baseline FILE` and `check --baseline FILE`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from toolschema_lint import baseline
from toolschema_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SELECT = ("--select", "TSL201,TSL202,TSL401")  # a stable set: later rules do not change the counts
TOOLS = {"tools": [
    {"name": "do_task", "description": "Run the nightly export.", "inputSchema": {"type": "object", "properties": {"day": {"type": "string"}}}},
    {"name": "search_invoices", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}},
    {"name": "get_invoice", "description": "Get one invoice by number.",
     "inputSchema": {"type": "object", "properties": {"number": {"type": "string"}}, "additionalProperties": False}},
]}


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def check_json(*args: str) -> tuple[int, dict]:
    res = invoke("check", "tools.json", *SELECT, "--format", "json", *args)
    return res.exit_code, json.loads(res.stdout)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tools.json").write_text(json.dumps(TOOLS, indent=2))
    return tmp_path


def test_write_then_apply(project) -> None:
    code, doc = check_json()
    assert code == 1 and doc["summary"]["findings"] == 3  # TSL202 do_task, TSL401 do_task, TSL201 search_invoices
    res = invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    assert res.exit_code == 0 and "wrote 3 findings to baseline baseline.json" in res.stderr
    code, doc = check_json("--baseline", "baseline.json")
    assert code == 0
    assert doc["summary"]["findings"] == 0 and doc["summary"]["suppressed"] == 3
    assert doc["summary"]["baseline"] == {"path": "baseline.json", "matched": 3, "new": 0, "stale": 0, "stale_entries": []}
    assert all(f["suppressed"] == "baseline" for f in doc["findings"])  # still in the report


def test_survives_reformatting_and_reordering(project) -> None:
    invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    data = json.loads(Path("tools.json").read_text())
    data["tools"].reverse()
    data["tools"].insert(1, {"name": "ping", "description": "Check the service answers.", "inputSchema": {"type": "object", "additionalProperties": False}})
    Path("tools.json").write_text(json.dumps(data, indent=4, sort_keys=True))
    code, doc = check_json("--baseline", "baseline.json")
    assert code == 0 and doc["summary"]["baseline"]["matched"] == 3
    Path("tools.yaml").write_text(yaml.safe_dump(data))  # another file is another key
    res = invoke("check", "tools.yaml", *SELECT, "--baseline", "baseline.json", "--format", "json")
    assert res.exit_code == 1 and json.loads(res.stdout)["summary"]["baseline"]["new"] == 3


def test_new_findings_fail_and_stale_entries_are_reported(project) -> None:
    invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    data = json.loads(Path("tools.json").read_text())
    data["tools"][1]["description"] = "Search invoices by customer or number."  # fixes the TSL201 finding
    data["tools"][2]["description"] = None  # a new TSL201 finding
    del data["tools"][2]["description"]
    Path("tools.json").write_text(json.dumps(data, indent=2))
    code, doc = check_json("--baseline", "baseline.json")
    assert code == 1
    active = [(f["id"], f["tool"]) for f in doc["findings"] if "suppressed" not in f]
    assert active == [("TSL201", "get_invoice")]
    summary = doc["summary"]["baseline"]
    assert (summary["matched"], summary["new"], summary["stale"]) == (2, 1, 1)
    (stale,) = summary["stale_entries"]
    assert (stale["rule"], stale["path"], stale["tool"]) == ("TSL201", "tools.json", "search_invoices")
    assert stale["pointer"].startswith("#")  # relative to the tool
    res = invoke("check", "tools.json", *SELECT, "--baseline", "baseline.json")
    assert res.exit_code == 1
    assert "baseline baseline.json: 2 matched, 1 new, 1 stale" in res.stderr
    assert "stale: TSL201 tools.json [search_invoices]" in res.stderr


def test_changed_content_is_a_new_finding(project) -> None:
    """The hash covers the offending node: the same problem on changed content is reviewed again."""
    invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    data = json.loads(Path("tools.json").read_text())
    data["tools"][0]["inputSchema"]["properties"] = {"when": {"type": "string"}}  # the open object changed
    Path("tools.json").write_text(json.dumps(data, indent=2))
    code, doc = check_json("--baseline", "baseline.json")
    assert code == 1 and [f["id"] for f in doc["findings"] if "suppressed" not in f] == ["TSL401"]


def test_paths_are_relative_to_the_baseline_file(project, monkeypatch) -> None:
    Path("sub").mkdir()
    invoke("check", "tools.json", *SELECT, "--write-baseline", "sub/baseline.json")
    entries = json.loads(Path("sub/baseline.json").read_text())["findings"]
    assert {e["path"] for e in entries} == {"../tools.json"}
    monkeypatch.chdir(project / "sub")
    res = invoke("check", "../tools.json", *SELECT, "--baseline", "baseline.json")
    assert res.exit_code == 0


def test_sarif_marks_baselined_results_suppressed(project) -> None:
    invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    res = invoke("check", "tools.json", *SELECT, "--baseline", "baseline.json", "--format", "sarif")
    log = json.loads(res.stdout)
    schema = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
    if schema.exists():
        jsonschema.Draft4Validator(json.loads(schema.read_text())).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 3 and all(r["suppressions"] == [{"kind": "external", "justification": "baseline"}] for r in results)


def test_text_and_other_formats_hide_baselined_findings(project) -> None:
    invoke("check", "tools.json", *SELECT, "--write-baseline", "baseline.json")
    for fmt in ("text", "github", "gitlab"):
        res = invoke("check", "tools.json", *SELECT, "--baseline", "baseline.json", "--format", fmt)
        assert res.exit_code == 0 and "TSL2" not in res.stdout, fmt


def test_bad_baseline_files(project) -> None:
    assert invoke("check", "tools.json", "--baseline", "missing.json").exit_code == 2
    Path("x.json").write_text('{"findings": []}')
    res = invoke("check", "tools.json", "--baseline", "x.json")
    assert res.exit_code == 2 and "not a baseline file" in res.stderr
    Path("y.json").write_text(json.dumps({"toolschema-lint-baseline": 1, "findings": [{"rule": 1}]}))
    assert invoke("check", "tools.json", "--baseline", "y.json").exit_code == 2


def test_duplicates_match_one_for_one() -> None:
    from toolschema_lint.model import Finding

    fs = [Finding("TSL201", "m", "a.json", pointer="/tools/0", tool="t", content="h") for _ in range(3)]
    res = baseline.apply(fs, [("TSL201", "a.json", "t", "/tools/0", "h")] * 2 + [("TSL202", "a.json", "t", "/x", "h")], "baseline.json")
    assert (res.matched, res.new, len(res.stale)) == (2, 1, 1)
    assert [f.suppressed for f in fs] == ["baseline", "baseline", None]


def test_a_baseline_run_reads_each_file_once(tmp_path, monkeypatch) -> None:
    """The content hash a baseline keys on is taken while the file is loaded, not by reading it again
    (a cross-server finding, made after every file was let go, may still read its file once more)."""
    import json as _json

    from toolschema_lint import engine
    from toolschema_lint.engine import lint
    from toolschema_lint.settings import Settings, resolve

    for name in ("alpha", "beta", "gamma"):
        (tmp_path / f"{name}.json").write_text(_json.dumps({"tools": [{"name": name, "inputSchema": {"type": "object"}}]}))
    (tmp_path / "y.yaml").write_text("tools:\n  - name: delta\n    inputSchema: {type: object}\n")
    loads: list[str] = []
    real = engine.load_source

    def counted(src, *a, **kw):
        loads.append(src.display)
        return real(src, *a, **kw)

    monkeypatch.setattr(engine, "load_source", counted)
    settings = resolve(Settings(paths=[str(tmp_path)], jobs=1))
    settings.fingerprints = True
    result = lint(settings)
    assert result.findings and all(f.content for f in result.findings)
    assert sorted(loads) == sorted(set(loads)) and len(loads) == 4
