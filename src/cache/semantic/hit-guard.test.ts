import { describe, expect, it } from 'vitest';
import { checkHitGuard } from './hit-guard.ts';

describe('checkHitGuard', () => {
  it.each([
    ['What is the capital of France?', "what's the capital city of France?"],
    ['How do I reverse a list in Python?', 'Python: how can I reverse a list?'],
    ['Convert ten miles to kilometers', 'Convert 10 miles to kilometers please'],
    ['Where can I purchase a used automobile?', 'Where can I buy a used car?'],
    ['What does `Array.prototype.map` do?', 'Explain what `Array.prototype.map` does'],
    ["What does 'FOMO' mean?", 'What is the meaning of FOMO?'],
    ['Name three primary colours', 'name 3 primary colors'],
    ['How many seconds are in a day?', 'How many seconds does one day have?'],
    ['How do I renew my US passport by mail?', 'Renewing a U.S. passport by mail: how?'],
    ['What is a 401(k)?', 'Explain what a 401k is'],
    ['Is it safe to eat raw eggs?', "Can you safely eat eggs raw, or isn't it safe?"],
    ['Who wrote the novel Pride and Prejudice?', 'Pride and Prejudice - who was its author?'],
  ])('lets a rewording through: %s / %s', (question, candidate) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: true });
  });

  it.each([
    ['Convert 10 miles to kilometers', 'Convert 20 miles to kilometers', 'numbers'],
    ['What was the population of Berlin in 1990?', 'What was the population of Berlin in 2000?', 'numbers'],
    ["Translate 'good morning' to French", "Translate 'good night' to French", 'quoted'],
    ['What does useEffect do in React?', 'What does useMemo do in React?', 'identifiers'],
    ['How do I call os.path.join?', 'How do I call os.path.split?', 'identifiers'],
    ['Write a haiku about autumn', 'Write a haiku about spring', 'content'],
    ['What is the capital of France?', 'What is the capital of Spain?', 'content'],
    ['How do I sort a list in Python?', 'How do I sort a list in Java?', 'content'],
    ['What is the chemical symbol for gold?', 'What is the chemical symbol for silver?', 'content'],
    ['How do I cook rice in a rice cooker?', 'How do I cook rice on the stove?', 'content'],
    [
      'Who was the first person to walk on the moon?',
      'Who was the second person to walk on the moon?',
      'numbers',
    ],
    ['When did World War I end?', 'When did World War II end?', 'numbers'],
    ['How do I convert a string to an integer?', 'How do I convert an integer to a string?', 'direction'],
    ['What is 72 degrees Fahrenheit in Celsius?', 'What is 72 degrees Celsius in Fahrenheit?', 'direction'],
    [
      'Which fruits should be kept in the fridge?',
      'Which fruits should not be kept in the fridge?',
      'negation',
    ],
    ['Why does `[] == false` evaluate to true?', 'Why does `[] == []` evaluate to true?', 'quoted'],
    ['What foods help lower LDL cholesterol?', 'What foods help lower HDL cholesterol?', 'identifiers'],
  ])('refuses a near miss: %s / %s (%s)', (question, candidate, reason) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason });
  });
});
