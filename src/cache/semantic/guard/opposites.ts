/**
 * Opposites: one question has a word and the other its opposite ("turn on" / "turn off", "best" /
 * "worst", "for" / "against", "before" / "after"), in half the frame at least (a rewording may
 * turn a comparison round: "more fuel-efficient" / "uses less fuel"); or one question adds an
 * undoing verb to everything the other asks ("strip paint from kitchen cabinets" / "paint kitchen
 * cabinets"), or one party of an act for its counterpart ("grantor" / "grantee"); a verb and its
 * opposite count with a particle after one of them ("thicken" / "thin out my gravy", RULE90), and an
 * irregular past as its verb ("sold" / "bought", "lent" / "borrowed", RULE104), and a word of the
 * list a synonym folds by its stem too ("received" is "receive", RULE105); and an opposite beside
 * one other change ("too runny; how do I thicken it?" / "too stiff; how do I thin it?", RULE114), or
 * at the first word the two differ at, whatever follows ("thicken a runny caramel" / "thin out a
 * caramel that's too thick", RULE122), the other's word later too unless an "or", a "but" or an
 * "after" joins them ("too thick; how do I thin it out?" / "too thin; how do I thicken it up?",
 * RULE127).
 * Their answers are each other's reverse.
 */
import { stemmer } from 'stemmer';
import { isEnglishWord } from './english-words.ts';
import type { Features } from './features.ts';
import { type GuardRule, OPPOSED_FRAME } from './guard-rule.ts';
import { COUNTERPARTS, OPPOSED_PASTS, OPPOSITES, UNDOING } from './hit-guard-words.ts';
import { normalisedSet, normaliseWord } from './normalise.ts';
import { changedPlaces, commonStart, soleChange } from './word-sequences.ts';
import { wordnetAntonyms } from './wordnet.ts';

const UNDO = normalisedSet(UNDOING);
/**
 * A word of the list as the guard reads it, and as its stem alone where a synonym folds it to
 * another word: "receive" reads as "get", "received" as "receiv" (RULE105).
 */
const forms = (word: string): readonly string[] => [
  ...new Set([normaliseWord(word)[0] ?? word, stemmer(word)]),
];
const OPPOSITE_PAIRS = OPPOSITES.map(([left, right]) => [forms(left), forms(right)] as const);

/** A word, or the verb an irregular past writes ("sent" is also "send", "won" "win", RULE104). */
const readings = (features: Features, word: string): string[] => {
  const verb = OPPOSED_PASTS[features.written.get(word) ?? ''];
  return verb === undefined ? [word] : [word, normaliseWord(verb)[0] ?? verb];
};

/** The words a question holds, each irregular past as its verb too. */
const heard = (features: Features): ReadonlySet<string> =>
  new Set(features.words.flatMap((word) => readings(features, word)));

/** Whether one question has a word and the other its opposite, and neither both. */
function opposed(asked: Features, cached: Features): boolean {
  const [mine, theirs] = [heard(asked), heard(cached)];
  const any = (words: ReadonlySet<string>, side: readonly string[]) => side.some((word) => words.has(word));
  return OPPOSITE_PAIRS.some(
    ([one, other]) =>
      (any(mine, one) && !any(mine, other) && any(theirs, other) && !any(theirs, one)) ||
      (any(mine, other) && !any(mine, one) && any(theirs, one) && !any(theirs, other)),
  );
}

/**
 * Whether the only word that differs is a word and its opposite, whatever else the two share:
 * "the app on my phone; how do I turn on ..." / "... turn off ...", where both hold "on"; the
 * opposite one of the list's or a WordNet antonym ("tall" / "short", "thickest" / "thinnest",
 * wordnet.ts, RULE60).
 */
function turned(asked: Features, cached: Features): boolean {
  const at = soleChange(asked.words, cached.words);
  return at !== undefined && turnedAt(asked, cached, at);
}

/** Whether the words at `at` on the two sides are a word and its opposite, as `turned` reads them. */
function turnedAt(asked: Features, cached: Features, at: number): boolean {
  const [mine, theirs] = [asked.words[at] as string, cached.words[at] as string];
  const [mines, theirses] = [readings(asked, mine), readings(cached, theirs)];
  const [myWord, theirWord] = [asked.written.get(mine) ?? mine, cached.written.get(theirs) ?? theirs];
  return (
    OPPOSITE_PAIRS.some(
      ([one, other]) =>
        (mines.some((word) => one.includes(word)) && theirses.some((word) => other.includes(word))) ||
        (mines.some((word) => other.includes(word)) && theirses.some((word) => one.includes(word))),
    ) ||
    wordnetAntonyms(myWord, theirWord) ||
    negatedByPrefix(myWord, theirWord) ||
    negatedByPrefix(theirWord, myWord)
  );
}

/** Prefixes that make a word's opposite: "suitable" / "unsuitable", "assemble" / "disassemble" (RULE156). */
const NEGATING_PREFIXES = ['un', 'dis', 'non', 'in', 'im', 'il', 'ir'] as const;
/** Words the prefix does not turn round: "inflammable" is "flammable", "invaluable" very valuable. */
const SAME_WITH_PREFIX: ReadonlySet<string> = new Set(
  `inflammable invaluable inhabitable unravel unravels unraveled unravelled unraveling unravelling unloosen
  unloosened unthaw unthawed unthawing`.split(/\s+/),
);

/**
 * Whether `prefixed` is `word` with a negating prefix before it (RULE156): `word` an English word
 * of four letters or more ("unreconcile" is in no list), not one of the pairs whose prefix negates
 * nothing. Another word that only starts so ("ease" / "disease") is another question too.
 */
function negatedByPrefix(word: string, prefixed: string): boolean {
  if (word.length < 4 || SAME_WITH_PREFIX.has(prefixed)) return false;
  return NEGATING_PREFIXES.some((prefix) => prefixed === `${prefix}${word}`) && isEnglishWord(word) === true;
}

/**
 * Whether the words differ in two places, one of them a word and its opposite as `turned` reads a
 * sole change, and the two places are not the same two words exchanged (RULE114): "my jam turned
 * out too runny; how do I thicken it?" / "... too stiff; how do I thin it?", "bind the receiver
 * to it" / "unbind the receiver from it"; "before baking or after" / "after baking or before" is
 * left to the swapped-roles rule.
 */
function turnedBeside(asked: Features, cached: Features): boolean {
  if (asked.words.length !== cached.words.length) return false;
  const places = changedPlaces(asked.words, cached.words);
  if (places.length !== 2) return false;
  const [first, second] = places as [number, number];
  if (asked.words[first] === cached.words[second] && asked.words[second] === cached.words[first])
    return false;
  return places.some((place) =>
    turned(
      {
        ...asked,
        words: cached.words.map((word, index) => (index === place ? (asked.words[index] as string) : word)),
      },
      cached,
    ),
  );
}

const PARTICLES = normalisedSet(['out', 'up', 'down', 'off', 'back', 'away']);
const OBJECTS = normalisedSet(['it', 'them', 'this', 'that']);

/** `words` without a particle right after the word at `at`, or after it and an object pronoun. */
function withoutParticle(words: readonly string[], at: number): readonly string[] {
  const after = OBJECTS.has(words[at + 1] ?? '') ? at + 2 : at + 1;
  return PARTICLES.has(words[after] ?? '') ? [...words.slice(0, after), ...words.slice(after + 1)] : words;
}

/**
 * Whether the only word that differs is a word and its opposite once a particle after it is set
 * aside on either side (RULE90): "thicken my gravy" / "thin out my gravy", "thin it out" /
 * "thicken it up".
 */
function turnedWithParticle(asked: Features, cached: Features): boolean {
  const at = commonStart(asked.words, cached.words);
  const [mine, theirs] = [withoutParticle(asked.words, at), withoutParticle(cached.words, at)];
  if (mine === asked.words && theirs === cached.words) return false;
  return (
    soleChange(mine, theirs) === at &&
    turned({ ...asked, words: [...mine] }, { ...cached, words: [...theirs] })
  );
}

/** Each counterpart word, singular and plural, to its counterparts' forms ("grantee": "grantor", "granter", ...). */
const COUNTERPART_OF = new Map<string, string[]>();
for (const [one, other] of COUNTERPARTS) {
  const [ones, others] = [
    [one, `${one}s`],
    [other, `${other}s`],
  ];
  for (const word of ones) COUNTERPART_OF.set(word, [...(COUNTERPART_OF.get(word) ?? []), ...others]);
  for (const word of others) COUNTERPART_OF.set(word, [...(COUNTERPART_OF.get(word) ?? []), ...ones]);
}

/**
 * Whether the only word written differently is a party for its counterpart in the same act
 * ("Does the grantor need to sign the deed?" / "Does the grantee ...?", RULE71): the one the answer
 * is about changed. Read on the words as written, the sole change alone ("pay employees" /
 * "a Texas employer pay its staff" rebuilds the question round the other party).
 */
function counterpart(asked: Features, cached: Features): boolean {
  const at = soleChange(asked.tokens, cached.tokens);
  if (at === undefined) return false;
  return COUNTERPART_OF.get(asked.tokens[at] as string)?.includes(cached.tokens[at] as string) ?? false;
}

/**
 * Whether `mine` adds an undoing verb to everything `theirs` asks ("remove paint from a fence" /
 * "paint a fence"), and `theirs` has no more negations than `mine`: where it has, it undoes the
 * same thing with "not" ("How do I stop swallowing water?" / "What can I do so I don't swallow
 * water?", RULE73).
 */
function undone(mine: Features, theirs: Features): boolean {
  const undoing = [...mine.content].filter((word) => UNDO.has(word) && !theirs.content.has(word));
  return (
    undoing.length > 0 &&
    theirs.negations <= mine.negations &&
    [...theirs.content].every((word) => mine.content.has(word))
  );
}

/**
 * The words that join alternatives, contrasts or events in order, which a reorder keeps between its
 * two opposites (RULE127): "before baking or after", "the lower ones are impacted but the upper ones
 * are fine", "bought a smaller house after he sold his old one".
 */
const REORDER_JOINS: ReadonlySet<string> = normalisedSet([
  'or',
  'but',
  'nor',
  'vs',
  'versus',
  'whereas',
  'while',
  'after',
  'before',
  'then',
]);

/** Whether `words` hold `other` after `at` with one of REORDER_JOINS between them. */
function alternatives(words: readonly string[], at: number, other: string): boolean {
  const later = words.indexOf(other, at + 1);
  return later > at && words.slice(at + 1, later).some((word) => REORDER_JOINS.has(word));
}

/**
 * Whether the first word the two differ at is a word and its opposite, whatever follows (RULE122):
 * "how do I thicken a runny caramel?" / "how do I thin out a caramel that's too thick?"; and where
 * a question holds the other's word later, each in the other's place ("too thick; how do I thin it
 * out?" / "too thin; how do I thicken it up?", RULE127), but not with an alternative's word between
 * the two, as a reorder writes them ("before baking or after" / "after baking or before", "the
 * lower teeth are impacted but the upper ones are fine").
 */
function turnedFirst(asked: Features, cached: Features): boolean {
  const at = commonStart(asked.words, cached.words);
  const [mine, theirs] = [asked.words[at], cached.words[at]];
  if (mine === undefined || theirs === undefined) return false;
  if (!turnedAt(asked, cached, at)) return false;
  return !alternatives(asked.words, at, theirs) && !alternatives(cached.words, at, mine);
}

export const oppositeWords: GuardRule = {
  reason: 'opposite',
  refuses: (pair) =>
    (opposed(pair.asked, pair.cached) && pair.frame >= OPPOSED_FRAME) ||
    turned(pair.asked, pair.cached) ||
    turnedWithParticle(pair.asked, pair.cached) ||
    turnedBeside(pair.asked, pair.cached) ||
    turnedFirst(pair.asked, pair.cached) ||
    counterpart(pair.asked, pair.cached) ||
    undone(pair.asked, pair.cached) ||
    undone(pair.cached, pair.asked),
};
