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
    // Around a verb the guard counts as a stop word ("give"); "but" and "is" take no sides.
    ['How much notice must I give my landlord?', 'How much notice must my landlord give me?', 'swapped'],
    ['What gift should the groom give the bride?', 'What gift should the bride give the groom?', 'swapped'],
    [
      'Why is my banana bread raw in the middle but burnt on top?',
      'Why is my banana bread burnt on top but raw in the middle?',
      'ok',
    ],
    ['How long is the Great Wall of China?', 'The Great Wall of China is how long?', 'ok'],
    // Alternatives offered in another order, whatever stands between them.
    [
      'Should I bake with almond flour or regular for this cake?',
      'Should I bake with regular flour or almond for this cake?',
      'ok',
    ],
    [
      'Is a gas grill vs a charcoal grill better for beginners?',
      'Is a charcoal grill vs a gas grill better for beginners?',
      'ok',
    ],
    // A person and a verb trading places.
    ['What happens when I mute someone on Slack?', 'What happens when someone mutes me on Slack?', 'swapped'],
    ['How do I see who I have muted on Twitter?', 'How do I see who has muted me on Twitter?', 'swapped'],
    // Whole clauses moved, each keeping its own roles: a reorder.
    [
      "We're planning an outdoor wedding in July, and we're worried about the heat; how can we keep guests cool?",
      "We're worried about the heat, and we're planning an outdoor wedding in July; how can we keep guests cool?",
      'ok',
    ],
    [
      'My car was stolen from my driveway last night; does my insurance pay for a rental while they investigate?',
      'While they investigate, does my insurance pay for a rental? My car was stolen from my driveway last night.',
      'ok',
    ],
    // Roles swapped inside a clause, the clauses where they were.
    [
      'My coworker keeps taking credit for my work; how do I bring it up with my manager?',
      'My manager keeps taking credit for my work; how do I bring it up with my coworker?',
      'swapped',
    ],
  ]);
});
