/**
 * A number changed: each question has a number written in figures that the other lacks ("worth
 * about $900" / "worth about $1,900", "a 10-minute walk" / "a 15-minute walk"). The numbers rule
 * refuses more (a number on one side only, number words, shorthand), and beside the verifier it
 * cost paraphrases ("a dozen people" / "12 people", "how 2 tell" / "how to tell"); this one asks
 * only that a figure was replaced by another. Thousands with a k or "grand" are their value ("$2k"
 * and "2 grand" are 2000; "401k" may also be the plan, "401(k)"); figures inside words are names,
 * not numbers ("PS4", "B12", "mp3", "4th", "11pm").
 */
import type { GuardRule } from './guard-rule.ts';

/** Figures not joined to letters (but a trailing k), with their thousands separators; a year written '98. */
const FIGURES =
  /(?<![\p{L}\p{N}.,])(['’](?=\d\d(?!\d)))?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(k|K| grand)?(?![\p{L}\p{N}])/gu;

/** The values each figure of a question may stand for: "1,900" is 1900, "2k" 2000 or 2, "'98" 1998. */
function figuresOf(text: string): number[][] {
  return [...text.matchAll(FIGURES)].map(([, year, digits = '', thousands]) => {
    const value = Number(digits.replaceAll(',', ''));
    if (year !== undefined) return [value, 1900 + value, 2000 + value];
    if (thousands === undefined) return [value];
    return thousands === ' grand' ? [value * 1000] : [value * 1000, value];
  });
}

/** Whether `mine` has a figure `theirs` lacks, counting repeats. */
function hasOwn(mine: readonly number[][], theirs: readonly number[][]): boolean {
  const left = [...theirs];
  return mine.some((values) => {
    const at = left.findIndex((other) => other.some((value) => values.includes(value)));
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

export const changedNumber: GuardRule = {
  reason: 'changed-number',
  refuses: ({ question, candidate }) => {
    const asked = figuresOf(question);
    const cached = figuresOf(candidate);
    return hasOwn(asked, cached) && hasOwn(cached, asked);
  },
};
