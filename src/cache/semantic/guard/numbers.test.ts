import { describe } from 'vitest';
import { differentNumbers } from './numbers.ts';
import { itFollowsTable } from './rule-table.ts';

describe('differentNumbers', () => {
  itFollowsTable(differentNumbers, [
    ['Convert ten miles to kilometers', 'Convert 10 miles to kilometers please', 'ok'],
    ['Name three primary colours', 'name 3 primary colors', 'ok'],
    ['How many seconds are in a day?', 'How many seconds does one day have?', 'ok'],
    ['What is a 401(k)?', 'Explain what a 401k is', 'ok'],
    // Digits inside a short name are part of it.
    ['How do I see the logs of a Kubernetes pod?', 'What command shows a k8s pod logs?', 'ok'],
    // An ordinal is its number ("July 4th" / "July 4").
    ['What happened on July 4th, 1776?', 'What happened on July 4, 1776?', 'ok'],
    ['Explain the 2nd law of thermodynamics', 'Explain the second law of thermodynamics', 'ok'],
    // Texting shorthand: a lone 2 or 4 where the other side has one more "to" or "for".
    ['how 2 tell if an egg is still good', 'How to tell if an egg is still good?', 'ok'],
    ['best bedtime stories 4 toddlers', 'best bedtime stories for toddlers', 'ok'],
    ['Convert 10 miles to kilometers', 'Convert 20 miles to kilometers', 'numbers'],
    ['how to split a bill 2 ways', 'how to split a bill 3 ways', 'numbers'],
    ['how to feed 2 cats on a trip', 'how to feed cats on a trip', 'numbers'],
    ['gift ideas 4 kids', 'gift ideas for 3 kids', 'numbers'],
    ['What was the population of Berlin in 1990?', 'What was the population of Berlin in 2000?', 'numbers'],
    [
      'Who was the first person to walk on the moon?',
      'Who was the second person to walk on the moon?',
      'numbers',
    ],
    ['When did World War I end?', 'When did World War II end?', 'numbers'],
    // A minus sign, or "minus" before a figure, makes it another number (RULE66); a range, a name's
    // digits and a subtraction do not.
    [
      'Is 20 degrees Fahrenheit too cold for skijoring?',
      'Is -20 degrees Fahrenheit too cold for skijoring?',
      'numbers',
    ],
    ['What is (-5) squared?', 'What is 5 squared?', 'numbers'],
    ['Best ski wax for around minus 10 degrees Celsius?', 'Best ski wax for around -10°C?', 'ok'],
    ['Is 10-20 reps enough?', 'Is 10 to 20 reps enough?', 'ok'],
    ['Is COVID-19 still a pandemic?', 'Is covid 19 still a pandemic?', 'ok'],
    ['What is 10 - 3?', 'What is 10 minus 3?', 'ok'],
    // The same numbers counting other things.
    ['Can I own three cars on one license?', 'Can I own one car on three licenses?', 'numbers'],
  ]);
});
