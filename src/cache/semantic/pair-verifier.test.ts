import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPairVerifier, VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE } from './pair-verifier.ts';

/** The model shipped in models/pair-verifier (always there: it is in the repository). */
let verifier: LocalPairVerifier;
beforeAll(() => {
  verifier = new LocalPairVerifier();
});
afterAll(async () => {
  await verifier.close();
});

describe('LocalPairVerifier (the shipped model, in a worker)', () => {
  it('finds its files in the repository', () => {
    expect(verifier.missingFiles()).toEqual([]);
  });

  it.each([
    ['What is the capital of France?', "what's the capital city of France?"],
    ['How much luggage can I bring on a plane?', 'How much baggage can I bring on a plane?'],
    ['How do I reset my router?', 'Could you tell me how to reset my router?'],
  ])('passes a paraphrase: %s / %s', async (cached, asked) => {
    expect(await verifier.score(cached, asked)).toBeGreaterThanOrEqual(VERIFIER_MIN_SCORE);
  });

  it.each([
    [
      'How much luggage can I check on a domestic flight?',
      'How much baggage can I check on a domestic flight?',
    ],
    ['Where should I go on vacation in March?', 'Where should I go on holiday in March?'],
    ['How do I fix a leaking faucet?', 'How do I repair a leaking faucet?'],
  ])('overrules the substitution rule on a one-word synonym: %s / %s', async (cached, asked) => {
    expect(await verifier.score(cached, asked)).toBeGreaterThanOrEqual(VERIFIER_OVERRULE_SCORE);
  });

  it.each([
    ['Convert 30 centimeters to inches.', 'Convert 30 inches to centimeters.'],
    ['Which foods contain gluten?', 'Which foods do not contain gluten?'],
    ['How do I cancel one item from my order?', 'How do I cancel my entire order?'],
    ['Write a haiku about autumn', 'Write a haiku about spring'],
    ['How many yen is 50 dollars?', 'How many dollars is 50 yen?'],
    ['List the moons of Jupiter', 'How many moons does Jupiter have?'],
  ])('refuses a near miss: %s / %s', async (cached, asked) => {
    expect(await verifier.score(cached, asked)).toBeLessThan(VERIFIER_MIN_SCORE);
  });

  it('gives a pair the same score whatever is scored beside it', async () => {
    const alone = await verifier.score(
      'How do I block a number on iPhone?',
      'How do I block a number on Android?',
    );
    const together = await Promise.all([
      verifier.score('How do I block a number on iPhone?', 'How do I block a number on Android?'),
      verifier.score('What is 2 + 2?', 'What is two plus two?'),
    ]);
    expect(together[0]).toBe(alone);
  });

  it('rejects, without throwing, when its folder lacks the model, and says which files', async () => {
    const empty = new LocalPairVerifier({ modelDir: mkdtempSync(join(tmpdir(), 'verifier-')) });
    expect(empty.missingFiles()).toEqual(['pair-verifier.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    await expect(empty.score('a', 'b')).rejects.toThrow(/lacks pair-verifier.onnx/);
    await empty.close();
  });
});
