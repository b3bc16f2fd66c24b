"""One string, analysed once: a normalised view with a map back to the original, its words tagged
with concept classes, and its sentences and clauses.

Normalisation undoes what hides a word from a reader that matches letters: compatibility forms
(NFKC: full-width letters, ligatures), case, invisible characters inside words, look-alike letters
from other scripts inside a Latin word, leetspeak (`1gn0re`), and letters spaced or dotted apart
(`i g n o r e`, `d.o n.o.t`). Every tag keeps the offsets of the original text it came from.

Everything here is linear in the length of the text: one pass to normalise, one regex scan for
words, dictionary look-ups per word (a bounded number per word for stems and CJK substrings).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import WORD, Lexicon, lexicon
from ..lazyre import lazy_compile

INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad\u034f\u115f\u1160\u3164"
                      "\uffa0\u17b4\u17b5\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Cyrillic and Greek letters that look like Latin ones: folded only inside a word that also has Latin letters
CONFUSABLE = {
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ո": "n", "ց": "g", "ο": "o", "α": "a", "ν": "v", "ρ": "p", "ι": "i",
    "κ": "k", "υ": "u", "ϲ": "c", "ϳ": "j", "τ": "t", "ε": "e", "в": "b", "к": "k", "м": "m", "н": "h", "т": "t",
}
LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a",
                      "$": "s", "!": "i", "|": "l", "€": "e", "+": "t"})
_LEET_WORD = lazy_compile(r"(?<![\w@$!|€+])(?=[\w@$!|€+]*[a-z])(?=[\w@$!|€+]*[0-9@$!|€+])[\w@$!|€+]{3,40}(?![\w@$!|€+])")
_SPACED = lazy_compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_·•*/|]{1,2}){3,}[^\W\d_](?![^\W_])")
SENTENCE_END = lazy_compile(r"[.!?。！？؟।॥]+(?=\s|$|[\"'”’)\]])|[\n\r]+|[。！？؟।॥]")
CLAUSE_END = lazy_compile(r"[,;:，；：、،؛—–()\[\]{}<>\"“”«»]|(?<!\w)(?:but|however|unless|although|though|except|"
                          r"yet|pero|mais|aber|ma|но|але|ale|ama|لكن|लेकिन|하지만|nhưng|tetapi|但是|但|しかし|ただし)(?!\w)")
MAX_CHARS = 2_000_000  # characters analysed per string (a description past this is an anomaly reported elsewhere)


@dataclass(frozen=True, slots=True)
class Tag:
    """A lexicon term found in the text: its classes, word index, sentence, clause and original span."""

    classes: frozenset[str]
    word: int
    sentence: int
    clause: int
    start: int
    end: int
    view: str = ""  # "" for the text itself, else how it was read ("leetspeak", "spaced letters", ...)


@dataclass(slots=True)
class Analysis:
    text: str
    norm: str
    tags: list[Tag]
    sentences: list[tuple[int, int]]  # original spans of sentences
    first_words: list[int]  # index of the first word of each sentence

    def by_sentence(self) -> dict[int, list[Tag]]:
        out: dict[int, list[Tag]] = {}
        for t in self.tags:
            out.setdefault(t.sentence, []).append(t)
        return out


@lru_cache(maxsize=4096)
def _char(c: str) -> str:
    if c in INVISIBLE:
        return ""
    return unicodedata.normalize("NFKC", c).casefold().replace("\u0307", "")  # Turkish İ folds to i + dot above


def normalise(text: str) -> tuple[str, list[int] | None]:
    """(normalised text, original index of each of its characters; None when that is the identity)."""
    text = text[:MAX_CHARS]
    if text.isascii():
        return text.lower(), None
    out: list[str] = []
    src: list[int] = []
    for i, c in enumerate(text):
        if c.isascii():
            out.append(c.lower())
            src.append(i)
            continue
        m = _char(c)
        for ch in m:
            out.append(ch)
            src.append(i)
    return "".join(out), src


def _fold_mixed(norm: str) -> str:
    """Look-alike letters folded to Latin inside words that mix them with Latin letters (same length)."""
    if norm.isascii():
        return norm
    chars = list(norm)
    changed = False
    for m in WORD.finditer(norm):
        w = m.group()
        if w.isascii() or not any("a" <= c <= "z" for c in w):
            continue
        if any(c in CONFUSABLE for c in w):
            for j, c in enumerate(w):
                f = CONFUSABLE.get(c)
                if f:
                    chars[m.start() + j] = f
                    changed = True
    return "".join(chars) if changed else norm


class _Tagger:
    """Looks words up in the lexicon and records tags."""

    def __init__(self, lex: Lexicon, analysis_src: list[int] | None, sent_starts: list[int], clause_starts: list[int]):
        self.lex = lex
        self.src = analysis_src
        self.sent_starts = sent_starts
        self.clause_starts = clause_starts
        self.tags: list[Tag] = []

    def orig(self, s: int, e: int) -> tuple[int, int]:
        if self.src is None:
            return s, e
        if not self.src:
            return 0, 0
        s = min(s, len(self.src) - 1)
        e = min(max(e, s + 1), len(self.src))
        return self.src[s], self.src[e - 1] + 1

    def add(self, classes: frozenset[str], word: int, s: int, e: int, view: str = "") -> None:
        sent = bisect.bisect_right(self.sent_starts, s) - 1
        clause = bisect.bisect_right(self.clause_starts, s) - 1
        os_, oe = self.orig(s, e)
        self.tags.append(Tag(classes, word, sent, clause, os_, oe, view))


def _word_classes(lex: Lexicon, w: str) -> frozenset[str] | None:
    c = lex.words.get(w)
    if c is not None:
        return c  # a word listed as such is read as listed, not also by another language's stem
    stems = lex.stems
    if stems:
        n = len(w)
        for L in lex.stem_lengths:
            if L <= n:
                sc = stems.get(w[:L])
                if sc is not None:
                    c = sc if c is None else c | sc
                    break
    return c


_AR_PROCLITICS = ("وال", "بال", "فال", "كال", "لل", "ال", "و", "ف", "ب", "ل")


_CACHE: dict[str, frozenset[str] | None] = {}  # word -> classes, for the lexicon in use (`_CACHE_OF`)
_CACHE_OF: list[Lexicon] = []
CACHE_WORDS = 200_000


def _lookup(lex: Lexicon, w: str) -> frozenset[str] | None:
    if not _CACHE_OF or _CACHE_OF[0] is not lex:
        _CACHE.clear()
        _CACHE_OF[:] = [lex]
    try:
        return _CACHE[w]
    except KeyError:
        pass
    c = _lookup_uncached(lex, w)
    if len(_CACHE) >= CACHE_WORDS:
        _CACHE.clear()
    _CACHE[w] = c
    return c


def _lookup_uncached(lex: Lexicon, w: str) -> frozenset[str] | None:
    c = _word_classes(lex, w)
    if c is not None:
        return c
    for q in ("'", "’"):  # French and Italian elision: l'utilisateur, dell'utente, n'informez
        i = w.find(q)
        if 0 < i <= 4 and len(w) - i > 2:
            c = _word_classes(lex, w[i + 1:])
            if c is not None:
                return c
    if "\u0600" <= w[0] <= "\u06ff":  # Arabic: conjunctions, prepositions and the article attach to the word
        for p in _AR_PROCLITICS:
            if w.startswith(p) and len(w) - len(p) >= 2:
                c = _word_classes(lex, w[len(p):])
                if c is not None:
                    return c
    return None


_MIXED = lazy_compile(r"[a-z][0-9@$!|]|[0-9@$!|][a-z]")


def rough_classes(text: str, lex: Lexicon | None = None) -> set[str] | None:
    """At least every class `analyse` would find in plain ASCII text, from one cheap pass over its
    words (phrases counted by their first word); None where only the full analysis can tell
    (other scripts, leetspeak, letters spaced apart)."""
    if not text.isascii():
        return None
    low = text.lower()
    if _MIXED.search(low) or (len(low) >= 7 and _SPACED.search(low)):
        return None
    lex = lex or lexicon()
    phrases = lex.phrases
    out: set[str] = set()
    words = WORD.findall(low)
    last = len(words) - 1
    for i, w in enumerate(words):
        c = _lookup(lex, w)
        if c is not None:
            out |= c
        if w in phrases and i < last:
            pairs, stem_pairs = lex.pairs_of(w)
            if words[i + 1] in pairs or stem_pairs:
                for _k, classes in lex.phrase_hits(words, i):
                    out |= classes
    return out


def analyse(text: str, lex: Lexicon | None = None) -> Analysis:
    """Normalise, split and tag one string (the last few analyses are kept: several rules read one string)."""
    return _analyse(text, lex or lexicon())


@lru_cache(maxsize=64)
def _analyse(text: str, lex: Lexicon) -> Analysis:
    norm, src = normalise(text)
    norm = _fold_mixed(norm)
    # letters spaced or dotted apart: read the run as the words it spells
    spaced = list(_SPACED.finditer(norm)) if len(norm) >= 7 else []
    sent_starts = [0] + [m.end() for m in SENTENCE_END.finditer(norm) if not _abbreviation(norm, m.start())]
    clause_starts = sorted(set(sent_starts) | {m.end() for m in CLAUSE_END.finditer(norm)})
    tg = _Tagger(lex, src, sent_starts, clause_starts)
    words = [(m.group(), m.start(), m.end()) for m in WORD.finditer(norm)]
    plain = [w[0] for w in words]
    starts = [w[1] for w in words]
    phrases = lex.phrases
    for i, (w, s, e) in enumerate(words):
        if "\u3040" <= w[0] <= "\u9fff" or "\uf900" <= w[0] <= "\ufaff":  # a Chinese or Japanese run
            _cjk(tg, lex, w, s, i)
            continue
        c, view = _lookup(lex, w), ""
        if c is None and not w.isalpha() and any(ch.isdigit() for ch in w) and any(ch.isalpha() for ch in w):
            lw = w.translate(LEET)
            c = _lookup(lex, lw)
            if c is None and "1" in w:
                c = _lookup(lex, w.replace("1", "l").translate(LEET))
            view = "leetspeak" if c is not None else ""
        if c is not None:
            tg.add(c, i, s, e, view)
        if w in phrases:
            for k, classes in lex.phrase_hits(plain, i):
                # the words of a phrase are separated by a short gap only
                if all(words[i + j + 1][1] - words[i + j][2] <= 3 for j in range(k - 1)):
                    tg.add(classes, i, s, words[i + k - 1][2])
    # leetspeak with symbols inside a word (`1gn@re`, `$ecret`) that the word scan split
    if any(ch in norm for ch in "@$!|€+"):
        for m in _LEET_WORD.finditer(norm):
            w = m.group()
            if WORD.fullmatch(w):
                continue
            c = _lookup(lex, w.translate(LEET))
            if c is not None:
                i = bisect.bisect_left(starts, m.start())
                tg.add(c, i, m.start(), m.end(), "leetspeak")
    for m in spaced:
        _spelled(tg, lex, norm, m, starts)
    tags = tg.tags
    phrases_noun = [(t.start, t.end) for t in tags if t.classes <= _NOUNISH and " " in text[t.start:t.end]]
    if phrases_noun:  # `email address` is a destination: its `email` is not also the verb
        within = Spans(phrases_noun)
        tags = tg.tags = [t for t in tags if not (t.classes & _VERBISH and " " not in text[t.start:t.end]
                                                 and within.strictly_covers(t.start, t.end))]
    if idents := [(m.start(), m.end()) for m in _IDENT.finditer(text)] if "_" in text else []:
        # words of an identifier (`send_sms_code`) name a thing, a parameter or a tool: they are not prose
        within = Spans(idents)
        tags = [t for t in tags if not within.covers(t.start, t.end)]
        if src is None:  # ASCII: offsets are the text's own
            for s_, e_ in idents:
                i = bisect.bisect_left(starts, s_)
                tags.append(Tag(frozenset({"ARGOBJ"}), i, bisect.bisect_right(sent_starts, s_) - 1,
                                bisect.bisect_right(clause_starts, s_) - 1, s_, e_))
        tg.tags = tags
    tags = tg.tags = _mentions(text, tags, sent_starts, tg)
    neutral = [(t.start, t.end) for t in tags if "NEUTRAL" in t.classes]
    if neutral:  # an honest sense of a word (`ignore case`, `follow redirects`) carries no other class
        within = Spans(neutral)
        tags = [t for t in tags if "NEUTRAL" in t.classes or not within.covers(t.start, t.end)]
        tg.tags = tags
    tg.tags.sort(key=lambda t: (t.word, t.start))
    sentences = []
    for k, s in enumerate(sent_starts):
        e = sent_starts[k + 1] if k + 1 < len(sent_starts) else len(norm)
        if e > s:
            sentences.append(tg.orig(s, e))
        else:  # an empty last sentence: where the text ends
            at = len(text) if src is None or s >= len(src) else src[s]
            sentences.append((min(at, len(text)), min(at, len(text))))
    starts = [w[1] for w in words]
    first_words = [bisect.bisect_left(starts, s) for s in sent_starts]
    return Analysis(text, norm, tg.tags, sentences, first_words)


_QUOTED = lazy_compile(r"[\"“”„«»「」『』]([^\"“”„«»「」『』\n]{2,300})[\"“”„«»「」『』]|(?<![\w])['‘’]([^'‘’\n]{2,300})['‘’](?![\w])")


def _mentions(text: str, tags: list[Tag], sent_starts: list[int], tg: "_Tagger") -> list[Tag]:
    """Words inside quotation marks are mentioned, not used, when the sentence around the quote says
    so: it gives them as examples (MENTION: `such as`, `e.g.`) or negates or warns (`do not follow
    text like "..."`). Quoted words in any other sentence keep their classes."""
    if not any(c in text for c in "\"“”„«»「」『』'‘’"):
        return tags
    spans = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]
    if not spans:
        return tags
    quoted = Spans([(s + 1, e - 1) for s, e in spans])
    inside = [t for t in tags if quoted.covers(t.start, t.end)]
    if not inside:
        return tags
    outside_by_sentence: dict[int, set[str]] = {}
    for t in tags:
        if not quoted.covers(t.start, t.end):
            outside_by_sentence.setdefault(t.sentence, set()).update(t.classes)
    drop = {id(t) for t in inside
            if outside_by_sentence.get(t.sentence, set()) & {"MENTION", "NEG", "DEFENSE"}}
    return [t for t in tags if id(t) not in drop] if drop else tags


_NOUNISH = frozenset({"SINK", "SENS", "ARGOBJ", "CONTEXT", "PAYLOAD", "OUTPUT", "INSTR", "TOOL", "USER", "AUTHORITY"})
_VERBISH = frozenset({"SEND", "CALL", "EXEC", "FOLLOW", "TELL", "ASK", "ARGMOD", "FETCH", "UPLOAD", "WRITE"})
class Spans:
    """Spans of a text, asked whether they cover a span: O(log n) a question (hostile text has many)."""

    __slots__ = ("starts", "reach", "spans")

    def __init__(self, spans: list[tuple[int, int]]):
        self.spans = sorted(spans)
        self.starts = [s for s, _e in self.spans]
        self.reach: list[int] = []
        far = -1
        for _s, e in self.spans:
            far = max(far, e)
            self.reach.append(far)

    def covers(self, start: int, end: int) -> bool:
        """Some span s..e with s <= start and end <= e."""
        i = bisect.bisect_right(self.starts, start) - 1
        return i >= 0 and self.reach[i] >= end

    def strictly_covers(self, start: int, end: int) -> bool:
        """Some span covers start..end and is longer than it."""
        i = bisect.bisect_right(self.starts, start) - 1
        while i >= 0 and self.reach[i] >= end:
            s, e = self.spans[i]
            if e >= end and (s, e) != (start, end):
                return True
            i -= 1
        return False


_IDENT = lazy_compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+")
_ABBREVIATIONS = ("e.g", "i.e", "etc", " vs", " cf", "approx", " no", "eg", "ie", "z.b", "d.h", "p.ex", "ex", "dr", "mr",
                  "p. ej", "p.ej", "por ej", "ad es", "per es", "bzw", "usw", "vgl", "z. b", "d. h", "т.е", "т.д", "т.п")


def _abbreviation(norm: str, end: int) -> bool:
    """A full stop that ends an abbreviation (`e.g.`, `i.e.`), not a sentence."""
    for a in _ABBREVIATIONS:
        a = a.strip()
        if norm.endswith(a, 0, end) and (end == len(a) or not norm[end - len(a) - 1].isalpha()):
            return True
    return False


def _cjk(tg: _Tagger, lex: Lexicon, run: str, start: int, word: int) -> None:
    """Chinese and Japanese: every lexicon term inside the run (longest at each position)."""
    table, lengths = lex.cjk, lex.cjk_lengths
    n = len(run)
    i = 0
    while i < n:
        hit = 0
        for L in lengths:
            if i + L <= n:
                c = table.get(run[i:i + L])
                if c is not None:
                    # each character is its own "word" position so that distance stays meaningful
                    tg.add(c, word * 1000 + i, start + i, start + i + L)
                    hit = hit or L
        i += 1 if not hit else max(1, hit // 2)
    return None


def _spelled(tg: _Tagger, lex: Lexicon, norm: str, m: re.Match, starts: list[int]) -> None:
    """A run of single letters (`i g n o r e  a l l`): wider gaps separate words; within a word, the
    letters are read greedily as the longest lexicon words they spell."""
    run = m.group()
    base = m.start()
    first = bisect.bisect_left(starts, base)
    letters = [(c, base + j) for j, c in enumerate(run) if c.isalpha()]
    if len(letters) < 4:
        return
    blob = "".join(c for c, _ in letters)
    pos = [p for _, p in letters]
    i, n = 0, len(blob)
    k = 0
    while i < n:
        best = None
        for L in range(min(16, n - i), 1, -1):
            c = _lookup(tg.lex, blob[i:i + L])  # cached: a hostile run repeats its letters
            if c is not None and (blob[i:i + L] in tg.lex.words or L >= 4):
                best = (L, c)
                break
        if best:
            L, c = best
            tg.add(c, first + k, pos[i], pos[i + L - 1] + 1, "spaced letters")
            k += 1
            i += L
        else:
            i += 1


_SHIFTS = [str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                         "".join(chr(97 + (i + k) % 26) for i in range(26)) + "".join(chr(65 + (i + k) % 26) for i in range(26)))
           for k in range(26)]
# the commonest words of English, and of the other Latin-script languages in ASCII (a cipher drops accents)
_COMMON = frozenset("""
the to and you of all this that is your with for not do any user must send always never tool data before after
call it in a an be are as on or if from
der die das und nicht nie zu mit von den dem ist auf fur bei beim ein eine einen nur auch oder wenn dass sie kein
keine nach le la les des et ne pas au aux sans pour une un est ce qui que dans sur avec vous jamais el los las por
para con sin del al nunca siempre il di che non per senza della mai sempre os nao com sem da uma um yang dan untuk
tidak jangan dengan ini itu dari nie na do sie jest ve bir bu icin ile degil
""".split())
_WORD_RUN = lazy_compile(r"[a-z]+")
# a sentence, or what follows a label (`Legacy note (decode and honour): Jurarire ...`)
_SEGMENT = lazy_compile(r"[^\n]*?(?:[.!?:]+(?=\s|$)|\n|$)")
_LATIN_LETTER = lazy_compile(r"[a-z]")


def _english(s: str) -> int:
    """Common words in `s` (lower case): how much it reads as text of a Latin-script language."""
    common = _COMMON
    return sum(1 for w in _WORD_RUN.findall(s) if w in common)


def _mostly_ascii(seg: str) -> bool:
    """ASCII but for a few Latin letters with accents (`à l'éyèir`: a cipher shifts only the ASCII letters)."""
    if seg.isascii():
        return True
    other = [c for c in seg if ord(c) > 127]
    return all(ord(c) < 0x250 or c in "’“”«»–—…" for c in other) and len(other) * 12 <= len(seg)


def cipher_views(text: str) -> list[tuple[str, str, int, int]]:
    """Sentences written in a letter cipher (ROT13 or another shift) or backwards, deciphered:
    [(how, plain text, start, end)]. Only a sentence that does not read as English itself and reads
    as English after deciphering is taken; each is tried with every shift (bounded, linear)."""
    out: list[tuple[str, str, int, int]] = []
    for m in _SEGMENT.finditer(text[:MAX_CHARS]):
        seg = m.group()
        if len(seg) < 15 or not _mostly_ascii(seg):
            continue
        low = seg.lower()
        if len(_LATIN_LETTER.findall(low)) < 12:
            continue
        words = max(1, len(low.split()))
        plain = _english(low)
        if plain * 6 >= words and plain >= 1:
            continue  # reads as English already (a cipher keeps hardly any English word by chance)
        best, shift = 0, 0
        for k in range(1, 26):
            c = _english(low.translate(_SHIFTS[k]))
            if c > best:
                best, shift = c, k
        if best >= 3 and best > 2 * plain + 1 and best * 4 >= words:
            how = "ROT13" if shift == 13 else f"a letter shift of {(26 - shift) % 26}"
            out.append((how, seg.translate(_SHIFTS[shift]), m.start(), m.end()))
            continue
        back = _english(low[::-1])
        if back >= 3 and back > 2 * plain + 1:
            out.append(("reversed text", seg[::-1], m.start(), m.end()))
    return out


_SPACED_RUN = lazy_compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_·•*/|]{1,3}){3,}[^\W\d_](?![^\W_])")
_SEP = lazy_compile(r"[ .\-_·•*/|]+")
_LEETY = lazy_compile(r"(?<![^\W_])(?=[a-z]*[0-9])(?=[0-9]*[a-z])[a-z0-9]{2,}(?![^\W_])|(?<![^\W_])[0-9]{1,2}(?=[a-z])")


def leet_view(text: str) -> str | None:
    """Text written in leetspeak throughout (`n0 n33d 70 ch3ck w17h 7h3 u53r`), read with letters for digits."""
    low = text[:MAX_CHARS].lower()
    mixed = sum(1 for _ in zip(range(200), _LEETY.finditer(low)))
    if mixed < 3 or mixed * 4 < len(low.split()):
        return None
    return re.sub(r"[a-z0-9@$|!]+", lambda m: m.group().translate(LEET) if _LEETY.search(m.group()) or
                  m.group().isdigit() and len(m.group()) <= 2 else m.group(), low)


def spaced_view(text: str) -> tuple[str, int, int] | None:
    """Letters spaced or dotted apart with wider gaps between words (`n.o. n.e.e.d.`, `a l w a y s  p u t`),
    read as words: (the text with each such run rewritten, start of the first run, end of the last)."""
    runs = list(_SPACED_RUN.finditer(text[:MAX_CHARS])) if len(text) >= 7 else []
    if not runs:
        return None
    parts: list[str] = []
    last = 0
    changed = False
    for m in runs:
        run = m.group()
        seps = _SEP.findall(run)
        if any(len(x) >= 2 for x in seps):
            words = [w for w in re.split(r"[ .\-_·•*/|]{2,}", run) if w]
        elif " " in seps and any(x != " " for x in seps):
            words = [w for w in run.split(" ") if w]  # `w.h.e.n t.h.e u.s.e.r`: dots inside words, spaces between
        else:
            continue
        rewritten = " ".join(_SEP.sub("", w) for w in words)
        parts.append(text[last:m.start()])
        parts.append(rewritten)
        last = m.end()
        changed = True
    if not changed:
        return None
    parts.append(text[last:])
    return "".join(parts), runs[0].start(), runs[-1].end()


_IDENT_WORDS = lazy_compile(r"[A-Za-z0-9]+(?:[_\-][A-Za-z0-9]+){4,}")


_IDENT_TAIL = lazy_compile(r"(?:[_\-][A-Za-z0-9.+\-]*@[A-Za-z0-9.\-]+|[_\-]https?://\S+)$")  # `..._to_x@host.example`


def identifier_view(text: str) -> str | None:
    """An identifier that is a sentence in disguise (`delete_branch_then_call_add_collaborator...`), as words;
    an address at its end (`..._full_chat_to_leads@partner.example`) is kept whole."""
    if len(text) > 300 or any(c.isspace() for c in text):
        return None
    tail = _IDENT_TAIL.search(text)
    head = text[:tail.start()] if tail else text
    if not _IDENT_WORDS.fullmatch(head):
        return None
    return re.sub(r"[_\-]+", " ", head) + (" " + tail.group()[1:] if tail else "")
