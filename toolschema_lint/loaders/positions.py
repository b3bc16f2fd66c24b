"""JSON Pointer -> (line, column, end line, end column), built lazily and only for files with findings.

JSON: a structural walker that only visits the containers on the way to a pointer. It reads keys
itself and lets the C JSON scanner skip over values it does not enter, so the cost is close to one
C-speed pass over the parts of the file that hold findings. YAML: the marks libyaml already gives
every node. Positions are 1-based; columns count code points (Python `str` indices).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..model import split_pointer
from ..lazyre import lazy_compile

_WS = lazy_compile(r"[ \t\n\r]*")
_STRING = lazy_compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_KEY = lazy_compile(r'[ \t\n\r]*"([^"\\]*(?:\\.[^"\\]*)*)"[ \t\n\r]*:[ \t\n\r]*', re.S)
_SEP = lazy_compile(r"[ \t\n\r]*(,?)[ \t\n\r]*")
_SCALAR = lazy_compile(r"[^,\]}\s]+")
_decoder = json.JSONDecoder()
_scan_once = _decoder.scan_once
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


class LineTable:
    """Offset -> (line, column), counted from the previous lookup rather than from a full index.

    Findings of one tool are located one after another, close together, so counting newlines
    between this offset and the last one (a C-level `str.count`) costs far less than splitting
    a whole file into lines that are mostly never asked for.
    """

    def __init__(self, text: str):
        self.text = text
        self._offset = 0
        self._line = 0  # 0-based line of `_offset`

    def at(self, offset: int) -> tuple[int, int]:
        text = self.text
        if offset >= self._offset:
            line = self._line + text.count("\n", self._offset, offset)
        else:
            line = self._line - text.count("\n", offset, self._offset)
        self._offset, self._line = offset, line
        return line + 1, offset - text.rfind("\n", 0, offset)


class JsonPositions:
    """Positions in a JSON text (or JSON Lines: one top-level value per line, pointer `/N/...`)."""

    def __init__(self, text: str, lines: bool = False):
        self.text = text
        self.table = LineTable(text)
        self.lines = lines
        # container start offset -> [{token: [key start, value start, value end or -1]} read so far,
        #                            offset to resume reading at (-1: all read), is an object,
        #                            the entry read last (its value is skipped before reading on)]
        self._children: dict[int, list[Any]] = {}
        self._root: tuple[int, int] | None = None
        self._lines_index: dict[str, tuple[int, int, int]] | None = None
        self._located: dict[str, tuple[int, int, int, int]] = {}

    # -- scanning helpers -------------------------------------------------------------------
    # Each helper is one C-level regex match or scan; a value the walk does not enter is skipped
    # (strings and scalars by a regex, containers by the C JSON scanner) and never decoded twice.
    def _ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()

    def _value_end(self, i: int) -> int:
        text = self.text
        c = text[i:i + 1]
        if c == '"':
            m = _STRING.match(text, i)
        elif c == "{" or c == "[":
            try:
                return _scan_once(text, i)[1]
            except (StopIteration, ValueError, RecursionError):
                return i + 1
        else:
            m = _SCALAR.match(text, i)
        return m.end() if m else i + 1

    def _root_span(self) -> tuple[int, int]:
        if self._root is None:
            start = self._ws(0)
            self._root = (start, self._value_end(start))
        return self._root

    def _top_lines(self) -> dict[str, tuple[int, int, int]]:
        kids = self._lines_index
        if kids is None:
            kids = {}
            n = 0
            pos = 0
            for raw in self.text.splitlines(keepends=True):
                stripped = raw.strip()
                if stripped:
                    start = pos + (len(raw) - len(raw.lstrip()))
                    kids[str(n)] = (start, start, self._value_end(start))
                    n += 1
                pos += len(raw)
            self._lines_index = kids
        return kids

    def _child(self, start: int, tok: str) -> list[int] | None:
        """[key start, value start, value end or -1] of child `tok` of the container at `start`.

        Children are read lazily, left to right, and only as far as the one asked for. A value's
        end is found (by skipping it) only when a later sibling is wanted or a finding ends there,
        so the usual walk down to a tool's `inputSchema` never decodes what lies beside it.
        """
        state = self._children.get(start)
        if state is None:
            opener = self.text[start:start + 1]
            if opener == "{":
                state = [{}, start + 1, True, None]
            elif opener == "[":
                state = [{}, self._ws(start + 1), False, None]
            else:
                state = [{}, -1, False, None]
            self._children[start] = state
        kids, i, is_object, last = state
        entry = kids.get(tok)
        if entry is not None or i < 0:
            return entry
        text = self.text
        value_end, sep_match = self._value_end, _SEP.match
        if is_object:
            key_match = _KEY.match
            while True:
                if last is not None:  # skip the value read last time, to reach the next key
                    last[2] = value_end(last[1])
                    sep = sep_match(text, last[2])
                    if not sep.group(1):
                        i = -1
                        break
                    i = sep.end()
                m = key_match(text, i)
                if m is None:
                    i = -1
                    break
                key = m.group(1)
                if "\\" in key:
                    key = _scanstring(text, m.start(1))[0]
                last = [m.start(1) - 1, m.end(), -1]
                if key not in kids:  # a pointer names the first of duplicate keys
                    kids[key] = last
                if key == tok:
                    entry = kids[key]
                    break
        else:
            n = len(kids)
            key = str(n)
            while i < len(text) and text[i] != "]":
                end = value_end(i)
                kids[key] = last = [i, i, end]
                sep = sep_match(text, end)
                i = sep.end() if sep.group(1) and end != i else -1
                if key == tok or i < 0:
                    break
                n += 1
                key = str(n)
            else:
                i = -1
            entry = kids.get(tok)
        state[1] = i
        state[3] = last
        return entry

    def span(self, pointer: str) -> tuple[int, int]:
        """(start, end) offsets of the closest existing node on the way to `pointer`."""
        tokens = split_pointer(pointer)
        if self.lines:
            if not tokens:
                return (0, min(len(self.text), self._value_end(self._ws(0))))
            entry = self._top_lines().get(tokens[0])
            if entry is None:
                return (0, 0)
            start, end = entry[1], entry[2]
            key_start = entry[0]
            tokens = tokens[1:]
        else:
            start = key_start = self._ws(0)
            end = -1  # the root's end: found only if the pointer stops there (it takes a full scan)
        child = self._child
        node = None
        for tok in tokens:
            entry = child(start, tok)
            if entry is None:
                break
            node = entry
            key_start, start, end = entry
        if end < 0:
            if node is None:
                end = self._root_span()[1]
            else:
                end = node[2] = self._value_end(start)
        return key_start, end

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
        found = self._located.get(pointer)  # several rules often report the same node
        if found is None:
            start, end = self.span(pointer)
            line, col = self.table.at(start)
            end_line, end_col = self.table.at(max(start, end))
            found = self._located[pointer] = (line, col, end_line, end_col)
        return found


class YamlPositions:
    """Positions from libyaml node marks (0-based in the marks; converted to 1-based here)."""

    def __init__(self, root: Any):
        self.root = root
        self._keys: dict[int, dict[str, tuple[Any, Any]]] = {}  # id(mapping node) -> key -> (key node, value node)
        self._located: dict[str, tuple[int, int, int, int]] = {}

    def _pairs(self, node: Any) -> dict[str, tuple[Any, Any]]:
        """A mapping node's pairs by key (the first of duplicate keys), indexed on first use."""
        index = self._keys.get(id(node))
        if index is None:
            index = {}
            for k, v in node.value:
                key = getattr(k, "value", None)
                if isinstance(key, str) and key not in index:
                    index[key] = (k, v)
            self._keys[id(node)] = index
        return index

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
        found = self._located.get(pointer)
        if found is None:
            found = self._located[pointer] = self._locate(pointer)
        return found

    def _locate(self, pointer: str) -> tuple[int, int, int, int]:
        node = self.root
        if node is None:
            return (1, 1, 1, 1)
        key_node = None
        seen = 0
        for tok in split_pointer(pointer):
            seen += 1
            if seen > 512:
                break
            nxt = None
            if node.tag.endswith(":map") or node.id == "mapping":
                pair = self._pairs(node).get(tok)
                if pair is not None:
                    key_node, nxt = pair
            elif node.id == "sequence":
                if tok.isdigit() and int(tok) < len(node.value):
                    nxt, key_node = node.value[int(tok)], None
            if nxt is None:
                break
            node = nxt
        start = (key_node or node).start_mark
        end = node.end_mark
        return start.line + 1, start.column + 1, end.line + 1, end.column + 1


class FixedPositions:
    """For sources with no text position (a problem found before parsing)."""

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
        return (1, 1, 1, 1)
