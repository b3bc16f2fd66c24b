"""Behaviour shared between schema rules: the meta-schema rule hands some errors to precise rules."""

from __future__ import annotations

from helpers import lint_data

TOOL = {"tools": [{"name": "search_docs", "description": "Search the product documentation by keyword.",
                   "inputSchema": {"type": "object", "properties": {"q": {"type": "str"}}, "required": ["q"],
                                   "additionalProperties": False}}]}


def test_meta_schema_error_goes_to_the_precise_rule_when_enabled() -> None:
    both = [f.rule_id for f in lint_data(TOOL, select=["TSL101", "TSL121"]).active()]
    assert both == ["TSL121"]  # `type: str` is reported once, by unknown-type-name


def test_meta_schema_rule_reports_it_when_the_precise_rule_is_off() -> None:
    alone = lint_data(TOOL, select=["TSL101"]).active()
    assert [f.rule_id for f in alone] == ["TSL101"]
    assert alone[0].pointer.endswith("/properties/q/type")


def test_meta_schema_rule_reports_it_when_the_precise_rule_is_suppressed() -> None:
    ignored = lint_data(TOOL, select=["TSL101", "TSL121"], per_file_ignores={"*.json": ["unknown-type-name"]}).active()
    assert [f.rule_id for f in ignored] == ["TSL101"]
    inline = """tools:
- name: search_docs
  description: Search the product documentation by keyword.
  inputSchema:
    type: object
    properties:
      q:
        type: str  # toolschema-lint: ignore[TSL121]
"""
    found = lint_data(inline, select=["TSL101", "TSL121"], fmt="yaml", name="tools.yaml").active()
    assert [f.rule_id for f in found] == ["TSL101"]


def test_meta_schema_error_below_the_precise_rules_node_is_left_to_it() -> None:
    # duplicate-required-entry points at the repeated entry, inside the node the meta-schema error names
    tool = {"tools": [{"name": "search_docs", "description": "Search the product documentation by keyword.",
                       "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q", "q"]}}]}
    both = lint_data(tool, select=["TSL101", "TSL108"]).active()
    assert [(f.rule_id, f.pointer) for f in both] == [("TSL108", "/tools/0/inputSchema/required/1")]
    assert [f.rule_id for f in lint_data(tool, select=["TSL101"]).active()] == ["TSL101"]


def test_gemini_response_types_are_normalised() -> None:
    data = {"functionDeclarations": [{"name": "get_weather", "description": "Get the current weather for one city.",
                                      "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
                                      "response": {"type": "OBJECT", "properties": {"temp": {"type": "NUMBER"}}}}]}
    result = lint_data(data, select=["TSL1"])
    assert not [f for f in result.active() if f.rule_id in ("TSL101", "TSL102", "TSL121")]
