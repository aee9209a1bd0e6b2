/**
 * Two things exchanged everywhere (RULE135): the same words in the same places but two content
 * words, each standing where the other stood, at two places or more each way ("I have lard, but my
 * recipe calls for butter; how much lard should I swap in for the butter?" / "I have butter, but my
 * recipe calls for lard; how much butter should I swap in for the lard?", "moving from Ireland to
 * England; how does he transfer from Ireland ...?" / the other way). One exchange is often a
 * rewording ("A and B" / "B and A", the swapped-roles rule reads which); an exchange carried through
 * the whole question turns every role round, and the verifier reads the two as one (1.0).
 */
import type { GuardRule } from './guard-rule.ts';
import { isContent } from './normalise.ts';
import { wordsAndFigures } from './word-sequences.ts';

/** Places each way an exchange needs: one exchange is the swapped-roles rule's to read. */
const EXCHANGES = 2;

/** Whether `cached` is `asked` with two content words exchanged at two places or more each way. */
function exchanged(asked: readonly string[], cached: readonly string[]): boolean {
  if (asked.length !== cached.length) return false;
  const changes = asked.flatMap((word, index) =>
    word === cached[index] ? [] : [[word, cached[index] as string]],
  );
  const [first] = changes;
  if (first === undefined) return false;
  const [one, other] = first as [string, string];
  if (!isContent(one) || !isContent(other)) return false;
  const forth = changes.filter(([mine, theirs]) => mine === one && theirs === other).length;
  const back = changes.filter(([mine, theirs]) => mine === other && theirs === one).length;
  return forth + back === changes.length && forth >= EXCHANGES && back >= EXCHANGES;
}

export const exchangedEverywhere: GuardRule = {
  reason: 'swapped',
  refuses: ({ question, candidate }) => exchanged(wordsAndFigures(question), wordsAndFigures(candidate)),
};
