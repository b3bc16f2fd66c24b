"""A learned second opinion: how much a tool's text reads like instructions to the model.

The intent patterns (`intents.py`) explain what they find, but each needs its classes near one
another; wordings that spread an intent over a paragraph, or say it in words no lexicon has yet,
slip between them. This scorer reads the whole tool at once as a bag of words: a linear model over
word, word-pair and word-stem features (Chinese and Japanese as character pairs), trained on attack
and honest tool definitions (`bench/train_scorer.py`; the model is data, `rules/scorer/model.json`).

It only adds findings: a low score never mutes a finding of another rule, so padding a tool with
honest words can hide nothing that the intent patterns see.

Linear in the text: one regex scan per string and one dictionary look-up per feature.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Iterable
from ..lazyre import lazy_compile

MODEL = ("scorer", "model.json")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = lazy_compile(rf"[{_CJK}]+|[^\W\d_{_CJK}]+(?:['’][^\W\d_{_CJK}]+)?")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u034f\u180e"), None)
STEM = 5  # a word longer than STEM + 1 letters also counts as its first STEM letters (inflected languages)
MAX_CHARS = 200_000  # characters of one string read (the intent patterns read the rest)


def tokens(text: str) -> list[str]:
    """Words of `text` after NFKC and case folding (digits and punctuation dropped); Chinese and
    Japanese runs as overlapping character pairs (a single character stays one)."""
    t = text[:MAX_CHARS]
    t = t.lower() if t.isascii() else unicodedata.normalize("NFKC", t.translate(_INVISIBLE)).casefold()
    out: list[str] = []
    for m in _TOKEN.finditer(t):
        w = m.group()
        if _is_cjk(w[0]):
            if len(w) == 1:
                out.append(w)
            else:
                out.extend(w[i:i + 2] for i in range(len(w) - 1))
        else:
            out.append(w)
    return out


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF


def features(text: str) -> tuple[str, ...]:
    """Features of one string: words, adjacent word pairs and stems of long words, and the concept
    classes of each sentence (`#HIDE`), their pairs within the sentence (`#HIDE&USER`) and the classes
    of adjacent tagged words in order (`#SEND>ALSO`), from the lexicons of the analysis layer."""
    toks = tokens(text)
    out = list(toks)
    out.extend(f"{a} {b}" for a, b in zip(toks, toks[1:]))
    out.extend(">" + w[:STEM] for w in toks if len(w) > STEM + 1)
    if len(text) >= 8:
        out.extend(class_features(text))
    return tuple(out)


def class_features(text: str) -> list[str]:
    from .text import analyse

    out: list[str] = []
    by: dict[int, list] = {}
    for t in analyse(text[:MAX_CHARS]).tags:
        by.setdefault(t.sentence, []).append(t)
    for tags in by.values():
        cls: set[str] = set()
        for t in tags:
            cls |= t.classes
        ordered = sorted(cls)
        out.extend("#" + c for c in ordered)
        out.extend(f"#{a}&{b}" for i, a in enumerate(ordered) for b in ordered[i + 1:])
        for x, y in zip(tags, tags[1:]):
            out.extend(f"#{cx}>{cy}" for cx in x.classes for cy in y.classes)
    return out


# values that are schema vocabulary, not prose a model reads as text
_SCHEMA_VALUES = frozenset({"type", "format", "$ref", "$schema", "$id", "$anchor", "$dynamicRef", "pattern",
                            "required", "contentEncoding", "contentMediaType", "dependentRequired"})
MAX_STRINGS = 20_000


def prose(raw: object) -> list[str]:
    """The string values of a tool definition that a model reads as text (descriptions, titles, names,
    enum values, defaults, examples, annotations, `_meta`), in no set order: object keys and schema
    vocabulary (`type`, `format`, `pattern`, `required`, ...) left out. Bounded in count; safe on shared
    nodes."""
    out: list[str] = []
    stack = [raw]
    seen: set[int] = set()
    while stack and len(out) < MAX_STRINGS:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, str):
                    if k not in _SCHEMA_VALUES:
                        out.append(v)
                elif isinstance(v, (dict, list)) and k not in _SCHEMA_VALUES:
                    stack.append(v)
        elif isinstance(node, list):
            for v in node:
                if isinstance(v, str):
                    out.append(v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
    return out


def tool_features(strings: Iterable[str]) -> Counter:
    """Feature counts of a tool: the sum over its strings (no pair spans two strings)."""
    c: Counter = Counter()
    for s in strings:
        c.update(features(s))
    return c


@dataclass(frozen=True, slots=True)
class Model:
    weights: dict[str, tuple[float, float]]  # feature: (idf, coefficient)
    intercept: float
    threshold: float  # scores above it are reported
    about: dict
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def known(self, text: str) -> tuple[str, ...]:
        """The features of `text` that the model weighs (memoised per string)."""
        out = self._memo.get(text)
        if out is None:
            w = self.weights
            out = tuple(f for f in features(text) if f in w)
            if len(self._memo) >= 32768:
                self._memo.clear()
            self._memo[text] = out
        return out

    def counts(self, strings: Iterable[str]) -> Counter:
        c: Counter = Counter()
        for s in strings:
            c.update(self.known(s))
        return c

    def score(self, counts: Counter) -> float:
        """The model's decision value for a tool's feature counts (sublinear tf-idf, L2-normalised)."""
        dot = norm = 0.0
        get = self.weights.get
        log = math.log
        for f, n in counts.items():
            e = get(f)
            if e is None:
                continue
            x = e[0] if n == 1 else (1.0 + log(n)) * e[0]  # most features occur once: 1 + log(1) is 1
            norm += x * x
            dot += x * e[1]
        return self.intercept + (dot / math.sqrt(norm) if norm else 0.0)

    def strongest(self, counts: Counter, k: int = 4) -> list[str]:
        """The features that pushed the score up most (for the message)."""
        w = self.weights
        parts = []
        for f, n in counts.items():
            e = w.get(f)
            if e is not None and e[1] > 0 and f[0] not in ">#":
                parts.append(((1.0 + math.log(n)) * e[0] * e[1], f))
        parts.sort(reverse=True)
        out: list[str] = []
        for _, f in parts:
            if not any(f in o or o in f for o in out):
                out.append(f)
            if len(out) == k:
                break
        return out


@lru_cache(maxsize=1)
def model() -> Model:
    """The shipped model (read once per process)."""
    from ..cache import derived

    source = resources.files("toolschema_lint.catalog").joinpath(*MODEL)
    return derived("scorer", lambda: from_json(json.loads(source.read_text(encoding="utf-8"))))  # kept between runs


def from_json(data: dict) -> Model:
    vocab, idf, coef = data["vocabulary"], data["idf"], data["coef"]
    if not (len(vocab) == len(idf) == len(coef)):
        raise ValueError("scorer model: vocabulary, idf and coef differ in length")
    return Model({f: (float(i), float(c)) for f, i, c in zip(vocab, idf, coef)}, float(data["intercept"]),
                 float(data["threshold"]), data.get("about", {}))
