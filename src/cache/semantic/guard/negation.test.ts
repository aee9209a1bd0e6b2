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
    // "no." before a figure is a number in a series, as "#2" is (RULE141); "no" alone still negates.
    [
      "What's the difference between #2 and #4 grommets?",
      "What's the difference between no. 2 and No.4 grommets?",
      'ok',
    ],
    ['Do 2 buses run on Sundays?', 'Do no 2 buses run on Sundays?', 'negation'],
    ['Are dogs allowed on the 2 beaches?', 'Are no dogs allowed on the 2 beaches?', 'negation'],
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
    // A verb that says "not" is the negation it says (RULE101, hit-guard-words.ts, PHRASES).
    [
      'My landlord refuses to return my deposit; can I take him to small claims court?',
      "My landlord won't return my deposit; can I take him to small claims court?",
      'ok',
    ],
    [
      'The contractor declined to give a written quote; is that a red flag?',
      "The contractor wouldn't give a written quote; is that a red flag?",
      'ok',
    ],
    [
      "I'm unable to log in to my bank's app; what should I try?",
      "I can't log in to my bank's app; what should I try?",
      'ok',
    ],
    ['Why does my dishwasher fail to drain?', "Why doesn't my dishwasher drain?", 'ok'],
    [
      'My son failed his driving test twice; how long must he wait to retake it?',
      "My son didn't pass his driving test twice; how long must he wait to retake it?",
      'ok',
    ],
    [
      'Our rental lacks a smoke detector; who must install one?',
      "Our rental doesn't have a smoke detector; who must install one?",
      'ok',
    ],
    ['Why did nobody answer the door?', 'Why did no one answer the door?', 'ok'],
    [
      'Which museums in Chicago are free on Mondays?',
      'Which museums in Chicago are no-cost on Mondays?',
      'ok',
    ],
    ['Can I change my seat at no extra cost?', 'Can I change my seat for free?', 'ok'],
    ['Why does my laptop fail to boot?', 'Why does my laptop boot?', 'negation'],
    ['Which of these routers lack a USB port?', 'Which of these routers have a USB port?', 'negation'],
    [
      'My tenant refuses to pay rent; what are my options in Ohio?',
      'My tenant agreed to pay rent; what are my options in Ohio?',
      'negation',
    ],
    // "lack of" is a noun, no negation: both name the same shortage.
    ['What does a lack of sleep do to memory?', 'What does sleep deprivation do to memory?', 'ok'],
    // A negation that says one verb is the verb (RULE105): "won't stop" is "keep", "can't stand" is
    // "hate", "can't remember" is "forget", "with out" is "without" mistyped.
    [
      'Why does my cat keep scratching the door at night?',
      "Why won't my cat stop scratching the door at night?",
      'ok',
    ],
    [
      'What are fun activities for a kid who hates team sports?',
      "What are fun activities for a kid who can't stand team sports?",
      'ok',
    ],
    [
      'How do I reset my router if I forget the admin password?',
      "How do I reset my router if I can't remember the admin password?",
      'ok',
    ],
    ['How do I clean grout without bleach?', 'How do I clean grout with out bleach?', 'ok'],
    // "if it doesn't stop" asks when it does not; standing up is no dislike.
    [
      'Is it safe to stay inside once the alarm stops beeping?',
      "Is it safe to stay inside if the alarm doesn't stop beeping?",
      'negation',
    ],
    ['Why does my knee hurt when I stand up?', "Why does my knee hurt when I can't stand up?", 'negation'],
    [
      "My toddler won't stop crying at bedtime; what helps?",
      'My toddler keeps crying at bedtime; what helps?',
      'ok',
    ],
    ["Why can't I stop yawning in the afternoon?", 'Why can I not stop yawning in the afternoon?', 'ok'],
    [
      "I can't get my toddler to stop crying at bedtime; what helps?",
      'I can get my toddler to stop crying at bedtime; what helps?',
      'negation',
    ],
    // A verb's negative contraction mistyped is the negation (RULE136): without its apostrophe,
    // with the apostrophe out of place, with its "n" dropped.
    ['Why did my fudge not set?', 'Why didnt my fudge set?', 'ok'],
    ["How do I fix fudge that didn't set?", "How do I fix fudge that did't set?", 'ok'],
    ["Why doesn't my bread rise?", "Why does'nt my bread rise?", 'ok'],
    ['Why is my sourdough not rising?', 'Why isnt my sourdough rising?', 'ok'],
    ['Why did my fudge set so fast?', 'Why didnt my fudge set so fast?', 'negation'],
    ['Which plants have flowers in winter?', "Which plants have't flowers in winter?", 'negation'],
  ]);
});
