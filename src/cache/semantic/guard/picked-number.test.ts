import { describe } from 'vitest';
import { pickedNumber } from './picked-number.ts';
import { itFollowsTable } from './rule-table.ts';

describe('pickedNumber', () => {
  itFollowsTable(pickedNumber, [
    // One picked against several: the noun a "which" or a "best" picks changes its number.
    ['Which fly should I buy for trout?', 'Which flies should I buy for trout?', 'changed-number'],
    [
      "What's the best garden tool for a beginner?",
      'What are the best garden tools for a beginner?',
      'changed-number',
    ],
    [
      'Which food allergy is most common in children?',
      'Which food allergies are most common in children?',
      'changed-number',
    ],
    [
      "On a tight budget; what's the single best protein source per dollar?",
      'On a tight budget; what are the best protein sources per dollar?',
      'changed-number',
    ],
    ['Which one knife should I buy first?', 'Which knives should I buy first?', 'changed-number'],
    // A generic question in either number is one question: nothing picks the noun.
    ['What does a hawk eat?', 'What do hawks eat?', 'ok'],
    ['Can I grow peppers from seed?', 'Can I grow peppers from seeds?', 'ok'],
    [
      'Write a brief story about friendship for a beginner.',
      'Write a brief story about friendship for beginners.',
      'ok',
    ],
  ]);
});
