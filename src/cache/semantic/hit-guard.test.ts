import { describe, expect, it } from 'vitest';
import { checkHitGuard } from './hit-guard.ts';

describe('checkHitGuard', () => {
  it.each([
    ['What is the capital of France?', "what's the capital city of France?"],
    ['How do I reverse a list in Python?', 'Python: how can I reverse a list?'],
    ['Convert ten miles to kilometers', 'Convert 10 miles to kilometers please'],
    ['Where can I purchase a used automobile?', 'Where can I buy a used car?'],
    ['What does `Array.prototype.map` do?', 'Explain what `Array.prototype.map` does'],
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
  ])('refuses a near miss: %s / %s (%s)', (question, candidate, reason) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason });
  });
});
