import { beforeAll, describe, expect, it } from 'vitest';
import { GuardPair } from './guard-rule.ts';
import { narrowerSubject } from './narrowing.ts';
import { itFollowsTable } from './rule-table.ts';
import { loadWordnet } from './wordnet.ts';

beforeAll(loadWordnet);

describe('narrowerSubject', () => {
  itFollowsTable(narrowerSubject, [
    // A word added after a shared one, or one that only weighs, is not a narrower subject.
    ['What is the capital of France?', "what's the capital city of France?", 'ok'],
    ['What is the capital of Peru?', 'What is the capital city of Peru?', 'ok'],
    ['How do I make pancakes?', 'How do I make good pancakes?', 'ok'],
    ['How do I fold a fitted sheet?', 'How do I quickly fold a fitted sheet?', 'ok'],
    // "Would you mind" is a polite framing, not a modifier before "suggesting".
    [
      'Suggest some shade-loving plants for a balcony.',
      'Would you mind suggesting some shade-loving plants for a balcony?',
      'ok',
    ],
    [
      'Write a polite note for my noisy upstairs neighbor.',
      'Would you mind writing a polite note for my noisy upstairs neighbor?',
      'ok',
    ],
    // Nor is "help me figure out" before what is asked.
    [
      'My violin keeps going out of tune every day; what could be causing that?',
      'My violin keeps going out of tune every day. Would you mind helping me figure out what could be causing that?',
      'ok',
    ],
    ['Why does my bread sink?', 'Could you kindly help me understand why my bread sinks?', 'ok'],
    ['What are the rules of volleyball?', 'What are the rules of beach volleyball?', 'narrower'],
    ['How long does a laptop battery last?', 'How long does a gaming laptop battery last?', 'narrower'],
    ['What is the weight of the Galaxy S24?', 'What is the weight of the Galaxy S24 Ultra?', 'narrower'],
    // A modifier the other lacks: "used", or a word joined by a hyphen.
    ['Are electric bikes worth buying?', 'Are used electric bikes worth buying?', 'narrower'],
    ['How many watts does a fridge use?', 'How many watt-hours does a fridge use?', 'narrower'],
    ['How do I grill salmon fillets?', 'How do I grill skin-on salmon fillets?', 'narrower'],
    // A part named right after a shared thing (PARTS); any other word there is a rewording.
    ['How do I deep clean my oven?', 'How do I deep clean my oven racks?', 'narrower'],
    // A part WordNet names, right after its thing (RULE68); a word WordNet names no part is not.
    ['How do I make a candle from scratch?', 'How do I make a candle wick from scratch?', 'narrower'],
    [
      'How much does it cost to replace an escalator?',
      'How much does it cost to replace an escalator handrail?',
      'narrower',
    ],
    [
      'How much does it cost to restore a harpsichord?',
      'How much does it cost to restore a harpsichord soundboard?',
      'narrower',
    ],
    ['How long does a dental implant last?', 'How long does a dental implant crown last?', 'narrower'],
    ['What is the population of New York?', 'What is the population of New York City?', 'ok'],
    ['How long is the Mississippi?', 'How long is the Mississippi River?', 'ok'],
    // Nor where the other question writes a symbol for it (RULE69).
    ["What's the ideal humidity % for a piano?", "What's the ideal humidity percentage for a piano?", 'ok'],
    // Nor "percent" after a number the other question writes with "%"; another number is another question.
    ['Is a 5% raise good for a nurse?', 'Is a 5 percent raise good for a nurse?', 'ok'],
    ['What is 20% of 50?', 'What is 20 percent of 50?', 'ok'],
    ['Is a 5% raise good for a nurse?', 'Is a 5 percent pay raise good for a nurse?', 'narrower'],
    ['How do you treat a burn?', 'How do you treat a burn blister?', 'narrower'],
    [
      'How much fabric do I need for a queen-size quilt?',
      'How much fabric do I need for a queen-size quilt backing?',
      'narrower',
    ],
    ['How do I soundproof my apartment?', 'How do I soundproof my apartment door?', 'narrower'],
    // A part put in where the other question has an article (RULE94).
    ['How do I clean a harp?', 'How do I clean harp strings?', 'narrower'],
    ['How do I knit a sweater?', 'How do I knit sweater sleeves?', 'narrower'],
    ['How do I clean a range hood?', 'How do I clean the range hood filters?', 'narrower'],
    // Something of a shared thing, after it made possessive.
    ['How do I clean my drone?', "How do I clean my drone's camera gimbal?", 'narrower'],
    ['How do I care for a cat?', "How do I care for a cat's teeth?", 'narrower'],
    [
      "What's the warranty on the Dyson V15 vacuum?",
      "What's the warranty on the Dyson V15 vacuum's battery?",
      'narrower',
    ],
  ]);

  // A count put in for "a" narrows too; a name put in for "the" is the same thing (RULE94). With
  // every rule asked the content rule refuses both first.
  it('refuses a count put in for an article, and lets a name put in for "the" through', () => {
    const refuses = (question: string, candidate: string) =>
      narrowerSubject.refuses(new GuardPair(question, candidate));
    expect(refuses('Where should I put a birdhouse?', 'Where should I put several birdhouses?')).toBe(true);
    expect(
      refuses('How do I record my screen on the Switch?', 'How do I record my screen on Nintendo Switch?'),
    ).toBe(false);
  });
});
