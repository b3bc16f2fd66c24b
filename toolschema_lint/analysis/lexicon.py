"""The concept lexicons (`rules/lexicons/<lang>.json`), merged into lookup tables.

A term is one or more words; the first word indexes it. Words are compared after the text's own
normalisation (NFKC, case folding): see `rules/lexicons/README.md` for the term syntax. Chinese and
Japanese terms are looked up as substrings of a run of those scripts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

CLASSES = (
    "ADDR", "DIR", "USER", "TELL", "HIDE", "NEG", "NONEED", "WITHOUT", "OTHER", "TOOL", "THIS", "CALL", "ARGMOD",
    "ARGOBJ", "SENS", "SINK", "SEND", "ALSO", "PAYLOAD", "CONTEXT", "VOID", "INSTR", "PRIOR", "AUTHORITY", "PRECEDENCE",
    "SAFE", "CONFIRM", "ASK", "OUTPUT", "FOLLOW", "TREAT", "SECRET", "DEFENSE", "FIRST", "EXEC", "EVAL", "CODE",
    "QUERY", "FETCH", "UPLOAD", "WRITE", "OVERWRITE", "COND", "NEUTRAL", "MENTION", "INTERNAL", "READONLY", "DELETE", "PAY", "DB",
)
ALIASES = {"SILENTOK": "NEUTRAL"}  # earlier name of a class

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # a word of any script (an apostrophe inside: don't)
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
MIN_STEM = 3  # a stem shorter than this would match too much


def is_cjk(ch: str) -> bool:
    return _CJK.match(ch) is not None


@dataclass
class Lexicon:
    """Lookup tables of every language's terms."""

    words: dict[str, frozenset[str]] = field(default_factory=dict)  # one-word term -> classes
    stems: dict[str, frozenset[str]] = field(default_factory=dict)  # stem (without '*') -> classes
    stem_lengths: tuple[int, ...] = ()  # distinct stem lengths, longest first
    phrases: dict[str, list[tuple[tuple[str, ...], bool, frozenset[str]]]] = field(default_factory=dict)
    # first word -> [(following words, last word is a stem, classes)], longest first
    cjk: dict[str, frozenset[str]] = field(default_factory=dict)  # CJK term -> classes
    cjk_lengths: tuple[int, ...] = ()
    languages: tuple[str, ...] = ()


def _add(table: dict, key, classes: set[str]) -> None:
    table[key] = frozenset(table.get(key, frozenset()) | classes)


def build(files: dict[str, dict]) -> Lexicon:
    """Merge lexicon documents ({lang: {"terms": {CLASS: [terms]}}}) into one `Lexicon`."""
    words: dict[str, frozenset[str]] = {}
    stems: dict[str, frozenset[str]] = {}
    cjk: dict[str, frozenset[str]] = {}
    phrases: dict[tuple[str, ...], tuple[bool, set[str]]] = {}
    # English words that another language's lexicon lists as loanwords (`function`, `system`) keep the
    # classes English gives them: otherwise a Portuguese loanword would change how English text reads
    english = {normalise_term(t).rstrip("*").strip() for terms in (files.get("en", {}).get("terms") or {}).values()
               if isinstance(terms, list) for t in terms if isinstance(t, str)}
    for lang, doc in files.items():
        for cls, terms in (doc.get("terms") or {}).items():
            cls = ALIASES.get(cls, cls)
            if cls not in CLASSES or not isinstance(terms, list):
                continue
            for term in terms:
                if not isinstance(term, str):
                    continue
                term = normalise_term(term)
                if not term:
                    continue
                stem = term.endswith("*")
                term = term.rstrip("*").strip()
                if not term or lang != "en" and term.isascii() and term in english:
                    continue
                if any(is_cjk(c) for c in term) and " " not in term:
                    _add(cjk, term, {cls})
                    continue
                parts = tuple(WORD.findall(term))
                if not parts:
                    continue
                if len(parts) == 1:
                    if stem and len(parts[0]) >= MIN_STEM:
                        _add(stems, parts[0], {cls})
                    else:
                        _add(words, parts[0], {cls})
                else:
                    old = phrases.get(parts)
                    phrases[parts] = (stem or (old[0] if old else False), (old[1] if old else set()) | {cls})
    by_first: dict[str, list[tuple[tuple[str, ...], bool, frozenset[str]]]] = {}
    for parts, (stem, classes) in phrases.items():
        by_first.setdefault(parts[0], []).append((parts[1:], stem, frozenset(classes)))
    for cands in by_first.values():
        cands.sort(key=lambda c: -len(c[0]))
    return Lexicon(words, stems, tuple(sorted({len(s) for s in stems}, reverse=True)), by_first, cjk,
                   tuple(sorted({len(s) for s in cjk}, reverse=True)), tuple(sorted(files)))


def normalise_term(term: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", term).casefold().split())


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """Every lexicon shipped in the catalogue."""
    root = resources.files("toolschema_lint.catalog").joinpath("lexicons")
    files: dict[str, dict] = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            doc = json.loads(entry.read_text(encoding="utf-8"))
            files[str(doc.get("lang") or entry.name[:-5])] = doc
    return build(files)
