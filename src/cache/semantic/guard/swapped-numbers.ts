/**
 * Numbers exchanged in place: the same words in the same order, the same numbers in another order
 * ("Can I use a 48V charger on a 36V scooter?" / "...a 36V charger on a 48V scooter?", "a 15-amp
 * heater on a strip rated for 10 amps" / the other way round). Which figure belongs to what
 * changed, nothing else did, so the verifier reads the two as a rewording (0.85 to 1.0). The
 * numbers rule's own check (number-order.ts) also refuses a clause moved with its number, a
 * rewording lean mode must keep; this one refuses only the exchange. A symmetric pair ("Is Level 2
 * or Level 1 charging enough?" / "Is Level 1 or Level 2 ...") is one question.
 */
import type { GuardRule } from './guard-rule.ts';
import { isFigure, wordsAndFigures } from './word-sequences.ts';

/** Words joining two alike things either way round ("Level 2 or Level 1"). */
const COORDINATORS: ReadonlySet<string> = new Set(['or', 'and', 'vs', 'versus']);

/**
 * Whether the figures at token positions `first` and `second` are joined as two alike things: the
 * words between them are a coordinator and then the words before `first` again ("level 2 or
 * level 1").
 */
function coordinated(tokens: readonly string[], first: number, second: number): boolean {
  const between = tokens.slice(first + 1, second);
  if (!COORDINATORS.has(between[0] ?? '')) return false;
  const repeated = between.slice(1);
  return repeated.every((word, index) => tokens[first - repeated.length + index] === word);
}

function exchanged(asked: readonly string[], cached: readonly string[]): boolean {
  if (asked.length !== cached.length) return false;
  const moved: number[] = [];
  for (let index = 0; index < asked.length; index += 1) {
    const [mine, theirs] = [asked[index] as string, cached[index] as string];
    if (mine === theirs) continue;
    if (!isFigure(mine) || !isFigure(theirs)) return false;
    moved.push(index);
  }
  if (moved.length < 2) return false;
  const figures = (tokens: readonly string[]) =>
    moved
      .map((index) => tokens[index])
      .sort()
      .join(' ');
  if (figures(asked) !== figures(cached)) return false;
  return !coordinated(asked, moved[0] as number, moved[moved.length - 1] as number);
}

export const exchangedNumbers: GuardRule = {
  reason: 'swapped',
  refuses: ({ question, candidate }) => exchanged(wordsAndFigures(question), wordsAndFigures(candidate)),
};
