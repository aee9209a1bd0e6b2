import { describe, expect, it } from 'vitest';
import { exchangedEverywhere } from './exchanged-everywhere.ts';
import { GuardPair } from './guard-rule.ts';
import { itFollowsTable } from './rule-table.ts';

describe('exchangedEverywhere', () => {
  itFollowsTable(exchangedEverywhere, [
    // Two things exchanged at two places or more each way (RULE135).
    [
      'I have honey, but my tea cake recipe calls for sugar; how much honey should I use in place of the sugar?',
      'I have sugar, but my tea cake recipe calls for honey; how much sugar should I use in place of the honey?',
      'swapped',
    ],
    [
      'My sister plays violin and I play viola; can she borrow my viola bow for her violin?',
      'My sister plays viola and I play violin; can she borrow my violin bow for her viola?',
      'swapped',
    ],
  ]);

  it.each([
    // One exchange: "A and B" is "B and A", and which roles changed is the swapped-roles rule's.
    ['Can rabbits and guinea pigs live together?', 'Can guinea pigs and rabbits live together?'],
    [
      'What is the difference between weather and climate?',
      'What is the difference between climate and weather?',
    ],
    ['Can I use honey instead of sugar?', 'Can I use sugar instead of honey?'],
    // Two exchanged one way only, or another change beside them.
    ['Is honey or honey better than sugar?', 'Is sugar or sugar better than sugar?'],
    [
      'I have honey, but the recipe calls for sugar; how much honey replaces the sugar?',
      'I have sugar, but the recipe calls for honey; how much sugar replaces the honey today?',
    ],
  ])('leaves %s / %s to the other rules', (question, candidate) => {
    expect(exchangedEverywhere.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(exchangedEverywhere.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
