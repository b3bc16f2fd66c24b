"""Every input shape loads into the same tools, from JSON and from YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolschema_lint.model import node_at
from toolschema_lint.loaders import Source, collect, load_source

SHAPES = Path(__file__).resolve().parent.parent / "fixtures" / "shapes"
EXPECTED_DIALECT = {
    "mcp-jsonrpc": "mcp",
    "mcp-result": "mcp",
    "mcp-list": "mcp",
    "mcp-pages": "mcp",
    "mcp-capture": "mcp",
    "openai-chat": "openai-chat",
    "openai-chat-request": "openai-chat",
    "openai-responses": "openai-responses",
    "openai-legacy": "openai-legacy",
    "anthropic": "anthropic",
    "anthropic-request": "anthropic",
    "gemini-bare": "gemini",
    "gemini-tools": "gemini",
    "gemini-jsonschema": "gemini",
}
CASES = [(name, ext) for name in EXPECTED_DIALECT for ext in ("json", "yaml")]


def load(path: Path):
    return load_source(collect([str(path)])[0])


@pytest.mark.parametrize("name,ext", CASES, ids=[f"{n}.{e}" for n, e in CASES])
def test_shape_loads(name: str, ext: str) -> None:
    doc = load(SHAPES / f"{name}.{ext}")
    assert not doc.problems, doc.problems
    assert [t.name for t in doc.tools] == ["get_weather", "search_docs"]
    assert {t.dialect for t in doc.tools} == {EXPECTED_DIALECT[name]}
    for tool in doc.tools:
        # every normalized field remembers where it came from
        assert node_at(doc.data, tool.fields["name"]) == tool.name
        assert node_at(doc.data, tool.fields["description"]) == tool.description
        schema = tool.input_schema
        assert schema["type"] == "object"  # Gemini's OBJECT arrives lower-cased
        assert "properties" in node_at(doc.data, tool.fields["input_schema"])
        # positions resolve to the field, not to 1:1
        line, col, _, _ = doc.locate(tool.ptr("input_schema", "properties"))
        assert line > 1


def test_yaml_is_read_with_yaml_12_semantics() -> None:
    doc = load(SHAPES / "mcp-result.yaml")
    enum = doc.tools[1].input_schema["properties"]["mode"]["enum"]
    assert enum == ["on", "off", "yes", "no"]


@pytest.mark.parametrize("name", ["mcp-single.json", "mcp-single.yaml"])
def test_single_tool_object(name: str) -> None:
    doc = load(SHAPES / name)
    assert [t.name for t in doc.tools] == ["get_weather"]
    assert doc.tools[0].pointer == ""


@pytest.mark.parametrize("name", ["mcp-pages.jsonl", "mcp-pages.json", "mcp-pages-stream.yaml"])
def test_paginated_listing_is_one_server(name: str) -> None:
    doc = load(SHAPES / name)
    assert [t.name for t in doc.tools] == ["get_weather", "search_docs"]
    # the second page's tool is located on its own line/page
    line1 = doc.locate(doc.tools[0].pointer)[0]
    line2 = doc.locate(doc.tools[1].pointer)[0]
    assert line2 > line1


def test_capture_keeps_server_info() -> None:
    doc = load(SHAPES / "mcp-capture.json")
    assert doc.server_info == {"name": "demo-server", "version": "1.4.0"}


@pytest.mark.parametrize("target", ["registry", "registry/invoice.search.schema.json", "registry/invoice.search.policy.yaml"])
def test_registry_folder_or_schema_file(target: str) -> None:
    sources = collect([str(SHAPES / target)])
    assert [Path(s.display).name for s in sources] == ["invoice.search.schema.json"]
    doc = load_source(sources[0])
    (tool,) = doc.tools
    assert tool.name == "invoice.search"
    assert tool.version == "1.2.0"
    assert tool.risk == {"effect": "read", "data_classification": "internal", "approval_required": False}
    assert tool.runtime["timeout_ms"] == 3000
    assert tool.has_production_metadata
    assert [e.label for e in tool.examples] == ["invoice_search_by_customer", "invoice_search_missing_customer"]
    assert tool.examples[0].arguments["customer_id"] == "cus_000042"
    assert tool.examples[1].forbidden == ["customer_id=Acme"]
    # fields from the policy file are located in the policy file
    assert tool.field_docs["risk"].path.endswith("invoice.search.policy.yaml")


def test_input_format_override() -> None:
    text = '[{"name": "a", "description": "d", "parameters": {"type": "object"}}]'
    doc = load_source(Source(None, "x.json", text=text), input_format="gemini")
    assert doc.tools[0].dialect == "gemini"
    doc = load_source(Source(None, "x.json", text=text))
    assert doc.tools[0].dialect == "openai-legacy"
    assert "function declaration" in doc.detection


def test_anthropic_builtin_tools_are_skipped_not_reported() -> None:
    text = '{"tools": [{"type": "web_search_20250305", "name": "web_search"}, {"name": "a", "description": "d", "input_schema": {"type": "object"}}]}'
    doc = load_source(Source(None, "x.json", text=text))
    assert [t.name for t in doc.tools] == ["a"]
    assert not doc.problems
    assert "built-in" in doc.detection
