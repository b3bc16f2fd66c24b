"""JSON Pointer -> (line, column, end line, end column), built lazily and only for files with findings.

JSON: a structural walker that only visits the containers on the way to a pointer. It reads keys
itself and lets the C JSON scanner skip over values it does not enter, so the cost is close to one
C-speed pass over the parts of the file that hold findings. YAML: the marks libyaml already gives
every node. Positions are 1-based; columns count code points (Python `str` indices).
"""

from __future__ import annotations

import bisect
import json
import re
from array import array
from itertools import accumulate
from typing import Any

from ..model import split_pointer

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_KEY = re.compile(r'[ \t\n\r]*"([^"\\]*(?:\\.[^"\\]*)*)"[ \t\n\r]*:[ \t\n\r]*', re.S)
_SEP = re.compile(r"[ \t\n\r]*(,?)[ \t\n\r]*")
_SCALAR = re.compile(r"[^,\]}\s]+")
_decoder = json.JSONDecoder()
_scan_once = _decoder.scan_once
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


class LineTable:
    """Offset -> (line, column): the start offset of every line, in a compact array."""

    def __init__(self, text: str):
        # line n+1 starts one past the end of line n; C-level loops only, 8 bytes per line
        self.starts = array("q", accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
        self.text_len = len(text)

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1


class JsonPositions:
    """Positions in a JSON text (or JSON Lines: one top-level value per line, pointer `/N/...`)."""

    def __init__(self, text: str, lines: bool = False):
        self.text = text
        self.table = LineTable(text)
        self.lines = lines
        # container start offset -> {token: (key_start, value_start, value_end)}
        self._children: dict[int, dict[str, tuple[int, int, int]]] = {}
        self._root: tuple[int, int] | None = None

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
        kids = self._children.get(-1)
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
            self._children[-1] = kids
        return kids

    def _kids(self, start: int) -> dict[str, tuple[int, int, int]]:
        """token -> (key start, value start, value end) of the container at `start`."""
        kids = self._children.get(start)
        if kids is not None:
            return kids
        kids = {}
        text = self.text
        opener = text[start:start + 1]
        value_end, key_match, sep_match = self._value_end, _KEY.match, _SEP.match
        if opener == "{":
            i = start + 1
            while True:
                m = key_match(text, i)
                if m is None:
                    break
                key = m.group(1)
                if "\\" in key:
                    key = _scanstring(text, m.start(1))[0]
                v = m.end()
                end = value_end(v)
                kids.setdefault(key, (m.start(1) - 1, v, end))  # first occurrence wins, as for duplicate keys
                sep = sep_match(text, end)
                if not sep.group(1):
                    break
                i = sep.end()
        elif opener == "[":
            i = self._ws(start + 1)
            n = 0
            while i < len(text) and text[i] != "]":
                end = value_end(i)
                kids[str(n)] = (i, i, end)
                n += 1
                sep = sep_match(text, end)
                if not sep.group(1) or end == i:
                    break
                i = sep.end()
        self._children[start] = kids
        return kids

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
        for tok in tokens:
            kids = self._kids(start)
            entry = kids.get(tok)
            if entry is None:
                break
            key_start, start, end = entry
        if end < 0:
            end = self._root_span()[1]
        return key_start, end

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
        start, end = self.span(pointer)
        line, col = self.table.at(start)
        end_line, end_col = self.table.at(max(start, end))
        return line, col, end_line, end_col


class YamlPositions:
    """Positions from libyaml node marks (0-based in the marks; converted to 1-based here)."""

    def __init__(self, root: Any):
        self.root = root

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
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
                for k, v in node.value:
                    if getattr(k, "value", None) == tok:
                        nxt, key_node = v, k
                        break
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
