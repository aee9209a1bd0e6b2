/**
 * The hit guard: similarity alone serves near misses ("Convert 10 miles to kilometers" and "...20
 * miles..." score 0.898 with the default model; "a haiku about autumn" and "...spring" 0.829;
 * "convert a string to an integer" and "...an integer to a string" 0.995), so a candidate above
 * the threshold is served only when the question and the candidate's question agree on what
 * decides the answer. Each rule below is one thing they must agree on, in its own file with what
 * it refuses and why; the first that refuses gives the verdict's reason.
 *
 * Words are compared lowercased, contractions expanded, Porter-stemmed, with a short list of
 * everyday synonyms and spellings folded ("automobile" is "car", "colour" is "color"):
 * features.ts, normalise.ts, hit-guard-words.ts. One letter apart in longer words is forgiven when
 * it is a British spelling ("licence") or a typo of an English word ("seperate"): spelling.ts,
 * english-words.ts. Plain rules, no model: cheap (about 60 µs a candidate), explainable, the same
 * on every replica. Measured on bench/data (bench/README.md, "Semantic cache"), including how much
 * they miss on questions they were not built on.
 */

import { changedNumber } from './changed-number.ts';
import { changedUnit } from './changed-unit.ts';
import { countedThing } from './counted-thing.ts';
import { reversedDirection } from './direction.ts';
import { doneThing } from './done-thing.ts';
import { exchangedEnds } from './exchanged-ends.ts';
import { exchangedEverywhere } from './exchanged-everywhere.ts';
import { GuardPair, type GuardRule, type RefusalReason } from './guard-rule.ts';
import { swappedIdentifiers } from './identifiers.ts';
import { measuredThing } from './measured-thing.ts';
import { namedPart } from './named-part.ts';
import { renamed } from './names.ts';
import { narrowerSubject } from './narrowing.ts';
import { oneSideNegated } from './negation.ts';
import { reorderedNumbers } from './number-order.ts';
import { differentNumbers } from './numbers.ts';
import { oneAgainstNone } from './one-against-none.ts';
import { oppositeWords } from './opposites.ts';
import { otherNamed } from './other-name.ts';
import { pickedNumber } from './picked-number.ts';
import { plantPart } from './plant-part.ts';
import { movedPossessor } from './possessor.ts';
import { allAgainstOne } from './quantity.ts';
import { otherQuestionWord } from './question-word.ts';
import { missingQuote } from './quoted.ts';
import { objectAsSubject } from './subject-object.ts';
import { substitutedContent } from './substitution.ts';
import { exchangedNumbers } from './swapped-numbers.ts';
import { swappedRoles } from './swapped-roles.ts';
import { trailingPhrase } from './trailing-phrase.ts';
import { swappedVoice } from './voice.ts';

/**
 * `overruled`: the first rule that refused the pair, when every rule that did is one the caller
 * leaves to the pair verifier: the verifier then decides, with a higher score.
 */
export type GuardVerdict = { ok: true; overruled?: RefusalReason } | { ok: false; reason: RefusalReason };

/**
 * How the guard runs beside the pair verifier (pair-verifier.ts): only the rules `asked` refuse;
 * those `overrulable` leave the pair to the verifier (the verdict's `overruled`); the others are
 * not asked at all (the verifier decides what they would have).
 */
export interface GuardBesideVerifier {
  asked: ReadonlySet<RefusalReason>;
  overrulable: ReadonlySet<RefusalReason>;
}

/**
 * The rules, in the order they are asked. The order decides only which reason a pair refused by
 * several rules is given, and the cost: the cheap, common refusals come first.
 */
export const HIT_GUARD_RULES: readonly GuardRule[] = [
  oneAgainstNone,
  differentNumbers,
  changedNumber,
  missingQuote,
  reorderedNumbers,
  oneSideNegated,
  swappedIdentifiers,
  oppositeWords,
  doneThing,
  reversedDirection,
  exchangedEnds,
  changedUnit,
  otherQuestionWord,
  renamed,
  allAgainstOne,
  pickedNumber,
  swappedRoles,
  countedThing,
  measuredThing,
  exchangedEverywhere,
  movedPossessor,
  exchangedNumbers,
  swappedVoice,
  objectAsSubject,
  substitutedContent,
  narrowerSubject,
  namedPart,
  trailingPhrase,
  plantPart,
  otherNamed,
];

/**
 * Whether `candidate` (a cached question) may answer `question`: every rule, or with
 * `besideVerifier` only the rules it asks.
 */
export function checkHitGuard(
  question: string,
  candidate: string,
  besideVerifier?: GuardBesideVerifier,
): GuardVerdict {
  const pair = new GuardPair(question, candidate);
  let overruled: RefusalReason | undefined;
  for (const rule of HIT_GUARD_RULES) {
    if (besideVerifier === undefined) {
      if (rule.refuses(pair)) return { ok: false, reason: rule.reason };
    } else if (besideVerifier.asked.has(rule.reason)) {
      if (rule.refuses(pair)) return { ok: false, reason: rule.reason };
    } else if (overruled === undefined && besideVerifier.overrulable.has(rule.reason) && rule.refuses(pair)) {
      overruled = rule.reason;
    }
  }
  return overruled === undefined ? { ok: true } : { ok: true, overruled };
}
