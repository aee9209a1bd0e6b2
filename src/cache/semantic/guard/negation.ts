/**
 * Negation: one question negated and the other not, in the same frame ("Which fruits should be
 * kept in the fridge?" / "...should not be kept...", "a refundable booking" / "a non-refundable
 * booking"). A reworded question may add a negation of its own ("Is it safe to eat raw eggs?" /
 * "...or isn't it safe?"), so the frame must be shared (SAME_FRAME). The negation words are counted:
 * one added beside another is a negation too ("if it hums when nothing is plugged in" / "if it
 * doesn't hum when nothing is plugged in", bench/data/reserved/rules/RULE55.md).
 */
import { type GuardRule, SAME_FRAME } from './guard-rule.ts';

export const oneSideNegated: GuardRule = {
  reason: 'negation',
  refuses: (pair) => pair.asked.negations !== pair.cached.negations && pair.frame >= SAME_FRAME,
};
