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
    // An adjective's infinitive goes nowhere (RULE108); a transfer still goes its way.
    ['Are hiking boots comfortable to walk in?', 'Is walking in hiking boots comfortable?', 'ok'],
    ['Are throwing stars legal to own in Texas?', 'Is owning throwing stars in Texas legal?', 'ok'],
    // Read as written: "hardness to" is no adjective's infinitive.
    [
      'How do I convert Brinell hardness to Rockwell?',
      'How do I convert Rockwell to Brinell hardness?',
      'direction',
    ],
    [
      'How do I move photos from my phone to my laptop?',
      'How do I move photos from my laptop to my phone?',
      'direction',
    ],
    // "In" before a month, a weekday or a season says when, not into what (RULE119).
    [
      'I am taking a ferry to Alaska in July; which whales might I see?',
      'Which whales might I see on my July ferry trip to Alaska?',
      'ok',
    ],
    [
      'We are driving to Banff in the winter; do we need snow tires?',
      'Do we need snow tires for our winter drive to Banff?',
      'ok',
    ],
    // "To" before a month still goes somewhere, and "in" before another word still converts.
    ['Can I move my booking from June to August?', 'Can I move my booking from August to June?', 'direction'],
    ['What is 50 euros in pounds?', 'What is 50 pounds in euros?', 'direction'],
  ]);
});
