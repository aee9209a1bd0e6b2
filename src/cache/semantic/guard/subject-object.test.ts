import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { objectAsSubject } from './subject-object.ts';

describe('objectAsSubject', () => {
  itFollowsTable(objectAsSubject, [
    // A subject question against an object question.
    ['What eats a hawk?', 'What does a hawk eat?', 'swapped'],
  ]);
});
