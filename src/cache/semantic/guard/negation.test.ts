import { describe } from 'vitest';
import { oneSideNegated } from './negation.ts';
import { itFollowsTable } from './rule-table.ts';

describe('oneSideNegated', () => {
  itFollowsTable(oneSideNegated, [
    ['Is it safe to eat raw eggs?', "Can you safely eat eggs raw, or isn't it safe?", 'ok'],
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
  ]);
});
