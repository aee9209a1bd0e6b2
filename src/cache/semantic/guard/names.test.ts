import { describe } from 'vitest';
import { renamed } from './names.ts';
import { itFollowsTable } from './rule-table.ts';

describe('renamed', () => {
  itFollowsTable(renamed, [
    // Another title.
    ['Who composed Requiem?', 'Who composed Requiems?', 'names'],
  ]);
});
