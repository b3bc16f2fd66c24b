"""Compatibility profiles (`--target`, config `target`) and the TSL3xx rules that read them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolschema_lint.cli import main
from toolschema_lint.profiles import names, profiles

# an MCP tool every profile has something to say about: a dotted name, an optional parameter, an open object,
# `oneOf` in a property, an `execution` field
TOOL = {"name": "files.search", "description": "Search files by name and return matching paths. Not for file contents.",
        "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string", "description": "Name words"},
            "limit": {"oneOf": [{"type": "integer"}, {"type": "null"}], "description": "How many"}},
            "required": ["query"]},
        "execution": {"taskSupport": "optional"}}


@pytest.fixture
def tool_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tools.json").write_text(json.dumps({"tools": [TOOL]}, indent=2))
    return tmp_path


def run(*args: str) -> tuple[int, list[dict]]:
    res = CliRunner().invoke(main, ["check", "tools.json", "--select", "TSL3", "--format", "json", *args],
                             catch_exceptions=False)
    return res.exit_code, json.loads(res.stdout)["findings"] if res.stdout.strip().startswith("{") else []


def _seen(findings: list[dict]) -> set[tuple[str, str]]:
    return {(f["id"], next(t[8:] for t in f["tags"] if t.startswith("profile:"))) for f in findings}


def test_without_a_target_a_tool_meets_its_own_formats_newest_profile(tool_file) -> None:
    code, found = run()
    assert _seen(found) == {("TSL309", "mcp-2026-07-28")}  # MCP allows the dot, the open object, the optional key
    # `execution` is right for 2025-11-25 clients (the official reference servers declare it): without a target
    # that the newest revision dropped it is information, not a failing finding; named as a target, it warns
    assert [f["severity"] for f in found] == ["info"] and code == 0
    code, found = run("--target", "mcp-2026-07-28")
    assert [f["severity"] for f in found] == ["warning"] and code == 1


def test_targets_are_repeatable_and_each_finding_names_its_profile(tool_file) -> None:
    _code, found = run("--target", "openai-strict", "--target", "mcp-2025-11-25")
    seen = _seen(found)
    assert ("TSL301", "openai-strict") in seen
    assert ("TSL305", "openai-strict") in seen and ("TSL306", "openai-strict") in seen
    assert ("TSL303", "openai-strict") in seen  # oneOf
    assert not any(p == "mcp-2025-11-25" for _r, p in seen)  # execution is part of 2025-11-25
    messages = [f["message"] for f in found if f["id"] == "TSL305"]
    assert messages == ["openai-strict: property 'limit' is not in required; make it required and nullable"]


def test_an_older_mcp_revision_lacks_newer_fields(tool_file) -> None:
    _code, found = run("--target", "mcp-2025-03-26")
    assert [(f["id"], f["message"]) for f in found] == [
        ("TSL309", "mcp-2025-03-26: field 'execution' is not part of this revision's Tool (added in 2025-11-25; "
                   "clients of 2025-03-26 ignore it)")]


def test_config_target_and_an_unknown_profile(tool_file) -> None:
    Path("toolschema-lint.toml").write_text('target = ["anthropic"]\n')
    _code, found = run()
    assert _seen(found) == {("TSL301", "anthropic")}
    res = CliRunner().invoke(main, ["check", "tools.json", "--target", "openai-lax"])
    assert res.exit_code == 2 and "no such profile" in res.output


def test_sarif_results_carry_the_profile(tool_file) -> None:
    res = CliRunner().invoke(main, ["check", "tools.json", "--select", "TSL3", "--target", "gemini", "--format", "sarif"])
    results = json.loads(res.stdout)["runs"][0]["results"]
    assert results and all(r["properties"]["profile"] == "gemini" for r in results)


def test_strict_tools_meet_the_strict_profile_by_themselves(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    fn = {"name": "add_note", "description": "Add a note and return its id. Not for editing notes.",
          "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
    Path("tools.json").write_text(json.dumps([{"type": "function", "function": {**fn, "strict": True}},
                                              {"type": "function", "function": {**fn, "name": "add_memo"}}]))
    _code, found = run()
    assert {(f["id"], f["tool"]) for f in found} == {("TSL306", "add_note")}


def test_every_profile_is_complete() -> None:
    for pid, prof in profiles().items():
        assert prof["family"] in ("mcp", "openai", "anthropic", "gemini"), pid
        assert prof.get("source"), pid
        assert prof["family"] == "mcp" or prof["name"]["pattern"].startswith("^"), pid
    assert "openai-strict" in names() and "mcp-2025-06-18" in names()


def test_an_array_output_root_is_accepted_only_from_2026_07_28(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    tool = {"name": "list_rooms", "description": "List meeting rooms. Not for bookings.",
            "inputSchema": {"type": "object", "additionalProperties": False},
            "outputSchema": {"type": "array", "items": {"type": "string"}}}
    Path("tools.json").write_text(json.dumps({"tools": [tool]}))
    assert _seen(run("--target", "mcp-2025-06-18")[1]) == {("TSL302", "mcp-2025-06-18")}
    assert run("--target", "mcp-2026-07-28")[1] == []


def test_a_keyword_outside_the_documented_subset_is_a_warning_a_recorded_rejection_an_error(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "additionalProperties": False, "required": ["a", "b"], "properties": {
        "a": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "b": {"type": "string", "default": "x"}}}
    Path("tools.json").write_text(json.dumps([{"type": "function", "function": {
        "name": "f", "description": "Does f. Not for g.", "strict": True, "parameters": schema}}]))
    _code, found = run()
    assert sorted((f["message"].split("'")[1], f["severity"]) for f in found) == [("default", "error"),
                                                                               ("uniqueItems", "warning")]


PROFILE_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "profiles"


@pytest.mark.parametrize("pid", sorted(p.name for p in PROFILE_FIXTURES.iterdir() if p.is_dir()))
def test_each_profile_gives_the_documented_verdict(pid: str, update_golden: bool) -> None:
    """Per profile: a definition its provider accepts draws no TSL3 finding; one it rejects draws the findings
    in `rejected.json.expected`, each naming the profile."""
    from toolschema_lint.engine import lint
    from toolschema_lint.settings import Settings, resolve

    def findings(name: str) -> list[str]:
        result = lint(resolve(Settings(paths=[str(PROFILE_FIXTURES / pid / name)], select=["TSL3"], targets=[pid])))
        return [f"{f.line}:{f.column} {f.rule_id} {f.severity} {f.message}" for f in result.active()]

    assert findings("accepted.json") == []
    got = findings("rejected.json")
    assert got and all(f" {pid}: " in line for line in got)
    golden = PROFILE_FIXTURES / pid / "rejected.json.expected"
    if update_golden or not golden.exists():
        golden.write_text("\n".join(got) + "\n", encoding="utf-8")
    assert "\n".join(got) + "\n" == golden.read_text(encoding="utf-8")
    assert set(names()) == {p.name for p in PROFILE_FIXTURES.iterdir() if p.is_dir()}


def test_strict_limits(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    props = {f"p{i}": {"type": "string", "description": "x"} for i in range(25)}
    tool = {"name": "many_options", "description": "Has many options. Not for anything else.", "strict": True,
            "input_schema": {"type": "object", "properties": props, "required": [], "additionalProperties": False}}
    Path("tools.json").write_text(json.dumps([tool]))
    _code, found = run()
    assert [f["message"] for f in found if f["id"] == "TSL310"] == [
        "anthropic-strict: 25 optional parameters (the limit is 24)"]
    tool["input_schema"]["required"] = ["p0"]
    Path("tools.json").write_text(json.dumps([tool]))
    assert [f for f in run()[1] if f["id"] == "TSL310"] == []


def test_show_settings_names_the_targets(tool_file) -> None:
    Path("toolschema-lint.toml").write_text('target = ["gemini", "openai"]\n')
    out = CliRunner().invoke(main, ["check", "--show-settings", "tools.json"]).stdout
    assert "target: gemini, openai" in out
