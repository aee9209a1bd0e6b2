/**
 * A plant against a part of it: the two questions the same but for a plant, tree, shrub, bush or
 * vine named after the plant's own name on one side and one of its parts on the other ("How long does a peony
 * flower last?" / "How long does a peony plant last?", "What does a breadfruit tree look like?" /
 * "... leaf ...?", "Can I eat the whole plant?" / "Can I eat just the leaves?"): a part of the thing,
 * with its own answer, as the narrowing rule reads a part named after its whole (RULE167). The
 * words that only say how much of it ("whole", "just", "a single") and articles and possessives
 * may differ too; the word before the two is the same content word ("I plant" / "I water" is a
 * verb).
 */
import type { GuardRule } from './guard-rule.ts';
import { isContent } from './normalise.ts';

/** Words that name a whole plant. */
const WHOLE: ReadonlySet<string> = new Set(
  'plant plants tree trees shrub shrubs bush bushes vine vines'.split(' '),
);
/** Parts of a plant. */
const PARTS: ReadonlySet<string> = new Set(
  `flower flowers leaf leaves root roots bark sap seed seeds fruit fruits berry berries stem stems stalk
  stalks bulb bulbs petal petals blossom blossoms bud buds branch branches trunk trunks needle needles
  cone cones pod pods nut nuts shoot shoots tuber tubers thorn thorns pollen nectar`.split(/\s+/),
);
/** Words that only say how much of the thing, or whose it is, left out before comparing. */
const HOW_MUCH: ReadonlySet<string> = new Set(
  'whole entire just only single one a an the its their his her my our your'.split(' '),
);

/** The lowercase words as written, those that only say how much of the thing left out. */
const wordsOf = (tokens: readonly string[]): string[] => tokens.filter((token) => !HOW_MUCH.has(token));

/** Whether the two differ only in one word, a whole plant on one side and a part of it on the other. */
function plantAgainstPart(asked: readonly string[], cached: readonly string[]): boolean {
  const [mine, theirs] = [wordsOf(asked), wordsOf(cached)];
  if (mine.length !== theirs.length) return false;
  const apart = mine.flatMap((word, at) => (word === theirs[at] ? [] : [at]));
  if (apart.length !== 1) return false;
  const at = apart[0] as number;
  const [word, other] = [mine[at] as string, theirs[at] as string];
  const swapped = (WHOLE.has(word) && PARTS.has(other)) || (PARTS.has(word) && WHOLE.has(other));
  return swapped && isContent(mine[at - 1]);
}

export const plantPart: GuardRule = {
  reason: 'narrower',
  refuses: ({ asked, cached }) => plantAgainstPart(asked.tokens, cached.tokens),
};
