/**
 * The measured thing exchanged (RULE133): both questions give the same amount of something, "N unit
 * of X", and ask about another thing; each names both things, but the one measured changed places
 * ("How many cups of cooked millet does 1 cup of dry millet make?" / "How many cups of dry millet
 * make 1 cup of cooked millet?", "I need exactly 1 cup of ghee; how much butter should I melt?" /
 * "I have exactly 1 cup of butter; how much ghee ...?"). The answer is the other's inverse, and
 * the words barely change, so the verifier reads a rewording (0.94 to 1.0). The amount needs its
 * "of": without it ("six months validity" / "six months of passport validity") a moved clause
 * reads the same way.
 */
import type { GuardRule } from './guard-rule.ts';
import { NUMBER_WORDS } from './hit-guard-words.ts';
import { wordsAndFigures } from './word-sequences.ts';

const isAmount = (word: string | undefined): boolean =>
  word !== undefined && (/^\p{N}/u.test(word) || NUMBER_WORDS[word] !== undefined);

/** Each amount a question gives, "N unit of X", as its amount and unit ("1 cup") and the thing (X). */
function amounts(words: readonly string[]): { amount: string; thing: string }[] {
  return words.flatMap((word, index) => {
    const thing = words[index + 3];
    if (!isAmount(word) || words[index + 2] !== 'of' || thing === undefined || isAmount(thing)) return [];
    return [{ amount: `${word} ${words[index + 1]}`, thing }];
  });
}

/** Whether the two give the same amount of two things, each naming the other's thing too. */
function exchanged(asked: readonly string[], cached: readonly string[]): boolean {
  return amounts(asked).some((mine) =>
    amounts(cached).some(
      (theirs) =>
        mine.amount === theirs.amount &&
        mine.thing !== theirs.thing &&
        asked.includes(theirs.thing) &&
        cached.includes(mine.thing),
    ),
  );
}

export const measuredThing: GuardRule = {
  reason: 'swapped',
  refuses: ({ question, candidate }) => exchanged(wordsAndFigures(question), wordsAndFigures(candidate)),
};
