/**
 * Two inflected words read through their stems, for the word files that hold lemmas only (the
 * thesaurus, WordNet's antonyms): "managers" / "bosses" are "manager" / "boss", "thickest" /
 * "thinnest" are "thick" / "thin". Only a regular ending both words share, so a word is never read
 * against another inflection ("stores" / "keep" is no pair).
 */

/** A stem before "-ed", "-er" or "-est": as left, with its "e", undoubled, or its "i" a "y" ("happi-er"). */
const suffixedStems = (stem: string): string[] => [
  stem,
  `${stem}e`,
  ...undoubled(stem),
  ...(stem.endsWith('i') ? [`${stem.slice(0, -1)}y`] : []),
];

/**
 * The ending and the stems of a word read as a comparative ("-er") or a superlative ("-est") of one
 * word: "cheaper" is "cheap" (or "cheape"), "sturdiest" "sturdy", "biggest" "big"; none for a
 * shorter word ("her", "best": its stem would be one letter or none).
 */
export function comparedStems(word: string): { ending: 'er' | 'est'; stems: string[] } | undefined {
  const ending = word.endsWith('est') ? 'est' : word.endsWith('er') ? 'er' : undefined;
  if (ending === undefined || word.length < ending.length + 2) return undefined;
  return { ending, stems: suffixedStems(word.slice(0, -ending.length)) };
}

/** Regular endings two inflected words may share, each with the stems it may leave. */
const ENDINGS: readonly (readonly [ending: string, stems: (stem: string) => string[]])[] = [
  ['ing', (stem) => [stem, `${stem}e`, ...undoubled(stem)]],
  ['ed', suffixedStems],
  ['est', suffixedStems],
  ['er', suffixedStems],
  ['ly', (stem) => [stem, ...(stem.endsWith('i') ? [`${stem.slice(0, -1)}y`] : [])]],
  // "boss-es", "citi-es": the stem may have an "e" of its own ("stores") or not.
  [
    's',
    (stem) => [
      stem,
      ...(stem.endsWith('e') ? [stem.slice(0, -1)] : []),
      ...(stem.endsWith('ie') ? [`${stem.slice(0, -2)}y`] : []),
    ],
  ],
];

/** "stopp" of "stopped" is "stop", "thinn" of "thinnest" "thin". */
function undoubled(stem: string): string[] {
  const last = stem.at(-1);
  return last !== undefined && stem.at(-2) === last && !'aeiou'.includes(last) ? [stem.slice(0, -1)] : [];
}

/** The endings of nouns and verbs only: "-ing", "-ed", "-s" (the thesaurus reads no others). */
export const NOUN_AND_VERB_ENDINGS: ReadonlySet<string> = new Set(['ing', 'ed', 's']);

/**
 * Whether `paired` holds for the two words' stems under some regular ending both share, among
 * `endings` (by default every one: also "-est", "-er", "-ly").
 */
export function stemsPaired(
  word: string,
  other: string,
  paired: (stem: string, them: string) => boolean,
  endings?: ReadonlySet<string>,
): boolean {
  return ENDINGS.some(([ending, stems]) => {
    if (endings !== undefined && !endings.has(ending)) return false;
    if (!word.endsWith(ending) || !other.endsWith(ending)) return false;
    const mine = stems(word.slice(0, -ending.length)).filter((stem) => stem.length > 1);
    const theirs = stems(other.slice(0, -ending.length)).filter((stem) => stem.length > 1);
    return mine.some((stem) => theirs.some((them) => stem !== them && paired(stem, them)));
  });
}
