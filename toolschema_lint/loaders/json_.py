"""JSON and JSON Lines input with the stdlib parser (duplicate keys detected), forgiving of JSONC."""

from __future__ import annotations

import json
import re
from typing import Any

from ..model import join_pointer
from .problem import SourceProblem
from ..lazyre import lazy_compile


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
_JSONC_COMMENTS = lazy_compile(_JSONC_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_JSONC_COMMAS = lazy_compile(_JSONC_STRING + r"|,(?=\s*[\]}])")


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


def load_json(text: str, lines: bool = False) -> tuple[Any, list[tuple[str, str, dict]], str]:
    """Parse JSON (or JSON Lines). Returns (data, problems, text used for positions).

    problems are (rule, pointer, args). Raises JsonProblem when nothing usable could be parsed.
    """
    problems: list[tuple[str, str, dict]] = []
    tracker = _DupTracker()
    if lines:
        return _load_lines(text, tracker, problems)
    try:
        data = _parse(text, tracker)
    except RecursionError:
        raise JsonProblem("TSL008", "nesting too deep to parse") from None
    except json.JSONDecodeError as e:
        if e.msg.startswith("Extra data") and text.lstrip().startswith("{"):
            try:
                return _load_lines(text, tracker, problems)
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
    return data, problems, text


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
                child = join_pointer(pointer, key)
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
