"""Reporters: each a pure function (run result, settings) -> text, or chunks of text. The registry feeds `--format`."""

from __future__ import annotations

from typing import Callable

from . import github, gitlab, json_, sarif, text

REPORTERS: dict[str, Callable] = {
    "text": text.render,
    "json": json_.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
}
