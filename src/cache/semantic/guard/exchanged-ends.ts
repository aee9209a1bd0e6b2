/**
 * The two ends of a transfer exchanged: a party or place one question sends something to, the other
 * takes it from, after the same verb of transfer ("I'm leasing my field to a farmer" / "I'm leasing
 * a field from a farmer", "move from my house to her dad's" / "move from her dad's house to mine",
 * "transfer his contacts from his old phone to the new one" / "from the new phone back to his old
 * one"). The direction rule reads the same two words on either side of "to"; here one end moved
 * from one side of the transfer to the other, and the rest was rebuilt around it, which the verifier
 * reads as a rewording (0.9 and more). Over all the training and bench data no paraphrase has this
 * form (bench/data/reserved/rules/RULE48.md, RULE48b.md).
 */
import type { GuardRule } from './guard-rule.ts';

/**
 * Verbs of transfer, as the start of any of their forms ("leas" is lease, leased, leasing). A stem
 * may start another word too ("cop" in "cope", "port" in "portion"); the rule still asks for one end
 * exchanged between "to" and "from", which no paraphrase in the data has.
 */
const TRANSFER_STEMS: readonly string[] = `rent sublet subleas leas lend lent loan sell sold buy bought borrow
  transfer send sent ship mov download upload cop migrat port switch gift giv gave donat hand pass mail
  wire import export sync travel fly flew flight driv drove relocat chang convert return post deliver
  fund pay paid`.split(/\s+/);

/** Words skipped before the end a preposition names ("to a farmer", "from her dad's house"). */
const SKIPPED: ReadonlySet<string> = new Set(
  'a an the my his her their our your its this that some one another other'.split(' '),
);

/** The verb stem `word` starts with, if it is a verb of transfer. */
const transferStem = (word: string): string | undefined =>
  TRANSFER_STEMS.find((stem) => word.startsWith(stem));

/** The word a preposition at `index` leads to, articles and possessive pronouns skipped. */
function endAt(tokens: readonly string[], index: number): string | undefined {
  let at = index + 1;
  while (at < tokens.length && SKIPPED.has(tokens[at] as string)) at += 1;
  return tokens[at];
}

/** The transfer verbs' stems before `index`. */
const stemsBefore = (tokens: readonly string[], index: number): Set<string> =>
  new Set(tokens.slice(0, index).flatMap((word) => transferStem(word) ?? []));

/** Whether `tokens` hold `preposition` then `end`. */
const leadsTo = (tokens: readonly string[], preposition: string, end: string): boolean =>
  tokens.some((word, at) => word === preposition && endAt(tokens, at) === end);

/**
 * Whether `sending` has "to" then an end that `taking` has after "from", each after the same verb
 * of transfer, and neither also has it the other way ("to the United States from the United
 * Kingdom" ends at "united" both ways).
 */
function sentAndTaken(sending: readonly string[], taking: readonly string[]): boolean {
  return sending.some((word, index) => {
    if (word !== 'to') return false;
    const end = endAt(sending, index);
    if (end === undefined || leadsTo(taking, 'to', end) || leadsTo(sending, 'from', end)) return false;
    const verbs = stemsBefore(sending, index);
    return taking.some(
      (other, at) =>
        other === 'from' &&
        endAt(taking, at) === end &&
        [...stemsBefore(taking, at)].some((stem) => verbs.has(stem)),
    );
  });
}

export const exchangedEnds: GuardRule = {
  reason: 'direction',
  refuses: ({ asked, cached }) =>
    sentAndTaken(asked.tokens, cached.tokens) || sentAndTaken(cached.tokens, asked.tokens),
};
