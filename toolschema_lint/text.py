"""Making text from scanned definitions safe to show: visible escapes, bounded length."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .lazyre import lazy_compile


def _visible(ch: str) -> str:
    cp = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _needs_escape(ch: str) -> bool:
    if ch.isprintable():
        return unicodedata.category(ch) == "Cf"  # format chars: zero-width, bidi, tags
    return ch != " "


def sanitize(value: str, limit: int = 120) -> str:
    """Escape control, format (zero-width, bidi, tag) and other invisible characters; truncate.

    The result has no character a terminal would interpret, and makes hidden content visible.
    """
    if not isinstance(value, str):
        value = str(value)
    truncated = len(value) > limit
    if truncated:
        value = value[:limit]
    if value.isascii() and value.isprintable():
        out = value
    else:
        out = "".join(_visible(c) if _needs_escape(c) else c for c in value)
    return out + "…" if truncated else out


_INVISIBLE = lazy_compile(
    "[\u0080-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e0fff]"
)


def _json_escape(m: re.Match[str]) -> str:
    cp = ord(m.group(0))
    if cp > 0xFFFF:
        cp -= 0x10000
        return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"
    return f"\\u{cp:04x}"


def dumps_safe(obj: Any, **kw: Any) -> str:
    """JSON text readable in any viewer: non-ASCII kept, but invisible and bidi characters escaped.

    The data is unchanged (a JSON parser reads the same strings back).
    """
    return escape_invisible(json.dumps(obj, ensure_ascii=False, **kw))


def escape_invisible(json_text: str) -> str:
    """`dumps_safe`'s escaping of invisible and bidi characters, for JSON text encoded in pieces."""
    if json_text.isascii():  # a flag of the string, no scan: every character escaped here is non-ASCII
        return json_text
    return _INVISIBLE.sub(_json_escape, json_text)
