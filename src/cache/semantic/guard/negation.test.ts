import { describe } from 'vitest';
import { oneSideNegated } from './negation.ts';
import { itFollowsTable } from './rule-table.ts';

describe('oneSideNegated', () => {
  itFollowsTable(oneSideNegated, [
    ['Is it safe to eat raw eggs?', "Can you safely eat eggs raw, or isn't it safe?", 'ok'],
    // "no" before a question word is "know" mistyped (hit-guard-words.ts, PHRASES).
    [
      'How do I no whether my sourdough starter is dead?',
      'How do I know whether my sourdough starter is dead?',
      'ok',
    ],
    // A polite framing holds no negation (hit-guard-words.ts, PHRASES).
    [
      "I'm homeschooling my 12-year-old in Ohio starting this fall; if it's not too much trouble, could you outline what the state requires from parents like me?",
      "I'm homeschooling my 12-year-old in Ohio starting this fall; outline what the state requires from parents like me.",
      'ok',
    ],
    [
      "I'm building a vertical garden on a brick wall in Texas; if it's no trouble, could you suggest plants that can handle the heat?",
      "I'm building a vertical garden on a brick wall in Texas; could you suggest plants that can handle the heat?",
      'ok',
    ],
    [
      "If you don't mind my asking, I've been getting headaches every evening since I started a new office job; what could be causing them?",
      "I've been getting headaches every evening since I started a new office job; what could be causing them?",
      'ok',
    ],
    [
      'Which fruits should be kept in the fridge?',
      'Which fruits should not be kept in the fridge?',
      'negation',
    ],
    [
      'Can I get a refund on a refundable booking?',
      'Can I get a refund on a non-refundable booking?',
      'negation',
    ],
    // A negation added beside one both share (RULE55).
    [
      'My vintage theremin was just serviced; should I worry if it hums when nothing is plugged in?',
      "My vintage theremin was just serviced; should I worry if it doesn't hum when nothing is plugged in?",
      'negation',
    ],
    [
      "We're on a boat with no fridge for a week; which foods keep well without refrigeration?",
      "We're on a boat with no fridge for a week; which foods don't keep well without refrigeration?",
      'negation',
    ],
    // The same negations, worded otherwise.
    [
      "I'm on a boat with no fridge; which foods won't spoil?",
      "I'm on a boat with no fridge; which foods will not spoil?",
      'ok',
    ],
  ]);
});
