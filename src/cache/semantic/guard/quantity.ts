/**
 * Quantity: a shared word taken as a whole on one side and one of it on the other ("archive one
 * chat" / "archive all chats", "one layer" / "all layers"): the answer for one is not the answer
 * for all.
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { isContent, normalisedSet } from './normalise.ts';

/** Determiners that take in every one of a thing, and ones that pick one. */
const EVERY: ReadonlySet<string> = normalisedSet(['all', 'every', 'each', 'both']);
const ONE: ReadonlySet<string> = new Set(['a', 'one', 'single', 'this', 'that']);

/** Each content word to the word right before it. */
function determiners(features: Features): Map<string, string> {
  const before = new Map<string, string>();
  features.words.forEach((word, index) => {
    const previous = features.words[index - 1];
    if (isContent(word) && previous !== undefined) before.set(word, previous);
  });
  return before;
}

/** Whether a shared word is taken as a whole on one side and one of it on the other ("one layer" / "all layers"). */
function quantifiedDifferently(asked: Features, cached: Features): boolean {
  const mine = determiners(asked);
  const theirs = determiners(cached);
  return [...mine].some(([word, determiner]) => {
    const other = theirs.get(word);
    return (
      other !== undefined &&
      ((EVERY.has(determiner) && ONE.has(other)) || (ONE.has(determiner) && EVERY.has(other)))
    );
  });
}

export const allAgainstOne: GuardRule = {
  reason: 'numbers',
  refuses: ({ asked, cached }) => quantifiedDifferently(asked, cached),
};
