"""Regular expressions compiled on first use.

The checks hold a few hundred patterns; a run over one small file uses a fraction of them, and compiling
all of them at import took most of the start-up time. A `LazyPattern` compiles on its first use and then
answers as the compiled pattern does, at the same cost (its methods are the pattern's own, bound).
"""

from __future__ import annotations

import re
from typing import Any

_BOUND = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
_VALUES = ("pattern", "flags", "groups", "groupindex")


class LazyPattern:
    def __init__(self, pattern: str, flags: int = 0):
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        rx = re.compile(*self._args)
        d = self.__dict__
        for attr in _BOUND + _VALUES:
            d[attr] = getattr(rx, attr)
        return getattr(rx, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._args[0]!r})"


def lazy_compile(pattern: str, flags: int = 0) -> Any:
    """`re.compile`, deferred to the pattern's first use."""
    return LazyPattern(pattern, flags)
