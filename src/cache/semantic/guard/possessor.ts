/**
 * A possessor moved: the same words in another order, with the possessive 's on another word ("my
 * grandmother's niece" / "my niece's grandmother") or carried with its owner to another noun ("my
 * neighbor's tree fell on my fence" / "my tree fell on my neighbor's fence"). Whose thing it is
 * changed, the words did not, so the verifier reads the two as a rewording (0.99 and 1.0). A
 * reordered paraphrase moves a whole phrase with its possessor ("for my son's school, ..." /
 * "... for my son's school"): the same words carry the 's, and more than the owner moved. Two
 * possessive pronouns exchanged, nothing else changed, are another owner too ("his bag knocks my
 * bag" / "my bag knocks his bag"); and so are the one who acts and the owner exchanged, a person's
 * forms read as one ("my neighbor borrowed my snow shovel" / "I borrowed my neighbor's snow
 * shovel", RULE106), in one clause of each too, whatever the others say (RULE140).
 */
import type { GuardRule } from './guard-rule.ts';
import { PRONOUN_CASES } from './hit-guard-words.ts';
import { changedPlaces, commonWords } from './word-sequences.ts';
import { wordTable } from './word-table.ts';

/** Each word that carries a possessive 's ("grandmother" in "grandmother s niece"), counted. */
function possessors(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  tokens.forEach((token, index) => {
    const owner = tokens[index - 1];
    if (token === 's' && owner !== undefined) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  });
  return counts;
}

const sameCounts = (left: Map<string, number>, right: Map<string, number>): boolean =>
  left.size === right.size && [...left].every(([word, count]) => right.get(word) === count);

const sorted = (tokens: readonly string[]) => [...tokens].sort().join(' ');

/**
 * Whether `b` is `a` with one owner and its 's (two tokens) moved elsewhere and nothing else: past
 * what the two share at either end, one side is the owner then the rest, the other the rest then the
 * owner, or the reverse.
 */
function ownerMoved(a: readonly string[], b: readonly string[]): boolean {
  let start = 0;
  while (start < a.length && a[start] === b[start]) start += 1;
  let end = a.length;
  while (end > start && a[end - 1] === b[end - 1]) end -= 1;
  const inner = a.slice(start, end).join(' ');
  const other = b.slice(start, end);
  const rotations = [other.slice(0, 2), other.slice(-2)];
  return rotations.some(
    (owner, index) =>
      owner[1] === 's' &&
      inner === (index === 0 ? [...other.slice(2), ...owner] : [...owner, ...other.slice(0, -2)]).join(' '),
  );
}

const POSSESSIVES: ReadonlySet<string> = new Set(['my', 'your', 'his', 'her', 'its', 'our', 'their']);

/** Whether the two differ in exactly two places, two possessive pronouns exchanged ("his bag knocks my bag" / "my bag knocks his bag"). */
function pronounsExchanged(a: readonly string[], b: readonly string[]): boolean {
  const changed = changedPlaces(a, b);
  if (changed.length !== 2) return false;
  const [first, second] = changed as [number, number];
  return (
    POSSESSIVES.has(a[first] as string) &&
    POSSESSIVES.has(a[second] as string) &&
    a[first] === b[second] &&
    a[second] === b[first]
  );
}

/**
 * Each form of a person as one word: "I", "me" and "my" are one person, "we", "us" and "our"
 * another (the normaliser's cases, PRONOUN_CASES, and the possessive forms it keeps apart).
 */
const PERSON_FORMS: Readonly<Record<string, string>> = wordTable({
  ...PRONOUN_CASES,
  my: 'i',
  mine: 'i',
  our: 'we',
  ours: 'we',
  his: 'he',
  hers: 'she',
  their: 'they',
  theirs: 'they',
  your: 'you',
  yours: 'you',
  yourself: 'you',
  // The verb as it agrees with "I" (RULE140): "does my husband take" / "do I take", "my brother
  // is renting" / "I am renting" (RULE171).
  does: 'do',
  has: 'have',
  is: 'am',
});

/** The words without their possessive 's, each person as one word, and the words that carried an 's. */
function ownersOf(tokens: readonly string[]): { words: string[]; owners: string[] } {
  const words: string[] = [];
  const owners: string[] = [];
  for (const token of tokens) {
    if (token === 's' && words.length > 0) owners.push(words.at(-1) as string);
    else words.push(PERSON_FORMS[token] ?? token);
  }
  return { words, owners: owners.sort() };
}

/**
 * Whether the one who acts and the owner exchanged (RULE106): the same words, each person's forms
 * as one ("my neighbor borrowed my snow shovel" / "I borrowed my neighbor's snow shovel", "can my
 * landlord shred my documents" / "can I shred my landlord's documents"), an 's on another word,
 * and no more than two words out of place (the words less those the two share in order). A
 * reordered paraphrase moves a whole phrase ("During takeoff, will a pacifier help our
 * 7-month-old's ears? We're flying with her").
 */
function ownerExchanged(a: readonly string[], b: readonly string[]): boolean {
  const [mine, theirs] = [ownersOf(a), ownersOf(b)];
  if (mine.words.join(' ') === theirs.words.join(' ') || sorted(mine.words) !== sorted(theirs.words))
    return false;
  if (mine.owners.join(' ') === theirs.owners.join(' ')) return false;
  return mine.words.length - commonWords(mine.words, theirs.words) <= 2;
}

/** A question's clauses (ended by `,` `;` `:` `.` `?` `!`), each as lowercase letter runs. */
const clausesOf = (text: string): string[][] =>
  text
    .split(/[,;:.?!]/)
    .map(lettersOf)
    .filter((words) => words.length > 0);

/**
 * Whether one clause of each exchanges the one who acts and the owner (RULE140), whatever the
 * other clauses say: "My roommate borrowed my spatula and bent it; how do I ask him to replace it?"
 * / "I borrowed my roommate's spatula and bent it; how do I offer to replace it?".
 */
function ownerExchangedInClause(question: string, candidate: string): boolean {
  const theirClauses = clausesOf(candidate);
  return clausesOf(question).some((mine) => theirClauses.some((theirs) => ownerExchanged(mine, theirs)));
}

function possessorMoved(a: readonly string[], b: readonly string[]): boolean {
  if (ownerExchanged(a, b)) return true;
  if (a.length !== b.length || a.join(' ') === b.join(' ') || sorted(a) !== sorted(b)) return false;
  return !sameCounts(possessors(a), possessors(b)) || ownerMoved(a, b) || pronounsExchanged(a, b);
}

/** Lowercase letter runs as written: "my neighbor's" is "my", "neighbor", "s" (the guard's features drop the 's). */
const lettersOf = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];

export const movedPossessor: GuardRule = {
  reason: 'swapped',
  refuses: ({ question, candidate }) =>
    possessorMoved(lettersOf(question), lettersOf(candidate)) || ownerExchangedInClause(question, candidate),
};
