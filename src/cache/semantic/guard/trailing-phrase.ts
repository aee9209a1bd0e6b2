/**
 * A phrase put at the end: one question is the other and then a short phrase opening with a
 * preposition ("What's the history of the pretzel?" / "... in America?", "How do I grow
 * marjoram?" / "... from seed?", "How is a hernia diagnosed?" / "... with ultrasound?"): one short
 * constraint added, a narrower question with its own answer (RULE163). A phrase that only weighs
 * or frames the question ("in short", "for me") adds none, and words after the question mark
 * ("How do I freeze sweet potatoes? in short") are no part of it.
 */
import type { GuardRule } from './guard-rule.ts';

/** Prepositions that open a phrase narrowing the question before them. */
const PREPOSITIONS: ReadonlySet<string> = new Set(
  `in on at for with without from during since between through about under over before after by near
  inside outside within across via using`.split(/\s+/),
);
/** Phrases that only weigh or frame the question, with the words they open with. */
const FRAMING: readonly string[] = [
  'in short',
  'in brief',
  'in a nutshell',
  'in simple terms',
  "in layman's terms",
  'in a word',
  'in general',
  'in fact',
  'for me',
  'for now',
  'for sure',
  'at all',
  'by the way',
];
/** How many words the phrase may have, its preposition with them. */
const [FEWEST, MOST] = [2, 4];

/** A question lowercased, its spaces collapsed and its curly apostrophes straight. */
const plain = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').replace(/’/g, "'").trim();

/**
 * The phrase `longer` adds at the end of `shorter` (both plain), before its closing mark: undefined
 * when `shorter` (its closing "?", "." or "!" dropped) is not where `longer` starts, or when what
 * follows is not one phrase (a comma, a semicolon or a second sentence in it).
 */
function addedPhrase(shorter: string, whole: string): string[] | undefined {
  const start = shorter.replace(/[?.!]+$/, '');
  if (start.length === 0 || !whole.startsWith(`${start} `)) return undefined;
  const rest = /^ ([^?.!;,:]+?)[?.!]*$/.exec(whole.slice(start.length));
  return rest === null ? undefined : (rest[1] as string).split(' ');
}

/** Words that point back to what the question names ("from it", "for her") or only mark it. */
const POINTING: ReadonlySet<string> = new Set(
  'it them her him me us you this that these those there here one a an the my your his its our their'.split(
    ' ',
  ),
);

/**
 * Whether `longer` is `shorterText` with a narrowing phrase put at its end: not a particle and the
 * preposition after it ("hold on to", aligned against "keep"), nor words that only point back
 * ("my earnings from it") or name again what the question names ("the American Cribbage Congress
 * in cribbage").
 */
function narrowedAtEnd(shorterText: string, longer: string): boolean {
  const shorter = plain(shorterText);
  const phrase = addedPhrase(shorter, plain(longer));
  if (phrase === undefined || phrase.length < FEWEST || phrase.length > MOST) return false;
  const [preposition, next] = [phrase[0] as string, phrase[1] as string];
  if (!PREPOSITIONS.has(preposition) || PREPOSITIONS.has(next) || next === 'to') return false;
  const text = phrase.join(' ');
  if (FRAMING.some((framing) => text === framing || text.startsWith(`${framing} `))) return false;
  const named = new Set(shorter.split(/[^\p{L}\p{N}']+/u));
  return phrase.slice(1).some((word) => !POINTING.has(word) && !named.has(word));
}

export const trailingPhrase: GuardRule = {
  reason: 'narrower',
  refuses: ({ question, candidate }) =>
    narrowedAtEnd(question, candidate) || narrowedAtEnd(candidate, question),
};
