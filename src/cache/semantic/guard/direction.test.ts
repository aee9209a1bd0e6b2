import { describe } from 'vitest';
import { reversedDirection } from './direction.ts';
import { itFollowsTable } from './rule-table.ts';

describe('reversedDirection', () => {
  itFollowsTable(reversedDirection, [
    ['How do I convert a string to an integer?', 'How do I convert an integer to a string?', 'direction'],
    ['What is 72 degrees Fahrenheit in Celsius?', 'What is 72 degrees Celsius in Fahrenheit?', 'direction'],
    [
      'How do I convert a pandas DataFrame to a CSV file?',
      'How do I convert a CSV file to a pandas DataFrame?',
      'direction',
    ],
    // "US" is the country, not the pronoun.
    ['How much is 200 US dollars in yen?', 'How much is 200 yen in US dollars?', 'direction'],
  ]);
});
