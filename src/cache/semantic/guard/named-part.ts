/**
 * A part of the thing named before it: one question is the other with a run put in right before
 * words both share, the run naming a part of what follows with a preposition ("How do I waterproof
 * a leather bag?" / "How do I waterproof the stitching on a leather bag?", "What happens during the
 * pushing stage of labor?", RULE22; "How do I clean just the grinding mechanism of a pepper mill?",
 * "How do I secure SSH on my web server?", RULE149): a narrower subject, with its own answer, as the
 * narrowing rule reads a part named after the whole ("oven racks"). The run is an optional "just",
 * "only" or "merely", an optional article, number word or possessive, one to three words with a
 * content word in them, and a preposition. Words that name the thing itself or its whole ("What is
 * the meaning of irony?" / "What is irony?", "the price of") name no part, nor do the words that
 * count or measure the same thing ("a pair of hiking boots", "a bit of salt").
 */
import type { GuardRule } from './guard-rule.ts';
import { isContent, normalisedSet, normaliseWord } from './normalise.ts';
import { sameWords } from './word-sequences.ts';

/** Words that only narrow the run's reach: "just the bell of". */
const ONLY: ReadonlySet<string> = normalisedSet(['just', 'only', 'merely']);
/** Words that open the part's name: an article, a number word, a possessive. */
const OPENERS: ReadonlySet<string> = normalisedSet(
  'a an the one each every some my our your his her its their this that these those'.split(' '),
);
/** The prepositions that join a part to its whole. */
const JOINS: ReadonlySet<string> = normalisedSet([
  'of',
  'on',
  'in',
  'inside',
  'for',
  'from',
  'under',
  'around',
]);
/**
 * Words that name the thing itself or its whole, or an aspect that is all of it ("the meaning of
 * irony", "the price of"), and words that count or measure the same thing ("a pair of").
 */
const NOT_A_PART: ReadonlySet<string> = normalisedSet(
  `meaning definition concept idea notion term word purpose point whole entirety entire cost price value
  pair pairs bit couple`.split(/\s+/),
);
/** The most words the part's name may take between its opener and its preposition. */
const NAME_WORDS = 3;

/** Whether `run` names a part of what follows it: [just] [the] name (1 to 3 words) preposition. */
function namesPart(written: readonly string[]): boolean {
  const run = written.map((token) => normaliseWord(token)[0] ?? token);
  let at = 0;
  if (ONLY.has(run[at] ?? '')) at += 1;
  if (OPENERS.has(run[at] ?? '')) at += 1;
  const name = run.slice(at, -1);
  if (name.length === 0 || name.length > NAME_WORDS || !JOINS.has(run.at(-1) ?? '')) return false;
  return name.some(isContent) && !name.some((word) => NOT_A_PART.has(word));
}

/** A question's words and figures as written, case kept: "Summarize the first chapter of 1984." */
const writtenWords = (text: string): string[] => text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];

/**
 * Whether `mine` is `theirs` with one run put in after its first word and before words both share,
 * the run naming a part of what follows. The words as written, where an abbreviation is not yet
 * its long form ("the VA" / "the Department of Veterans Affairs" puts in no part), case aside.
 * Where the words around the run repeat its first or last words ("the cymbal" / "the bell of the
 * cymbal"), each place it may stand is read.
 */
function partPutIn(mine: string, theirs: string): boolean {
  const written = writtenWords(mine);
  const [longer, shorter] = [
    written.map((word) => word.toLowerCase()),
    writtenWords(theirs).map((word) => word.toLowerCase()),
  ];
  const added = longer.length - shorter.length;
  if (added <= 0) return false;
  let shared = 0;
  while (shared < shorter.length && longer[shared] === shorter[shared]) shared += 1;
  let sharedEnd = 0;
  while (
    sharedEnd < shorter.length &&
    longer[longer.length - 1 - sharedEnd] === shorter[shorter.length - 1 - sharedEnd]
  )
    sharedEnd += 1;
  // The run stands at `start`: the words before it are the shorter's first `start`, the words after
  // it its last ones, and at least one word either side.
  const [first, last] = [Math.max(1, shorter.length - sharedEnd), Math.min(shared, shorter.length - 1)];
  const places = Array.from({ length: Math.max(0, last - first + 1) }, (_, index) => first + index);
  if (places.some((start) => repeated(longer, start, added))) return false;
  return places.some(
    (start) => namesPart(longer.slice(start, start + added)) && !namedWhole(written, start, added),
  );
}

/**
 * Whether the run at `start` (`length` words) says again the words right before or after it: put
 * in anywhere it may stand, such a run is a slip, not a part ("for pulling for pulling").
 */
function repeated(words: readonly string[], start: number, length: number): boolean {
  const run = words.slice(start, start + length);
  return [start - length, start + length].some(
    (at) => at >= 0 && sameWords(words.slice(at, at + length), run),
  );
}

/**
 * Whether the run at `start` (`length` words of `written`) and the word after it are one name: the
 * run's words before its preposition each a word with a capital first and the rest lowercase, and
 * the word after it capitalised, as the alignment writes "the Department of Veterans Affairs" for
 * "the VA": "the Department of VA", "the Department of Veterans Affairs" / "the Veterans Affairs".
 * A part named in lowercase or in capitals is a part ("the Nevada side of Lake Tahoe", "the DSC
 * part of GMDSS", "SSH on my web server"), and so is one before a word in lowercase ("the Wi-Fi on
 * my robot vacuum").
 */
function namedWhole(written: readonly string[], start: number, length: number): boolean {
  const name = written.slice(start, start + length - 1).filter((word) => {
    const key = normaliseWord(word.toLowerCase())[0] ?? '';
    return !ONLY.has(key) && !OPENERS.has(key);
  });
  return (
    name.length > 0 &&
    name.every((word) => /^\p{Lu}\p{Ll}+$/u.test(word)) &&
    /^\p{Lu}/u.test(written[start + length] ?? '')
  );
}

export const namedPart: GuardRule = {
  reason: 'narrower',
  refuses: ({ question, candidate }) => partPutIn(question, candidate) || partPutIn(candidate, question),
};
