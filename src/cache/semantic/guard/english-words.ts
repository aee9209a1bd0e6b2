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

/**
 * A sorted file of one entry a line, kept as one string: the entry's key is the line up to its
 * first space or its end (the word list's lines are one word; wordnet-senses.txt's, a word then
 * its synsets).
 */
export interface EntryIndex {
  text: string;
  /** Start of each indexed entry in `text`, in ascending key order. */
  starts: Uint32Array;
  /** The few entries the file has out of order, which a binary search would miss, by key. */
  stray: Map<string, number>;
}

let index: EntryIndex | undefined;
let loading: Promise<void> | undefined;

const NEWLINE = 10;
const SPACE = 32;

/** Compares `word` with the key of the entry of `text` that starts at `start`, as `<` would. */
function compareAt(text: string, start: number, word: string): number {
  for (let offset = 0; ; offset += 1) {
    const entry = text.charCodeAt(start + offset);
    const entryEnded = entry === NEWLINE || entry === SPACE;
    const wordEnded = offset === word.length;
    if (entryEnded || wordEnded) return entryEnded && wordEnded ? 0 : entryEnded ? -1 : 1;
    const asked = word.charCodeAt(offset);
    if (entry !== asked) return entry < asked ? -1 : 1;
  }
}

/** Compares the keys of the entries of `text` that start at `left` and `right`. */
function compareEntries(text: string, left: number, right: number): number {
  for (let offset = 0; ; offset += 1) {
    const a = text.charCodeAt(left + offset);
    const b = text.charCodeAt(right + offset);
    const aEnded = a === NEWLINE || a === SPACE;
    const bEnded = b === NEWLINE || b === SPACE;
    if (aEnded || bEnded) return aEnded && bEnded ? 0 : aEnded ? -1 : 1;
    if (a !== b) return a < b ? -1 : 1;
  }
}

/** Indexes the entries of `raw` whose keys are at least `minLength` long. */
export function indexEntries(raw: string, minLength: number): EntryIndex {
  const text = raw.endsWith('\n') ? raw : `${raw}\n`;
  const starts: number[] = [];
  const stray = new Map<string, number>();
  let previous = -1;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    // The key ends at the line's first space, looked for within the line only: a search past it
    // would scan the rest of a file without spaces (the word list) once a line.
    let key = start;
    while (key < end && text.charCodeAt(key) !== SPACE) key += 1;
    if (key - start >= minLength) {
      // In order against the last entry kept: indexed; out of order: kept apart.
      if (previous < 0 || compareEntries(text, previous, start) < 0) {
        starts.push(start);
        previous = start;
      } else stray.set(text.slice(start, key), start);
    }
    start = end + 1;
  }
  return { text, starts: Uint32Array.from(starts), stray };
}

/** Where the entry keyed `word` starts in the index's text; undefined when it has none. */
export function findEntry(entries: EntryIndex, word: string): number | undefined {
  const { text, starts, stray } = entries;
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareAt(text, starts[middle] as number, word);
    if (order === 0) return starts[middle];
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return stray.get(word);
}

/**
 * Whether a file of word pairs pairs two different words: each pair written once, on the line of
 * the first of the two in sort order, after it ("thick thin", "keep retain store").
 */
export function pairListed(entries: EntryIndex | undefined, word: string, other: string): boolean {
  if (entries === undefined || word === other) return false;
  const [first, second] = word < other ? [word, other] : [other, word];
  const start = findEntry(entries, first);
  if (start === undefined) return false;
  const end = entries.text.indexOf('\n', start);
  return ` ${entries.text.slice(start + first.length + 1, end)} `.includes(` ${second} `);
}

/** Loads the list once; later calls share the first. A failure leaves the guard without it (logged by the caller). */
export function loadEnglishWords(): Promise<void> {
  loading ??= readFile(wordListPath, 'latin1').then((raw) => {
    index = indexEntries(raw, MIN_LENGTH);
  });
  return loading;
}

/** True or false once the list is loaded; undefined before. `word` lowercase. */
export function isEnglishWord(word: string): boolean | undefined {
  if (index === undefined) return undefined;
  if (word.length < MIN_LENGTH) return true;
  return findEntry(index, word) !== undefined;
}
