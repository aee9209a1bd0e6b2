"""Builds the pair verifier's generated training data from templates.py and pools.py.

    python3 training/verifier/generate.py --seed 27 --per-template 80 --out training/verifier/data

For each template, slot values are drawn and pairs made from them:
- a paraphrase: the same intent and slot values, asked in another form and/or with other words
  for the same values (synonyms), then surface changes (politeness, register, case, contractions,
  abbreviations, typos, everyday synonyms);
- a near miss: one slot's value swapped for another of its pool (its kind: entity, number, date,
  unit, time frame, operation, quantity, audience, platform, format, language, scope, comparative,
  negation), two slots trading places (direction), or another intent of the template (its kind),
  asked in the same form or another one, with the same surface changes as paraphrases (so that
  surface alone tells nothing);
- a few unrelated pairs (two templates).
Every tenth template (index % 10 == 7) goes to the validation file only. Deterministic for a seed
(Python's `random` with that seed; no other source of randomness).
"""

import argparse
import json
import random
import re
import string
from pathlib import Path

from pools import POOLS, SYNONYMS
from templates import EXTRA_POOLS, LINKED, TEMPLATES

SLOT = re.compile(r"\{([a-z_]+?\d?)\}")


def pool_of(name):
    """(kind, groups or None) of a placeholder: its own pool, or the pool its name minus a digit names."""
    for candidate in (name, name.rstrip("0123456789")):
        if candidate in EXTRA_POOLS:
            return EXTRA_POOLS[candidate]
        if candidate in POOLS:
            return POOLS[candidate]
    raise KeyError(name)


def random_number(rng):
    choice = rng.random()
    if choice < 0.35:
        return rng.randint(2, 20)
    if choice < 0.7:
        return rng.choice([25, 30, 40, 45, 50, 60, 75, 80, 90, 100, 120, 150, 200, 250, 300, 400, 404, 500, 503, 1000])
    return rng.randint(21, 999)


def near_number(rng, value):
    options = [value + 1, value - 1, value * 2, value + 10, max(2, value // 2), value * 10, value + 5]
    options = [o for o in options if o != value and o > 0]
    return rng.choice(options)


NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
                12: "twelve", 20: "twenty", 100: "a hundred"}


def number_text(rng, value, allow_words):
    if allow_words and value in NUMBER_WORDS and rng.random() < 0.3:
        return NUMBER_WORDS[value]
    if value >= 1000 and rng.random() < 0.5:
        return f"{value:,}"
    return str(value)


class Draw:
    """Slot values of one question: a group index per pool slot, a value per number slot."""

    def __init__(self, values):
        self.values = dict(values)

    def copy(self):
        return Draw(self.values)


def slots_in(template):
    names = []
    for forms in template["intents"].values():
        for form in forms:
            for name in SLOT.findall(form):
                if name not in names:
                    names.append(name)
    return names


def draw_values(rng, template):
    values = {}
    for name in slots_in(template):
        if name in LINKED:
            continue
        kind, groups = pool_of(name)
        if groups is None:
            values[name] = random_number(rng)
        else:
            values[name] = rng.randrange(len(groups))
    # Two slots of one pool hold different values (their swap is a near miss of direction).
    names = list(values)
    swap = template["swap"] or ()
    for i, left in enumerate(names):
        for right in names[i + 1:]:
            same_pool = left.rstrip("0123456789") == right.rstrip("0123456789") or {left, right} == set(swap)
            if same_pool and values[left] == values[right]:
                _, groups = pool_of(right)
                size = len(groups) if groups else 0
                if size > 1:
                    values[right] = (values[right] + rng.randrange(1, size)) % size
                else:
                    values[right] = near_number(rng, values[right])
    return values


def render(rng, form, values, synonyms_ok=True):
    def fill(match):
        name = match.group(1)
        if name in LINKED:
            source, groups = LINKED[name]
            group = groups[values[source] % len(groups)]
        else:
            kind, groups = pool_of(name)
            if groups is None:
                return number_text(rng, values[name], synonyms_ok)
            group = groups[values[name]]
        return rng.choice(group) if synonyms_ok else group[0]

    text = SLOT.sub(fill, form)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([?.!,:])", r"\1", text)
    if text and text[0].islower() and rng.random() < 0.9:
        text = text[0].upper() + text[1:]
    return text


# ---------------- surface changes that keep the meaning ----------------
CONTRACTIONS = [("what is", "what's"), ("do not", "don't"), ("does not", "doesn't"), ("is not", "isn't"),
                ("i am", "i'm"), ("it is", "it's"), ("cannot", "can't"), ("how is", "how's"), ("you are", "you're"),
                ("i would", "i'd"), ("where is", "where's"), ("who is", "who's"), ("should not", "shouldn't"),
                ("are not", "aren't"), ("that is", "that's"), ("there is", "there's"), ("i have", "i've")]
ABBREVIATIONS = [("information", "info"), ("approximately", "approx."), ("please", "pls"), ("you", "u"),
                 ("versus", "vs"), ("minutes", "mins"), ("application", "app"), ("documentation", "docs"),
                 ("configuration", "config"), ("television", "TV"), ("photograph", "photo"), ("without", "w/o"),
                 ("with", "w/"), ("because", "bc"), ("for example", "e.g."), ("square feet", "sq ft"),
                 ("square foot", "sq ft"), ("temperature", "temp"), ("maximum", "max"), ("minimum", "min"),
                 ("recommend", "recommend"), ("and", "&"), ("number", "no."), ("thanks", "thx"), ("tomorrow", "tmrw"),
                 ("about", "abt"), ("people", "ppl"), ("really", "rly"), ("what", "wat")]
PREFIXES = ["Could you tell me: ", "Can you tell me ", "Please tell me: ", "Hey, ", "Quick question: ", "I was wondering, ",
            "Do you know ", "I'd like to know: ", "Hi! ", "Help me out: ", "Question: ", "Can you help? ", "So, ",
            "I need to know: ", "Hello, ", "Tell me, ", "Would you mind explaining: ", "Honest question: ", "ok so ", "yo, "]
SUFFIXES = [" Thanks!", " Thank you.", " please", " Please help.", " thx", " Any tips?", " I'm not sure.", " asap",
            " (asking for a friend)", " Cheers.", " in short", " Thanks in advance."]
KEYBOARD = {c: n for c, n in zip("qwertyuiopasdfghjklzxcvbnm", "wqrtyuiopoasdfghjklkzxcvbnm")}


def typo(rng, text):
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha() and w.islower()]
    if not candidates:
        return text
    i = rng.choice(candidates)
    w = words[i]
    j = rng.randrange(1, len(w) - 1)
    op = rng.randrange(4)
    if op == 0:
        w = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    elif op == 1:
        w = w[:j] + w[j + 1:]
    elif op == 2:
        w = w[:j] + w[j] + w[j:]
    else:
        w = w[:j] + KEYBOARD.get(w[j], w[j]) + w[j + 1:]
    words[i] = w
    return " ".join(words)


def replace_phrase(text, old, new):
    pattern = re.compile(r"(?<![\w'])" + re.escape(old) + r"(?![\w'])", re.IGNORECASE)
    return pattern.sub(new, text, count=1)


def contract(rng, text):
    pairs = CONTRACTIONS[:]
    rng.shuffle(pairs)
    for long, short in pairs:
        if rng.random() < 0.5:
            long, short = short, long
        if re.search(r"(?<![\w'])" + re.escape(long) + r"(?![\w'])", text, re.IGNORECASE):
            return replace_phrase(text, long, short)
    return text


def abbreviate(rng, text):
    pairs = ABBREVIATIONS[:]
    rng.shuffle(pairs)
    for long, short in pairs:
        if re.search(r"(?<![\w'])" + re.escape(long) + r"(?![\w'])", text, re.IGNORECASE):
            return replace_phrase(text, long, short)
    return text


SYNONYM_OF = {}
for group in SYNONYMS:
    for word in group:
        SYNONYM_OF[word] = group


def synonym_swap(rng, text):
    words = list(SYNONYM_OF)
    rng.shuffle(words)
    for word in words:
        if re.search(r"(?<![\w'])" + re.escape(word) + r"(?![\w'])", text, re.IGNORECASE):
            other = rng.choice([w for w in SYNONYM_OF[word] if w != word])
            return replace_phrase(text, word, other)
    return text


def register(rng, text):
    choice = rng.randrange(6)
    if choice == 0:
        return text.lower()
    if choice == 1:
        return text.rstrip("?.!")
    if choice == 2:
        return text.lower().rstrip("?.!")
    if choice == 3:
        return rng.choice(PREFIXES) + (text[0].lower() + text[1:] if text[:2] != "I " else text)
    if choice == 4:
        return text + rng.choice(SUFFIXES)
    return rng.choice(PREFIXES) + text.lower().rstrip("?.!") + "?"


SURFACE = [("register", register, 0.45), ("contraction", contract, 0.25), ("synonym", synonym_swap, 0.3),
           ("abbreviation", abbreviate, 0.12), ("typo", typo, 0.18)]


def surface(rng, text, strength=1.0):
    applied = []
    for name, change, probability in SURFACE:
        if rng.random() < probability * strength:
            changed = change(rng, text)
            if changed != text:
                text = changed
                applied.append(name)
    return text, applied


def pick_form(rng, forms, avoid=None):
    if avoid is not None and len(forms) > 1 and rng.random() < 0.85:
        return rng.choice([f for f in forms if f != avoid])
    return rng.choice(forms)


def paraphrase(rng, template, values):
    forms = template["intents"]["base"] if rng.random() < 0.7 else rng.choice(list(template["intents"].values()))
    form_a = rng.choice(forms)
    a = render(rng, form_a, values)
    if rng.random() < 0.3:
        # The same sentence with one word for another that means the same (a slot's other spelling,
        # or an everyday synonym), plus a light surface change at most.
        form_b = form_a
        b = a
        for _ in range(6):
            b = render(rng, form_a, values)
            if b != a:
                break
        if b == a:
            b = synonym_swap(rng, a)
        b, applied = surface(rng, b, 0.4)
        applied = ["synonym"] + applied
    else:
        form_b = pick_form(rng, forms, avoid=form_a)
        b = render(rng, form_b, values)
        b, applied = surface(rng, b, 1.2)
    if rng.random() < 0.3:
        a, _ = surface(rng, a, 0.6)
    kinds = (["reworded"] if form_a != form_b else []) + applied
    return a, b, "+".join(kinds) or "synonym-slot"


def near_miss(rng, template, values):
    intents = template["intents"]
    intent_a = "base" if rng.random() < 0.7 else rng.choice(list(intents))
    options = []
    changeable = [n for n in values if n in slots_of_forms(intents[intent_a])]
    for name in changeable:
        kind, groups = pool_of(name)
        if groups is None or len(groups) > 1:
            options.append(("slot", name, kind))
    if template["swap"] and all(s in changeable for s in template["swap"]):
        options += [("swap", None, "direction")] * 2
    if len(intents) > 1:
        options += [("intent", None, template["ikind"] or "format")] * max(1, len(options) // 2)
    if not options:
        return None
    weights = [KIND_WEIGHT.get(option[2], 2.5) for option in options]
    what, name, kind = rng.choices(options, weights)[0]
    other = dict(values)
    intent_b = intent_a
    if what == "slot":
        _, groups = pool_of(name)
        if groups is None:
            other[name] = near_number(rng, values[name])
        else:
            other[name] = (values[name] + rng.randrange(1, len(groups))) % len(groups)
            # A changed value equal to the other slot of its pool would be a swap, not a substitution.
            for sibling in values:
                family = sibling.rstrip("0123456789") == name.rstrip("0123456789") or {sibling, name} == set(template["swap"] or ())
                if sibling != name and family and other[name] == values[sibling]:
                    return None
    elif what == "swap":
        left, right = template["swap"]
        other[left], other[right] = values[right], values[left]
    else:
        intent_b = rng.choice([i for i in intents if i != intent_a])
    form_a = rng.choice(intents[intent_a])
    if intent_b == intent_a:
        form_b = form_a if rng.random() < 0.6 else pick_form(rng, intents[intent_b], avoid=form_a)
    else:
        form_b = rng.choice(intents[intent_b])
    a = render(rng, form_a, values)
    b = render(rng, form_b, other)
    b, _ = surface(rng, b, 1.0)
    if rng.random() < 0.3:
        a, _ = surface(rng, a, 0.6)
    return a, b, kind


# Near-miss kinds drawn more often than their share of slots would give (entities are most slots).
KIND_WEIGHT = {"entity": 1.0, "negation": 6.0, "quantity": 6.0, "direction": 4.0, "number": 3.0}


def slots_of_forms(forms):
    return {name for form in forms for name in SLOT.findall(form)}


def normal(text):
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--per-template", type=int, default=80)
    parser.add_argument("--out", default=str(Path(__file__).parent / "data"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train, val = [], []
    seen = set()
    for index, template in enumerate(TEMPLATES):
        rows = val if index % 10 == 7 else train
        made = {"paraphrase": 0, "near-miss": 0}
        tries = 0
        while min(made.values()) < args.per_template and tries < args.per_template * 20:
            tries += 1
            values = draw_values(rng, template)
            label = "paraphrase" if made["paraphrase"] <= made["near-miss"] else "near-miss"
            pair = paraphrase(rng, template, values) if label == "paraphrase" else near_miss(rng, template, values)
            if pair is None:
                continue
            a, b, kind = pair
            if label == "near-miss" and normal(a) == normal(b):
                continue
            if label == "paraphrase" and a == b:
                continue
            key = (a, b)
            if key in seen:
                continue
            seen.add(key)
            made[label] += 1
            rows.append({"id": f"g{index}-{len(rows)}", "a": a, "b": b, "label": label, "kind": kind,
                         "category": template["cat"], "template": index})
    # Unrelated pairs: two templates' questions (low similarity; a few so the model sees them too).
    for rows in (train, val):
        for count in range(len(rows) // 30):
            x, y = rng.sample(rows, 2)
            if x["template"] != y["template"]:
                rows.append({"id": f"u{count}-{len(rows)}", "a": x["a"], "b": y["b"], "label": "near-miss",
                             "kind": "unrelated", "category": "mixed", "template": -1})
    rng.shuffle(train)
    rng.shuffle(val)
    for name, rows in (("generated-train.jsonl", train), ("generated-val.jsonl", val)):
        with open(out / name, "w") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"train {len(train)} val {len(val)} templates {len(TEMPLATES)}")


if __name__ == "__main__":
    main()
