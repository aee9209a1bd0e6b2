/**
 * One thing against none, neither or half of them (RULE126): "I canned seven quarts of pickles and
 * one jar didn't seal; what should I do?" / "... and none of the jars sealed; ...?", "what if one
 * egg hasn't hatched?" / "what if none of the eggs have hatched?", "one key doesn't make any sound"
 * / "half the keys don't", "only one showed up" / "neither showed up". A number replaced by another,
 * as the changed-figure rule reads "one" / "two"; the one-against-all rules read "all", "every",
 * "each" and "both" against one, and the negation rule counts a negation on each side here
 * ("didn't" / "none"). "No one" is nobody, not one thing.
 */
import type { GuardRule } from './guard-rule.ts';

/** What one is replaced by: no thing, neither of two, half of them. */
const OTHERS: ReadonlySet<string> = new Set(['none', 'neither', 'half']);

/** Whether a question's words say "one" (not "no one"). */
const saysOne = (tokens: readonly string[]) =>
  tokens.some((token, index) => token === 'one' && tokens[index - 1] !== 'no');
const saysOther = (tokens: readonly string[]) => tokens.some((token) => OTHERS.has(token));

/** Whether `mine` says one thing where `theirs` says none, neither or half of them, and no one thing. */
const noneWhereOne = (mine: readonly string[], theirs: readonly string[]) =>
  saysOne(mine) && !saysOther(mine) && saysOther(theirs) && !saysOne(theirs);

export const oneAgainstNone: GuardRule = {
  reason: 'changed-number',
  refuses: ({ asked, cached }) =>
    noneWhereOne(asked.tokens, cached.tokens) || noneWhereOne(cached.tokens, asked.tokens),
};
