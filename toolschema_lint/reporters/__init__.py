"""Reporters: each a pure function (run result, settings) -> text, or chunks of text. The registry feeds `--format`.

A reporter's module is imported when its format is asked for: `rich`, which only the text
reporter needs, costs a tenth of a JSON or SARIF run's start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Callable, Iterator

_MODULES = {
    "text": "text",
    "json": "json_",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
}


def _module(name: str) -> Any:
    """The reporter module of format `name` (KeyError for an unknown format, as a dict would raise)."""
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


class _Reporters(Mapping):
    """format name -> render function, importing the reporter module on first lookup."""

    def __getitem__(self, name: str) -> Callable:
        return _module(name).render

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


REPORTERS: Mapping[str, Callable] = _Reporters()


def preparer(name: str) -> Callable | None:
    """The format's `prepare(findings)`, which encodes findings where they are made (in worker
    processes), or None when the format has none."""
    return getattr(_module(name), "prepare", None)


def fix_hints(settings: Any) -> dict[str, str]:
    """Rule id -> its fix on one line, for the reports that show it beside findings; {} with --no-hints."""
    if not getattr(settings, "hints", True):
        return {}
    from ..registry import catalog

    return {rid: meta.hint for rid, meta in catalog().items() if meta.hint}
