/**
 * The hit guard: similarity alone serves near misses ("Convert 10 miles to kilometers" and "...20
 * miles..." score 0.898 with the default model; "a haiku about autumn" and "...spring" 0.829;
 * "convert a string to an integer" and "...an integer to a string" 0.995), so a candidate above
 * the threshold is served only when the question and the candidate's question agree on what
 * decides the answer:
 *
 * - numbers: digits (also inside words: `401k`, `3-day`, `4th`), fractions, number words and
 *   ordinals as their values, Roman numerals after a name ("World War II"). A lone "one"/"1" on one
 *   side only is an article ("a day", "one day"), not a difference;
 * - quoted strings ('...', "...", `...`) and code identifiers (camelCase, snake_case, dotted or
 *   called names, words with digits): each must appear, as words, in the other question, quoted or
 *   not ("what does 'FOMO' mean" is "what is the meaning of FOMO");
 * - direction: the same two words on either side of "to", "into", "in" or "from", in the opposite
 *   order ("miles to kilometers" and "kilometers to miles");
 * - substitution: each question has a content word the other lacks (autumn for spring, gold for
 *   silver, read for write) while the rest of the two questions is the same words in the same order
 *   (at least SAME_FRAME of the longer one). Rewordings change the frame around the question
 *   ("who wrote X" / "X: who was its author?"), near misses keep it and swap one slot;
 * - narrowing: one question is the other plus a word put right before a word both share ("table
 *   tennis" / "tennis", "white keys" / "keys"), or right after a number both share ("iPhone 15 Pro
 *   Max" / "iPhone 15"): a narrower subject, where a word added after a shared one is a rewording
 *   ("capital city" / "capital"). Adverbs and a few words that only weigh ("good", "best",
 *   "simple") are not narrowing;
 * - roles swapped: the same words, two runs of them trading places around a content word ("can
 *   dogs catch colds from humans" / "can humans catch colds from dogs", "butter instead of oil" /
 *   "oil instead of butter"). Around stop words only it is a rewording ("A and B" / "B and A").
 *
 * Words are compared lowercased, contractions expanded, Porter-stemmed, with a short list of
 * everyday synonyms and spellings folded ("automobile" is "car", "colour" is "color") and one typo
 * or spelling letter forgiven in longer words. Plain rules, no model: cheap, explainable, the same
 * on every replica. Measured on bench/data (bench/README.md, "Semantic cache").
 */
import { stemmer } from 'stemmer';
import {
  NEGATIONS,
  NUMBER_WORDS,
  OPPOSITES,
  ORDINAL_WORDS,
  PHRASES,
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
        | 'swapped';
    };

/** Share of the longer question's words the two must have in common, in order, for a swapped word to be a substitution. */
const SAME_FRAME = 0.7;
/** Opposites refuse a candidate that shares this much of the frame ("uses less fuel" is "more fuel-efficient" reworded). */
const OPPOSED_FRAME = 0.5;
/** Or as many words they begin with alike (the same question about a different thing). */
const SAME_TEMPLATE = 5;

/** Words read as one: a synonym or spelling folded, then Porter-stemmed ("Colours" is "color"). */
function normaliseWord(raw: string): string[] {
  const folded = SYNONYMS[raw] ?? raw;
  return folded.split(' ').map((word) => SYNONYMS[stemmer(word)] ?? stemmer(word));
}

const normalisedSet = (words: readonly string[]) => new Set(words.flatMap((word) => normaliseWord(word)));
const STOP = normalisedSet(STOP_WORDS);
const NEGATION = normalisedSet(NEGATIONS);
const UNDO = normalisedSet(UNDOING);
const OPPOSITE_PAIRS = OPPOSITES.map(
  ([left, right]) => [normaliseWord(left)[0] ?? left, normaliseWord(right)[0] ?? right] as const,
);

/** "to", "into" and "in" give a direction ("string to integer", "Fahrenheit in Celsius"). */
const DIRECTION_WORDS: ReadonlySet<string> = new Set(['to', 'into', 'in']);
const ARTICLES: ReadonlySet<string> = new Set(['a', 'the']);
/** Content words read on either side of a direction word. */
const DIRECTION_REACH = 3;

const QUOTED =
  /"([^"]{1,200})"|'([^'\s][^']{0,199})'(?![a-z])|`([^`]{1,200})`|“([^”]{1,200})”|‘([^’]{1,200})’/g;
/**
 * Digits with the letters before them: a number also before letters (`401k`, `4th`, `3pm`) and
 * after a word (`python3`), but not inside a short name (`k8s`, `mp3`, `ec2`).
 */
const NUMBER = /([A-Za-z]*)(\d+(?:[.,]\d+)*(?:\/\d+)?)/g;
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

function numbersOf(text: string): string[] {
  const values: string[] = [];
  for (const [, letters = '', digits = ''] of text.matchAll(NUMBER)) {
    if (letters.length === 1 || letters.length === 2) continue;
    const value = digits.replaceAll(',', '');
    values.push(value.includes('/') ? value : String(Number(value)));
  }
  const tokens = text.match(/[A-Za-z]+/g) ?? [];
  tokens.forEach((token, index) => {
    const word = NUMBER_WORDS[token.toLowerCase()] ?? ORDINAL_WORDS[token.toLowerCase()];
    if (word !== undefined) values.push(word);
    // A Roman numeral after a name ("World War II", "Henry VIII"); a lone "I" after a capitalised word too.
    const roman = ROMAN_NUMERALS[token];
    const previous = tokens[index - 1];
    if (roman !== undefined && previous !== undefined && /^[A-Z][a-z]/.test(previous) && index > 1)
      values.push(roman);
  });
  return values.sort();
}

const isContent = (word: string | undefined): word is string =>
  word !== undefined && !STOP.has(word) && NUMBER_WORDS[word] === undefined && word.length > 1;

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
  const words = wordsOf(expanded);
  const content = new Set(words.filter(isContent));
  return {
    numbers: numbersOf(expanded),
    quoted,
    quotedSymbols,
    compact: compactOf(expanded),
    negated: words.some((word) => NEGATION.has(word)),
    identifiers,
    words,
    content,
    directions: directionsOf(words),
  };
}

/**
 * The numbers compared: a lone 1 on one side is an article ("a day" / "one day"), ordinals count
 * only when both sides have one ("the first sentence" / "an opening line").
 */
function sameNumbers(left: readonly string[], right: readonly string[]): boolean {
  const ordinal = (value: string) => value.startsWith('#');
  const strip = (values: readonly string[], other: readonly string[]) =>
    values.filter(
      (value) =>
        (value !== '1' || other.includes('1')) && (!ordinal(value) || other.some((each) => ordinal(each))),
    );
  const a = strip(left, right);
  const b = strip(right, left);
  return a.length === b.length && a.every((value, index) => value === b[index]);
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

/** Content words of `mine` that `theirs` lacks, a spelling or typo apart forgiven. */
function lacking(mine: ReadonlySet<string>, theirs: ReadonlySet<string>): string[] {
  return [...mine].filter(
    (word) => !theirs.has(word) && ![...theirs].some((other) => oneEditApart(word, other)),
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
  if (narrowing.length === 0 || commonWords(mine.words, theirs.words) < theirs.words.length) return false;
  const beforeShared = mine.words.some((word, index) => {
    const next = mine.words[index + 1];
    return narrowing.includes(word) && isContent(next) && theirs.content.has(next);
  });
  if (beforeShared) return true;
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
  for (let x = 1; x < inner.length; x += 1) {
    for (let y = 1; x + y < inner.length; y += 1) {
      const runs = [inner.slice(0, x), inner.slice(x, inner.length - y), inner.slice(inner.length - y)];
      if (!runs.every((run) => run.some(isContent))) continue;
      const [first = [], middle = [], last = []] = runs;
      if (sameWords(other, [...last, ...middle, ...first])) return true;
    }
  }
  return false;
}

/** Whether `candidate` (a cached question) may answer `question`. */
export function checkHitGuard(question: string, candidate: string): GuardVerdict {
  const asked = featuresOf(question);
  const cached = featuresOf(candidate);
  if (!sameNumbers(asked.numbers, cached.numbers)) return { ok: false, reason: 'numbers' };
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
  if (asked.negated !== cached.negated && frame >= SAME_FRAME) return { ok: false, reason: 'negation' };
  // An identifier only one side names is context ("in SQL"); each side naming one the other lacks is a swap.
  const lackedIdentifier = (mine: Features, theirs: Features) =>
    mine.identifiers.some((phrase) => !containsPhrase(theirs.words, phrase));
  if (lackedIdentifier(asked, cached) && lackedIdentifier(cached, asked))
    return { ok: false, reason: 'identifiers' };
  if ((opposed(asked, cached) && frame >= OPPOSED_FRAME) || undone(asked, cached) || undone(cached, asked))
    return { ok: false, reason: 'opposite' };
  if (reversed(asked, cached)) return { ok: false, reason: 'direction' };
  if (rolesSwapped(asked, cached)) return { ok: false, reason: 'swapped' };
  const onlyAsked = lacking(asked.content, cached.content);
  const onlyCached = lacking(cached.content, asked.content);
  if (onlyAsked.length > 0 && onlyCached.length > 0 && (frame >= SAME_FRAME || template >= SAME_TEMPLATE))
    return { ok: false, reason: 'content' };
  if (
    frame >= SAME_FRAME &&
    ((onlyCached.length === 0 && narrows(asked, cached, onlyAsked, question)) ||
      (onlyAsked.length === 0 && narrows(cached, asked, onlyCached, candidate)))
  )
    return { ok: false, reason: 'narrower' };
  return { ok: true };
}
