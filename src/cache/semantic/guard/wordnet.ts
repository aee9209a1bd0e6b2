/**
 * What WordNet 3.1 adds to the word list, from seven files scripts/build-wordnet-groups.py
 * generates, each kept as one string with the word list's index:
 *
 * - wordnet-senses.txt (1.4 MB): about 70,000 words with their inflections, each with the numbers
 *   of its synsets. Two words that share one are synonyms in some sense ("stiff" / "rigid",
 *   "keep" / "retain", "attract" / "draw"), which the substitution rule leaves to the verifier
 *   rather than refusing as another entity. Any sense links words a question rarely means together
 *   ("minute" / "second", "coach" / "train"), so nothing aligns on it; the verifier reads those
 *   apart (bench/data/reserved/rules/RULE49.md); the first senses below do align.
 * - wordnet-names.txt (0.2 MB): about 17,000 lemmas the word list lacks, mostly names ("seattle",
 *   "december", "hindi"), which the alignment's typo step knows as words (RULE50.md).
 * - wordnet-antonyms.txt (66 kB): WordNet's 3,215 direct antonym pairs of single words ("tall" /
 *   "short", "start" / "finish", "thick" / "thin"), which the opposites rule refuses as the only
 *   word changed (RULE60.md).
 * - wordnet-first-senses.txt (0.5 MB): 35,193 pairs of words of one part of speech where the first
 *   sense of one is among the first two of the other, that sense tagged in SemCor for one of them,
 *   in the same inflection ("blurry" / "fuzzy", "connect" / "link", "rent" / "lease"), which the
 *   alignment writes one for the other between the same words (RULE62.md); "minute" / "second"
 *   share only later senses, and "bike" is a motorcycle second, never tagged so.
 * - typo-words.txt (1.2 MB): 94,922 pairs of a rare word of the word list (no WordNet lemma or
 *   inflection of one, no whole word of the verifier's vocabulary: "watter", "flor", "thrid") and
 *   a common word one edit from it, which the alignment reads as a typo of the common one between
 *   the same words (RULE63.md).
 * - wordnet-parts.txt (28 kB): 3,257 nouns WordNet names as a part of another thing in their first
 *   or second sense ("wick", "handrail", "soundboard"), which the narrowing rule refuses named right
 *   after a word both questions share (RULE68.md).
 * - wordnet-phrases.txt (0.5 MB): 31,236 pairs of forms that share a verb, adjective or adverb
 *   synset in the same inflection, one at least a phrase of two or three words ("go away" /
 *   "disappear", "take out" / "remove", "for good" / "permanently"), which the synonym step serves
 *   as all that changes (RULE125.md). Noun phrases are left out: a noun's other names are often
 *   another species or kind ("death cap" / "destroying angel").
 *
 * Loaded once, in the background, with the word list; until then no pair is synonyms, antonyms,
 * first senses or a typo and no word is a name or a part.
 */
import { readFile } from 'node:fs/promises';
import { type EntryIndex, findEntry, indexEntries, pairListed } from './english-words.ts';
import { stemsPaired } from './inflection.ts';

const SENSES_FILE = new URL('../wordnet-senses.txt', import.meta.url);
const NAMES_FILE = new URL('../wordnet-names.txt', import.meta.url);
const ANTONYMS_FILE = new URL('../wordnet-antonyms.txt', import.meta.url);
const FIRST_SENSES_FILE = new URL('../wordnet-first-senses.txt', import.meta.url);
const TYPOS_FILE = new URL('../typo-words.txt', import.meta.url);
const PARTS_FILE = new URL('../wordnet-parts.txt', import.meta.url);
const PHRASES_FILE = new URL('../wordnet-phrases.txt', import.meta.url);

let senses: EntryIndex | undefined;
let names: EntryIndex | undefined;
let antonyms: EntryIndex | undefined;
let firstSenses: EntryIndex | undefined;
let typos: EntryIndex | undefined;
let parts: readonly string[] = [];
let phrases: EntryIndex | undefined;
let loading: Promise<void> | undefined;

/** The file's entries after its header (WordNet's licence: comment lines before the first entry). */
async function readEntries(file: URL): Promise<EntryIndex> {
  const raw = await readFile(file, 'latin1');
  const body = raw.search(/^[^#\n]/m);
  return indexEntries(body < 0 ? '' : raw.slice(body), 1);
}

/** Loads the files once; later calls share the first. A failure leaves none (logged by the caller). */
export function loadWordnet(): Promise<void> {
  loading ??= Promise.all([
    readEntries(SENSES_FILE),
    readEntries(NAMES_FILE),
    readEntries(ANTONYMS_FILE),
    readEntries(FIRST_SENSES_FILE),
    readEntries(TYPOS_FILE),
    readEntries(PARTS_FILE),
    readEntries(PHRASES_FILE),
  ]).then(([read, known, opposed, first, mistyped, named, phrased]) => {
    senses = read;
    names = known;
    antonyms = opposed;
    firstSenses = first;
    typos = mistyped;
    parts = named.text.split('\n').filter((word) => word !== '');
    phrases = phrased;
  });
  return loading;
}

/** The numbers of the synsets that hold `word` (lowercase, as written). */
function synsetsOf(word: string): string[] {
  if (senses === undefined) return [];
  const start = findEntry(senses, word);
  if (start === undefined) return [];
  const end = senses.text.indexOf('\n', start);
  return senses.text.slice(start + word.length + 1, end).split(' ');
}

/** Whether two different words share a WordNet synset in some sense, in the same inflection. */
export function wordnetSynonyms(word: string, other: string): boolean {
  if (word === other) return false;
  const mine = synsetsOf(word);
  if (mine.length === 0) return false;
  const theirs = new Set(synsetsOf(other));
  return mine.some((synset) => theirs.has(synset));
}

/**
 * Whether two different wordings (lowercase, one space apart), one at least a phrase, share a
 * WordNet verb, adjective or adverb synset in the same inflection: "go away" / "disappear",
 * "goes away" / "disappears", "get over" / "overcome" (RULE125).
 */
export function wordnetPhrases(wording: string, other: string): boolean {
  if (!wording.includes(' ') && !other.includes(' ')) return false;
  return pairListed(phrases, wording.replaceAll(' ', '_'), other.replaceAll(' ', '_'));
}

/** Whether WordNet has `word` (lowercase) as a lemma the word list lacks: a name, mostly. */
export function isWordnetName(word: string): boolean {
  return names !== undefined && findEntry(names, word) !== undefined;
}

/**
 * Whether two words (lowercase, as written) are direct antonyms in WordNet, as written or as stems
 * with one regular ending shared ("thickest" / "thinnest", inflection.ts).
 */
export function wordnetAntonyms(word: string, other: string): boolean {
  const listed = (one: string, two: string) => pairListed(antonyms, one, two);
  return listed(word, other) || stemsPaired(word, other, listed);
}

/**
 * Whether two words (lowercase, as written) are one in their most frequent senses: the first sense
 * of one among the first two of the other, in one part of speech and the same inflection, that
 * sense tagged in SemCor for one of them.
 */
export function wordnetFirstSenses(word: string, other: string): boolean {
  return pairListed(firstSenses, word, other);
}

/**
 * Whether one of two words (lowercase, as written) is a rare word of the word list one edit from
 * the other, a common one: most likely its typo ("watter" / "water").
 */
export function listedTypo(word: string, other: string): boolean {
  return pairListed(typos, word, other);
}

/** The nouns WordNet names as a part of another thing in their first or second sense; none until loaded. */
export const wordnetParts = (): readonly string[] => parts;
