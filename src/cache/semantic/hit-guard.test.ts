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
    ['How do I see the logs of a Kubernetes pod?', 'What command shows a k8s pod logs?'],
    ['What is the past tense of swim?', "What's the past tense of the verb 'to swim'?"],
    [
      'What is the difference between INNER JOIN and LEFT JOIN?',
      'How does a left join differ from an inner join in SQL?',
    ],
    [
      'Which is more fuel-efficient, a hybrid or a diesel car?',
      'Between hybrid and diesel automobiles, which uses less fuel?',
    ],
    // A word added after a shared one, or one that only weighs, is not a narrower subject.
    ['What is the capital of Peru?', 'What is the capital city of Peru?'],
    ['How do I make pancakes?', 'How do I make good pancakes?'],
    ['How do I fold a fitted sheet?', 'How do I quickly fold a fitted sheet?'],
    // Runs that trade places around stop words only, or a clause moved with its words changed.
    ['What is the difference between tea and coffee?', 'What is the difference between coffee and tea?'],
    ['How often should I water my tomato plants?', 'How often do my tomato plants need watering?'],
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
    ['How do I turn on dark mode?', 'How do I turn off dark mode?', 'opposite'],
    [
      "What's the best time of year to visit Norway?",
      "What's the worst time of year to visit Norway?",
      'opposite',
    ],
    ['How do I paint kitchen cabinets?', 'How do I strip paint from kitchen cabinets?', 'opposite'],
    [
      'Can I get a refund on a refundable booking?',
      'Can I get a refund on a non-refundable booking?',
      'negation',
    ],
    [
      'How do I convert a pandas DataFrame to a CSV file?',
      'How do I convert a CSV file to a pandas DataFrame?',
      'direction',
    ],
    ['How is a short-term capital gain taxed?', 'How is a long-term capital gain taxed?', 'opposite'],
    ['What are the rules of volleyball?', 'What are the rules of beach volleyball?', 'narrower'],
    ['How long does a laptop battery last?', 'How long does a gaming laptop battery last?', 'narrower'],
    ['What is the weight of the Galaxy S24?', 'What is the weight of the Galaxy S24 Ultra?', 'narrower'],
    ['Can cats get fleas from rabbits?', 'Can rabbits get fleas from cats?', 'swapped'],
    [
      'Should I use vinegar instead of lemon juice?',
      'Should I use lemon juice instead of vinegar?',
      'swapped',
    ],
  ])('refuses a near miss: %s / %s (%s)', (question, candidate, reason) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason });
  });
});
