"""JSON and JSON Lines input with the stdlib parser (duplicate keys detected), forgiving of JSONC."""

from __future__ import annotations

import json
import re
from typing import Any

from .positions import _WS, _scanstring
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


_JSONC_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=\s*[\]}])', re.S)


def strip_jsonc(text: str) -> tuple[str, int] | None:
    """Blank out // and /* */ comments and trailing commas, keeping every offset in place.

    Returns (text, offset of the first blanked token), or None when the text has none of them.
    """
    first: list[int] = []

    def blank(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith('"'):
            return tok
        first.append(m.start())
        return re.sub(r"[^\n]", " ", tok)

    out = _JSONC_TOKEN.sub(blank, text)
    return (out, first[0]) if first else None


def _parse(text: str, tracker: _DupTracker) -> Any:
    return json.loads(text, object_pairs_hook=tracker)


# Where the members of a top-level object and the elements of its arrays lie:
# {container start offset: {token: [key start, value start, value end]}} (`JsonPositions` seeds)
Offsets = dict[int, dict[str, list[int]]]


_INDEX_DEPTH = 2  # containers noted: the root and its members (a `tools` list: where each tool lies)


def _parse_indexed(text: str, tracker: _DupTracker) -> tuple[Any, Offsets | None]:
    """`_parse`, noting on the way where the members and elements of the outer containers lie
    (the root and a `tools` list): positions then need not decode every tool again to step over
    it. (Going one level deeper, into each tool, costs more in Python than it saves.)

    Values below that depth are decoded by the same C scanner `json.loads` uses, and the containers
    above it are assembled as it would (pairs through the same duplicate-counting hook), so the
    value is the same; on any surprise the text is left to `_parse`, whose errors are the ones
    reported.
    """
    start = _WS.match(text).end()
    if text[start:start + 1] not in ("{", "["):
        return _parse(text, tracker), None
    scan = json.JSONDecoder(object_pairs_hook=tracker).scan_once
    seeds: Offsets = {}
    try:
        value, end = _indexed(text, start, scan, tracker, seeds, 0)
        if _WS.match(text, end).end() != len(text):
            raise ValueError  # extra data: `_parse` words the error
    except (ValueError, IndexError, StopIteration, RecursionError):
        tracker.count = 0
        return _parse(text, tracker), None
    return value, seeds


def _indexed(text: str, i: int, scan: Any, tracker: _DupTracker, seeds: Offsets, depth: int) -> tuple[Any, int]:
    """The value at `i` and where it ends; a container above `_INDEX_DEPTH` read member by member."""
    opener = text[i]
    if depth >= _INDEX_DEPTH or (opener != "{" and opener != "["):
        return scan(text, i)
    kids: dict[str, list[int]] = {}
    j = _WS.match(text, i + 1).end()
    if opener == "{":
        pairs: list[tuple[str, Any]] = []
        if text[j] != "}":
            while True:
                if text[j] != '"':
                    raise ValueError
                key, after = _scanstring(text, j + 1)
                colon = _WS.match(text, after).end()
                if text[colon] != ":":
                    raise ValueError
                v = _WS.match(text, colon + 1).end()
                value, end = _indexed(text, v, scan, tracker, seeds, depth + 1)
                pairs.append((key, value))
                kids.setdefault(key, [j, v, end])  # a pointer names the first of duplicate keys
                j, more = _after(text, end)
                if not more:
                    break
        if text[j] != "}":
            raise ValueError
        seeds[i] = kids
        return tracker(pairs), j + 1
    items: list[Any] = []
    if text[j] != "]":
        while True:
            value, end = _indexed(text, j, scan, tracker, seeds, depth + 1)
            kids[str(len(items))] = [j, j, end]
            items.append(value)
            j, more = _after(text, end)
            if not more:
                break
    if text[j] != "]":
        raise ValueError
    seeds[i] = kids
    return items, j + 1


def _after(text: str, end: int) -> tuple[int, bool]:
    """Past a member or element ending at `end`: (offset of what follows, whether a comma led there)."""
    j = _WS.match(text, end).end()
    if text[j] != ",":
        return j, False
    return _WS.match(text, j + 1).end(), True


def load_json(text: str, lines: bool = False) -> tuple[Any, list[tuple[str, str, dict]], str, Offsets | None]:
    """Parse JSON (or JSON Lines). Returns (data, problems, text used for positions, where the
    top-level members and elements lie when that was noted while parsing).

    problems are (rule, pointer, args). Raises JsonProblem when nothing usable could be parsed.
    """
    problems: list[tuple[str, str, dict]] = []
    tracker = _DupTracker()
    if lines:
        return (*_load_lines(text, tracker, problems), None)
    try:
        data, seeds = _parse_indexed(text, tracker)
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
        text, seeds = cleaned, None
    if tracker.count:
        problems.extend(_dup_problems(text, False))
    return data, problems, text, seeds


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
    from .positions import _decoder  # local: only needed on this rare path

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
