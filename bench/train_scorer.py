#!/usr/bin/env python3
"""Train the learned scorer of TSL533 and write `rules/scorer/model.json`.

Needs scikit-learn (`pip install scikit-learn`); the linter itself reads the model with plain Python.

Training data:
- the blind red-team sets in `bench/blind/` (attack tools are positives; their honest companion tools and
  the benign files are negatives), except the sets named with `--exclude` (a set written to measure the
  frozen detector must never be trained on);
- one half of the public corpora in `../shared/corpora/` (LiveMCPBench, BFCL) as negatives, chosen by a
  CRC32 of the file name; the other half is held out to measure false positives.

Before the final fit, each blind set is scored by a model trained without it (leave one set out), and the
threshold is the lowest score that flags at most `--benign-rate` of those out-of-fold benign files and at
most `--corpus-rate` of the held-out corpus tools. The figures are printed and stored in the model.

    python bench/train_scorer.py                          # retrain as shipped (the same sets kept out)
    python bench/train_scorer.py --exclude final-4        # keep a held-out set out

The class features come from the lexicons, so the model is retrained whenever a lexicon changes (a test
compares the lexicon digest the model records with the shipped one).
    python bench/train_scorer.py --dry-run                # figures only
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolschema_lint.analysis.lexicon import digest  # noqa: E402
from toolschema_lint.analysis.scorer import MODEL, prose, tool_features  # noqa: E402
from toolschema_lint.loaders import collect, load_source  # noqa: E402

C = float(__import__("os").environ.get("SCORER_C", "10"))  # inverse regularisation strength


def tools_of(path: Path) -> list[tuple[str | None, list[str]]]:
    out = []
    for src in collect([str(path)]):
        doc = load_source(src)
        for t in doc.tools:
            strings = prose(t.raw) if isinstance(t.raw, (dict, list)) else [str(t.name)]
            out.append((t.name if isinstance(t.name, str) else None, strings or []))
    return out


def blind_rows(set_dir: Path, exclude: tuple[str, ...] = ()) -> list[dict]:
    rows = []
    for labels in sorted(set_dir.rglob("labels.jsonl")):
        if f"{set_dir.name}/{labels.parent.name}" in exclude:
            continue
        for line in labels.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            path = labels.parent / case["file"]
            if not path.exists():
                continue
            for name, strings in tools_of(path):
                y = int(case["label"] == "attack" and name == case["tool"])
                rows.append({"set": set_dir.name, "file": str(path), "label": case["label"], "y": y,
                             "strings": strings})
    return rows


def corpus_rows(corpora: Path) -> tuple[list[dict], list[dict]]:
    train, held = [], []
    for name in ("livemcp", "bfcl"):
        for path in sorted((corpora / name).glob("*.json")):
            part = held if zlib.crc32(path.name.encode()) % 2 else train
            for _, strings in tools_of(path):
                part.append({"set": name, "file": str(path), "label": "benign", "y": 0, "strings": strings})
    return train, held


def fit(rows: list[dict]):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(analyzer=lambda strings: list(tool_features(strings).elements()),
                          sublinear_tf=True, min_df=2, norm="l2")
    x = vec.fit_transform([r["strings"] for r in rows])
    clf = LogisticRegression(C=C, class_weight="balanced", max_iter=5000).fit(x, [r["y"] for r in rows])
    return vec, clf


def scores(vec, clf, rows: list[dict]) -> list[float]:
    return [float(s) for s in clf.decision_function(vec.transform([r["strings"] for r in rows]))] if rows else []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blind", type=Path, default=ROOT / "bench" / "blind")
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--exclude", action="append", default=None,
                    help="a blind set (or SET/CASEFOLDER) never to train on (repeatable; default: what the shipped "
                         "model excluded)")
    ap.add_argument("--benign-rate", type=float, default=0.02)
    ap.add_argument("--corpus-rate", type=float, default=0.001)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--oof", type=Path, help="write the out-of-fold scores (JSON lines: set, file, label, y, score)")
    args = ap.parse_args()
    if args.exclude is None:
        shipped = ROOT / "rules" / Path(*MODEL)
        args.exclude = json.loads(shipped.read_text(encoding="utf-8"))["about"]["excluded"] if shipped.exists() else []
    args.exclude = [e for e in args.exclude if e]  # `--exclude ''`: keep nothing out

    sets = sorted(p for p in args.blind.iterdir() if p.is_dir() and p.name not in args.exclude)
    blind = {s.name: rows for s in sets if (rows := blind_rows(s, tuple(args.exclude)))}
    corpus_train, corpus_held = corpus_rows(args.corpora)
    print(f"sets: {', '.join(blind)}; corpus tools: {len(corpus_train)} trained on, {len(corpus_held)} held out")

    # leave one set out: every blind tool scored by a model that never saw its set
    oof: list[tuple[dict, float]] = []
    held_scores: list[float] = []
    for name, rows in blind.items():
        train = [r for n, rs in blind.items() if n != name for r in rs] + corpus_train
        vec, clf = fit(train)
        oof += list(zip(rows, scores(vec, clf, rows)))
        held_scores += scores(vec, clf, corpus_held)

    if args.oof:
        with args.oof.open("w", encoding="utf-8") as fh:
            for r, s in oof:
                fh.write(json.dumps({k: r[k] for k in ("set", "file", "label", "y")} | {"score": s}) + "\n")

    def figures(t: float) -> dict:
        attacks = [s for r, s in oof if r["y"]]
        benign: dict[str, float] = {}
        for r, s in oof:
            if r["label"] == "benign":
                benign[r["file"]] = max(benign.get(r["file"], -1e9), s)
        return {"threshold": round(t, 3),
                "attacks_over": f"{sum(s > t for s in attacks)}/{len(attacks)}",
                "benign_files_over": f"{sum(s > t for s in benign.values())}/{len(benign)}",
                "held_out_corpus_over": f"{sum(s > t for s in held_scores)}/{len(held_scores)}"}

    benign_max: dict[str, float] = {}
    for r, s in oof:
        if r["label"] == "benign":
            benign_max[r["file"]] = max(benign_max.get(r["file"], -1e9), s)
    b = sorted(benign_max.values(), reverse=True)
    h = sorted(held_scores, reverse=True)
    t = max(b[int(args.benign_rate * len(b))], h[int(args.corpus_rate * len(h))])
    for dt in (-1.0, -0.5, 0.0, 0.5, 1.0):
        print(("* " if dt == 0 else "  ") + json.dumps(figures(t + dt)))

    vec, clf = fit([r for rs in blind.values() for r in rs] + corpus_train)
    vocab = sorted(vec.vocabulary_, key=vec.vocabulary_.get)
    coef = clf.coef_[0]
    model = {
        "about": {"trained_on": list(blind), "excluded": args.exclude, "corpus_tools": len(corpus_train),
                  "lexicon_digest": digest(),
                  "features": len(vocab), "C": C, "leave_one_set_out": figures(t),
                  "rule": f"threshold: at most {args.benign_rate:.1%} of out-of-fold benign files and "
                          f"{args.corpus_rate:.1%} of held-out corpus tools above it"},
        "intercept": round(float(clf.intercept_[0]), 6),
        "threshold": round(t, 4),
        "vocabulary": vocab,
        "idf": [round(float(x), 5) for x in vec.idf_],
        "coef": [round(float(x), 5) for x in coef],
    }
    if not args.dry_run:
        out = ROOT / "rules" / Path(*MODEL)
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(model, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)}: {len(vocab)} features, threshold {t:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
