/**
 * Whether a word is an English word, for the hit guard's typo forgiveness: "recieve" is a typo of
 * "receive" (forgiven), "megabits" and "megabytes" are two words (a different question). The list
 * is the `word-list` package's (about 274,000 lowercase words with their inflections), kept as one
 * Latin-1 string with an index of where each word starts: about 4 MB, against 22 MB as a Set.
 * Loaded once, in the background, when a semantic cache with the guard is created; until it is
 * loaded, `isEnglishWord` answers undefined and the guard forgives nothing it would need it for.
 */
import { readFile } from 'node:fs/promises';
import wordListPath from 'word-list';

/** Words shorter than this are read as English (never a typo), so not indexed. */
const MIN_LENGTH = 3;

interface WordIndex {
  text: string;
  /** Start of each indexed word in `text`, in ascending word order; each word ends at a newline. */
  starts: Uint32Array;
  /** The few words the file has out of order, which a binary search would miss. */
  stray: Set<string>;
}

let index: WordIndex | undefined;
let loading: Promise<void> | undefined;

/** Compares `word` with the entry of `text` that starts at `start` (ends at a newline), as `<` would. */
function compareAt(text: string, start: number, word: string): number {
  for (let offset = 0; ; offset += 1) {
    const entry = text.charCodeAt(start + offset);
    const entryEnded = entry === 10;
    const wordEnded = offset === word.length;
    if (entryEnded || wordEnded) return entryEnded && wordEnded ? 0 : entryEnded ? -1 : 1;
    const asked = word.charCodeAt(offset);
    if (entry !== asked) return entry < asked ? -1 : 1;
  }
}

/** Compares the entries of `text` that start at `left` and `right`. */
function compareEntries(text: string, left: number, right: number): number {
  for (let offset = 0; ; offset += 1) {
    const a = text.charCodeAt(left + offset);
    const b = text.charCodeAt(right + offset);
    if (a === b) {
      if (a === 10) return 0;
      continue;
    }
    return a === 10 ? -1 : b === 10 ? 1 : a < b ? -1 : 1;
  }
}

function buildIndex(raw: string): WordIndex {
  const text = raw.endsWith('\n') ? raw : `${raw}\n`;
  const starts: number[] = [];
  const stray = new Set<string>();
  let previous = -1;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    if (end - start >= MIN_LENGTH) {
      // In order against the last word kept: indexed; out of order: kept apart.
      if (previous < 0 || compareEntries(text, previous, start) < 0) {
        starts.push(start);
        previous = start;
      } else stray.add(text.slice(start, end));
    }
    start = end + 1;
  }
  return { text, starts: Uint32Array.from(starts), stray };
}

/** Loads the list once; later calls share the first. A failure leaves the guard without it (logged by the caller). */
export function loadEnglishWords(): Promise<void> {
  loading ??= readFile(wordListPath, 'latin1').then((raw) => {
    index = buildIndex(raw);
  });
  return loading;
}

/** True or false once the list is loaded; undefined before. `word` lowercase. */
export function isEnglishWord(word: string): boolean | undefined {
  if (index === undefined) return undefined;
  if (word.length < MIN_LENGTH) return true;
  const { text, starts, stray } = index;
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareAt(text, starts[middle] as number, word);
    if (order === 0) return true;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return stray.has(word);
}
