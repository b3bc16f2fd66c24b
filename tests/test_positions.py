"""Positions: 1-based lines, columns in code points, CRLF, non-ASCII, pointer escapes, missing fields."""

from __future__ import annotations

import json

import pytest

from helpers import lint_data
from toolschema_lint.loaders import Source, load_source
from toolschema_lint.loaders.positions import JsonPositions


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


def _reference_spans(text: str) -> dict[str, tuple[int, int]]:
    """pointer -> (start, end) by a plain recursive-descent reading of the whole text (the oracle)."""
    decoder = json.JSONDecoder()
    spans: dict[str, tuple[int, int]] = {}

    def ws(i: int) -> int:
        while text[i] in " \t\r\n":
            i += 1
        return i

    def value(i: int, pointer: str, key_start: int) -> int:
        i = ws(i)
        if text[i] == "{":
            j = ws(i + 1)
            while text[j] != "}":
                key, after = json.decoder.scanstring(text, j + 1)
                k = ws(ws(after) + 1)
                child = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
                first = child not in spans
                end = value(k, child, j) if first else value(k, "\0dup", j)
                j = ws(end)
                if text[j] == ",":
                    j = ws(j + 1)
            end = j + 1
        elif text[i] == "[":
            j, n = ws(i + 1), 0
            while text[j] != "]":
                end = value(j, f"{pointer}/{n}", j)
                n += 1
                j = ws(end)
                if text[j] == ",":
                    j = ws(j + 1)
            end = j + 1
        else:
            end = decoder.raw_decode(text, i)[1]
        if not pointer.startswith("\0"):
            spans[pointer] = (key_start, end)
        return end

    value(0, "", ws(0))
    return spans


def test_json_spans_match_a_full_reading_whatever_the_order_of_lookups() -> None:
    import random

    rng = random.Random(7)
    keys = ["type", "properties", "items", "a/b", "c~d", "é", 'q"uote', "back\\slash", "x", "y"]

    def node(depth: int):
        kind = rng.random()
        if depth > 4 or kind < 0.3:
            return rng.choice(["s", 'with "quotes" and \\ and ]}', 1, -2.5e3, True, None, "日本"])
        if kind < 0.6:
            return [node(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(keys): node(depth + 1) for _ in range(rng.randint(0, 5))}

    for trial in range(60):
        data = {"tools": [node(0) for _ in range(3)]}
        text = json.dumps(data, indent=rng.choice([None, 1, 2, "\t"]), ensure_ascii=rng.random() < 0.5)
        if trial % 5 == 0:  # a duplicate key: the first one is the one a pointer means
            text = text.replace('{"tools": [', '{"tools": [], "tools": [', 1) if text.startswith('{"tools": [') else text
        expected = _reference_spans(text)
        positions = JsonPositions(text)
        pointers = list(expected)
        rng.shuffle(pointers)
        for pointer in pointers:
            assert positions.span(pointer) == expected[pointer], (text, pointer)
            missing = pointer + "/nope"
            if missing not in expected:  # a missing child resolves to the closest existing node
                assert positions.span(missing) == expected[pointer]


def test_line_table_agrees_with_counting_from_the_start_in_any_order() -> None:
    import random

    from toolschema_lint.loaders.positions import LineTable

    rng = random.Random(3)
    text = "".join(rng.choice(["a", "é", "\n", "\r\n", "😀", " "]) for _ in range(2000))
    table = LineTable(text)
    offsets = list(range(len(text) + 1)) * 2
    rng.shuffle(offsets)
    for offset in offsets:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert table.at(offset) == (line, column)


def test_yaml_positions_indexed_keys_agree_with_a_linear_search() -> None:
    """Mapping keys are looked up through an index built on first use; it must point where a plain
    first-match search over the node's pairs points (duplicate keys, nested, sequences, misses)."""
    from toolschema_lint.loaders.positions import YamlPositions
    from toolschema_lint.loaders.yaml_ import compose
    from toolschema_lint.model import split_pointer

    text = (
        "tools:\n"
        "  - name: a\n    name: dup\n    inputSchema:\n      properties:\n        x: {type: string}\n"
        "        x: {type: integer}\n        ? [complex, key]\n        : 1\n        y:\n          items: [1, 2]\n"
        "  - name: b\n    description: two\n"
    )

    def linear(root, pointer):
        node, key_node = root, None
        for tok in split_pointer(pointer):
            nxt = None
            if node.id == "mapping":
                for k, v in node.value:
                    if getattr(k, "value", None) == tok:
                        nxt, key_node = v, k
                        break
            elif node.id == "sequence" and tok.isdigit() and int(tok) < len(node.value):
                nxt, key_node = node.value[int(tok)], None
            if nxt is None:
                break
            node = nxt
        s, e = (key_node or node).start_mark, node.end_mark
        return s.line + 1, s.column + 1, e.line + 1, e.column + 1

    (root,) = compose(text)
    positions = YamlPositions(root)
    pointers = ["", "/tools", "/tools/0/name", "/tools/0/inputSchema/properties/x", "/tools/0/inputSchema/properties/x/type",
                "/tools/0/inputSchema/properties/y/items/1", "/tools/0/inputSchema/properties/nope", "/tools/1/description",
                "/tools/2", "/tools/0/inputSchema/properties/x"]
    for pointer in pointers + pointers[::-1]:
        assert positions.locate(pointer) == linear(root, pointer), pointer


def test_join_pointer_escapes_each_token_as_rfc_6901_says() -> None:
    from toolschema_lint.model import join_pointer, split_pointer

    assert join_pointer("/tools/0", "properties", "a/b", "c~d", 3, "~1/", "") == "/tools/0/properties/a~1b/c~0d/3/~01~1/"
    for tokens in (("a/b",), ("~0", "~1"), ("x", 0, ""), ("/", "~", "~/~")):
        assert split_pointer(join_pointer("", *tokens)) == [str(t) for t in tokens]


def test_loading_a_file_leaves_no_garbage_cycle() -> None:
    """A run collects cycles rarely (`Engine.run` raises the thresholds): a cycle made while loading
    or locating would keep a file's text alive long after it was linted."""
    import gc

    from toolschema_lint.loaders.json_ import load_json

    text = json.dumps({"tools": [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(50)]})
    gc.collect()
    gc.disable()
    try:
        data, problems, ptext = load_json(text)
        JsonPositions(ptext).locate("/tools/49/inputSchema/type")
        del data, problems, ptext
        assert gc.collect() == 0
    finally:
        gc.enable()
