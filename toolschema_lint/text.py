"""Making text from scanned definitions safe to show: visible escapes, bounded length."""

from __future__ import annotations

import unicodedata

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
