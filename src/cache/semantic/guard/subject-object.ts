/**
 * Subject and object: one question asks what does something to a thing, the other what that thing
 * does ("what eats a hawk" / "what does a hawk eat"): the same words, the thing on the other side
 * of the verb.
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { ARTICLES, isActor, isContent, normaliseWord, verbOf } from './normalise.ts';

/** The normalised word of a token ('' for none). */
const wordOf = (token: string | undefined): string => normaliseWord(token ?? '')[0] ?? '';

/** The actor right after `index`, articles and possessives aside, or undefined. */
function actorAfter(tokens: readonly string[], index: number): string | undefined {
  let at = index + 1;
  while (ARTICLES.has(tokens[at] ?? '')) at += 1;
  const word = wordOf(tokens[at]);
  return isActor(word) ? word : undefined;
}

/**
 * The verb's object in a question about what does something: the run of content words after it,
 * articles and possessives aside ("what eats a fox": "fox", "who beat Serena Williams in": "serena
 * williams"), or its one actor ("what eats me").
 */
function objectAfter(tokens: readonly string[], index: number): string[] {
  let at = index + 1;
  while (ARTICLES.has(tokens[at] ?? '')) at += 1;
  const run: string[] = [];
  for (; at < tokens.length && isContent(wordOf(tokens[at])); at += 1) run.push(wordOf(tokens[at]));
  if (run.length > 0) return run;
  const actor = wordOf(tokens[at]);
  return isActor(actor) ? [actor] : [];
}

/** Auxiliaries that open a question about a verb's object ("what does a fox eat"). */
const QUESTION_AUXILIARIES: ReadonlySet<string> = new Set(
  'do does did can could will would should'.split(' '),
);

/**
 * The verb's subject in a question about what something does: the run of content words right
 * before it, with an auxiliary before the run past articles and possessives ("what does a fox
 * eat": "fox", "which animals do slow lorises eat": "slow lorises"), or its one actor ("what do I
 * eat"); none without the auxiliary.
 */
function subjectBefore(tokens: readonly string[], index: number): string[] {
  let at = index - 1;
  while (at >= 0 && isContent(wordOf(tokens[at]))) at -= 1;
  const run = at < index - 1 ? tokens.slice(at + 1, index).map(wordOf) : [wordOf(tokens[at])];
  if (at === index - 1 && !isActor(run[0])) return [];
  let before = at === index - 1 ? at - 1 : at;
  while (ARTICLES.has(tokens[before] ?? '')) before -= 1;
  return QUESTION_AUXILIARIES.has(tokens[before] ?? '') ? run : [];
}

/** Question words that may stand as a verb's subject ("what eats", "which animals hunt"). */
const QUESTION_WORDS: ReadonlySet<string> = new Set(['what', 'which', 'who']);
/**
 * Prepositions a verb may take its object through, left at the end when the object asks
 * ("what preys on foxes" / "what do foxes prey on", "what feeds on caterpillars" / "what do
 * caterpillars feed on", RULE161).
 */
const THROUGH: ReadonlySet<string> = new Set('on upon off to from with after for at against into'.split(' '));
/** How many words may name the thing a question word asks about ("what big cats hunt", RULE159). */
const ASKED_THING = 2;

/** Whether the verb at `index` has a question word for its subject, up to ASKED_THING content words between. */
function askedAsSubject(tokens: readonly string[], index: number): boolean {
  for (let before = index - 1; before >= Math.max(0, index - 1 - ASKED_THING); before -= 1) {
    if (QUESTION_WORDS.has(tokens[before] ?? '')) return true;
    if (!isContent(wordOf(tokens[before]))) return false;
  }
  return false;
}

/**
 * Whether one question asks what does something to a thing and the other what that thing does:
 * "what eats a fox" (the fox eaten) / "what does a fox eat" (the fox eating); the thing asked about
 * may be named and the subject be several words ("what animals eat tarsiers" / "what do tarsiers
 * eat", "who beat Serena Williams" / "who did Serena Williams beat", RULE159), and the verb take
 * its object through a preposition ("what animals prey on foxes" / "what animals do foxes prey on",
 * RULE161). The subject is the object or its first words ("what eats fox cubs" / "what do foxes
 * eat").
 */
function objectBecameSubject(asked: Features, cached: Features): boolean {
  const a = asked.tokens;
  const b = cached.tokens;
  return a.some((token, index) => {
    const verb = verbOf(token);
    if (!isContent(verb) || !askedAsSubject(a, index)) return false;
    // The preposition the verb may take its object through, which the other side leaves at its end.
    const through = THROUGH.has(a[index + 1] ?? '') ? 1 : 0;
    const object = objectAfter(a, index + through);
    // A word said twice is no verb and its object ("dik-diks").
    if (object.length === 0 || object.includes(verb)) return false;
    return b.some((other, at) => {
      if (verbOf(other) !== verb || (through === 1 && b[at + 1] !== a[index + 1])) return false;
      if (actorAfter(b, at + through) !== undefined) return false;
      const subject = subjectBefore(b, at);
      return (
        subject.length > 0 &&
        subject.length <= object.length &&
        subject.every((word, place) => word === object[place])
      );
    });
  });
}

export const objectAsSubject: GuardRule = {
  reason: 'swapped',
  refuses: ({ asked, cached }) => objectBecameSubject(asked, cached) || objectBecameSubject(cached, asked),
};
