import { describe } from 'vitest';
import { reorderedNumbers } from './number-order.ts';
import { itFollowsTable } from './rule-table.ts';

describe('reorderedNumbers', () => {
  itFollowsTable(reorderedNumbers, [
    // The same words, the numbers swapped.
    ['What is 3 to the power of 5?', 'What is 5 to the power of 3?', 'numbers'],
  ]);
});
