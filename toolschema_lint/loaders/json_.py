"""JSON and JSON Lines input with the stdlib parser (duplicate keys detected), forgiving of JSONC."""

from __future__ import annotations

import json
import re
from typing import Any

from .problem import SourceProblem


class JsonProblem(SourceProblem):
    pass


class _DupTracker:
    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            self.count += 1
        return d


def _decode_error(e: json.JSONDecodeError) -> JsonProblem:
    msg = e.msg
    if e.pos >= len(e.doc.rstrip()) and msg.startswith(("Expecting", "Unterminated")):
        msg = f"truncated JSON ({msg.lower()})"
    else:
        msg = f"invalid JSON: {msg}"
    return JsonProblem("TSL001", msg, e.lineno, e.colno)


_JSONC_STRING = r'"(?:[^"\\\n]|\\.)*"'
# an unclosed /* runs to the end in one match (and is left as it is): trying to close it again
# from every later /* would take quadratic time
_JSONC_COMMENTS = re.compile(_JSONC_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_JSONC_COMMAS = re.compile(_JSONC_STRING + r"|,(?=\s*[\]}])")


def strip_jsonc(text: str) -> tuple[str, int] | None:
    """Blank out // and /* */ comments, then trailing commas (a comment may stand between a comma
    and its `]` or `}`), keeping every offset in place; an unclosed `/*` is left for the parser to
    report. Both passes are linear.

    Returns (text, offset of the first blanked token), or None when the text has none of them.
    """
    first: list[int] = []

    def blank(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith('"') or (tok.startswith("/*") and (len(tok) < 4 or not tok.endswith("*/"))):
            return tok
        first.append(m.start())
        return re.sub(r"[^\n]", " ", tok)

    out = _JSONC_COMMAS.sub(blank, _JSONC_COMMENTS.sub(blank, text))
    return (out, min(first)) if first else None


def _parse(text: str, tracker: _DupTracker) -> Any:
    return json.loads(text, object_pairs_hook=tracker)


_JSON_WS = re.compile(r"[ \t\n\r]*")
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


class _Malformed(Exception):
    """The top levels are not plain JSON: `_parse` reports it, with the decoder's own message."""


def _parse_indexed(text: str, tracker: _DupTracker) -> tuple[Any, dict[int, list[Any]]]:
    """`_parse`, reading the top levels itself: the root object, the objects under its keys, and the
    arrays down to the third level (where tool lists sit: `tools`, `result.tools`, a bare list).
    Values below them (each tool) go to the C scanner as one piece, as `json.loads` does, and where
    each one starts and ends is kept: the children index of `positions.JsonPositions`, so locating a
    finding does not decode the tools before it a second time.

    Raises `_Malformed` (or the scanner's errors) on anything unusual; the caller then parses with
    `_parse`, which reports the error as `json.loads` does.
    """
    reader = _TopLevels(text, tracker)
    data, end = reader.value(_JSON_WS.match(text, 0).end(), 0, False)
    if _JSON_WS.match(text, end).end() != len(text):
        raise _Malformed
    return data, reader.index


class _TopLevels:
    """The reader of `_parse_indexed` (a class, not nested functions: a recursive closure is a
    reference cycle, which would keep each file's text and index until a full garbage collection)."""

    __slots__ = ("text", "scan", "tracker", "index")

    def __init__(self, text: str, tracker: _DupTracker):
        self.text = text
        self.tracker = tracker
        self.scan = json.JSONDecoder(object_pairs_hook=tracker).scan_once
        self.index: dict[int, list[Any]] = {}

    def step(self, end: int, closer: str) -> tuple[int, bool]:
        """After a member ending at `end`: (offset of the closer, True), or of the next member, False."""
        text = self.text
        j = _JSON_WS.match(text, end).end()
        c = text[j:j + 1]
        if c == closer:
            return j, True
        if c != ",":
            raise _Malformed
        return _JSON_WS.match(text, j + 1).end(), False

    def value(self, i: int, depth: int, in_array: bool) -> tuple[Any, int]:
        text, ws = self.text, _JSON_WS.match
        c = text[i:i + 1]
        if c == "[" and depth <= 2:
            items: list[Any] = []
            kids: dict[str, list[int]] = {}
            last = None
            j = ws(text, i + 1).end()
            if text[j:j + 1] != "]":
                while True:
                    v, end = self.value(j, depth + 1, True)
                    kids[str(len(items))] = last = [j, j, end]
                    items.append(v)
                    j, closed = self.step(end, "]")
                    if closed:
                        break
            self.index[i] = [kids, -1, False, last]
            return items, j + 1
        if c == "{" and depth <= 1 and not in_array:
            pairs: list[tuple[str, Any]] = []
            keys: dict[str, list[int]] = {}
            last = None
            j = ws(text, i + 1).end()
            if text[j:j + 1] != "}":
                while True:
                    if text[j:j + 1] != '"':
                        raise _Malformed
                    key, end = _scanstring(text, j + 1)
                    k = ws(text, end).end()
                    if text[k:k + 1] != ":":
                        raise _Malformed
                    start = ws(text, k + 1).end()
                    v, end = self.value(start, depth + 1, False)
                    pairs.append((key, v))
                    last = [j, start, end]
                    if key not in keys:  # a pointer names the first of duplicate keys
                        keys[key] = last
                    j, closed = self.step(end, "}")
                    if closed:
                        break
            self.index[i] = [keys, -1, True, last]
            return self.tracker(pairs), j + 1
        return self.scan(text, i)


def load_json(text: str, lines: bool = False) -> tuple[Any, list[tuple[str, str, dict]], str, dict[int, list[Any]] | None]:
    """Parse JSON (or JSON Lines). Returns (data, problems, text used for positions, the children
    index of its top levels for `JsonPositions`, or None).

    problems are (rule, pointer, args). Raises JsonProblem when nothing usable could be parsed.
    """
    problems: list[tuple[str, str, dict]] = []
    tracker = _DupTracker()
    if lines:
        return (*_load_lines(text, tracker, problems), None)
    try:
        data, index = _parse_indexed(text, tracker)
    except (_Malformed, ValueError, StopIteration, RecursionError):
        tracker.count = 0  # the parse below counts again, and reports the error as json.loads does
    else:
        if tracker.count:
            problems.extend(_dup_problems(text, False))
        return data, problems, text, index
    try:
        data = _parse(text, tracker)
    except RecursionError:
        raise JsonProblem("TSL008", "nesting too deep to parse") from None
    except json.JSONDecodeError as e:
        if e.msg.startswith("Extra data") and text.lstrip().startswith("{"):
            try:
                return (*_load_lines(text, tracker, problems), None)
            except JsonProblem:
                pass
        stripped = strip_jsonc(text)
        if stripped is None:
            raise _decode_error(e) from None
        cleaned, first = stripped
        try:
            data = _parse(cleaned, tracker)
        except json.JSONDecodeError as e2:
            raise _decode_error(e2) from None
        except RecursionError:
            raise JsonProblem("TSL008", "nesting too deep to parse") from None
        problems.append(("TSL006", "", {"_offset": first}))
        text = cleaned
    if tracker.count:
        problems.extend(_dup_problems(text, False))
    return data, problems, text, None


def _load_lines(text: str, tracker: _DupTracker, problems: list) -> tuple[Any, list, str]:
    data = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data.append(_parse(line, tracker))
        except json.JSONDecodeError as e:
            raise JsonProblem("TSL001", f"invalid JSON Lines record: {e.msg}", lineno, e.colno) from None
        except RecursionError:
            raise JsonProblem("TSL008", "nesting too deep to parse", lineno, 1) from None
    if tracker.count:
        problems.extend(_dup_problems(text, True))
    return data, problems, text


def _dup_problems(text: str, lines: bool) -> list[tuple[str, str, dict]]:
    """One problem per repeated key, located at the repeat (`_offset` is its text offset)."""
    return [("TSL002", ptr, {"key": key, "_offset": off}) for ptr, key, off in _find_duplicates(text, lines)]


def _find_duplicates(text: str, lines: bool) -> list[tuple[str, str, int]]:
    """(pointer of the object, key, offset of the repeated key) for every duplicated key."""
    from .positions import _WS, _scanstring, _decoder  # local: only needed on this rare path

    results: list[tuple[str, str, int]] = []

    def walk(i: int, pointer: str, depth: int) -> int:
        i = _WS.match(text, i).end()
        if depth > 400 or i >= len(text):
            return _decoder.raw_decode(text, i)[1] if i < len(text) else i
        c = text[i]
        if c == "{":
            seen: dict[str, int] = {}  # keys of this object
            i = _WS.match(text, i + 1).end()
            while i < len(text) and text[i] == '"':
                key, after = _scanstring(text, i + 1)
                j = _WS.match(text, after).end() + 1  # past ':'
                child = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
                if key in seen:
                    results.append((pointer, key, i))
                seen[key] = 1
                i = walk(j, child, depth + 1)
                i = _WS.match(text, i).end()
                if i < len(text) and text[i] == ",":
                    i = _WS.match(text, i + 1).end()
            return i + 1
        if c == "[":
            n = 0
            i = _WS.match(text, i + 1).end()
            while i < len(text) and text[i] != "]":
                i = walk(i, f"{pointer}/{n}", depth + 1)
                n += 1
                i = _WS.match(text, i).end()
                if i < len(text) and text[i] == ",":
                    i = _WS.match(text, i + 1).end()
            return i + 1
        return _decoder.raw_decode(text, i)[1]

    if lines:
        pos, n = 0, 0
        for raw in text.splitlines(keepends=True):
            if raw.strip():
                walk(pos, f"/{n}", 0)
                n += 1
            pos += len(raw)
    else:
        walk(0, "", 0)
    return results
