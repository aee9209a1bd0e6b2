/**
 * Direction: the same two words on either side of "to", "into" or "in", in the opposite order
 * ("convert a string to an integer" / "...an integer to a string" score 0.995; "72 degrees
 * Fahrenheit in Celsius" / "...Celsius in Fahrenheit"). A conversion's answer is the other's
 * inverse. A "to" after an adjective starts an infinitive and goes nowhere ("Are snowshoes hard to
 * walk in?" / "Is walking in snowshoes difficult?", features.ts, RULE108), and an "in" before a
 * month, a weekday or a season says when ("a cruise to Greenland in August" / "the August cruise
 * to Greenland", RULE119).
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';

/** Whether one question goes from a word to another and the other question the other way round. */
function reversed(asked: Features, cached: Features): boolean {
  return asked.directions.some((mine) =>
    cached.directions.some((theirs) =>
      mine.from.some(
        (source) =>
          theirs.to.includes(source) &&
          mine.to.some((target) => target !== source && theirs.from.includes(target)),
      ),
    ),
  );
}

export const reversedDirection: GuardRule = {
  reason: 'direction',
  refuses: ({ asked, cached }) => reversed(asked, cached),
};
