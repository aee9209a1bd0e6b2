/**
 * The counted thing exchanged (RULE173): the same words and figures in the same places but two
 * words, each standing where the other stood, and a figure right before one of them and not the
 * same figure before the other ("How many yen is 50 dollars?" / "How many dollars is 50 yen?",
 * "How many bananas replace 2 eggs?" / "How many eggs replace 2 bananas?"). The figure counts the other
 * thing, so the question asks the other way round. The swapped-roles rule reads its words without
 * their figures, so "yen is dollars" trades places around "is" only, which takes no sides; the
 * verifier scored the pair 0.371. The same figure before both is a list reordered ("5 km or 5
 * miles" / "5 miles or 5 km").
 */
import type { GuardRule } from './guard-rule.ts';
import { isContent, normaliseWord } from './normalise.ts';
import { isFigure, wordsAndFigures } from './word-sequences.ts';

/** The figure right before the word at `index`, if any. */
const figureBefore = (tokens: readonly string[], index: number): string | undefined => {
  const before = tokens[index - 1];
  return isFigure(before) ? before : undefined;
};
/** Whether a token is a word the guard counts as content (a thing, not "is" or "the"). */
const contentWord = (token: string): boolean =>
  !isFigure(token) && normaliseWord(token).some((word) => isContent(word));

/** Whether `cached` is `asked` with two words exchanged, a figure counting one of them and not the other. */
function countedExchanged(asked: readonly string[], cached: readonly string[]): boolean {
  if (asked.length !== cached.length) return false;
  const changed = asked.flatMap((token, index) => (token === cached[index] ? [] : [index]));
  if (changed.length !== 2) return false;
  const [first, second] = changed as [number, number];
  const [one, other] = [asked[first] as string, asked[second] as string];
  if (cached[first] !== other || cached[second] !== one) return false;
  if (!contentWord(one) || !contentWord(other)) return false;
  const [before, after] = [figureBefore(asked, first), figureBefore(asked, second)];
  return before !== after;
}

export const countedThing: GuardRule = {
  reason: 'swapped',
  refuses: ({ question, candidate }) =>
    countedExchanged(wordsAndFigures(question), wordsAndFigures(candidate)),
};
