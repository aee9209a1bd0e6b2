import { describe, expect, it } from 'vitest';
import { GuardPair } from './guard-rule.ts';
import { measuredThing } from './measured-thing.ts';
import { itFollowsTable } from './rule-table.ts';

describe('measuredThing', () => {
  itFollowsTable(measuredThing, [
    // The same amount of the other thing, each naming both (RULE133).
    [
      'How many cups of cooked quinoa does 1 cup of dry quinoa make?',
      'How many cups of dry quinoa make 1 cup of cooked quinoa?',
      'swapped',
    ],
    [
      'My recipe calls for 2 cups of buttermilk but I only have yogurt; how much yogurt should I use?',
      'My recipe calls for 2 cups of yogurt but I only have buttermilk; how much buttermilk should I use?',
      'swapped',
    ],
    [
      'How much fresh basil replaces one tablespoon of dried basil?',
      'How much dried basil replaces one tablespoon of fresh basil?',
      'swapped',
    ],
  ]);

  it.each([
    // The same amount of the same thing, reworded.
    [
      'How many cups of cooked rice does 1 cup of dry rice make?',
      'How much cooked rice will 1 cup of dry rice make?',
    ],
    // An amount of one thing, the other thing not named on both sides.
    ['How many calories are in 1 cup of cooked rice?', 'How many calories are in 1 cup of dry rice?'],
    // The amount without "of": a moved clause reads the same way.
    ['Does my passport need six months validity?', 'Is six months of passport validity required?'],
    // Another amount: the changed-number rule's to read.
    ['How much cooked rice does 1 cup of dry rice make?', 'How much cooked rice do 2 cups of dry rice make?'],
  ])('leaves %s / %s to the other rules', (question, candidate) => {
    expect(measuredThing.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(measuredThing.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
