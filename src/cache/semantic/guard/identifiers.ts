/**
 * Identifiers: code names (camelCase, snake_case, dotted or called names, words with digits) and
 * acronyms name exactly what is asked about ("useEffect" / "useMemo", "os.path.join" /
 * "os.path.split", "LDL" / "HDL"). An identifier only one side names is context ("...in SQL");
 * each side naming one the other lacks is a swap.
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { containsPhrase } from './word-sequences.ts';

const lackedIdentifier = (mine: Features, theirs: Features) =>
  mine.identifiers.some((phrase) => !containsPhrase(theirs.words, phrase));

export const swappedIdentifiers: GuardRule = {
  reason: 'identifiers',
  refuses: ({ asked, cached }) => lackedIdentifier(asked, cached) && lackedIdentifier(cached, asked),
};
