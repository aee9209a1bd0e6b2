import { describe } from 'vitest';
import { allAgainstOne } from './quantity.ts';
import { itFollowsTable } from './rule-table.ts';

describe('allAgainstOne', () => {
  itFollowsTable(allAgainstOne, [
    // Every one of a thing against one of it.
    ['How do I archive one chat in WhatsApp?', 'How do I archive all chats in WhatsApp?', 'numbers'],
  ]);
});
