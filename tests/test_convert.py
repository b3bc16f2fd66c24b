"""`toolschema-lint convert --to PROFILE`: shapes, the transformations each profile needs, nothing lost silently."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from toolschema_lint.cli import main

TOOL = {
    "name": "orders.search",
    "description": "Search orders by customer and status and return up to limit orders. Not for refunds.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "customer": {"type": "string", "pattern": "^C[0-9]{6}$", "description": "Customer id"},
            "status": {"type": "string", "enum": ["open", "shipped", "cancelled"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "window": {"type": "object", "properties": {"from": {"type": "string", "format": "date"},
                                                      "to": {"type": "string", "format": "date"}},
                       "required": ["from"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        },
        "required": ["customer"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}
ARGS = [
    {"customer": "C123456"},
    {"customer": "C123456", "status": "open", "limit": 10},
    {"customer": "C123456", "window": {"from": "2026-01-01"}},
    {"customer": "C123456", "window": {"from": "2026-01-01", "to": "2026-02-01"}, "tags": ["a"]},
    {},  # customer missing
    {"customer": "X1"},  # pattern
    {"customer": "C123456", "status": "lost"},
    {"customer": "C123456", "limit": 0},
    {"customer": "C123456", "window": {"to": "2026-02-01"}},  # window.from missing
    {"customer": "C123456", "extra": 1},  # closed object
    {"customer": "C123456", "status": None},
    {"customer": "C123456", "limit": None},
]


def _convert(tmp_path: Path, data: object, *args: str, name: str = "tools.json") -> tuple[int, object, str]:
    src = tmp_path / name
    src.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data), encoding="utf-8")
    out = tmp_path / ("out-" + "-".join(a.strip("-") for a in args[:2]) + (".yaml" if "--yaml" in args else ".json"))
    res = CliRunner().invoke(main, ["convert", str(src), *args, "-o", str(out)], catch_exceptions=False)
    body = out.read_text(encoding="utf-8") if out.exists() else ""
    return res.exit_code, (yaml.safe_load(body) if out.suffix == ".yaml" else json.loads(body)) if body else None, res.stderr


def _valid(schema: dict, value: object) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def test_mcp_to_openai_strict_and_back_keeps_meaning(tmp_path) -> None:
    code, strict, notes = _convert(tmp_path, {"tools": [TOOL]}, "--to", "openai-strict")
    assert code == 0
    fn = strict[0]["function"]
    assert fn["strict"] is True and fn["name"] == "orders_search"
    params = fn["parameters"]
    assert params["required"] == list(TOOL["inputSchema"]["properties"]) and params["additionalProperties"] is False
    assert params["properties"]["window"]["additionalProperties"] is False
    assert "renamed 'orders_search'" in notes and "`annotations` has no place" in notes
    back_path = tmp_path / "strict.json"
    back_path.write_text(json.dumps(strict), encoding="utf-8")
    code, back, _ = _convert(tmp_path, strict, "--to", "mcp-2025-06-18", name="strict.json")
    assert code == 0
    original, round_trip = TOOL["inputSchema"], back["tools"][0]["inputSchema"]
    assert [_valid(original, a) for a in ARGS] == [_valid(round_trip, a) for a in ARGS]


def test_the_strict_conversion_passes_the_strict_profile(tmp_path) -> None:
    _code, strict, _ = _convert(tmp_path, {"tools": [TOOL]}, "--to", "openai-strict")
    (tmp_path / "strict.json").write_text(json.dumps(strict), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", str(tmp_path / "strict.json"), "--select", "TSL3", "--target",
                                    "openai-strict", "--format", "json"])
    assert json.loads(res.stdout)["findings"] == []


def test_anthropic_strict_moves_bounds_into_the_description_and_says_so(tmp_path) -> None:
    _code, out, notes = _convert(tmp_path, {"tools": [TOOL]}, "--to", "anthropic-strict")
    limit = out[0]["input_schema"]["properties"]["limit"]
    assert "minimum" not in limit and "(minimum 1)" in limit["description"]
    assert "`minimum` at /properties/limit moved into the description" in notes
    assert "`maxItems` at /properties/tags moved into the description" in notes


def test_gemini_gets_the_openapi_subset(tmp_path) -> None:
    tool = {"name": "set_level", "description": "Set the level. Not for muting.",
            "inputSchema": {"type": "object", "properties": {
                "level": {"type": ["integer", "null"], "enum": [0, 5, 10]},
                "mode": {"const": "fast"}},
                "required": ["level"], "additionalProperties": False}}
    code, out, notes = _convert(tmp_path, {"tools": [tool]}, "--to", "gemini", "--yaml")
    assert code == 0
    params = out["functionDeclarations"][0]["parameters"]
    assert params["type"] == "OBJECT" and "additionalProperties" not in params
    assert params["properties"]["level"] == {"type": "STRING", "enum": ["0", "5", "10"], "nullable": True}
    assert params["properties"]["mode"] == {"enum": ["fast"]}
    assert "`additionalProperties` at parameters/ removed" in notes and "made of strings" in notes
    res = CliRunner().invoke(main, ["check", str(next(tmp_path.glob("out-*.yaml"))), "--select", "TSL303,TSL308",
                                    "--format", "json"])
    assert json.loads(res.stdout)["findings"] == []


def test_yaml_in_yaml_out_and_a_broken_file_is_never_converted(tmp_path) -> None:
    code, out, _ = _convert(tmp_path, {"tools": [TOOL]}, "--to", "anthropic", "--yaml", name="tools.yaml")
    assert code == 0 and out[0]["name"] == "orders_search"
    (tmp_path / "broken.json").write_text('{"tools": [', encoding="utf-8")
    res = CliRunner().invoke(main, ["convert", str(tmp_path / "broken.json"), "--to", "openai"])
    assert res.exit_code == 2 and "cannot be read" in res.output


def test_an_unknown_profile_is_a_usage_error(tmp_path) -> None:
    (tmp_path / "t.json").write_text(json.dumps({"tools": [TOOL]}), encoding="utf-8")
    res = CliRunner().invoke(main, ["convert", str(tmp_path / "t.json"), "--to", "openai-lax"])
    assert res.exit_code == 2 and "no such profile" in res.output
