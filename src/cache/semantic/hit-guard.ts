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
 *   ("who wrote X" / "X: who was its author?"), near misses keep it and swap one slot.
 *
 * Words are compared lowercased, contractions expanded, Porter-stemmed, with a short list of
 * everyday synonyms and spellings folded ("automobile" is "car", "colour" is "color") and one typo
 * or spelling letter forgiven in longer words. Plain rules, no model: cheap, explainable, the same
 * on every replica. Measured on bench/data (bench/README.md, "Semantic cache").
 */
import { stemmer } from 'stemmer';

export type GuardVerdict =
  | { ok: true }
  | { ok: false; reason: 'numbers' | 'quoted' | 'identifiers' | 'negation' | 'direction' | 'content' };

/** Share of the longer question's words the two must have in common, in order, for a swapped word to be a substitution. */
const SAME_FRAME = 0.7;
/** Or as many words they begin with alike (the same question about a different thing). */
const SAME_TEMPLATE = 5;

const NUMBER_WORDS: Readonly<Record<string, string>> = {
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
  thirteen: '13',
  fourteen: '14',
  fifteen: '15',
  sixteen: '16',
  seventeen: '17',
  eighteen: '18',
  nineteen: '19',
  twenty: '20',
  thirty: '30',
  forty: '40',
  fifty: '50',
  hundred: '100',
  thousand: '1000',
  million: '1000000',
  billion: '1000000000',
  half: '1/2',
  quarter: '1/4',
  first: '#1',
  second: '#2',
  third: '#3',
  fourth: '#4',
  fifth: '#5',
  sixth: '#6',
  seventh: '#7',
  eighth: '#8',
  ninth: '#9',
  tenth: '#10',
};

const ROMAN: Readonly<Record<string, string>> = {
  I: '1',
  II: '2',
  III: '3',
  IV: '4',
  V: '5',
  VI: '6',
  VII: '7',
  VIII: '8',
  IX: '9',
  X: '10',
};

/** Words that carry no topic: function words, question and request words, politeness, filler. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  `a an the and or but if then than so of to in on at by for with from into onto about as is are was were be been being
   am do does did doing done have has had having i me my mine we us our you your yours he him his she her it its they them
   their this that these those there here what which who whom whose when where why how can could would should
   will shall may might must please tell explain describe show give let know need want like just really quite
   very some any all each every much many more most also too again still even ever way ways thing things something
   anything get got getting make made making use used using someone somebody kind sort type question answer help
   hi hello hey thanks thank quick quickly simple simply briefly brief short shortly best good well actually basically
   possible exactly correct right proper properly mean means meaning definition define example examples step steps
   process guide tutorial list say said go going able not no yes okay ok im ive id youre theres there up out
   one ones own whether through via per vs versus`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/** Everyday synonyms and spellings folded to one word before stemming (either side may use either). */
const SYNONYMS: Readonly<Record<string, string>> = {
  automobile: 'car',
  automobiles: 'car',
  vehicle: 'car',
  purchase: 'buy',
  purchasing: 'buy',
  acquire: 'buy',
  begin: 'start',
  commence: 'start',
  finish: 'end',
  halt: 'stop',
  large: 'big',
  larger: 'bigger',
  largest: 'biggest',
  huge: 'big',
  little: 'small',
  tiny: 'small',
  couch: 'sofa',
  film: 'movie',
  picture: 'photo',
  photograph: 'photo',
  kid: 'child',
  kids: 'child',
  children: 'child',
  folks: 'people',
  persons: 'people',
  create: 'build',
  construct: 'build',
  erase: 'delete',
  modify: 'change',
  alter: 'change',
  nation: 'country',
  repair: 'fix',
  mend: 'fix',
  utilize: 'use',
  utilise: 'use',
  assist: 'help',
  receive: 'get',
  obtain: 'get',
  inexpensive: 'cheap',
  affordable: 'cheap',
  budget: 'cheap',
  costly: 'expensive',
  pricey: 'expensive',
  cost: 'price',
  costs: 'price',
  author: 'wrote',
  writer: 'wrote',
  painter: 'painted',
  tall: 'height',
  height: 'height',
  funny: 'humorous',
  compose: 'write',
  fridge: 'refrigerator',
  skillet: 'pan',
  stovetop: 'stove',
  tyre: 'tire',
  tyres: 'tire',
  colour: 'color',
  colours: 'color',
  litre: 'liter',
  litres: 'liter',
  metre: 'meter',
  metres: 'meter',
  centre: 'center',
  kilometre: 'kilometer',
  kilometres: 'kilometer',
  km: 'kilometer',
  kg: 'kilogram',
  lb: 'pound',
  lbs: 'pound',
  mt: 'mount',
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  dict: 'dictionary',
  int: 'integer',
  repo: 'repository',
  nyc: 'new york',
  teen: 'teenager',
  teens: 'teenager',
  signs: 'symptoms',
  sign: 'symptom',
  recommended: 'recommend',
  grown: 'adult',
  scared: 'afraid',
  tv: 'television',
  frightened: 'afraid',
};

/** Words that turn a question around ("should be kept" / "should not be kept"). */
const NEGATIONS: ReadonlySet<string> = new Set([
  'not',
  'no',
  'never',
  'without',
  'cannot',
  'none',
  'nothing',
  'nor',
]);

/** Words after which "to", "into", "in" and "from" give a direction. */
const DIRECTION_WORDS: ReadonlySet<string> = new Set(['to', 'into', 'in', 'from']);
const ARTICLES: ReadonlySet<string> = new Set(['a', 'an', 'the']);

const QUOTED =
  /"([^"]{1,200})"|'([^'\s][^']{0,199})'(?![a-z])|`([^`]{1,200})`|“([^”]{1,200})”|‘([^’]{1,200})’/g;
const NUMBER = /\d+(?:[.,]\d+)*(?:\/\d+)?/g;
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
  /** "a to b" pairs, as `a>b`. */
  directions: Set<string>;
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

function normaliseWord(raw: string): string[] {
  const folded = SYNONYMS[raw] ?? raw;
  return folded.split(' ').map((word) => SYNONYMS[stemmer(word)] ?? stemmer(word));
}

/** Lowercase words of a text, normalised (number words kept as they are: they are compared as numbers). */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+/g) ?? []).flatMap((raw) =>
    NUMBER_WORDS[raw] !== undefined ? [raw] : normaliseWord(raw),
  );
}

function numbersOf(text: string): string[] {
  const values: string[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const value = match[0].replaceAll(',', '');
    values.push(value.includes('/') ? value : String(Number(value)));
  }
  const tokens = text.match(/[A-Za-z]+/g) ?? [];
  tokens.forEach((token, index) => {
    const word = NUMBER_WORDS[token.toLowerCase()];
    if (word !== undefined) values.push(word);
    // A Roman numeral after a name ("World War II", "Henry VIII"); a lone "I" after a capitalised word too.
    const roman = ROMAN[token];
    const previous = tokens[index - 1];
    if (roman !== undefined && previous !== undefined && /^[A-Z][a-z]/.test(previous) && index > 1)
      values.push(roman);
  });
  return values.sort();
}

/** The pairs `a>b` of content words joined by a direction word ("string to integer"). */
function directionsOf(words: string[]): Set<string> {
  const pairs = new Set<string>();
  words.forEach((word, index) => {
    if (!DIRECTION_WORDS.has(word)) return;
    const before = words[index - 1];
    let after = index + 1;
    while (words[after] !== undefined && ARTICLES.has(words[after] as string)) after += 1;
    const target = words[after];
    if (before === undefined || target === undefined || STOP_WORDS.has(before) || STOP_WORDS.has(target))
      return;
    if (word === 'from') return;
    pairs.add(`${before}>${target}`);
  });
  return pairs;
}

/** Lowercase, without spaces and quote marks: how a snippet of code is compared. */
function compactOf(text: string): string {
  return text.toLowerCase().replace(/[\s,;'"`’‘“”]+/g, '');
}

function featuresOf(text: string): Features {
  const expanded = expandContractions(text)
    .replace(/\bsecond[- ]hand\b/gi, 'used')
    // Dotted abbreviations as one word: U.S. is US, i.e. is ie, p.m. is pm.
    .replace(/\b([A-Za-z])\.([A-Za-z])\.(?:([A-Za-z])\.)?/g, (_match, a, b, c) => `${a}${b}${c ?? ''}`)
    // The article follows the next word's sound ("a fixed", "an adjustable"): one word for both.
    .replace(/\ban\b/gi, 'a');
  const quotes = [...expanded.matchAll(QUOTED)].map(
    (match) => match.slice(1).find((group) => group !== undefined) ?? '',
  );
  const quoted = quotes.map((quote) => wordsOf(quote)).filter((words) => words.length > 0);
  const quotedSymbols = quotes
    .filter((quote) => /[^\p{L}\p{N}\s'.,;:?!-]/u.test(quote))
    .map((quote) => compactOf(quote.replace(/[.,;:?!]+$/, '')));
  const identifiers = [...new Set(expanded.match(IDENTIFIER) ?? [])]
    .map((identifier) => wordsOf(identifier))
    .filter((words) => words.length > 0);
  const words = wordsOf(expanded);
  const content = new Set(
    words.filter((word) => !STOP_WORDS.has(word) && NUMBER_WORDS[word] === undefined && word.length > 1),
  );
  return {
    numbers: numbersOf(expanded),
    quoted,
    quotedSymbols,
    compact: compactOf(expanded),
    negated: words.some((word) => NEGATIONS.has(word)),
    identifiers,
    words,
    content,
    directions: directionsOf(words),
  };
}

/** The numbers compared: a lone 1 on one side is an article ("a day" / "one day"). */
function sameNumbers(left: readonly string[], right: readonly string[]): boolean {
  const strip = (values: readonly string[], other: readonly string[]) =>
    values.filter((value) => value !== '1' || other.includes('1'));
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

/** The longest common subsequence of two word lists, as a share of the longer. */
function sameFrame(left: readonly string[], right: readonly string[]): number {
  if (left.length === 0 || right.length === 0) return 0;
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
  return (previous[right.length] as number) / Math.max(left.length, right.length);
}

/** How many words two questions begin with alike. */
function commonStart(left: readonly string[], right: readonly string[]): number {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index += 1;
  return index;
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
  const identifiersOk = (mine: Features, theirs: Features) =>
    mine.identifiers.every((phrase) => containsPhrase(theirs.words, phrase));
  if (!identifiersOk(asked, cached) || !identifiersOk(cached, asked))
    return { ok: false, reason: 'identifiers' };
  for (const pair of asked.directions) {
    const [from, to] = pair.split('>');
    if (!cached.directions.has(pair) && cached.directions.has(`${to}>${from}`))
      return { ok: false, reason: 'direction' };
  }
  const onlyAsked = lacking(asked.content, cached.content);
  const onlyCached = lacking(cached.content, asked.content);
  if (onlyAsked.length > 0 && onlyCached.length > 0 && (frame >= SAME_FRAME || template >= SAME_TEMPLATE))
    return { ok: false, reason: 'content' };
  return { ok: true };
}
