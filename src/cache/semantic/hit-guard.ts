/**
 * The hit guard: similarity alone serves near misses ("Convert 10 miles to kilometers" and "...20
 * miles..." score 0.898 with the default model; "a haiku about autumn" and "...spring" 0.829), so a
 * candidate above the threshold is served only when the question and the candidate's question
 * agree on what decides the answer:
 *
 * - numbers (digits, decimals, and number words up to twenty as their value),
 * - quoted strings ('...', "...", `...`),
 * - code identifiers (camelCase, snake_case, dotted or called names, and words with digits),
 * - distinguishing content words: when each question has a content word the other lacks (a
 *   substitution: autumn for spring, France for Spain, Python for Java), they ask different
 *   things. A word only one side adds or drops ("city", "please", "quickly") is a rewording.
 *
 * Content words are the words left after dropping function words and the words every question is
 * made of ("what", "explain", "tell", "way"), lowercased and with a plural `s` dropped; a short
 * list of common synonyms is folded first ("automobile" is "car"). Plain rules, no model: cheap,
 * explainable, and the same on every replica.
 */

export type GuardVerdict =
  | { ok: true }
  | { ok: false; reason: 'numbers' | 'quoted' | 'identifiers' | 'content' };

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
};

/** Words that carry no topic: function words, question and request words, politeness, filler. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  `a an the and or but if then than so of to in on at by for with from into onto about as is are was were be been being
   am do does did doing done have has had having i me my mine we us our you your yours he him his she her it its they them
   their this that these those there here what whats which who whom whose when where why how hows can could would should
   will shall may might must please tell explain describe show give let know need want like wanna just really quite
   very some any all each every much many more most also too again still even ever way ways thing things something
   anything get got getting make made making use used using one someone somebody kind sort type question answer help
   hi hello hey thanks thank quick quickly simple simply briefly short shortly best good well actually basically possible
   exactly correct right proper properly mean means meaning definition define defined example examples step steps
   guide tutorial list write written say said go going able not no yes okay ok dont cant isnt arent doesnt didnt wont
   im ive id youre theres`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/** Everyday synonyms folded to one word before comparing (either side may use either). */
const SYNONYMS: Readonly<Record<string, string>> = {
  automobile: 'car',
  purchase: 'buy',
  acquire: 'buy',
  begin: 'start',
  commence: 'start',
  finish: 'end',
  halt: 'stop',
  large: 'big',
  huge: 'big',
  little: 'small',
  tiny: 'small',
  fast: 'quick',
  rapid: 'quick',
  speedy: 'quick',
  couch: 'sofa',
  film: 'movie',
  picture: 'photo',
  photograph: 'photo',
  kid: 'child',
  children: 'child',
  kids: 'child',
  folks: 'people',
  persons: 'people',
  cook: 'prepare',
  create: 'build',
  construct: 'build',
  remove: 'delete',
  erase: 'delete',
  modify: 'change',
  alter: 'change',
  nation: 'country',
  fix: 'repair',
  mend: 'repair',
  ocean: 'sea',
  utilize: 'use',
  assist: 'help',
  receive: 'get',
  obtain: 'get',
  inexpensive: 'cheap',
  costly: 'expensive',
  pricey: 'expensive',
  bug: 'error',
};

const QUOTED = /"([^"]{1,200})"|'([^'\s][^']{0,199})'|`([^`]{1,200})`|“([^”]{1,200})”/g;
const NUMBER = /(?<![\w.])\d+(?:[.,]\d+)*(?![\w])/g;
/** Dotted or scoped names, camelCase, snake_case, called names, and words with digits (`mp3`, `es2022`). */
const IDENTIFIER =
  /\b[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+|\b[a-z]+[A-Z][\w$]*|\b[A-Za-z]+_[\w$]+|\b[A-Za-z_$][\w$]*(?=\()|\b[A-Za-z]+\d+[A-Za-z\d]*/g;

/** The features of one question the guard compares. */
interface Features {
  numbers: string[];
  quoted: string[];
  identifiers: string[];
  content: Set<string>;
}

function numbersOf(text: string): string[] {
  const digits = (text.match(NUMBER) ?? []).map((value) => String(Number(value.replaceAll(',', ''))));
  const words = (text.toLowerCase().match(/[a-z]+/g) ?? [])
    .map((word) => NUMBER_WORDS[word])
    .filter((value): value is string => value !== undefined);
  return [...digits, ...words].sort();
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us'))
    return word.slice(0, -1);
  return word;
}

function featuresOf(text: string): Features {
  const quoted = [...text.matchAll(QUOTED)].map(
    (match) => match.slice(1).find((group) => group !== undefined) ?? '',
  );
  const unquoted = text.replace(QUOTED, ' ');
  const identifiers = [...new Set(unquoted.match(IDENTIFIER) ?? [])].sort();
  const content = new Set<string>();
  for (const raw of unquoted
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .match(/[a-z]+/g) ?? []) {
    if (STOP_WORDS.has(raw) || NUMBER_WORDS[raw] !== undefined || raw.length < 2) continue;
    const word = stem(raw);
    content.add(SYNONYMS[word] ?? SYNONYMS[raw] ?? word);
  }
  return { numbers: numbersOf(unquoted), quoted: quoted.sort(), identifiers, content };
}

function sameList(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

/** Whether `candidate` (a cached question) may answer `question`. */
export function checkHitGuard(question: string, candidate: string): GuardVerdict {
  const asked = featuresOf(question);
  const cached = featuresOf(candidate);
  if (!sameList(asked.numbers, cached.numbers)) return { ok: false, reason: 'numbers' };
  if (!sameList(asked.quoted, cached.quoted)) return { ok: false, reason: 'quoted' };
  if (!sameList(asked.identifiers, cached.identifiers)) return { ok: false, reason: 'identifiers' };
  const onlyAsked = [...asked.content].filter((word) => !cached.content.has(word));
  const onlyCached = [...cached.content].filter((word) => !asked.content.has(word));
  if (onlyAsked.length > 0 && onlyCached.length > 0) return { ok: false, reason: 'content' };
  return { ok: true };
}
