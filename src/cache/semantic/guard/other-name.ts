/**
 * Another name in place of a name: the words the two questions do not share at either end are, on
 * each side, one to three capitalised words inside a sentence ("Presta" / "Schrader", "Ancestry" /
 * "MyHeritage", "Recreation.gov" / "ReserveAmerica", "MMR" / "DTaP"), and they are not one name
 * mistyped ("Spotify" / "Spotfy", "Philadelphia" / "Philadephia") or abbreviated ("Tuesdays" /
 * "Tues", "Fort Lauderdale, Florida" / "Ft. Lauderdale, FL", "the Birkie" / "the American
 * Birkebeiner"). A side with a short acronym or a figure ("D1", "LHR", "US", "MMR") is left alone:
 * it may stand for the other. The verifier reads such a pair as one question (0.99 and more), and
 * the two names alone often as near enough (0.04 to 0.98).
 */
import type { GuardRule } from './guard-rule.ts';
import { editDistance } from './word-sequences.ts';

interface Word {
  text: string;
  /** Whether a sentence starts with it: first, or after `.` `?` `!` `;` `:`. */
  opens: boolean;
}

/** Whether a sentence starts at `index`: nothing but spaces before it, or `.` `?` `!` `;` `:` and spaces. */
function opensAt(text: string, index: number): boolean {
  let at = index - 1;
  while (at >= 0 && /\s/u.test(text[at] as string)) at -= 1;
  return at < 0 || '.?!;:'.includes(text[at] as string);
}

/** Words as written, with the dots, hyphens and apostrophes inside them ("Recreation.gov", "Adopt-a-Pet"). */
function wordsOf(text: string): Word[] {
  return [...text.matchAll(/[\p{L}\p{N}](?:[\p{L}\p{N}'’.-]*[\p{L}\p{N}])?/gu)].map((match) => ({
    text: match[0],
    opens: opensAt(text, match.index),
  }));
}

/** A name: capitalised or with a capital inside ("iPhone", "DTaP"), not opening a sentence. */
const named = (word: Word): boolean => !word.opens && /\p{Lu}/u.test(word.text);

const letters = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** An acronym or a code that may stand for a name: four letters at most in capitals, or with a figure ("D1", "LHR"). */
const acronym = (word: Word): boolean => /\p{N}/u.test(word.text) || /^[\p{Lu}.]{1,5}$/u.test(word.text);

/** Whether `short` abbreviates `long`: the same first letter, its letters in order in the other ("tues", "ft", "fl"). */
function abbreviates(short: string, long: string): boolean {
  if (short.length === 0 || short[0] !== long[0]) return false;
  let at = 0;
  for (const letter of long) if (letter === short[at]) at += 1;
  return at === short.length;
}

/** Whether two spellings are one name: mistyped (Damerau distance within 2, or a third of the longer) or abbreviated. */
function sameName(left: string, right: string): boolean {
  const [mine, theirs] = [letters(left), letters(right)];
  if (mine === theirs) return true;
  const [short, long] = mine.length <= theirs.length ? [mine, theirs] : [theirs, mine];
  const limit = Math.max(2, Math.floor(long.length / 3));
  return editDistance(mine, theirs, limit) <= limit || abbreviates(short, long);
}

function otherName(question: string, candidate: string): boolean {
  const [mine, theirs] = [wordsOf(question), wordsOf(candidate)];
  const same = (left: Word | undefined, right: Word | undefined) =>
    left !== undefined && right !== undefined && left.text.toLowerCase() === right.text.toLowerCase();
  let start = 0;
  while (same(mine[start], theirs[start])) start += 1;
  let end = 0;
  while (
    end < Math.min(mine.length, theirs.length) - start &&
    same(mine[mine.length - 1 - end], theirs[theirs.length - 1 - end])
  )
    end += 1;
  const [left, right] = [mine.slice(start, mine.length - end), theirs.slice(start, theirs.length - end)];
  if (left.length === 0 || right.length === 0 || left.length > 3 || right.length > 3) return false;
  if (!left.every(named) || !right.every(named)) return false;
  if (left.some(acronym) || right.some(acronym)) return false;
  // Word by word where both have as many (a name and its abbreviation in places), else as a whole.
  if (
    left.length === right.length &&
    left.every((word, index) => sameName(word.text, right[index]?.text ?? ''))
  )
    return false;
  const join = (words: Word[]) => words.map((word) => word.text).join(' ');
  const initials = (words: Word[]) => words.map((word) => word.text[0] ?? '').join('');
  // A short name for one word of a longer one ("the Birkie" / "the American Birkebeiner").
  const shortens = (words: Word[], others: Word[]) =>
    words.length === 1 &&
    others.some((other) => abbreviates(letters(words[0]?.text ?? ''), letters(other.text)));
  return !(
    sameName(join(left), join(right)) ||
    shortens(left, right) ||
    shortens(right, left) ||
    abbreviates(letters(join(left)), letters(initials(right))) ||
    abbreviates(letters(join(right)), letters(initials(left)))
  );
}

export const otherNamed: GuardRule = {
  reason: 'identifiers',
  refuses: ({ question, candidate }) => otherName(question, candidate),
};
