/**
 * One question does something to a thing, the other does another thing to the thing so done
 * (RULE121): "How do I abandon my trademark application?" / "How do I revive my abandoned trademark
 * application?", "How do I schedule a post?" / "How do I delete a scheduled post?", "close a ring"
 * / "open a closed ring". The verifier reads the second as the first reworded (0.999); it asks
 * what to do once the first is done, or how to undo it. Not where the other verb only makes or
 * gets the thing ("smoke a brisket" / "make a smoked brisket").
 */
import type { GuardRule } from './guard-rule.ts';
import { isContent } from './normalise.ts';
import { commonStart } from './word-sequences.ts';

/** Words that may stand between the verb and its thing, "an" read as "a". */
const DETERMINERS: ReadonlySet<string> = new Set('a the my his her their our your its this that'.split(' '));
const determiner = (word: string | undefined) => (word === 'an' ? 'a' : word);
/** Verbs that make or get the thing another verb names: "make a smoked brisket" is "smoke a brisket". */
const MAKING: ReadonlySet<string> = new Set(
  'make makes made making get gets got getting have has do does create prepare produce achieve obtain buy find'.split(
    ' ',
  ),
);

/** Whether `done` is `verb` with a regular past participle's ending ("abandon" / "abandoned", "close" / "closed", "stop" / "stopped"). */
const doneOf = (verb: string, done: string) =>
  done.length > verb.length &&
  /(?:ed|en)$/.test(done) &&
  done.startsWith(verb.replace(/e$/, '')) &&
  done.length - verb.length <= 3;

/**
 * Whether, past the words both share at the start and the end, `doing` is a verb and its
 * determiners and `other` another verb (a content word, not "what" before "divided"), the same
 * determiners and the first verb's participle; something both share follows.
 */
function doneByOther(doing: readonly string[], other: readonly string[]): boolean {
  const start = commonStart(doing, other);
  const end = Math.min(
    commonStart([...doing].reverse(), [...other].reverse()),
    doing.length - start,
    other.length - start,
  );
  if (end === 0) return false;
  const mine = doing.slice(start, doing.length - end);
  const theirs = other.slice(start, other.length - end);
  if (mine.length < 1 || theirs.length !== mine.length + 1) return false;
  const [verb, ...determiners] = mine as [string, ...string[]];
  const otherVerb = theirs[0] as string;
  if (verb === otherVerb || MAKING.has(otherVerb) || !isContent(verb) || !isContent(otherVerb)) return false;
  const sameDeterminers = determiners.every(
    (word, at) =>
      DETERMINERS.has(determiner(word) as string) && determiner(word) === determiner(theirs[at + 1]),
  );
  return sameDeterminers && doneOf(verb, theirs[theirs.length - 1] as string);
}

export const doneThing: GuardRule = {
  reason: 'opposite',
  refuses: ({ asked, cached }) =>
    doneByOther(asked.tokens, cached.tokens) || doneByOther(cached.tokens, asked.tokens),
};
