/**
 * Numbers: the two questions must ask about the same numbers. "Convert 10 miles to kilometers" and
 * "...20 miles..." score 0.898 with the default model, and their answers differ in every digit.
 * Digits count also inside words (`401k`, `3-day`, `4th`), fractions, number words and ordinals as
 * their values, Roman numerals after a name ("World War II"). A lone "one"/"1" on one side only is
 * an article ("a day" / "one day"), not a difference. The same numbers counting other things ("two
 * mortgages on one house" / "one mortgage on two houses") differ too. A lone 2 or 4 where the other
 * side has one more "to" or "for" is texting shorthand ("how 2 tell" / "how to tell"), not a number.
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { wordTable } from './word-table.ts';

/**
 * The numbers compared: an ordinal is its number where the other side has that number ("July 4th"
 * / "July 4", "first day" / "day one"), a lone 1 on one side is an article ("a day" / "one day"),
 * other ordinals count only when both sides have one ("the first sentence" / "an opening line").
 */
function sameNumbers(left: readonly string[], right: readonly string[]): boolean {
  const ordinal = (value: string) => value.startsWith('#');
  const asNumbers = (values: readonly string[], other: readonly string[]) =>
    values.map((value) => (ordinal(value) && other.includes(value.slice(1)) ? value.slice(1) : value));
  const leftValues = asNumbers(left, right);
  const rightValues = asNumbers(right, left);
  const strip = (values: readonly string[], other: readonly string[]) =>
    values
      .filter(
        (value) =>
          (value !== '1' || other.includes('1')) && (!ordinal(value) || other.some((each) => ordinal(each))),
      )
      .sort();
  const a = strip(leftValues, rightValues);
  const b = strip(rightValues, leftValues);
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** The words a lone digit stands for in texting shorthand. */
const SHORTHAND: Readonly<Record<string, readonly string[]>> = wordTable({
  '2': ['to', 'too'],
  '4': ['for'],
});

/** A side's numbers without the shorthand digits the other side writes as their word. */
function comparedNumbers(side: Features, other: Features): string[] {
  const numbers = [...side.numbers];
  const count = (features: Features, words: readonly string[]) =>
    features.tokens.filter((token) => words.includes(token)).length;
  for (const digit of side.shorthand) {
    const words = SHORTHAND[digit] ?? [];
    const at = numbers.indexOf(digit);
    if (at >= 0 && !other.numbers.includes(digit) && count(other, words) > count(side, words))
      numbers.splice(at, 1);
  }
  return numbers;
}

/** Whether the same word is counted differently ("two mortgages on one house" / "one mortgage on two houses"). */
function recounted(asked: Features, cached: Features): boolean {
  return [...asked.counted].some(([word, value]) => {
    const theirs = cached.counted.get(word);
    return theirs !== undefined && theirs !== value;
  });
}

export const differentNumbers: GuardRule = {
  reason: 'numbers',
  refuses: ({ asked, cached }) =>
    !sameNumbers(comparedNumbers(asked, cached), comparedNumbers(cached, asked)) || recounted(asked, cached),
};
