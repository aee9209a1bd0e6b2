import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { swappedRoles } from './swapped-roles.ts';

describe('swappedRoles', () => {
  itFollowsTable(swappedRoles, [
    // Runs that trade places around stop words only, or a clause moved with its words changed.
    [
      'What is the difference between tea and coffee?',
      'What is the difference between coffee and tea?',
      'ok',
    ],
    ['How often should I water my tomato plants?', 'How often do my tomato plants need watering?', 'ok'],
    ['Can cats get fleas from rabbits?', 'Can rabbits get fleas from cats?', 'swapped'],
    [
      'Should I use vinegar instead of lemon juice?',
      'Should I use lemon juice instead of vinegar?',
      'swapped',
    ],
    // A person and a verb trading places.
    ['What happens when I mute someone on Slack?', 'What happens when someone mutes me on Slack?', 'swapped'],
    ['How do I see who I have muted on Twitter?', 'How do I see who has muted me on Twitter?', 'swapped'],
  ]);
});
