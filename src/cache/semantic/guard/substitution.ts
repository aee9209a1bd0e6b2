/**
 * Substitution: each question has a content word the other lacks (autumn for spring, gold for
 * silver, Python for Java) while the rest of the two is the same words in the same order (at least
 * SAME_FRAME of the longer one, or the first SAME_TEMPLATE words), or one run of words in the
 * middle of the same frame is replaced by one with a content word the other lacks ("if I miss my
 * train" / "if the railway cancels my train"). Rewordings change the frame around the question
 * ("who wrote X" / "X: who was its author?"); near misses keep it and swap one slot ("a haiku
 * about autumn" / "...spring" score 0.829). Content words one letter apart are one word when it is
 * a spelling or a typo (spelling.ts). Where each word one lacks has a synonym in some sense among
 * the other's ("stiff" / "rigid", wordnet.ts; "store" / "keep", the Moby thesaurus in
 * thesaurus.ts, RULE59), the rule leaves the pair to the verifier.
 */
import type { Features } from './features.ts';
import { type GuardRule, SAME_FRAME, SAME_TEMPLATE } from './guard-rule.ts';
import { thesaurusSynonyms } from './thesaurus.ts';
import { commonStart } from './word-sequences.ts';
import { wordnetSynonyms } from './wordnet.ts';

const PREPOSITIONS: ReadonlySet<string> = new Set(
  'of in on at for with from to by about into onto as'.split(' '),
);

/**
 * Whether the two differ in one run of words, in the middle of the same frame, where one brings a
 * content word the other lacks in place of words of its own ("if I cancel" / "if the airline
 * cancels", "rent-to-own" / "rent-controlled"): another subject or kind, not a rewording.
 */
function slotReplaced(asked: Features, cached: Features, onlyAsked: string[], onlyCached: string[]): boolean {
  const replaced = (a: readonly string[], b: readonly string[]) => {
    const start = commonStart(a, b);
    let end = 0;
    while (end < Math.min(a.length, b.length) - start && a[a.length - 1 - end] === b[b.length - 1 - end])
      end += 1;
    const mine = a.slice(start, a.length - end);
    const theirs = b.slice(start, b.length - end);
    // A slot of prepositions only is the same thing said another way ("the novel X" / "the author of X").
    const holdsSomething = (slot: string[]) => slot.some((word) => !PREPOSITIONS.has(word));
    if (
      !holdsSomething(mine) ||
      !holdsSomething(theirs) ||
      (start + end) / Math.max(a.length, b.length) < SAME_FRAME
    )
      return false;
    return mine.some((word) => onlyAsked.includes(word)) || theirs.some((word) => onlyCached.includes(word));
  };
  // Articles come and go with the noun they precede ("than Saturn" / "than the Sun").
  const withoutArticles = (words: readonly string[]) =>
    words.filter((word) => word !== 'a' && word !== 'the');
  return (
    replaced(asked.words, cached.words) ||
    replaced(withoutArticles(asked.words), withoutArticles(cached.words))
  );
}

/**
 * Whether each content word either question lacks has a WordNet or thesaurus synonym among the
 * other's ("my jar lid is stiff" / "my jar lid is rigid"), as written.
 */
function synonymsOnly(asked: Features, cached: Features, onlyAsked: string[], onlyCached: string[]): boolean {
  const written = (features: Features, word: string) => features.written.get(word) ?? word;
  const matched = (mine: Features, words: string[], theirs: Features, others: string[]) =>
    words.every((word) =>
      others.some((other) => {
        const [one, two] = [written(mine, word), written(theirs, other)];
        // A name capitalised inside the question is an entity, whatever Moby lists ("Mercury" / "Moon").
        const named = mine.names.has(word) || theirs.names.has(other);
        return wordnetSynonyms(one, two) || (!named && thesaurusSynonyms(one, two));
      }),
    );
  return (
    onlyAsked.length > 0 &&
    onlyCached.length > 0 &&
    matched(asked, onlyAsked, cached, onlyCached) &&
    matched(cached, onlyCached, asked, onlyAsked)
  );
}

export const substitutedContent: GuardRule = {
  reason: 'content',
  refuses: (pair) => {
    const { onlyAsked, onlyCached } = pair;
    if (synonymsOnly(pair.asked, pair.cached, onlyAsked, onlyCached)) return false;
    return (
      (onlyAsked.length > 0 &&
        onlyCached.length > 0 &&
        (pair.frame >= SAME_FRAME || pair.template >= SAME_TEMPLATE)) ||
      slotReplaced(pair.asked, pair.cached, onlyAsked, onlyCached)
    );
  },
};
