"""The concept lexicons (`rules/lexicons/<lang>.json`), merged into lookup tables.

A term is one or more words; the first word indexes it. Words are compared after the text's own
normalisation (NFKC, case folding): see `rules/lexicons/README.md` for the term syntax. Chinese and
Japanese terms are looked up as substrings of a run of those scripts.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from ..lazyre import lazy_compile

CLASSES = (
    "ADDR", "DIR", "USER", "TELL", "HIDE", "NEG", "NONEED", "WITHOUT", "OTHER", "TOOL", "THIS", "CALL", "ARGMOD",
    "ARGOBJ", "SENS", "SINK", "SEND", "ALSO", "PAYLOAD", "CONTEXT", "VOID", "INSTR", "PRIOR", "AUTHORITY", "PRECEDENCE",
    "SAFE", "CONFIRM", "ASK", "OUTPUT", "FOLLOW", "TREAT", "SECRET", "DEFENSE", "FIRST", "EXEC", "EVAL", "CODE",
    "QUERY", "FETCH", "UPLOAD", "WRITE", "OVERWRITE", "COND", "NEUTRAL", "MENTION", "INTERNAL", "READONLY", "DELETE", "PAY", "DB",
)
ALIASES = {"SILENTOK": "NEUTRAL"}  # earlier name of a class

_CJK_CHARS = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# a word: a run of Chinese/Japanese characters, or of letters and digits of any other script (an
# apostrophe inside: don't); the two never share a word (`bccにaudit` is `bcc`, `に`, `audit`)
# combining marks (Devanagari vowel signs, Arabic harakat, accents left unmerged) belong to their word
_MARKS = "\u0300-\u036f\u0483-\u0489\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0900-\u0903\u093a-\u094f" \
         "\u0951-\u0957\u0962\u0963"
_LETTER = f"(?:[^\\W_{_CJK_CHARS}]|[{_MARKS}])"
WORD = lazy_compile(f"[{_CJK_CHARS}]+|{_LETTER}+(?:['’]{_LETTER}+)*")
_CJK = lazy_compile(f"[{_CJK_CHARS}]")
MIN_STEM = 3  # a stem shorter than this would match too much (in alphabets; Hangul syllables: 2)


def is_cjk(ch: str) -> bool:
    return _CJK.match(ch) is not None


_PUNCT = lazy_compile(r"[:/()\[\]{}<>=@#$%^&+|\\;,\"!?`]")
# languages written in another script: an ASCII term in their lexicon is an English loanword
_OWN_SCRIPT = frozenset({"zh", "ja", "ko", "ru", "uk", "ar", "hi"})


def _min_stem(stem: str) -> int:
    return 2 if "\uac00" <= stem[0] <= "\ud7a3" else MIN_STEM


@dataclass(eq=False)
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
    # phrases by their first word, then by their second (two-word phrases ending in a stem: by the first word
    # alone), indexed for each first word when text first holds it: a short run indexes a few words, not all
    _by_first: dict[str, tuple[dict[str, list], list]] = field(default_factory=dict)

    def pairs_of(self, first: str) -> tuple[dict[str, list], list]:
        """({second word: [(rest, stem, classes)]}, [(stem of the second word, classes)]) of phrases opening
        with `first`."""
        entry = self._by_first.get(first)
        if entry is None:
            pairs: dict[str, list] = {}
            stem_pairs: list = []
            for rest, stem, classes in self.phrases.get(first, ()):
                if len(rest) == 1 and stem:
                    stem_pairs.append((rest[0], classes))
                else:
                    pairs.setdefault(rest[0], []).append((rest[1:], stem, classes))
            entry = self._by_first[first] = (pairs, stem_pairs)
        return entry

    def phrase_hits(self, words: list[str], i: int) -> list[tuple[int, frozenset[str]]]:
        """(number of words, classes) of each phrase starting at word i of `words`."""
        n = len(words)
        if i + 1 >= n:
            return []
        out = []
        w, nxt = words[i], words[i + 1]
        pairs, stem_pairs = self.pairs_of(w)
        for rest, stem, classes in pairs.get(nxt, ()):
            k = len(rest)
            if i + 1 + k < n and all(words[i + 2 + j] == part or stem and j == k - 1 and words[i + 2 + j].startswith(part)
                                     for j, part in enumerate(rest)):
                out.append((k + 2, classes))
            elif k == 0:
                out.append((2, classes))
        for part, classes in stem_pairs:
            if nxt.startswith(part):
                out.append((2, classes))
        return out


def _add(table: dict, key, classes: set[str]) -> None:
    table[key] = frozenset(table.get(key, frozenset()) | classes)


# Latin-script languages often typed without their accents (`contrasena`, `nao`, `sifre`, `haslo`,
# `erwaehnen`): each term of five letters or more also stands in its unaccented spelling (shorter ones would
# become other words: `sûr` is `sur`). Vietnamese without its tones collides with other languages
# (`số thẻ` would read `so the`): it is left out.
_FOLDED = frozenset({"es", "pt", "fr", "it", "de", "pl", "tr"})
_FOLD_LETTERS = str.maketrans({"ł": "l", "ı": "i", "đ": "d", "ø": "o", "æ": "ae", "œ": "oe"})
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})


def folded_spellings(term: str, lang: str) -> list[str]:
    """The unaccented spellings of a normalised term (German: `ä` as `ae` and as `a`), other than itself."""
    if lang not in _FOLDED or term.isascii():
        return []
    forms = [term.translate(_UMLAUTS)] if lang == "de" else []
    forms.append(term)
    out = []
    for f in forms:
        plain = "".join(c for c in unicodedata.normalize("NFKD", f.translate(_FOLD_LETTERS))
                        if not unicodedata.combining(c))
        plain = unicodedata.normalize("NFKC", plain)
        if plain != term and plain not in out and len(plain.rstrip("*").replace(" ", "")) >= 5 \
                and not _folds_a_short_word(f, plain):
            out.append(plain)
    return out


def _folds_a_short_word(term: str, plain: str) -> bool:
    """A word of one or two letters lost its accent (`você é` -> `voce e`): unaccented, it is another word in
    another language (Italian `voce e`, "voice and"), so the plain spelling is left out."""
    return any(a != b and len(b) <= 2 for a, b in zip(term.split(), plain.split()))


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
            spelled: list[str] = []
            for raw in terms:
                if isinstance(raw, str):
                    t = normalise_term(raw)
                    spelled.append(t)
                    spelled.extend(folded_spellings(t, lang))
            for term in spelled:
                if not term:
                    continue
                stem = term.endswith("*")
                term = term.rstrip("*").strip()
                if not term or lang != "en" and term.isascii() and (term in english or lang in _OWN_SCRIPT):
                    continue  # English words in another lexicon are loanwords: English gives their classes
                if any(is_cjk(c) for c in term) and " " not in term:
                    _add(cjk, term, {cls})
                    continue
                parts = tuple(WORD.findall(term))
                if not parts or len(parts) == 1 and _PUNCT.search(term):
                    continue  # `file://`, `exec(` would collapse into the bare word (`file`, `exec`)
                if len(parts) == 1:
                    if stem and len(parts[0]) >= _min_stem(parts[0]):
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
    if term.isascii():
        return " ".join(term.lower().split())
    return " ".join(unicodedata.normalize("NFKC", term).casefold().split())


BUILT = "built.json"  # the merged tables, read instead of building them while its digest matches the sources


def _sources() -> list[tuple[str, str]]:
    root = resources.files("toolschema_lint.catalog").joinpath("lexicons")
    return [(e.name, e.read_text(encoding="utf-8")) for e in sorted(root.iterdir(), key=lambda e: e.name)
            if e.name.endswith(".json") and e.name != BUILT]


def _digest(sources: list[tuple[str, str]]) -> str:
    h = hashlib.sha256()
    for name, text in sources:
        h.update(name.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return h.hexdigest()


def digest() -> str:
    """The digest of the shipped lexicon sources (the learned scorer records the one it was trained with)."""
    return _digest(_sources())


def _built(sources: list[tuple[str, str]]) -> Lexicon:
    files: dict[str, dict] = {}
    for name, text in sources:
        doc = json.loads(text)
        files[str(doc.get("lang") or name[:-5])] = doc
    return build(files)


def _to_json(lex: Lexicon) -> dict:
    return {"words": {k: sorted(v) for k, v in lex.words.items()},
            "stems": {k: sorted(v) for k, v in lex.stems.items()},
            "phrases": {k: [[list(rest), stem, sorted(c)] for rest, stem, c in v] for k, v in lex.phrases.items()},
            "cjk": {k: sorted(v) for k, v in lex.cjk.items()}, "languages": list(lex.languages)}


def _from_json(data: dict) -> Lexicon:
    sets: dict[tuple[str, ...], frozenset[str]] = {}

    def fs(classes: list[str]) -> frozenset[str]:
        key = tuple(classes)
        got = sets.get(key)
        if got is None:
            got = sets[key] = frozenset(classes)
        return got

    stems = {k: fs(v) for k, v in data["stems"].items()}
    cjk = {k: fs(v) for k, v in data["cjk"].items()}
    return Lexicon({k: fs(v) for k, v in data["words"].items()}, stems,
                   tuple(sorted({len(x) for x in stems}, reverse=True)),
                   {k: [(tuple(rest), stem, fs(c)) for rest, stem, c in v] for k, v in data["phrases"].items()},
                   cjk, tuple(sorted({len(x) for x in cjk}, reverse=True)), tuple(data["languages"]))


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """Every lexicon shipped in the catalogue, merged: from `built.json` while it matches the sources
    (`python -m toolschema_lint.registry` writes it; a test fails when it is stale), else built anew."""
    from ..cache import derived

    return derived("lexicon", _load)  # kept between runs by the command line


def _load() -> Lexicon:
    """The merged tables, from `built.json` while its digest matches the sources, else built."""
    sources = _sources()
    digest = _digest(sources)
    try:
        text = resources.files("toolschema_lint.catalog").joinpath("lexicons", BUILT).read_text(encoding="utf-8")
        data = json.loads(text)
        if isinstance(data, dict) and data.get("digest") == digest:
            return _from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return _built(sources)


def write_built() -> str:
    """Write the merged tables beside the lexicons; returns where they went."""
    sources = _sources()
    data = {"digest": _digest(sources), **_to_json(_built(sources))}
    target = str(resources.files("toolschema_lint.catalog").joinpath("lexicons", BUILT))
    with open(target, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        fh.write("\n")
    return target
