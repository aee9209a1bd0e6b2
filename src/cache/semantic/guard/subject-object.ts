/**
 * Subject and object: one question asks what does something to a thing, the other what that thing
 * does ("what eats a hawk" / "what does a hawk eat"): the same words, the thing on the other side
 * of the verb.
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { ARTICLES, isActor, isContent, normaliseWord, verbOf } from './normalise.ts';

/** The actor right before `index`, or undefined. */
const actorBefore = (tokens: readonly string[], index: number) => {
  const word = normaliseWord(tokens[index - 1] ?? '')[0];
  return isActor(word) ? word : undefined;
};

/** The actor right after `index`, articles and possessives aside, or undefined. */
function actorAfter(tokens: readonly string[], index: number): string | undefined {
  let at = index + 1;
  while (ARTICLES.has(tokens[at] ?? '')) at += 1;
  const word = normaliseWord(tokens[at] ?? '')[0];
  return isActor(word) ? word : undefined;
}

/** Auxiliaries that open a question about a verb's object ("what does a fox eat"). */
const QUESTION_AUXILIARIES: ReadonlySet<string> = new Set(
  'do does did can could will would should'.split(' '),
);

/**
 * Whether one question asks what does something to a thing and the other what that thing does:
 * "what eats a fox" (the fox eaten) / "what does a fox eat" (the fox eating).
 */
function objectBecameSubject(asked: Features, cached: Features): boolean {
  const a = asked.tokens;
  const b = cached.tokens;
  return a.some((token, index) => {
    const verb = verbOf(token);
    const object = actorAfter(a, index);
    if (!['what', 'which', 'who'].includes(a[index - 1] ?? '') || !isContent(verb) || object === undefined)
      return false;
    return b.some((other, at) => {
      if (verbOf(other) !== verb || actorBefore(b, at) !== object || actorAfter(b, at) !== undefined)
        return false;
      let before = at - 2;
      while (ARTICLES.has(b[before] ?? '')) before -= 1;
      return QUESTION_AUXILIARIES.has(b[before] ?? '');
    });
  });
}

export const objectAsSubject: GuardRule = {
  reason: 'swapped',
  refuses: ({ asked, cached }) => objectBecameSubject(asked, cached) || objectBecameSubject(cached, asked),
};
