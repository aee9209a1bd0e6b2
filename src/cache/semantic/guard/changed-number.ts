/**
 * A number changed: each question has a number written in figures or words that the other lacks
 * ("worth about $900" / "worth about $1,900", "a 10-minute walk" / "a 15-minute walk", "after one
 * year" / "after five years"; "five hundred" is 500, "a dozen" 12, "zero" is left to the verifier).
 * The numbers rule refuses more (a number on one side only, shorthand), and beside the verifier it
 * cost paraphrases ("a dozen people" / "12 people", "how 2 tell" / "how to tell"); this one asks
 * only that a number was replaced by another. Thousands with a k or "grand" are their value ("$2k"
 * and "2 grand" are 2000; "401k" may also be the plan, "401(k)"); figures inside words are names,
 * not numbers ("PS4", "B12", "mp3", "11pm"), but a code whose figure is the only change is
 * another thing ("U8" / "U12"). A minus sign makes another number ("20" / "-20 degrees"). A
 * decade, a century or a round count written with "s" is its figure ("in the 1500s" / "in the
 * 1600s", "100s" / "1000s"), a two-figure one the year it may stand for too ("90s" / "1990s"); only
 * a figure ending in 0 takes the "s", so "W-2s" stay forms (RULE131). An ordinal in figures is its
 * number ("the 16th century" / "the 17th century", "the 4th" / "the 5th of July"), and beside one
 * the ordinal words are too ("25th" / "twenty-fifth"); ordinal words alone are the verifier's to
 * read ("first" / "second" time, "a second opinion", RULE132).
 */
import { negativeAt } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { soleChange } from './word-sequences.ts';

/**
 * Figures not joined to letters (but a trailing k, or an "s" after a 0), with their thousands
 * separators; a year written '98.
 */
const FIGURES =
  /(?<![\p{L}\p{N}.,])(['’](?=\d\d(?!\d)))?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:(k|K| grand)|(?<=0)(['’]?s))?(?![\p{L}\p{N}])/gu;

/**
 * The values each figure of a question may stand for: "1,900" is 1900, "2k" 2000 or 2, "'98" 1998,
 * "1950s" 1950, "90s" 90, 1990 or 2090 (RULE131), "-20" and "minus 20" -20 (features.ts, RULE66).
 */
function figuresOf(text: string): number[][] {
  return [...text.matchAll(FIGURES)].map((match) => {
    const [, year, digits = '', thousands, plural] = match;
    const value = Number(digits.replaceAll(',', '')) * (negativeAt(text, match.index) ? -1 : 1);
    const decade = plural !== undefined && digits.length === 2;
    if (year !== undefined || decade) return [value, 1900 + value, 2000 + value];
    if (thousands === undefined) return [value];
    return thousands === ' grand' ? [value * 1000] : [value * 1000, value];
  });
}

const UNITS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
/** Number words by value: "five" 5, "twelve" and "dozen" 12, "forty" 40 (the wording step reads prices in words with them). */
export const NUMBER_WORDS: ReadonlyMap<string, number> = new Map<string, number>([
  ...UNITS.slice(1).map((word, index): [string, number] => [word, 1 + index]),
  ...TEENS.map((word, index): [string, number] => [word, 10 + index]),
  ...TENS.map((word, index): [string, number] => [word, 20 + 10 * index]),
  ['dozen', 12],
]);
/**
 * A number word, a ten and a unit joined ("twenty-five", "thirty one"), either with "hundred" or
 * "thousand" after it ("five hundred"). "Zero" is left out: "zero updates" is "no updates".
 */
const WORDS = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(${TENS.join('|')})[- ](${UNITS.slice(1).join('|')})|(${[...NUMBER_WORDS.keys()].join('|')}))(?: (hundred|thousand))?(?![\\p{L}\\p{N}])`,
  'giu',
);
export const MULTIPLIERS: Readonly<Record<string, number>> = { hundred: 100, thousand: 1000 };

/** The values of a question's number words ("after five years": 5; "twenty-four": 24; "five hundred": 500). */
function numberWordsOf(text: string): number[][] {
  return [...text.matchAll(WORDS)].map(([, ten, unit, word, multiplier]) => {
    const value =
      ten !== undefined && unit !== undefined
        ? (NUMBER_WORDS.get(ten.toLowerCase()) ?? 0) + (NUMBER_WORDS.get(unit.toLowerCase()) ?? 0)
        : (NUMBER_WORDS.get((word ?? '').toLowerCase()) ?? Number.NaN);
    return [value * (MULTIPLIERS[(multiplier ?? '').toLowerCase()] ?? 1)];
  });
}

/** An ordinal's number, and a century's first year's hundreds ("the 19th century" is "the 1800s"). */
const ordinalValues = (value: number, century: string | undefined): number[] =>
  century === undefined ? [value] : [value, (value - 1) * 100];

/** Ordinals in figures, not inside a word ("16th", "2nd", "21st"; "B12th" is none), and "century" after one. */
const ORDINALS = /(?<![\p{L}\p{N}.,])(\d+)(?:st|nd|rd|th)(?![\p{L}\p{N}])( centur(?:y|ies))?/giu;

/** The values of a question's ordinals in figures ("the 16th century": 16 or 1500). */
const ordinalsOf = (text: string): number[][] =>
  [...text.matchAll(ORDINALS)].map(([, digits, century]) => ordinalValues(Number(digits), century));

const UNIT_ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
const TEEN_ORDINALS = [
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
];
const TEN_ORDINALS = [
  'twentieth',
  'thirtieth',
  'fortieth',
  'fiftieth',
  'sixtieth',
  'seventieth',
  'eightieth',
  'ninetieth',
];
/** Ordinal words by value: "fifth" 5, "nineteenth" 19, "twenty-fifth" and "twenty fifth" 25. */
const ORDINAL_VALUES: ReadonlyMap<string, number> = new Map<string, number>([
  ...UNIT_ORDINALS.map((word, index): [string, number] => [word, 1 + index]),
  ...TEEN_ORDINALS.map((word, index): [string, number] => [word, 10 + index]),
  ...TEN_ORDINALS.map((word, index): [string, number] => [word, 20 + 10 * index]),
  ...TENS.flatMap((ten, tenIndex) =>
    UNIT_ORDINALS.flatMap((unit, index): [string, number][] =>
      [`${ten}-${unit}`, `${ten} ${unit}`].map((word) => [word, 20 + 10 * tenIndex + 1 + index]),
    ),
  ),
]);
/** An ordinal word, the longest first ("twenty-first" before "first"), and "century" after one. */
const ORDINAL_WORD = new RegExp(
  `(?<![\\p{L}\\p{N}])(${[...ORDINAL_VALUES.keys()].sort((a, b) => b.length - a.length).join('|')})(?![\\p{L}\\p{N}])( centur(?:y|ies))?`,
  'giu',
);

/** The values of a question's ordinal words ("the nineteenth century": 19 or 1800). */
const ordinalWordsOf = (text: string): number[][] =>
  [...text.matchAll(ORDINAL_WORD)].map(([, word = '', century]) =>
    ordinalValues(ORDINAL_VALUES.get(word.toLowerCase()) ?? Number.NaN, century),
  );

/**
 * The ordinals of the two questions, where either writes one in figures (RULE132): the figures'
 * and, so that "25th" is "twenty-fifth", the words'. Ordinal words alone are left out ("a second
 * opinion", "first" / "second" time are the verifier's to read).
 */
function ordinalPools(question: string, candidate: string): [number[][], number[][]] {
  const [asked, cached] = [ordinalsOf(question), ordinalsOf(candidate)];
  if (asked.length === 0 && cached.length === 0) return [[], []];
  return [
    [...asked, ...ordinalWordsOf(question)],
    [...cached, ...ordinalWordsOf(candidate)],
  ];
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

/** A code: one or two letters and a figure ("U8", "PS4", "FY2025"). */
const CODE = /^(\p{L}{1,2})(\p{N}+)$/u;

/** Lowercase words with figures joined to their letters ("U8" is one word). */
const codeWords = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Whether the two are the same words but one, a code on each side with the same letters and
 * another figure: "my daughter's U8 team" / "U12 team", "PS4" / "PS3". ("w2" / "W-2" are one form:
 * the figure is the same.)
 */
function otherCode(question: string, candidate: string): boolean {
  const [asked, cached] = [codeWords(question), codeWords(candidate)];
  const at = soleChange(asked, cached);
  if (at === undefined) return false;
  const [mine, theirs] = [CODE.exec(asked[at] as string), CODE.exec(cached[at] as string)];
  return mine !== null && theirs !== null && mine[1] === theirs[1] && Number(mine[2]) !== Number(theirs[2]);
}

export const changedNumber: GuardRule = {
  reason: 'changed-number',
  refuses: ({ question, candidate }) => {
    const [askedOrdinals, cachedOrdinals] = ordinalPools(question, candidate);
    const asked = [...figuresOf(question), ...numberWordsOf(question), ...askedOrdinals];
    const cached = [...figuresOf(candidate), ...numberWordsOf(candidate), ...cachedOrdinals];
    return (hasOwn(asked, cached) && hasOwn(cached, asked)) || otherCode(question, candidate);
  },
};
