#!/usr/bin/env python3
"""Adds a pair set written for the semantic bench as bench/data/reserved/semantic-pairs-unseen-NAME.jsonl.

    scripts/add-unseen-set.py NAME AUTHORS_FILE [OTHER_NEW_FILE ...]

AUTHORS_FILE is the author's JSON Lines (bench/data/reserved/BRIEF.md says how they are written).
Dropped, and counted: malformed lines, unknown labels or kinds, a pair repeated, and any pair with a
question (case and punctuation aside) that is also in the training data (training/verifier/data/),
in another bench set (bench/data/, bench/data/reserved/) or in the other new files named (sets
written at the same time). Register the set in bench/semantic.ts and describe it in
bench/data/reserved/README.md; measure it once, after the change it is for has been chosen.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEAR_MISSES = {"entity", "number", "date", "unit", "direction", "negation", "comparative", "time-frame",
               "operation", "quantity", "audience", "platform", "format", "scope", "language"}
PARAPHRASES = {"synonym", "reorder", "register", "politeness", "typo", "contraction", "abbreviation", "restructure"}


def words(text):
    return " ".join(re.findall(r"\w+", text.lower()))


def questions(path):
    for line in path.read_text().splitlines():
        try:
            pair = json.loads(line)
        except ValueError:
            continue
        if isinstance(pair, dict):
            yield from (words(pair[key]) for key in ("a", "b", "question") if isinstance(pair.get(key), str))


def main():
    name, written, others = sys.argv[1], Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]]
    out = ROOT / "bench/data/reserved" / f"semantic-pairs-unseen-{name}.jsonl"
    known_files = [*(ROOT / "training/verifier/data").rglob("*.jsonl"), *(ROOT / "bench/data").rglob("*.jsonl"), *others]
    known = {q for path in known_files if path.resolve() != out.resolve() for q in questions(path)}
    kept, seen = [], set()
    dropped = {"malformed": 0, "kind": 0, "repeated": 0, "known": 0}
    for line in written.read_text().splitlines():
        if not line.strip():
            continue
        try:
            pair = json.loads(line)
            a, b, label, kind = pair["a"], pair["b"], pair["label"], pair["kind"]
        except (ValueError, KeyError, TypeError):
            dropped["malformed"] += 1
            continue
        if not ((label == "near-miss" and kind in NEAR_MISSES) or (label == "paraphrase" and kind in PARAPHRASES)):
            dropped["kind"] += 1
            continue
        key = frozenset((words(a), words(b)))
        if key in seen:
            dropped["repeated"] += 1
            continue
        seen.add(key)
        if words(a) in known or words(b) in known:
            dropped["known"] += 1
            continue
        kept.append({"id": pair.get("id") or f"{name}-{len(kept) + 1:04d}", "a": a, "b": b, "label": label,
                     "kind": kind, "category": pair.get("category", "")})
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in kept))
    paraphrases = sum(p["label"] == "paraphrase" for p in kept)
    print(f"{out.relative_to(ROOT)}: {len(kept)} pairs ({paraphrases} paraphrases, {len(kept) - paraphrases} near misses);"
          f" dropped {json.dumps(dropped)}")


if __name__ == "__main__":
    main()
