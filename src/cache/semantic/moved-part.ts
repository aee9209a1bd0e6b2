/**
 * A question with one of its parts moved asks what it asked before (RULE67): "I'm a barista and our
 * tips are split evenly every week" / "our tips are split evenly every week and I'm a barista", "my
 * tenant paid me $500 last year" / "last year my tenant paid me $500". The pair verifier was
 * trained to refuse swapped roles, so it reads most such pairs as near misses (0.001 to 0.1); the
 * wording step (wording.ts) writes the asked question in the cached question's order instead, where
 * the one stretch of words that differs holds the same words in one of these orders:
 *
 * - two parts exchanged around "and" or "or" ("P and Q" / "Q and P"), the parts taking back up to
 *   three words both questions share either side ("how long and how often" / "how often and how
 *   long", RULE69);
 * - a time phrase moved before or after the rest ("yesterday", "last year", "every month", "on
 *   this Friday");
 * - a phrase that starts with a preposition moved before a clause that starts with its subject
 *   ("in Google Sheets I track my times" / "I track my times in Google Sheets");
 * - two phrases that start with two different prepositions exchanged ("from my PayPal balance to
 *   my Chase account" / "to my Chase account from my PayPal balance").
 *
 * Not moved so: a possessive or a modifier ("my neighbor's tree fell on my fence" / "my tree fell
 * on my neighbor's fence", "bought online in store" / "bought in store online"), nor "P and then Q",
 * nor two parts around an "and" that joins two clauses ("I'm the buyer and the seller wants to back
 * out" / "I'm the seller and the buyer wants to back out", RULE87: the swapped-roles rule refuses it).
 */

import { sameWords } from './guard/word-sequences.ts';

/**
 * A word of a question as the wording step reads it: its key (lowercase, no apostrophes), and
 * whether a stop (";", ",", ".", "?", "!", ":", "—") stands between it and the word before.
 */
export interface Keyed {
  readonly key: string;
  readonly stopBefore?: boolean;
}

/**
 * `tokens` (keys with their place in `text`) as Keyed, each with whether a stop stands between it
 * and the word before (RULE87).
 */
export function withStops(
  text: string,
  tokens: readonly { key: string; start: number; end: number }[],
): Keyed[] {
  return tokens.map((token, index) => ({
    key: token.key,
    stopBefore: index > 0 && /[;,.?!:—]/u.test(text.slice(tokens[index - 1]?.end, token.start)),
  }));
}

const CONJUNCTIONS: ReadonlySet<string> = new Set(['and', 'or']);
/** How many shared words either side an exchange may take back into its parts. */
const WIDENED = 3;
const PREPOSITIONS: ReadonlySet<string> = new Set(
  (
    'about above across after against along among around as at before behind below beneath beside ' +
    'between beyond by during for from in inside into near of off on onto outside over past since ' +
    'through throughout to toward towards under until up upon via with within without'
  ).split(' '),
);
/** Words a clause opens with as its subject, keys as the wording step writes them ("I'm" is "im"). */
const SUBJECTS: ReadonlySet<string> = new Set(
  'i im ive id we were weve wed my our you youre youve your he hes she shes his her they theyre theyve their'.split(
    ' ',
  ),
);
const DAYS = new Set(['yesterday', 'today', 'tomorrow', 'tonight']);
const PARTS_OF_DAY = new Set(['morning', 'afternoon', 'evening', 'night']);
const TIME_WORDS: ReadonlySet<string> = new Set([
  ...PARTS_OF_DAY,
  ...'year month week weekend day season semester term quarter summer winter spring fall autumn'.split(' '),
  ...'monday tuesday wednesday thursday friday saturday sunday'.split(' '),
  ...'january february march april may june july august september october november december'.split(' '),
]);
const TIME_OPENERS = new Set(['last', 'next', 'this', 'every', 'each']);

/** Whether `words` are a time phrase alone: "yesterday", "tomorrow morning", "during last summer". */
function timePhrase(words: readonly string[]): boolean {
  const rest = ['on', 'in', 'during'].includes(words[0] ?? '') ? words.slice(1) : words;
  const [first = '', second] = rest;
  if (rest.length === 1) return DAYS.has(first);
  if (rest.length !== 2 || second === undefined) return false;
  return (
    (TIME_OPENERS.has(first) && TIME_WORDS.has(second)) ||
    ((first === 'yesterday' || first === 'tomorrow') && PARTS_OF_DAY.has(second))
  );
}

const opensWith = (words: readonly string[], set: ReadonlySet<string>) => set.has(words[0] ?? '');

/** A subject with its verb of being in one word, keys as the wording step writes them ("I'm": "im"). */
const SUBJECT_IS: ReadonlySet<string> = new Set(['im', 'hes', 'shes', 'theyre', 'youre']);
const PRONOUNS: ReadonlySet<string> = new Set(['i', 'we', 'you', 'he', 'she', 'it', 'they']);
const BEING: ReadonlySet<string> = new Set(['am', 'is', 'are', 'was', 'were']);

/**
 * Whether an exchange around "and" of tokens [from, to) is two clauses (RULE87): a subject and its
 * verb of being before it, and a word after it with no stop between ("I'm the buyer and the seller
 * wants to back out": the first part is what the subject is, the second the next clause's subject).
 */
function joinsClauses(tokens: readonly Keyed[], from: number, to: number): boolean {
  const [before, after] = [tokens[from - 1], tokens[to]];
  if (before === undefined || after === undefined || after.stopBefore === true) return false;
  if (!tokens.slice(from, to).some((token) => token.key === 'and')) return false;
  return SUBJECT_IS.has(before.key) || (BEING.has(before.key) && PRONOUNS.has(tokens[from - 2]?.key ?? ''));
}

/** Whether `cached` written as `first + second` and `asked` as `second + first` ask the same. */
function movable(first: readonly string[], second: readonly string[]): boolean {
  if (timePhrase(first) || timePhrase(second)) return true;
  const [firstPreposition, secondPreposition] = [
    opensWith(first, PREPOSITIONS),
    opensWith(second, PREPOSITIONS),
  ];
  if (firstPreposition && secondPreposition) return first[0] !== second[0];
  return (
    (firstPreposition && opensWith(second, SUBJECTS)) || (secondPreposition && opensWith(first, SUBJECTS))
  );
}

/** Whether `asked` is `cached` ("P and Q") with its two parts exchanged around the conjunction. */
function exchanged(cached: readonly string[], asked: readonly string[]): boolean {
  return cached.some((word, index) => {
    if (!CONJUNCTIONS.has(word) || index === 0 || index === cached.length - 1) return false;
    const [before, after] = [cached.slice(0, index), cached.slice(index + 1)];
    return sameWords(asked, [...after, word, ...before]);
  });
}

/** The stretch [start, end) where the two differ, in one length; undefined where they do not so. */
function differing(
  cached: readonly Keyed[],
  asked: readonly Keyed[],
): { start: number; end: number } | undefined {
  if (cached.length !== asked.length) return undefined;
  let start = 0;
  while (start < cached.length && cached[start]?.key === asked[start]?.key) start += 1;
  let end = cached.length;
  while (end > start && cached[end - 1]?.key === asked[end - 1]?.key) end -= 1;
  return end - start < 2 ? undefined : { start, end };
}

const keysIn = (tokens: readonly Keyed[], from: number, to: number) =>
  tokens.slice(from, to).map((token) => token.key);

/**
 * The stretch where `asked` is `cached` with two parts exchanged around "and" or "or", the parts
 * taking back up to WIDENED shared words either side (RULE69); undefined where it is not.
 */
function exchange(
  cached: readonly Keyed[],
  asked: readonly Keyed[],
  { start, end }: { start: number; end: number },
): { start: number; end: number } | undefined {
  if (exchanged(keysIn(cached, start, end), keysIn(asked, start, end))) return { start, end };
  // Two parts that open or close with the same words leave those words in the shared start or end
  // ("How long and how often" / "How often and how long": "long and how often"), RULE69.
  for (let before = 0; before <= Math.min(WIDENED, start); before += 1)
    for (let after = 0; after <= Math.min(WIDENED, cached.length - end); after += 1) {
      if (before + after === 0) continue;
      const [from, to] = [start - before, end + after];
      if (exchanged(keysIn(cached, from, to), keysIn(asked, from, to))) return { start: from, end: to };
    }
  return undefined;
}

/**
 * Whether `asked` is `cached` with two parts exchanged around an "and" that joins two clauses
 * (joinsClauses, RULE87): "I'm the buyer and the seller wants to back out" / "I'm the seller and the
 * buyer wants to back out", roles exchanged.
 */
export function clausePartsExchanged(cached: readonly Keyed[], asked: readonly Keyed[]): boolean {
  const differs = differing(cached, asked);
  const exchanges = differs === undefined ? undefined : exchange(cached, asked, differs);
  return exchanges !== undefined && joinsClauses(cached, exchanges.start, exchanges.end);
}

/**
 * The stretch of tokens, [start, end) in both (the two differ only there, in one length), that
 * `asked` writes as `cached` with a part moved in one of the orders above; undefined when they
 * differ otherwise or not at all, or where two parts exchanged around "and" are two clauses' (RULE87).
 */
export function movedPart(
  cached: readonly Keyed[],
  asked: readonly Keyed[],
): { start: number; end: number } | undefined {
  const differs = differing(cached, asked);
  if (differs === undefined) return undefined;
  const exchanges = exchange(cached, asked, differs);
  if (exchanges !== undefined)
    return joinsClauses(cached, exchanges.start, exchanges.end) ? undefined : exchanges;
  const { start, end } = differs;
  const [theirs, mine] = [keysIn(cached, start, end), keysIn(asked, start, end)];
  for (let cut = 1; cut < theirs.length; cut += 1) {
    const [first, second] = [theirs.slice(0, cut), theirs.slice(cut)];
    if (sameWords(mine, [...second, ...first]) && movable(first, second)) return { start, end };
  }
  return undefined;
}
