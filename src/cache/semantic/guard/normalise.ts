/**
 * How the guard reads a word: lowercased, a synonym or spelling folded, Porter-stemmed
 * ("Colours" is "color", "automobile" is "car"), and the word classes every rule asks about
 * (content words, persons, verbs).
 */
import { stemmer } from 'stemmer';
import {
  AUXILIARY_FORMS,
  IRREGULAR_VERBS,
  NUMBER_WORDS,
  PERSONS,
  PRONOUN_CASES,
  STOP_WORDS,
  SYNONYMS,
} from './hit-guard-words.ts';

/** Normalised words by word as written: questions reuse a small vocabulary, and stemming is most of the guard's time. */
const normalised = new Map<string, readonly string[]>();
/** Beyond this many words the memo starts again (a bound on its memory, about 1 MB). */
const NORMALISED_MAX = 20_000;

/** Words read as one: a synonym or spelling folded, then Porter-stemmed ("Colours" is "color"). */
export function normaliseWord(raw: string): readonly string[] {
  const known = normalised.get(raw);
  if (known !== undefined) return known;
  const folded = PRONOUN_CASES[raw] ?? AUXILIARY_FORMS[raw] ?? SYNONYMS[raw] ?? raw;
  const words = folded.split(' ').map((word) => SYNONYMS[stemmer(word)] ?? stemmer(word));
  if (normalised.size >= NORMALISED_MAX) normalised.clear();
  normalised.set(raw, words);
  return words;
}

/** A word list as the set of its normalised words. */
export const normalisedSet = (words: readonly string[]): ReadonlySet<string> =>
  new Set(words.flatMap((word) => normaliseWord(word)));

const STOP = normalisedSet(STOP_WORDS);
const PERSON = normalisedSet(PERSONS);

/** Skipped after a direction word ("to [my] local machine") and before an actor. */
export const ARTICLES: ReadonlySet<string> = new Set([
  'a',
  'the',
  'my',
  'your',
  'our',
  'their',
  'his',
  'its',
]);

/** Whether a normalised word is a person ("I", "someone"). */
export const isPerson = (word: string): boolean => PERSON.has(word);

/** A word that carries the topic: no stop word, no number word, more than one letter. */
export const isContent = (word: string | undefined): word is string =>
  word !== undefined && !STOP.has(word) && NUMBER_WORDS[word] === undefined && word.length > 1;

/** A content word or a person ("I", "someone"): what can do or undergo something. */
export const isActor = (word: string | undefined): word is string =>
  isContent(word) || PERSON.has(word ?? '');

/** A verb, whatever its form ("eaten", "ate", "eats" are "eat"). */
export const verbOf = (token: string): string => normaliseWord(IRREGULAR_VERBS[token] ?? token)[0] ?? token;

/** Whether a lowercase token is a past participle ("eaten", "attacked"). */
export const isParticiple = (token: string | undefined): boolean =>
  token !== undefined && ((token.length > 4 && token.endsWith('ed')) || IRREGULAR_VERBS[token] !== undefined);
