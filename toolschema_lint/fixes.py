"""`check --fix`: edits that remove a finding without changing what the definition means to its author.

A rule's catalog entry says whether it can be fixed (`autofix: safe | unsafe | none`); `--unsafe-fixes`
also applies the unsafe ones. A fix is a list of edits on the document's data, by JSON Pointer. They are
applied to the text so that everything else stays as written: JSON by splicing the spans of the nodes
touched (indentation, key order and line endings kept), YAML through ruamel.yaml's round trip (comments,
key order and quoting kept). A file with parse errors is never touched.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Iterable

from .model import Finding, node_at, split_pointer
from .lazyre import lazy_compile

_TYPE_NAMES = {"str": "string", "string_": "string", "text": "string", "int": "integer", "long": "integer",
               "float": "number", "double": "number", "decimal": "number", "bool": "boolean", "dict": "object",
               "map": "object", "list": "array", "tuple": "array", "none": "null", "nonetype": "null"}
_SUGGESTION = lazy_compile(r"did you mean '([^']+)'\?\)?$")


@dataclass(frozen=True)
class Edit:
    op: str  # delete | rename | set | append
    pointer: str  # delete, set: the node; rename: the member; append: the array (created when missing)
    value: Any = None  # rename: the new key; set: the new value; append: the item


def edits_for(f: Finding, data: Any) -> list[Edit]:
    """The edits that fix finding `f` of a document whose data is `data` ([] when there is no sure fix)."""
    tokens = split_pointer(f.pointer)
    if f.rule_id in ("TSL108", "TSL115"):  # a repeated entry of `required` / `enum`
        return [Edit("delete", f.pointer)] if tokens and tokens[-1].isdigit() else []
    if f.rule_id == "TSL121":
        current = node_at(data, _join(tokens))
        m = _SUGGESTION.search(f.message)
        new = _TYPE_NAMES.get(str(current).lower()) or (m.group(1) if m else None)
        return [Edit("set", f.pointer, new)] if isinstance(current, str) and new else []
    if f.rule_id == "TSL111":
        m = _SUGGESTION.search(f.message)
        parent = node_at(data, _join(tokens[:-1]))
        if not m or not isinstance(parent, dict) or m.group(1) in parent or not _applies(m.group(1), parent):
            return []  # no single correction, it would overwrite a key, or it would not apply to the type
        return [Edit("rename", f.pointer, m.group(1))]
    if f.rule_id == "TSL109":  # `required: true` on the property: into the parent's `required`
        if len(tokens) < 3 or tokens[-3] != "properties":
            return []
        flag, name = tokens[-1], tokens[-2]
        value = node_at(data, _join(tokens))
        wants = (value is True) if flag.lower() in ("required", "isrequired") else (value is False)
        parent_ptr = _join(tokens[:-3])
        parent = node_at(data, _join(tokens[:-3]))
        out = [Edit("delete", f.pointer)]
        listed = parent.get("required") if isinstance(parent, dict) else None
        if wants and not (isinstance(listed, list) and name in listed):
            if listed is not None and not isinstance(listed, list):
                return []
            out.append(Edit("append", parent_ptr + "/required", name))
        return out
    if f.rule_id in ("TSL401", "TSL306"):  # unsafe: close an open object
        if tokens and tokens[-1] == "additionalProperties":
            return [Edit("set", f.pointer, False)]
        node = node_at(data, _join(tokens))
        if isinstance(node, dict) and "additionalProperties" not in node:
            return [Edit("add", f.pointer, ("additionalProperties", False))]
        return []
    if f.rule_id == "TSL402":  # unsafe: state the shape the name says
        m = _LOOKS_LIKE.search(f.message)
        node = node_at(data, _join(tokens))
        fmt = _FORMATS.get(m.group(1)) if m else None
        if fmt and isinstance(node, dict) and "format" not in node:
            return [Edit("add", f.pointer, ("format", fmt))]
        return []
    if f.rule_id == "TSL305":  # unsafe: strict mode's optional, a required property that admits null
        from .convert import _nullable

        node = node_at(data, _join(tokens))
        if len(tokens) < 2 or tokens[-2] != "properties" or not isinstance(node, dict):
            return []
        parent = node_at(data, _join(tokens[:-2]))
        listed = parent.get("required") if isinstance(parent, dict) else None
        if listed is not None and not isinstance(listed, list):
            return []
        t = node.get("type")
        if isinstance(t, str):
            out = [Edit("set", f.pointer + "/type", [t, "null"])]
        elif isinstance(t, list):
            out = [] if "null" in t else [Edit("append", f.pointer + "/type", "null")]
        else:
            out = [Edit("set", f.pointer, _nullable(node))]
        if isinstance(node.get("enum"), list) and None not in node["enum"]:
            out.append(Edit("append", f.pointer + "/enum", None))
        return [*out, Edit("append", _join(tokens[:-2]) + "/required", tokens[-1])]
    return []


_LOOKS_LIKE = lazy_compile(r"looks like an? (date-time|date|time|email address|URL|UUID) but")
_FORMATS = {"date-time": "date-time", "date": "date", "time": "time", "email address": "email", "URL": "uri",
            "UUID": "uuid"}


_FOR_TYPE = {**dict.fromkeys(("minLength", "maxLength", "pattern", "format"), "string"),
             **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"),
             **dict.fromkeys(("minItems", "maxItems", "uniqueItems", "items", "prefixItems", "contains"), "array"),
             **dict.fromkeys(("properties", "required", "additionalProperties", "minProperties", "maxProperties",
                              "patternProperties"), "object")}


def _applies(keyword: str, node: dict) -> bool:
    """Whether `keyword` means something on `node` (a corrected `minLenght` on an integer would be another defect)."""
    kind = _FOR_TYPE.get(keyword)
    t = node.get("type")
    types = {t} if isinstance(t, str) else set(t) if isinstance(t, list) else set()
    if kind is None or not types:
        return True
    return kind in types or (kind == "number" and "integer" in types)


def _join(tokens: list[str]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


# --- JSON: splicing spans -------------------------------------------------------------------------------

def apply_json(text: str, edits: Iterable[Edit]) -> str:
    """`text` with `edits` applied one by one, each on a fresh reading of the text before it."""
    for e in edits:
        text = _json_edit(text, e)
    return text


def _spans(text: str, tokens: list[str]) -> list[int] | None:
    """[key start, value start, value end] of the node at `tokens` (key start = value start for an item)."""
    from .loaders.positions import JsonPositions

    pos = JsonPositions(text)
    start = pos._ws(0)
    entry: list[int] | None = [start, start, pos._value_end(start)]
    for t in tokens:
        entry = pos._child(start, t)
        if entry is None:
            return None
        if entry[2] < 0:
            entry[2] = pos._value_end(entry[1])
        start = entry[1]
    return entry


def _siblings(text: str, tokens: list[str]) -> list[list[int]]:
    """[key start, value start, value end] of every child of the container at `tokens`, in order."""
    from .loaders.positions import JsonPositions

    pos = JsonPositions(text)
    start = pos._ws(0)
    for t in tokens:
        entry = pos._child(start, t)
        if entry is None:
            return []
        start = entry[1]
    try:
        data = json.loads(text[start:pos._value_end(start)])
    except ValueError:
        return []
    keys = [str(i) for i in range(len(data))] if isinstance(data, list) else list(data) if isinstance(data, dict) else []
    out = []
    for k in keys:
        entry = pos._child(start, k)
        if entry is None:
            break
        if entry[2] < 0:
            entry[2] = pos._value_end(entry[1])
        out.append(entry)
    return out


def _json_edit(text: str, e: Edit) -> str:
    tokens = split_pointer(e.pointer)
    if e.op == "set":
        span = _spans(text, tokens)
        return text if span is None else text[:span[1]] + json.dumps(e.value, ensure_ascii=False) + text[span[2]:]
    if e.op == "rename":
        span = _spans(text, tokens)
        if span is None:
            return text
        key_end = text.index('"', span[0] + 1)
        while text[key_end - 1] == "\\":
            key_end = text.index('"', key_end + 1)
        return text[:span[0]] + json.dumps(e.value, ensure_ascii=False) + text[key_end + 1:]
    if e.op == "delete":
        sibs = _siblings(text, tokens[:-1])
        span = _spans(text, tokens)
        if span is None or not sibs:
            return text
        i = next((k for k, s in enumerate(sibs) if s[0] == span[0]), None)
        if i is None:
            return text
        if i > 0:  # from the end of the previous sibling: its comma and our whitespace go with us
            return text[:sibs[i - 1][2]] + text[span[2]:]
        if len(sibs) > 1:  # the first of several: up to the next sibling's start
            return text[:span[0]] + text[sibs[1][0]:]
        box = _spans(text, tokens[:-1])  # the only child: the container stays, empty
        return text if box is None else text[:box[1] + 1] + text[box[2] - 1:]
    if e.op in ("append", "add"):
        target = tokens
        span = _spans(text, target)
        if span is None:
            if e.op == "append":  # the array is missing: add it as a member of its object
                return _json_edit(text, Edit("add", _join(tokens[:-1]), (tokens[-1], [e.value])))
            return text
        sibs = _siblings(text, target)
        member = json.dumps(e.value, ensure_ascii=False) if e.op == "append" else \
            f"{json.dumps(e.value[0], ensure_ascii=False)}: {json.dumps(e.value[1], ensure_ascii=False)}"
        if not sibs:
            close = span[2] - 1
            return text[:close] + member + text[close:]
        last = sibs[-1]
        if len(sibs) > 1:
            gap = text[sibs[-2][2]:sibs[-1][0]]
        else:  # one member so far: on a line of its own when the container puts it on one
            lead = text[span[1] + 1:last[0]]
            gap = "," + lead if "\n" in lead else ", "
        return text[:last[2]] + gap + member + text[last[2]:]
    return text


# --- YAML: ruamel.yaml round trip ----------------------------------------------------------------

def apply_yaml(text: str, edits: Iterable[Edit]) -> str:
    from io import StringIO

    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _data, indent, block_seq = load_yaml_guess_indent(text)  # the indentation the file already uses
    yaml = YAML()  # round-trip: comments, key order, quoting and flow style kept
    yaml.preserve_quotes = True
    yaml.width = 4096
    seq, dash = indent or 2, block_seq or 0  # where sequence items start, and where their dash sits
    yaml.indent(mapping=max(2, seq - dash) if dash else seq, sequence=seq, offset=dash)
    data = yaml.load(text)
    for e in edits:
        _yaml_edit(data, e)
    out = StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _yaml_edit(data: Any, e: Edit) -> None:
    tokens = split_pointer(e.pointer)
    parent = node_at(data, _join(tokens[:-1])) if tokens else None
    last = tokens[-1] if tokens else None
    if e.op == "set" and parent is not None:
        parent[int(last) if isinstance(parent, list) else last] = e.value
    elif e.op == "delete" and parent is not None:
        del parent[int(last) if isinstance(parent, list) else last]
    elif e.op == "rename" and isinstance(parent, dict):
        keys = list(parent.keys())
        i = keys.index(last)
        value = parent.pop(last)
        parent.insert(i, e.value, value)
    elif e.op == "append":
        target = node_at(data, _join(tokens))
        if isinstance(target, list):
            target.append(e.value)
        elif target is None and isinstance(parent, dict):
            parent[last] = [e.value]
    elif e.op == "add":
        target = node_at(data, _join(tokens))
        if isinstance(target, dict):
            target[e.value[0]] = e.value[1]


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=path, tofile=path))


def text_fix(f: Finding, cache: dict[str, Any]) -> tuple[int, int, str] | None:
    """The fix of finding `f` as one replacement of whole lines of its file: (first line, line after the last,
    the new text of those lines), 1-based; None when it has none. `cache` keeps each file's text and data."""
    from pathlib import Path

    entry = cache.get(f.path)
    if entry is None:
        path = Path(f.path)
        entry = cache[f.path] = (None, None)
        if path.is_file() and path.suffix.lower() in (".json", ".yaml", ".yml"):
            try:
                text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
                if path.suffix.lower() == ".json":
                    data = json.loads(text)
                else:
                    import yaml

                    data = yaml.safe_load(text)
                entry = cache[f.path] = (text, data)
            except Exception:  # noqa: BLE001 - unreadable or unparsable now: no fix offered
                pass
    text, data = entry
    if text is None:
        return None
    edits = edits_for(f, data)
    if not edits:
        return None
    new = (apply_json if f.path.lower().endswith(".json") else apply_yaml)(text, edits)
    old_lines, new_lines = text.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops:
        return None
    i1, j1, i2, j2 = ops[0][1], ops[0][3], ops[-1][2], ops[-1][4]
    return i1 + 1, i2 + 1, "".join(new_lines[j1:j2])
