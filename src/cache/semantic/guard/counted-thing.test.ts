import { describe, expect, it } from 'vitest';
import { countedThing } from './counted-thing.ts';
import { GuardPair } from './guard-rule.ts';
import { itFollowsTable } from './rule-table.ts';

describe('countedThing', () => {
  itFollowsTable(countedThing, [
    // A figure counts the other thing (RULE173): the question asks the other way round.
    ['How many dollars is 50 yen?', 'How many yen is 50 dollars?', 'swapped'],
    ['How many pounds is 20 euros?', 'How many euros is 20 pounds?', 'swapped'],
    ['How many bananas replace 2 eggs in a cake?', 'How many eggs replace 2 bananas in a cake?', 'swapped'],
    // The same figure before both: the two reordered.
    ['Is 5 km or 5 miles longer?', 'Is 5 miles or 5 km longer?', 'ok'],
  ]);

  it.each([
    // Units: the changed-unit and numbers rules read them first.
    ['How many cups are in 2 pints?', 'How many pints are in 2 cups?'],
    ['Is 5 feet longer than 2 meters?', 'Is 5 meters longer than 2 feet?'],
  ])('refuses %s / %s as well', (question, candidate) => {
    expect(countedThing.refuses(new GuardPair(question, candidate))).toBe(true);
  });

  it.each([
    // No figure before either word: which roles changed is the swapped-roles rule's.
    ['Can rabbits and guinea pigs live together?', 'Can guinea pigs and rabbits live together?'],
    ['Is 1 kg of steel heavier than 1 kg of feathers?', 'Is 1 kg of feathers heavier than 1 kg of steel?'],
    // A figure changed, or a word changed beside the exchange: another rule's.
    ['How many yen is 50 dollars?', 'How many yen is 60 dollars?'],
    ['How many yen is 50 dollars today?', 'How many dollars is 50 yen now?'],
    // Stop words exchanged, not things.
    ['Is 5 the same as five?', 'The 5 is same as five?'],
  ])('leaves %s / %s to the other rules', (question, candidate) => {
    expect(countedThing.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(countedThing.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
