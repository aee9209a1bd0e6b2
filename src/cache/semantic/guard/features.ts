/**
 * What the guard compares of one question, read once per question: its numbers, quoted strings,
 * identifiers, words (normalised, in order), content words, the question word it opens with, what
 * its numbers count, the names it capitalises, its hyphenated words and its directions ("X to Y").
 * Contractions are expanded, a few phrases folded to a word, dotted abbreviations joined.
 */
import { stemmer } from 'stemmer';
import {
  MONTHS_AND_WEEKDAYS,
  NEGATIONS,
  NUMBER_WORDS,
  ORDINAL_WORDS,
  PHRASES,
  ROMAN_NUMERALS,
  SEASONS,
} from './hit-guard-words.ts';
import { ARTICLES, isContent, normalisedSet, normaliseWord } from './normalise.ts';
import { wordTable } from './word-table.ts';

const NEGATION = normalisedSet(NEGATIONS);
/** "to", "into" and "in" give a direction ("string to integer", "Fahrenheit in Celsius"). */
const DIRECTION_WORDS: ReadonlySet<string> = new Set(['to', 'into', 'in']);
/** Ordinal words by value ("#2" is "second"). */
const ORDINAL_NAMES: Readonly<Record<string, string>> = wordTable(
  Object.fromEntries(Object.entries(ORDINAL_WORDS).map(([word, value]) => [value, word])),
);
/** Question words that ask different things ("why" / "when was Firefly cancelled"); "what" and "how" often swap for each other. */
const QUESTION_WORDS: ReadonlySet<string> = new Set(['why', 'when', 'where', 'who', 'how']);
/** "How" with what it measures: "how often" and "how much" are two questions, "how much" and "how many" one. */
const MEASURES: Readonly<Record<string, string>> = wordTable({
  much: 'much',
  many: 'much',
  frequently: 'often',
  long: 'long',
  often: 'often',
  far: 'far',
  old: 'old',
  big: 'much',
  fast: 'fast',
  soon: 'soon',
});
/** Content words read on either side of a direction word. */
const DIRECTION_REACH = 3;
/** Times of the calendar: "in" before one says when, not into what ("to Greenland in August"). */
const CALENDAR: ReadonlySet<string> = normalisedSet([...MONTHS_AND_WEEKDAYS, ...SEASONS]);

const QUOTED =
  /"([^"]{1,200})"|'([^'\s][^']{0,199})'(?![a-z])|`([^`]{1,200})`|“([^”]{1,200})”|‘([^’]{1,200})’/g;
/**
 * Digits with the letters before them: a number also before letters (`401k`, `4th`, `3pm`) and
 * after a word (`python3`), but not inside a short name (`k8s`, `mp3`, `ec2`).
 */
const NUMBER = /([A-Za-z]*)(\d+(?:[.,]\d+)*(?:\/\d+)?)(st|nd|rd|th)?/g;
/** A lone 2 or 4 between words or first, before a lowercase word: maybe "to" or "for" in shorthand. */
const SHORTHAND = /(?:^|(?<=[A-Za-z,]\s))[24](?=\s+[a-z])/g;
/**
 * Dotted or scoped names, camelCase, snake_case, called names, words with digits (`mp3`, `es2022`)
 * and acronyms (`LDL`, `HDL`).
 */
const IDENTIFIER =
  /\b[A-Z]{2,6}s?\b|\b[A-Za-z_$][\w$]+(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+|\b[a-z]+[A-Z][\w$]*|\b[A-Za-z]+_[\w$]+|\b[A-Za-z_$][\w$]*(?=\()|\b[A-Za-z]+\d+[A-Za-z\d]*/g;

/** The features of one question the guard compares. */
export interface Features {
  numbers: string[];
  /** Lone digits that may be texting shorthand for a word ("how 2 tell", "tips 4 babies"). */
  shorthand: string[];
  quoted: string[][];
  /** Quoted strings with symbols (code, formulas), compared as written, spaces aside. */
  quotedSymbols: string[];
  /** The whole question in that compact form. */
  compact: string;
  /** How many negation words it has ("nothing ... doesn't" is two). */
  negations: number;
  identifiers: string[][];
  /** Every word, normalised, in order. */
  words: string[];
  /** Each normalised word's word as written (lowercase), for typo forgiveness. */
  written: Map<string, string>;
  /** Lowercase words as written, in order (for voice). */
  tokens: string[];
  /** The question word it opens with, in its first three words ("why", "when", "where", "who"). */
  asks?: string;
  /** Each content word right after a number, to that number ("two mortgages" is mortgag: 2). */
  counted: Map<string, string>;
  /** Capitalised names inside the sentence, normalised, to how they are written ("Aliens"). */
  names: Map<string, string>;
  /** Hyphenated words ("bone-in"), normalised, with the word right after them. */
  compounds: { parts: string[]; next: string }[];
  content: Set<string>;
  /** The content words before and after each direction word. */
  directions: { from: string[]; to: string[] }[];
}

/**
 * A verb's negative contraction mistyped (RULE136): without its apostrophe ("didnt"), with the
 * apostrophe out of place ("does'nt") or its "n" dropped ("did't") is the verb and "not" as "n't"
 * is. "cant" and "wont" are English words and stay as written.
 */
const MISTYPED_NEGATION =
  /\b(do|does|did|is|are|was|were|has|have|had|would|should|could|must|need)(?:nt|'nt|'t)\b/gi;

function expandContractions(text: string): string {
  return text
    .replace(/[’‘]/g, "'")
    .replace(/\bcan't\b/gi, 'cannot')
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/n't\b/gi, ' not')
    .replace(MISTYPED_NEGATION, '$1 not')
    .replace(/'m\b/gi, ' am')
    .replace(/'re\b/gi, ' are')
    .replace(/'ve\b/gi, ' have')
    .replace(/'ll\b/gi, ' will')
    .replace(/'d\b/gi, ' would')
    .replace(/'s\b/gi, '');
}

/** Lowercase words of a text, normalised (number words kept as they are: they are compared as numbers). */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+/g) ?? []).flatMap((raw) =>
    NUMBER_WORDS[raw] !== undefined || ORDINAL_WORDS[raw] !== undefined ? [raw] : normaliseWord(raw),
  );
}

/** Digits as the value compared: "1,000" is "1000", "2.50" is "2.5", a fraction as written. */
function numberValue(digits: string): string {
  const value = digits.replaceAll(',', '');
  return value.includes('/') ? value : String(Number(value));
}

/**
 * Whether the figure starting at `at` is negative (RULE66): a minus sign right before its digits,
 * after the start, a space or "(" ("-20", "(-5)"; not "10-20", "COVID-19"), or "minus" or
 * "negative" right before it ("minus 10 degrees"), with no figure or number word before the sign or
 * the word ("10 minus 3", "ten minus 3", "10 -3" are subtractions).
 */
export function negativeAt(text: string, at: number): boolean {
  const before = text.slice(0, at);
  const sign = /(?:^|[\s(])[-−]$/.exec(before);
  const word = /(?<![\p{L}\p{N}])(?:minus|negative)\s+$/iu.exec(before);
  const rest = sign !== null ? before.slice(0, -1) : word !== null ? before.slice(0, word.index) : undefined;
  if (rest === undefined || /\d[\s(]*$/.test(rest)) return false;
  const previous = /([a-z]+)[\s(]*$/i.exec(rest)?.[1]?.toLowerCase();
  return previous === undefined || NUMBER_WORDS[previous] === undefined;
}

/** The numbers of a text, in the order they come. */
function numbersOf(text: string): string[] {
  const values: { at: number; value: string }[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const [, letters = '', digits = '', ordinal] = match;
    if (letters.length === 1 || letters.length === 2) continue;
    const magnitude = numberValue(digits);
    const value = letters === '' && negativeAt(text, match.index) ? `-${magnitude}` : magnitude;
    values.push({ at: match.index, value: ordinal === undefined ? value : `#${value}` });
  }
  const tokens = [...text.matchAll(/[A-Za-z]+/g)];
  tokens.forEach((match, index) => {
    const token = match[0];
    const word = NUMBER_WORDS[token.toLowerCase()] ?? ORDINAL_WORDS[token.toLowerCase()];
    if (word !== undefined) values.push({ at: match.index, value: word });
    // A Roman numeral after a name ("World War II", "Henry VIII"); a lone "I" after a capitalised word too.
    const roman = ROMAN_NUMERALS[token];
    const previous = tokens[index - 1]?.[0];
    if (roman !== undefined && previous !== undefined && /^[A-Z][a-z]/.test(previous) && index > 1)
      values.push({ at: match.index, value: roman });
  });
  return values.sort((left, right) => left.at - right.at).map(({ value }) => value);
}

/**
 * An adjective and the "to" that starts its infinitive, no way anywhere (RULE108): "Are snowshoes
 * hard to walk in?" goes nowhere, and "Is walking in snowshoes difficult?" is the same question.
 * Read on the words as written: "hardness to" stems to "hard to", and "convert Brinell hardness to
 * Rockwell" goes one way.
 */
const INFINITIVE_ADJECTIVES = `easy easier hard harder difficult safe unsafe legal illegal comfortable
  uncomfortable possible impossible fun okay ok allowed free necessary cheap expensive tough simple
  dangerous fine good bad better worse worth quick slow`.split(/\s+/);
const INFINITIVE = new RegExp(`\\b(${INFINITIVE_ADJECTIVES.join('|')})\\s+to\\b`, 'gi');

/** The content words next to each direction word ("convert [pandas dataframe] to [csv file]"). */
function directionsOf(words: string[]): { from: string[]; to: string[] }[] {
  const directions: { from: string[]; to: string[] }[] = [];
  words.forEach((word, index) => {
    if (!DIRECTION_WORDS.has(word)) return;
    const from: string[] = [];
    for (let at = index - 1; at >= 0 && from.length < DIRECTION_REACH && isContent(words[at]); at -= 1)
      from.push(words[at] as string);
    let after = index + 1;
    while (ARTICLES.has(words[after] ?? '')) after += 1;
    const to: string[] = [];
    for (let at = after; at < words.length && to.length < DIRECTION_REACH && isContent(words[at]); at += 1)
      to.push(words[at] as string);
    if (word === 'in' && CALENDAR.has(words[after] ?? '')) return;
    if (from.length > 0 && to.length > 0) directions.push({ from, to });
  });
  return directions;
}

/** Lowercase, without spaces and quote marks: how a snippet of code is compared. */
function compactOf(text: string): string {
  return text.toLowerCase().replace(/[\s,;'"`’‘“”]+/g, '');
}

/** Reads the features of one question. */
export function featuresOf(text: string): Features {
  let expanded = expandContractions(text);
  for (const [phrase, word] of PHRASES) expanded = expanded.replace(phrase, word);
  expanded = expanded
    // Dotted abbreviations as one word: U.S. is US, i.e. is ie, p.m. is pm.
    .replace(/\b([A-Za-z])\.([A-Za-z])\.(?:([A-Za-z])\.)?/g, (_match, a, b, c) => `${a}${b}${c ?? ''}`)
    // The article follows the next word's sound ("a fixed", "an adjustable"): one word for both.
    .replace(/\ban\b/gi, 'a')
    // An "&" standing alone is "and" ("my kids & I" / "me & my kids"), never one inside a name ("AT&T").
    .replace(/(?<=\s)&(?=\s)/g, 'and')
    // "no." before a figure is a number in a series, as "#2" is, not a negation (RULE141).
    .replace(/\b(?:no|No|NO)\.\s?(?=\d)/g, '#');
  // "US" in a sentence with lowercase letters is the country, not the pronoun ("500 US dollars").
  if (/[a-z]/.test(expanded)) expanded = expanded.replace(/\bUS\b/g, 'USA');
  const quotes = [...expanded.matchAll(QUOTED)].map(
    (match) => match.slice(1).find((group) => group !== undefined) ?? '',
  );
  // A leading infinitive marker or article is not part of the phrase ('swim' is 'to swim').
  const quoted = quotes
    .map((quote) => wordsOf(quote.replace(/^\s*(?:to|a|an|the)\s+(?=\S)/i, '')))
    .filter((words) => words.length > 0);
  const quotedSymbols = quotes
    .filter((quote) => /[^\p{L}\p{N}\s'.,;:?!-]/u.test(quote))
    .map((quote) => compactOf(quote.replace(/[.,;:?!]+$/, '')));
  const identifiers = [...new Set(expanded.match(IDENTIFIER) ?? [])]
    .map((identifier) => wordsOf(identifier))
    .filter((words) => words.length > 0);
  // An ordinal in digits reads as its word ("2nd" is "second"), its letters never as a word.
  const wordText = expanded.replace(
    /\b(\d+)(?:st|nd|rd|th)\b/gi,
    (_match, digits: string) => ORDINAL_NAMES[`#${Number(digits)}`] ?? digits,
  );
  const words = wordsOf(wordText);
  const directionText = wordText.replace(INFINITIVE, '$1');
  const tokens = wordText.toLowerCase().match(/[a-z]+/g) ?? [];
  const written = new Map<string, string>();
  for (const token of tokens)
    for (const word of normaliseWord(token)) if (!written.has(word)) written.set(word, token);
  const compounds = [...expanded.matchAll(/\b([A-Za-z]+(?:-[A-Za-z]+)+)\s+([A-Za-z]+)/g)].map(
    ([, compound = '', next = '']) => ({
      parts: wordsOf(compound),
      next: normaliseWord(next.toLowerCase())[0] ?? next,
    }),
  );
  const content = new Set(words.filter(isContent));
  const opening = tokens.slice(0, 3);
  const how = opening.indexOf('how');
  const measured = how < 0 ? undefined : MEASURES[tokens[how + 1] ?? ''];
  // "How many times a day" asks how often.
  const perTime =
    tokens[how + 2] === 'times' && ['a', 'per', 'each', 'every'].includes(tokens[how + 3] ?? '');
  const measure = measured === 'much' && perTime ? 'often' : measured;
  const asks = measure !== undefined ? `how ${measure}` : opening.find((token) => QUESTION_WORDS.has(token));
  const counted = new Map<string, string>();
  for (const [, value = '', next = ''] of expanded.matchAll(
    /(\d+(?:[.,/]\d+)*|\b[A-Za-z]+)\s+([A-Za-z]+)/g,
  )) {
    const number = /\d/.test(value) ? numberValue(value) : NUMBER_WORDS[value.toLowerCase()];
    const word = normaliseWord(next.toLowerCase())[0];
    if (number !== undefined && isContent(word)) counted.set(word, number);
  }
  const names = new Map<string, string>();
  for (const [, name = '', next = ''] of expanded.matchAll(/[\p{Ll}\d,;:)]\s+([A-Z][a-z]+)\b\s*(\w*)/gu)) {
    // "Newtons 2nd law" may be a possessive without its apostrophe; a name that ends a phrase is a title.
    if (/\d/.test(next) || isContent(normaliseWord(next.toLowerCase())[0])) continue;
    names.set(stemmer(name.toLowerCase()), name);
  }
  return {
    ...(asks === undefined ? {} : { asks }),
    counted,
    names,
    numbers: numbersOf(expanded),
    shorthand: [...expanded.matchAll(SHORTHAND)].map(([digit]) => digit),
    quoted,
    quotedSymbols,
    compact: compactOf(expanded),
    negations: words.filter((word) => NEGATION.has(word)).length,
    identifiers,
    words,
    written,
    tokens,
    compounds,
    content,
    directions: directionsOf(directionText === wordText ? words : wordsOf(directionText)),
  };
}
