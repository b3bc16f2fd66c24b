"""Positions: 1-based lines, columns in code points, CRLF, non-ASCII, pointer escapes, missing fields."""

from __future__ import annotations

import json

import pytest

from helpers import lint_data
from toolschema_lint.loaders import Source, load_source


def _doc(text: str, fmt: str = "json"):
    return load_source(Source(None, f"t.{fmt}", text=text, format=fmt))


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_json_positions_with_non_ascii_and_crlf(newline: str) -> None:
    text = newline.join([
        "{",
        '  "tools": [',
        '    {"name": "météo_😀", "description": "日本語の説明", "inputSchema": {"type": "object",',
        '      "properties": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}}}}',
        "  ]",
        "}",
    ])
    doc = _doc(text)
    # column counts code points: the emoji is one column
    line3 = text.split(newline)[2]
    assert doc.locate("/tools/0/description")[:2] == (3, line3.index('"description"') + 1)
    line4 = text.split(newline)[3]
    assert doc.locate("/tools/0/inputSchema/properties/a~1b")[:2] == (4, line4.index('"a/b"') + 1)
    assert doc.locate("/tools/0/inputSchema/properties/c~0d/type")[:2] == (4, line4.index('"type": "integer"') + 1)


def test_yaml_positions_with_non_ascii_and_crlf() -> None:
    text = "tools:\r\n  - name: météo_😀\r\n    description: 日本語\r\n    inputSchema:\r\n      type: object\r\n      properties:\r\n        a/b: {type: string}\r\n"
    doc = _doc(text, "yaml")
    assert doc.locate("/tools/0/description")[:2] == (3, 5)
    assert doc.locate("/tools/0/inputSchema/properties/a~1b/type")[:2] == (7, 15)


def test_missing_field_points_at_closest_existing_ancestor() -> None:
    text = json.dumps({"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}, indent=2)
    doc = _doc(text)
    # /tools/0/description does not exist: the tool object itself is reported
    assert doc.locate("/tools/0/description")[:2] == doc.locate("/tools/0")[:2]
    assert doc.locate("/tools/0/inputSchema/properties/nope")[:2] == doc.locate("/tools/0/inputSchema")[:2]


def test_end_positions_cover_the_node() -> None:
    text = '{"tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]}'
    doc = _doc(text)
    line, col, end_line, end_col = doc.locate("/tools/0/name")
    assert (line, col) == (1, text.index('"name"') + 1)
    assert end_col == text.index('"get_weather"') + len('"get_weather"') + 1


def test_findings_carry_pointer_tool_and_position() -> None:
    result = lint_data({"tools": [{"name": "execute", "inputSchema": {"type": "object"}}]}, select=["TSL202"])
    (f,) = result.active()
    assert (f.pointer, f.tool, f.line, f.column) == ("/tools/0/name", "execute", 4, 7)


def test_positions_are_lazy_for_clean_files() -> None:
    text = json.dumps({"tools": [{"name": "get_weather", "description": "Get the weather for a city today.", "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}}]})
    result = lint_data(text, select=["TSL201", "TSL202", "TSL401"])
    assert not result.active()
    assert result.documents[0].positions is None  # never built
