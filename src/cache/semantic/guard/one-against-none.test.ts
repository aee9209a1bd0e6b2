import { describe, expect, it } from 'vitest';
import { GuardPair } from './guard-rule.ts';
import { oneAgainstNone } from './one-against-none.ts';
import { itFollowsTable } from './rule-table.ts';

describe('oneAgainstNone', () => {
  itFollowsTable(oneAgainstNone, [
    // One thing against none, neither or half of them (RULE126).
    [
      'I canned six jars of salsa yesterday and one jar did not seal; what should I do?',
      'I canned six jars of salsa yesterday and none of the jars sealed; what should I do?',
      'changed-number',
    ],
    ['What if one of my seedlings wilts?', 'What if none of my seedlings wilts?', 'changed-number'],
    [
      'My order came in two boxes and only one arrived; who do I contact?',
      'My order came in two boxes and neither arrived; who do I contact?',
      'changed-number',
    ],
    [
      'Why does one of the strings on my guitar buzz?',
      'Why do half of the strings on my guitar buzz?',
      'changed-number',
    ],
    // "No one" is nobody, not one thing.
    ['Why will no one answer my emails?', 'Why will nobody answer my emails?', 'ok'],
  ]);

  it.each([
    // "No one" against "none": nobody, not one thing.
    ['Why does no one reply to my emails?', 'Why does none reply to my emails?'],
    // "One" or "none" on both sides: another rule's to read, if any.
    ['What if one jar did not seal?', 'What if one of the jars did not seal?'],
    ['What if none of the jars sealed?', 'What if none of my jars sealed?'],
    ['Can one of them or none of them go?', 'Can one go?'],
    // No "one" on either side.
    ['Are none of the jars sealed?', 'Are all of the jars sealed?'],
  ])('leaves %s / %s to the other rules', (question, candidate) => {
    expect(oneAgainstNone.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(oneAgainstNone.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
