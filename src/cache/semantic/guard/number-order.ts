/**
 * Numbers in another order: the same numbers, the words around them alike, in another order ("3
 * to the power of 5" / "5 to the power of 3") ask another question; the numbers rule sees the same
 * set of numbers and lets it pass.
 */
import { type GuardRule, SAME_FRAME } from './guard-rule.ts';

export const reorderedNumbers: GuardRule = {
  reason: 'numbers',
  refuses: ({ asked, cached, frame }) => {
    const a = asked.numbers;
    const b = cached.numbers;
    return (
      frame >= SAME_FRAME &&
      new Set(a).size > 1 &&
      a.length === b.length &&
      a.some((value, index) => value !== b[index]) &&
      [...a].sort().every((value, index) => value === [...b].sort()[index])
    );
  },
};
