import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { swappedVoice } from './voice.ts';

describe('swappedVoice', () => {
  itFollowsTable(swappedVoice, [
    // The same roles in either voice; a verb that happens to its subject ("are formed" / "form").
    ['What is eaten by foxes?', 'What do foxes eat?', 'ok'],
    ['How do glaciers form?', 'How are glaciers formed?', 'ok'],
    ['Why was my payment declined?', 'my payment got declined, why?', 'ok'],
    // Voice with the roles the other way round.
    ['Which fish are eaten by seals?', 'Which fish eat seals?', 'voice'],
    ['What are signs my dog is being attacked?', 'What are signs my dog is attacking others?', 'voice'],
    ['Who was Caesar betrayed by?', 'Who was betrayed by Caesar?', 'voice'],
  ]);
});
