import { beforeAll, describe, expect, it } from 'vitest';
import { VERIFIER_GUARD } from '../pair-verifier.ts';
import { loadEnglishWords } from './english-words.ts';
import { GuardPair } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { exchangedNumbers } from './swapped-numbers.ts';
import { loadThesaurus } from './thesaurus.ts';
import { loadWordnet } from './wordnet.ts';

// With every rule asked, the numbers rule (number-order.ts) refuses these first and gives the
// reason; lean mode, beside the verifier, asks this rule and not that one.
describe('exchangedNumbers', () => {
  beforeAll(() => Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]));

  it.each([
    // The same figures exchanged in place, nothing else changed: which one belongs to what.
    ['Can I use a 48V charger on a 36V scooter?', 'Can I use a 36V charger on a 48V scooter?'],
    ['What percentage of 80 is 20?', 'What percentage of 20 is 80?'],
    ['Can I play my PS4 games on a PS5?', 'Can I play my PS5 games on a PS4?'],
    ['How do I scale a recipe from 4 servings to 10?', 'How do I scale a recipe from 10 servings to 4?'],
    [
      'Is 5W-20 oil fine in an engine that calls for 5W-30?',
      'Is 5W-30 oil fine in an engine that calls for 5W-20?',
    ],
  ])('refuses %s / %s, in lean mode as swapped', (question, candidate) => {
    expect(exchangedNumbers.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, VERIFIER_GUARD)).toEqual({ ok: false, reason: 'swapped' });
    expect(checkHitGuard(question, candidate).ok).toBe(false);
  });

  it.each([
    // The figures where they were.
    ['Can I use a 48V charger on a 36V scooter?', 'Could I use a 48V charger on a 36V scooter?'],
    // Two alike things joined either way round.
    ['Is Level 2 or Level 1 charging enough?', 'Is Level 1 or Level 2 charging enough?'],
    ['Is it between 5 and 10 minutes?', 'Is it between 10 and 5 minutes?'],
    // A clause moved with its figure, another figure, another word beside the exchange.
    [
      'If I weigh 180 pounds, how many calories do I burn walking 3 miles?',
      'How many calories do I burn walking 3 miles if I weigh 180 pounds?',
    ],
    ['Convert 30 centimeters to inches', 'Convert 40 centimeters to inches'],
    [
      "I'm 120 pounds and my partner is 200; can I belay him?",
      "I'm 200 pounds and my partner is 120; can I belay her?",
    ],
  ])('does not refuse %s / %s by itself', (question, candidate) => {
    expect(exchangedNumbers.refuses(new GuardPair(question, candidate))).toBe(false);
  });
});
