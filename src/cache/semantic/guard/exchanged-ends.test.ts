import { describe } from 'vitest';
import { exchangedEnds } from './exchanged-ends.ts';
import { itFollowsTable } from './rule-table.ts';

describe('exchangedEnds', () => {
  itFollowsTable(exchangedEnds, [
    // One end of a transfer moved to the other side, after the same verb.
    [
      "I'm renting my camper van to a neighbor for a week; what should the agreement cover?",
      "I'm renting a camper van from a neighbor for a week; what should the agreement cover?",
      'direction',
    ],
    [
      'My son wants to move from my apartment to his mom’s house; what should we sort out first?',
      'My son wants to move from his mom’s house to my apartment; what should we sort out first?',
      'direction',
    ],
    [
      'How do I transfer my playlists from my old phone back to the new one?',
      'How do I transfer my playlists from the new phone to my old one?',
      'direction',
    ],
    ['Can I loan money to my LLC?', 'Can I loan money from my LLC?', 'direction'],
    // The same end on the same side, or no shared verb of transfer: another question or none.
    [
      'How do I transfer money from savings to checking?',
      'How do I transfer money to checking from savings?',
      'ok',
    ],
    [
      'Do I need an ESTA to fly to the United States from the United Kingdom?',
      'From the United Kingdom, do I need an ESTA to fly to the United States?',
      'ok',
    ],
    ['How far is it to the lake from here?', 'How far is it from here to the lake?', 'ok'],
    ['What gifts can I send to my aunt?', 'What gifts can I send my aunt from abroad?', 'ok'],
  ]);
});
