/**
 * The question word: "why", "when", "where", "who", "how" and "how often", "how much", "how long"
 * ask different things of one subject ("Why was the Concorde retired?" / "When was...?"), in half
 * the frame at least. "How much" and "how long" are one question when time is named ("how many
 * days"); "how many times a week" asks how often; "what" and "how" often swap for each other.
 */
import type { Features } from './features.ts';
import { type GuardRule, OPPOSED_FRAME } from './guard-rule.ts';
import { normalisedSet } from './normalise.ts';

/** Words that make "how much" or "how many" a question of time ("how many days", "how much sleep in hours"). */
const TIME_UNITS: ReadonlySet<string> = normalisedSet(
  'second seconds minute minutes hour hours hrs day days week weeks month months year years night nights time'.split(
    ' ',
  ),
);

/**
 * Whether the two open with different question words ("why" / "when", "how often" / "how much").
 * "How much" and "how long" are one question when either names a unit of time ("how many days").
 */
function askDifferently(asked: Features, cached: Features): boolean {
  if (asked.asks === undefined || cached.asks === undefined || asked.asks === cached.asks) return false;
  const pair = new Set([asked.asks, cached.asks]);
  const timed = (features: Features) => features.words.some((word) => TIME_UNITS.has(word));
  return !(pair.has('how much') && pair.has('how long') && (timed(asked) || timed(cached)));
}

export const otherQuestionWord: GuardRule = {
  reason: 'question',
  refuses: (pair) => askDifferently(pair.asked, pair.cached) && pair.frame >= OPPOSED_FRAME,
};
