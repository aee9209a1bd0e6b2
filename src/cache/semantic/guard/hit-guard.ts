/**
 * The hit guard: similarity alone serves near misses ("Convert 10 miles to kilometers" and "...20
 * miles..." score 0.898 with the default model; "a haiku about autumn" and "...spring" 0.829;
 * "convert a string to an integer" and "...an integer to a string" 0.995), so a candidate above
 * the threshold is served only when the question and the candidate's question agree on what
 * decides the answer:
 *
 * - numbers: digits (also inside words: `401k`, `3-day`, `4th`), fractions, number words and
 *   ordinals as their values, Roman numerals after a name ("World War II"). A lone "one"/"1" on one
 *   side only is an article ("a day", "one day"), not a difference. The same numbers in another
 *   order ("2 to the power of 10"), counting other things ("two mortgages on one house" / "one
 *   mortgage on two houses"), or all of a thing against one of it ("one layer" / "all layers")
 *   differ too;
 * - quoted strings ('...', "...", `...`) and code identifiers (camelCase, snake_case, dotted or
 *   called names, words with digits): each must appear, as words, in the other question, quoted or
 *   not ("what does 'FOMO' mean" is "what is the meaning of FOMO");
 * - direction: the same two words on either side of "to", "into", "in" or "from", in the opposite
 *   order ("miles to kilometers" and "kilometers to miles");
 * - substitution: each question has a content word the other lacks (autumn for spring, gold for
 *   silver, read for write) while the rest of the two questions is the same words in the same order
 *   (at least SAME_FRAME of the longer one), or one run of words in the middle of the same frame is
 *   replaced by one with a content word the other lacks ("if I cancel" / "if the airline cancels").
 *   Rewordings change the frame around the question ("who wrote X" / "X: who was its author?"),
 *   near misses keep it and swap one slot;
 * - narrowing: one question is the other plus a word put right before a word both share ("table
 *   tennis" / "tennis", "white keys" / "keys"), or right after a number both share ("iPhone 15 Pro
 *   Max" / "iPhone 15"): a narrower subject, where a word added after a shared one is a rewording
 *   ("capital city" / "capital"). A hyphenated word counts too ("bone-in chicken", "kilowatt-hours"
 *   / "kilowatts"), and "used" before a noun. Adverbs and a few words that only weigh ("good",
 *   "best", "simple") are not narrowing;
 * - roles swapped: the same words, two runs of them trading places around a content word ("can
 *   dogs catch colds from humans" / "can humans catch colds from dogs", "butter instead of oil" /
 *   "oil instead of butter"), or a person and a verb ("who I have blocked" / "who has blocked
 *   me"). Around stop words only it is a rewording ("A and B" / "B and A"). A subject question
 *   against an object question ("what eats a fox" / "what does a fox eat");
 * - voice: a passive whose roles the other question gives the other way round ("animals eaten by
 *   owls" / "animals eat owls", "my teenager is being bullied" / "... is bullying others"); the same
 *   roles in either voice are a rewording ("what is eaten by owls" / "what do owls eat");
 * - the question word: "why", "when", "where", "who", "how" and "how often", "how much", "how long"
 *   (one question when time is named: "how many days") ask different things;
 * - names: a capitalised name written otherwise ("Alien" / "Aliens" are two films).
 *
 * Words are compared lowercased, contractions expanded, Porter-stemmed, with a short list of
 * everyday synonyms and spellings folded ("automobile" is "car", "colour" is "color"). One letter
 * apart in longer words is forgiven when it is a British spelling ("licence") or a typo of an
 * English word ("seperate"), never between two English words ("megabits" / "megabytes") or two
 * words no list has ("roguelike" / "roguelite"): english-words.ts. Plain rules, no model: cheap
 * (about 60 µs a candidate), explainable, the same on every replica. Measured on bench/data
 * (bench/README.md, "Semantic cache"), including how much they miss on questions they were not
 * built on.
 */
import { stemmer } from 'stemmer';
import { isEnglishWord } from './english-words.ts';
import {
  AUXILIARY_FORMS,
  IRREGULAR_VERBS,
  NEGATIONS,
  NUMBER_WORDS,
  OPPOSITES,
  ORDINAL_WORDS,
  PASSIVE_AUXILIARIES,
  PERSONS,
  PHRASES,
  PRONOUN_CASES,
  ROMAN_NUMERALS,
  STOP_WORDS,
  SYNONYMS,
  UNDOING,
} from './hit-guard-words.ts';

export type GuardVerdict =
  | { ok: true }
  | {
      ok: false;
      reason:
        | 'numbers'
        | 'quoted'
        | 'identifiers'
        | 'negation'
        | 'opposite'
        | 'direction'
        | 'content'
        | 'narrower'
        | 'swapped'
        | 'voice'
        | 'question'
        | 'names';
    };

/** Share of the longer question's words the two must have in common, in order, for a swapped word to be a substitution. */
const SAME_FRAME = 0.7;
/** Opposites refuse a candidate that shares this much of the frame ("uses less fuel" is "more fuel-efficient" reworded). */
const OPPOSED_FRAME = 0.5;
/** Or as many words they begin with alike (the same question about a different thing). */
const SAME_TEMPLATE = 5;

/** Normalised words by word as written: questions reuse a small vocabulary, and stemming is most of the guard's time. */
const normalised = new Map<string, readonly string[]>();
/** Beyond this many words the memo starts again (a bound on its memory, about 1 MB). */
const NORMALISED_MAX = 20_000;

/** Words read as one: a synonym or spelling folded, then Porter-stemmed ("Colours" is "color"). */
function normaliseWord(raw: string): readonly string[] {
  const known = normalised.get(raw);
  if (known !== undefined) return known;
  const folded = PRONOUN_CASES[raw] ?? AUXILIARY_FORMS[raw] ?? SYNONYMS[raw] ?? raw;
  const words = folded.split(' ').map((word) => SYNONYMS[stemmer(word)] ?? stemmer(word));
  if (normalised.size >= NORMALISED_MAX) normalised.clear();
  normalised.set(raw, words);
  return words;
}

const normalisedSet = (words: readonly string[]) => new Set(words.flatMap((word) => normaliseWord(word)));
const STOP = normalisedSet(STOP_WORDS);
const NEGATION = normalisedSet(NEGATIONS);
const UNDO = normalisedSet(UNDOING);
const PERSON = normalisedSet(PERSONS);
const PASSIVE_AUXILIARY: ReadonlySet<string> = new Set(PASSIVE_AUXILIARIES);
const OPPOSITE_PAIRS = OPPOSITES.map(
  ([left, right]) => [normaliseWord(left)[0] ?? left, normaliseWord(right)[0] ?? right] as const,
);

/** "to", "into" and "in" give a direction ("string to integer", "Fahrenheit in Celsius"). */
const DIRECTION_WORDS: ReadonlySet<string> = new Set(['to', 'into', 'in']);
/** Skipped after a direction word ("to [my] local machine"). */
const ARTICLES: ReadonlySet<string> = new Set(['a', 'the', 'my', 'your', 'our', 'their', 'his', 'its']);
/** Ordinal words by value ("#2" is "second"). */
const ORDINAL_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ORDINAL_WORDS).map(([word, value]) => [value, word]),
);
/** Question words that ask different things ("why" / "when was Firefly cancelled"); "what" and "how" often swap for each other. */
const QUESTION_WORDS: ReadonlySet<string> = new Set(['why', 'when', 'where', 'who', 'how']);
/** "How" with what it measures: "how often" and "how much" are two questions, "how much" and "how many" one. */
const MEASURES: Readonly<Record<string, string>> = {
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
};
/** Words that make "how much" or "how many" a question of time ("how many days", "how much sleep in hours"). */
const TIME_UNITS: ReadonlySet<string> = normalisedSet(
  'second seconds minute minutes hour hours hrs day days week weeks month months year years night nights time'.split(
    ' ',
  ),
);
/** Content words read on either side of a direction word. */
const DIRECTION_REACH = 3;

const QUOTED =
  /"([^"]{1,200})"|'([^'\s][^']{0,199})'(?![a-z])|`([^`]{1,200})`|“([^”]{1,200})”|‘([^’]{1,200})’/g;
/**
 * Digits with the letters before them: a number also before letters (`401k`, `4th`, `3pm`) and
 * after a word (`python3`), but not inside a short name (`k8s`, `mp3`, `ec2`).
 */
const NUMBER = /([A-Za-z]*)(\d+(?:[.,]\d+)*(?:\/\d+)?)(st|nd|rd|th)?/g;
/**
 * Dotted or scoped names, camelCase, snake_case, called names, words with digits (`mp3`, `es2022`)
 * and acronyms (`LDL`, `HDL`).
 */
const IDENTIFIER =
  /\b[A-Z]{2,6}s?\b|\b[A-Za-z_$][\w$]+(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+|\b[a-z]+[A-Z][\w$]*|\b[A-Za-z]+_[\w$]+|\b[A-Za-z_$][\w$]*(?=\()|\b[A-Za-z]+\d+[A-Za-z\d]*/g;

/** The features of one question the guard compares. */
interface Features {
  numbers: string[];
  quoted: string[][];
  /** Quoted strings with symbols (code, formulas), compared as written, spaces aside. */
  quotedSymbols: string[];
  /** The whole question in that compact form. */
  compact: string;
  negated: boolean;
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

function expandContractions(text: string): string {
  return text
    .replace(/[’‘]/g, "'")
    .replace(/\bcan't\b/gi, 'cannot')
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/n't\b/gi, ' not')
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

/** The numbers of a text, in the order they come. */
function numbersOf(text: string): string[] {
  const values: { at: number; value: string }[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const [, letters = '', digits = '', ordinal] = match;
    if (letters.length === 1 || letters.length === 2) continue;
    const value = numberValue(digits);
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

const isContent = (word: string | undefined): word is string =>
  word !== undefined && !STOP.has(word) && NUMBER_WORDS[word] === undefined && word.length > 1;
/** A content word or a person ("I", "someone"): what can do or undergo something. */
const isActor = (word: string | undefined): word is string => isContent(word) || PERSON.has(word ?? '');

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
    if (from.length > 0 && to.length > 0) directions.push({ from, to });
  });
  return directions;
}

/** Whether one question goes from a word to another and the other question the other way round. */
function reversed(asked: Features, cached: Features): boolean {
  return asked.directions.some((mine) =>
    cached.directions.some((theirs) =>
      mine.from.some(
        (source) =>
          theirs.to.includes(source) &&
          mine.to.some((target) => target !== source && theirs.from.includes(target)),
      ),
    ),
  );
}

/** Lowercase, without spaces and quote marks: how a snippet of code is compared. */
function compactOf(text: string): string {
  return text.toLowerCase().replace(/[\s,;'"`’‘“”]+/g, '');
}

function featuresOf(text: string): Features {
  let expanded = expandContractions(text);
  for (const [phrase, word] of PHRASES) expanded = expanded.replace(phrase, word);
  expanded = expanded
    // Dotted abbreviations as one word: U.S. is US, i.e. is ie, p.m. is pm.
    .replace(/\b([A-Za-z])\.([A-Za-z])\.(?:([A-Za-z])\.)?/g, (_match, a, b, c) => `${a}${b}${c ?? ''}`)
    // The article follows the next word's sound ("a fixed", "an adjustable"): one word for both.
    .replace(/\ban\b/gi, 'a');
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
    quoted,
    quotedSymbols,
    compact: compactOf(expanded),
    negated: words.some((word) => NEGATION.has(word)),
    identifiers,
    words,
    written,
    tokens,
    compounds,
    content,
    directions: directionsOf(words),
  };
}

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

/** Whether the same numbers come in another order with the words around them alike ("2 to the power of 10"). */
function reordered(asked: Features, cached: Features, frame: number): boolean {
  const a = asked.numbers;
  const b = cached.numbers;
  return (
    frame >= SAME_FRAME &&
    new Set(a).size > 1 &&
    a.length === b.length &&
    a.some((value, index) => value !== b[index]) &&
    [...a].sort().every((value, index) => value === [...b].sort()[index])
  );
}

/** Whether `phrase` occurs in `words` as consecutive words. */
function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** Levenshtein distance of at most one (one letter added, dropped, changed or two swapped). */
function oneEditApart(left: string, right: string): boolean {
  if (Math.abs(left.length - right.length) > 1 || Math.min(left.length, right.length) < 5) return false;
  let start = 0;
  while (start < left.length && left[start] === right[start]) start += 1;
  let leftEnd = left.length;
  let rightEnd = right.length;
  while (leftEnd > start && rightEnd > start && left[leftEnd - 1] === right[rightEnd - 1]) {
    leftEnd -= 1;
    rightEnd -= 1;
  }
  const leftMiddle = left.slice(start, leftEnd);
  const rightMiddle = right.slice(start, rightEnd);
  if (leftMiddle.length <= 1 && rightMiddle.length <= 1) return true;
  return (
    leftMiddle.length === 2 && rightMiddle.length === 2 && leftMiddle === [...rightMiddle].reverse().join('')
  );
}

/** A word with British spellings made American ("licence", "organised", "travelled", "anaemia"). */
function americanSpelling(word: string): string {
  return word
    .replace(/our(s|ed|ing|ite|ites|able|ful)?$/, 'or$1')
    .replace(/is(e|es|ed|ing|er|ers|ation|ations)$/, 'iz$1')
    .replace(/ys(e|es|ed|ing)$/, 'yz$1')
    .replace(/ence(s)?$/, 'ense$1')
    .replace(/([^aeiou])re(s)?$/, '$1er$2')
    .replace(/ll(ed|ing|er|ers)$/, 'l$1')
    .replace(/([^aeiou])(?:ae|oe)/, '$1e');
}

/**
 * Whether two words one letter apart are one word: a spelling of it or a typo ("licence" /
 * "license", "recieve" / "receive"). Two English words are two words ("megabits" / "megabytes",
 * "desert" / "dessert"), and so are two words the list lacks ("roguelike" / "roguelite"); until
 * the word list is loaded nothing else is forgiven.
 */
function sameWordMisspelt(word: string, other: string, mine: Features, theirs: Features): boolean {
  if (!oneEditApart(word, other)) return false;
  const mineWritten = mine.written.get(word) ?? word;
  const theirsWritten = theirs.written.get(other) ?? other;
  if (americanSpelling(mineWritten) === americanSpelling(theirsWritten)) return true;
  const mineKnown = isEnglishWord(mineWritten);
  const theirsKnown = isEnglishWord(theirsWritten);
  // One word and one non-word: a typo of it. Two non-words are two terms ("roguelike" / "roguelite").
  return mineKnown !== undefined && theirsKnown !== undefined && mineKnown !== theirsKnown;
}

/** Content words of `mine` that `theirs` lacks, a spelling or typo apart forgiven. */
function lacking(mine: Features, theirs: Features): string[] {
  return [...mine.content].filter(
    (word) =>
      !theirs.content.has(word) &&
      ![...theirs.content].some((other) => sameWordMisspelt(word, other, mine, theirs)),
  );
}

/** The length of the longest common subsequence of two word lists. */
function commonWords(left: readonly string[], right: readonly string[]): number {
  let previous = new Array<number>(right.length + 1).fill(0);
  for (const word of left) {
    const current = new Array<number>(right.length + 1).fill(0);
    for (let index = 1; index <= right.length; index += 1) {
      current[index] =
        right[index - 1] === word
          ? (previous[index - 1] as number) + 1
          : Math.max(previous[index] as number, current[index - 1] as number);
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/** The longest common subsequence of two word lists, as a share of the longer. */
function sameFrame(left: readonly string[], right: readonly string[]): number {
  if (left.length === 0 || right.length === 0) return 0;
  return commonWords(left, right) / Math.max(left.length, right.length);
}

/** How many words two questions begin with alike. */
function commonStart(left: readonly string[], right: readonly string[]): number {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index += 1;
  return index;
}

/** Whether one question has a word and the other its opposite, and neither both. */
function opposed(asked: Features, cached: Features): boolean {
  const has = (features: Features, word: string) => features.words.includes(word);
  return OPPOSITE_PAIRS.some(
    ([one, other]) =>
      (has(asked, one) && !has(asked, other) && has(cached, other) && !has(cached, one)) ||
      (has(asked, other) && !has(asked, one) && has(cached, one) && !has(cached, other)),
  );
}

/** Whether `mine` adds an undoing verb to everything `theirs` asks ("remove paint from a fence" / "paint a fence"). */
function undone(mine: Features, theirs: Features): boolean {
  const undoing = [...mine.content].filter((word) => UNDO.has(word) && !theirs.content.has(word));
  return undoing.length > 0 && [...theirs.content].every((word) => mine.content.has(word));
}

/** Added words that only weigh or colour the question, never narrow its subject. */
const NOT_NARROWING: ReadonlySet<string> = normalisedSet(
  `good best better great nice simple easy easiest quick quickest fast proper right correct exact actual real
  main basic general typical common usual whole entire own specific particular certain really actually
  exactly just still even also ever usually generally typically normally`.split(/\s+/),
);

/**
 * Whether `mine` is `theirs` with words put in (every word of `theirs` is in `mine`, in order), one
 * of them a modifier: right before a content word both share, or right after a number.
 */
function narrows(mine: Features, theirs: Features, added: readonly string[], text: string): boolean {
  const narrowing = added.filter((word) => !NOT_NARROWING.has(word) && !word.endsWith('li'));
  // "Used" is a stop word ("how do I use"), and a narrowing one before a noun ("used solar panels").
  if (mine.tokens.includes('used') && !theirs.tokens.includes('used'))
    narrowing.push(...normaliseWord('used'));
  if (narrowing.length === 0 || commonWords(mine.words, theirs.words) < theirs.words.length) return false;
  const beforeShared = mine.words.some((word, index) => {
    const next = mine.words[index + 1];
    return narrowing.includes(word) && isContent(next) && theirs.content.has(next);
  });
  if (beforeShared) return true;
  // A hyphenated word with a word added to a shared one ("kilowatt-hours" / "kilowatts"), or a
  // hyphenated modifier before a shared word ("bone-in chicken").
  const shared = (word: string | undefined) => isContent(word) && theirs.content.has(word);
  if (
    mine.compounds.some(
      ({ parts, next }) =>
        parts.some((part) => narrowing.includes(part)) &&
        (shared(next) || parts.some((part) => !narrowing.includes(part) && shared(part))),
    )
  )
    return true;
  // After a number ("iPhone 15 Pro"): the number is in both (sameNumbers held), the word only here.
  return [...text.matchAll(/\d\s+([A-Za-z]+)/g)].some(([, word = '']) =>
    normaliseWord(word.toLowerCase()).some((each) => narrowing.includes(each)),
  );
}

const sameWords = (left: readonly string[], right: readonly string[]) =>
  left.length === right.length && left.every((word, index) => word === right[index]);

/**
 * Whether two questions are the same words but for two runs of them that trade places around at
 * least one content word (X M Y against Y M X), everything before and after alike: a clause put
 * elsewhere changes the words around it ("change the oil in my car" / "get my car's oil changed"),
 * a swap of roles does not.
 */
function rolesSwapped(asked: Features, cached: Features): boolean {
  const a = asked.words;
  const b = cached.words;
  if (a.length !== b.length || sameWords(a, b)) return false;
  let start = 0;
  while (a[start] === b[start]) start += 1;
  let end = a.length;
  while (end > start && a[end - 1] === b[end - 1]) end -= 1;
  const inner = a.slice(start, end);
  const other = b.slice(start, end);
  // A person and a verb phrase trading places: subject and object swapped ("who I have blocked" /
  // "who has blocked me").
  for (let x = 1; x < inner.length; x += 1) {
    const [first, last] = [inner.slice(0, x), inner.slice(x)];
    const person = (run: string[]) => run.length === 1 && PERSON.has(run[0] as string);
    if (
      ((person(first) && last.some(isContent)) || (person(last) && first.some(isContent))) &&
      sameWords(other, [...last, ...first])
    )
      return true;
  }
  for (let x = 1; x < inner.length; x += 1) {
    for (let y = 1; x + y < inner.length; y += 1) {
      const [first, middle, last] = [
        inner.slice(0, x),
        inner.slice(x, inner.length - y),
        inner.slice(inner.length - y),
      ];
      if (!middle.some(isContent) || !first.some(isActor) || !last.some(isActor)) continue;
      if (sameWords(other, [...last, ...middle, ...first])) return true;
    }
  }
  return false;
}

/** A verb, whatever its form ("eaten", "ate", "eats" are "eat"). */
const verbOf = (token: string) => normaliseWord(IRREGULAR_VERBS[token] ?? token)[0] ?? token;

const isParticiple = (token: string | undefined) =>
  token !== undefined && ((token.length > 4 && token.endsWith('ed')) || IRREGULAR_VERBS[token] !== undefined);

/** How far before or after a verb its subject or object is looked for, in words. */
const ROLE_REACH = 4;

/** The nearest actor (content word or person) from `from`, stepping by `step`, within ROLE_REACH words. */
function nearestActor(tokens: readonly string[], from: number, step: 1 | -1): string | undefined {
  for (let at = from, seen = 0; at >= 0 && at < tokens.length && seen < ROLE_REACH; at += step, seen += 1) {
    const word = normaliseWord(tokens[at] as string)[0];
    if (isActor(word)) return word;
  }
  return undefined;
}

interface Passive {
  verb: string;
  /** Where the participle is. */
  at: number;
  /** Followed by a preposition that makes it read as an adjective ("scared of"). */
  adjectival: boolean;
  /** Who undergoes it (its subject). */
  patient?: string;
  /** Who does it (its "by" phrase). */
  agent?: string;
}

/** Prepositions after which a participle reads as an adjective ("scared of", "interested in", "married to"). */
const ADJECTIVAL_AFTER: ReadonlySet<string> = new Set(['of', 'about', 'with', 'in', 'to', 'at']);

/**
 * Passive clauses ("animals are eaten by owls", "my teenager is being bullied", "was Snape killed
 * by"): their verb, patient and agent. The patient is the actor between the auxiliary and the
 * participle (a question) or else the one before the auxiliary.
 */
function passivesOf(tokens: readonly string[]): Passive[] {
  const clauses: Passive[] = [];
  tokens.forEach((token, index) => {
    if (!PASSIVE_AUXILIARY.has(token)) return;
    let at = index + 1;
    while (at < tokens.length && at <= index + ROLE_REACH && !isParticiple(tokens[at])) at += 1;
    const participle = tokens[at];
    if (participle === undefined || !isParticiple(participle)) return;
    const between = tokens.slice(index + 1, at);
    const patient = nearestActor(between, between.length - 1, -1) ?? nearestActor(tokens, index - 1, -1);
    const agent = tokens[at + 1] === 'by' ? nearestActor(tokens, at + 2, 1) : undefined;
    clauses.push({
      verb: verbOf(participle),
      at,
      adjectival: ADJECTIVAL_AFTER.has(tokens[at + 1] ?? ''),
      ...(patient === undefined ? {} : { patient }),
      ...(agent === undefined ? {} : { agent }),
    });
  });
  return clauses;
}

/**
 * Whether one question puts a verb in the passive and the other has the roles the other way round:
 * "animals eaten by owls" is "owls eat animals", not "animals eat owls"; "my teenager is being
 * bullied" is not "my teenager is bullying others"; "who was Snape killed by" is not "who was
 * killed by Snape". The same roles in either voice ("what is eaten by owls" / "what do owls eat")
 * are a rewording.
 */
function voiceSwapped(passive: Features, other: Features): boolean {
  const theirPassives = passivesOf(other.tokens);
  const passiveAt = new Set(theirPassives.map((clause) => clause.at));
  return passivesOf(passive.tokens).some((clause) => {
    const bothPassive = theirPassives.some(
      (theirs) =>
        theirs.verb === clause.verb &&
        ((clause.patient !== undefined && clause.patient === theirs.agent) ||
          (clause.agent !== undefined && clause.agent === theirs.patient)),
    );
    if (bothPassive) return true;
    return other.tokens.some((token, index) => {
      if (passiveAt.has(index) || isParticiple(token) || verbOf(token) !== clause.verb) return false;
      const agent = nearestActor(other.tokens, index - 1, -1);
      const patient = nearestActor(other.tokens, index + 1, 1);
      // The passive's agent as the active verb's object ("animals eaten by owls" / "animals eat owls").
      if (clause.agent !== undefined && clause.agent === patient) return true;
      // Its patient as the subject of an active verb with an object of its own ("is being bullied" /
      // "is bullying others"); without one it may be the same event ("volcanoes are formed" /
      // "volcanoes form").
      return (
        !clause.adjectival &&
        clause.patient !== undefined &&
        clause.patient === agent &&
        patient !== undefined &&
        patient !== clause.patient
      );
    });
  });
}

/**
 * Whether the two open with different question words ("why" / "when", "how often" / "how much").
 * "How much" and "how long" are one question when either names a unit of time ("how many days").
 */
function askDifferently(asked: Features, cached: Features): boolean {
  if (asked.asks === undefined || cached.asks === undefined || asked.asks === cached.asks) return false;
  const pair = new Set([asked.asks, cached.asks]);
  const timed = (features: Features) => features.words.some((word) => TIME_UNITS.has(word));
  return !(pair.has('how much') && pair.has('how long') && (timed(asked) || timed(cached)));
}

/**
 * Whether the two differ in one run of words, in the middle of the same frame, where one brings a
 * content word the other lacks in place of words of its own ("if I cancel" / "if the airline
 * cancels", "rent-to-own" / "rent-controlled"): another subject or kind, not a rewording.
 */
function slotReplaced(asked: Features, cached: Features, onlyAsked: string[], onlyCached: string[]): boolean {
  const replaced = (a: readonly string[], b: readonly string[]) => {
    const start = commonStart(a, b);
    let end = 0;
    while (end < Math.min(a.length, b.length) - start && a[a.length - 1 - end] === b[b.length - 1 - end])
      end += 1;
    const mine = a.slice(start, a.length - end);
    const theirs = b.slice(start, b.length - end);
    // A slot of prepositions only is the same thing said another way ("the novel X" / "the author of X").
    const holdsSomething = (slot: string[]) => slot.some((word) => !PREPOSITIONS.has(word));
    if (
      !holdsSomething(mine) ||
      !holdsSomething(theirs) ||
      (start + end) / Math.max(a.length, b.length) < SAME_FRAME
    )
      return false;
    return mine.some((word) => onlyAsked.includes(word)) || theirs.some((word) => onlyCached.includes(word));
  };
  // Articles come and go with the noun they precede ("than Saturn" / "than the Sun").
  const withoutArticles = (words: readonly string[]) =>
    words.filter((word) => word !== 'a' && word !== 'the');
  return (
    replaced(asked.words, cached.words) ||
    replaced(withoutArticles(asked.words), withoutArticles(cached.words))
  );
}

const PREPOSITIONS: ReadonlySet<string> = new Set(
  'of in on at for with from to by about into onto as'.split(' '),
);

/** The actor right before `index`, or undefined. */
const actorBefore = (tokens: readonly string[], index: number) => {
  const word = normaliseWord(tokens[index - 1] ?? '')[0];
  return isActor(word) ? word : undefined;
};

/** The actor right after `index`, articles and possessives aside, or undefined. */
function actorAfter(tokens: readonly string[], index: number): string | undefined {
  let at = index + 1;
  while (ARTICLES.has(tokens[at] ?? '')) at += 1;
  const word = normaliseWord(tokens[at] ?? '')[0];
  return isActor(word) ? word : undefined;
}

/** Auxiliaries that open a question about a verb's object ("what does a fox eat"). */
const QUESTION_AUXILIARIES: ReadonlySet<string> = new Set(
  'do does did can could will would should'.split(' '),
);

/**
 * Whether one question asks what does something to a thing and the other what that thing does:
 * "what eats a fox" (the fox eaten) / "what does a fox eat" (the fox eating).
 */
function objectBecameSubject(asked: Features, cached: Features): boolean {
  const a = asked.tokens;
  const b = cached.tokens;
  return a.some((token, index) => {
    const verb = verbOf(token);
    const object = actorAfter(a, index);
    if (!['what', 'which', 'who'].includes(a[index - 1] ?? '') || !isContent(verb) || object === undefined)
      return false;
    return b.some((other, at) => {
      if (verbOf(other) !== verb || actorBefore(b, at) !== object || actorAfter(b, at) !== undefined)
        return false;
      let before = at - 2;
      while (ARTICLES.has(b[before] ?? '')) before -= 1;
      return QUESTION_AUXILIARIES.has(b[before] ?? '');
    });
  });
}

/** Determiners that take in every one of a thing, and ones that pick one. */
const EVERY: ReadonlySet<string> = normalisedSet(['all', 'every', 'each', 'both']);
const ONE: ReadonlySet<string> = new Set(['a', 'one', 'single', 'this', 'that']);

/** Whether a shared word is taken as a whole on one side and one of it on the other ("one layer" / "all layers"). */
function quantifiedDifferently(asked: Features, cached: Features): boolean {
  const determiners = (features: Features) => {
    const before = new Map<string, string>();
    features.words.forEach((word, index) => {
      const previous = features.words[index - 1];
      if (isContent(word) && previous !== undefined) before.set(word, previous);
    });
    return before;
  };
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

/** Whether the same word is counted differently ("two mortgages on one house" / "one mortgage on two houses"). */
function recounted(asked: Features, cached: Features): boolean {
  return [...asked.counted].some(([word, value]) => {
    const theirs = cached.counted.get(word);
    return theirs !== undefined && theirs !== value;
  });
}

/** Whether a name is written differently in each ("Alien" / "Aliens" are two films). */
function renamed(asked: Features, cached: Features): boolean {
  return [...asked.names].some(([word, written]) => {
    const theirs = cached.names.get(word);
    return theirs !== undefined && theirs !== written;
  });
}

/** Whether `candidate` (a cached question) may answer `question`. */
export function checkHitGuard(question: string, candidate: string): GuardVerdict {
  const asked = featuresOf(question);
  const cached = featuresOf(candidate);
  if (!sameNumbers(asked.numbers, cached.numbers) || recounted(asked, cached))
    return { ok: false, reason: 'numbers' };
  const quotedOk = (mine: Features, theirs: Features) =>
    mine.quoted.every((phrase) => containsPhrase(theirs.words, phrase));
  const symbolsOk = (mine: Features, theirs: Features) =>
    mine.quotedSymbols.every((quote) => theirs.compact.includes(quote));
  if (
    !quotedOk(asked, cached) ||
    !quotedOk(cached, asked) ||
    !symbolsOk(asked, cached) ||
    !symbolsOk(cached, asked)
  )
    return { ok: false, reason: 'quoted' };
  const frame = sameFrame(asked.words, cached.words);
  const template = commonStart(asked.words, cached.words);
  if (reordered(asked, cached, frame)) return { ok: false, reason: 'numbers' };
  if (asked.negated !== cached.negated && frame >= SAME_FRAME) return { ok: false, reason: 'negation' };
  // An identifier only one side names is context ("in SQL"); each side naming one the other lacks is a swap.
  const lackedIdentifier = (mine: Features, theirs: Features) =>
    mine.identifiers.some((phrase) => !containsPhrase(theirs.words, phrase));
  if (lackedIdentifier(asked, cached) && lackedIdentifier(cached, asked))
    return { ok: false, reason: 'identifiers' };
  if ((opposed(asked, cached) && frame >= OPPOSED_FRAME) || undone(asked, cached) || undone(cached, asked))
    return { ok: false, reason: 'opposite' };
  if (reversed(asked, cached)) return { ok: false, reason: 'direction' };
  if (askDifferently(asked, cached) && frame >= OPPOSED_FRAME) return { ok: false, reason: 'question' };
  if (renamed(asked, cached)) return { ok: false, reason: 'names' };
  if (quantifiedDifferently(asked, cached)) return { ok: false, reason: 'numbers' };
  if (rolesSwapped(asked, cached)) return { ok: false, reason: 'swapped' };
  if (voiceSwapped(asked, cached) || voiceSwapped(cached, asked)) return { ok: false, reason: 'voice' };
  if (objectBecameSubject(asked, cached) || objectBecameSubject(cached, asked))
    return { ok: false, reason: 'swapped' };
  const onlyAsked = lacking(asked, cached);
  const onlyCached = lacking(cached, asked);
  if (
    (onlyAsked.length > 0 && onlyCached.length > 0 && (frame >= SAME_FRAME || template >= SAME_TEMPLATE)) ||
    slotReplaced(asked, cached, onlyAsked, onlyCached)
  )
    return { ok: false, reason: 'content' };
  if (
    frame >= SAME_FRAME &&
    ((onlyCached.length === 0 && narrows(asked, cached, onlyAsked, question)) ||
      (onlyAsked.length === 0 && narrows(cached, asked, onlyCached, candidate)))
  )
    return { ok: false, reason: 'narrower' };
  return { ok: true };
}
