import { describe, expect, it } from 'vitest';
import { doneThing } from './done-thing.ts';
import { GuardPair } from './guard-rule.ts';
import { itFollowsTable } from './rule-table.ts';

describe('doneThing', () => {
  itFollowsTable(doneThing, [
    // One question does something to a thing, the other another thing to the thing so done (RULE121).
    ['How do I archive a Slack channel?', 'How do I restore an archived Slack channel?', 'opposite'],
    ['How do I pause my Netflix download?', 'How do I resume my paused Netflix download?', 'opposite'],
    ['How do I pin a tab in Chrome?', 'How do I close a pinned tab in Chrome?', 'opposite'],
    // The other verb only makes the thing so done: the same question.
    ['How do I smoke a brisket?', 'How do I make a smoked brisket?', 'ok'],
    ['How do I candy pecans at home?', 'How do I make candied pecans at home?', 'ok'],
  ]);

  it.each([
    // A question word is no verb ("what's 4 divided by 25?"), where the numbers rules decide.
    ['Divide 25 by 4.', "what's 4 divided by 25?"],
    // Other determiners, or a participle that is not the verb with a regular ending: not read here.
    ['How do I archive my channel?', 'How do I restore the archived channel?'],
    ['How do I freeze a lasagna?', 'How do I thaw a frozen lasagna?'],
    // The same verb on both sides.
    ['How do I archive a channel?', 'How do I archive an archived channel?'],
  ])('leaves %s / %s to the other rules', (question, candidate) => {
    expect(doneThing.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(doneThing.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
