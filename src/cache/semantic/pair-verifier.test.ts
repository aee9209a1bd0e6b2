import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnglishWords } from './guard/english-words.ts';
import { loadThesaurus } from './guard/thesaurus.ts';
import { loadWordnet } from './guard/wordnet.ts';
import {
  changedWords,
  changedWordsScore,
  changedWordsWithParticle,
  LocalPairVerifier,
  sameWording,
  synonymWordsNeed,
  VERIFIER_CHANGED_WORDS_SCORE,
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  VERIFIER_PHRASE_WORDS,
  VERIFIER_SYNONYM_WORDS,
  VERIFIER_WORDNET_SYNONYM_WORDS,
  withoutSharedContext,
} from './pair-verifier.ts';

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

describe('changedWords', () => {
  it.each([
    [
      "My printer says there's a paper jam, how do I fix it?",
      "My printer says there's a carriage jam, how do I fix it?",
      ['paper', 'carriage'],
    ],
    ['Write a haiku about autumn', 'Write a haiku about spring', ['autumn', 'spring']],
    [
      'How do I cancel one item from my order?',
      'How do I cancel my entire order?',
      ['one item from my', 'my entire'],
    ],
    // Case and punctuation aside; a word's apostrophe stays.
    ["Why WON'T it start?", "why won't it boot", ['start', 'boot']],
    // A word added or dropped: one more word either side.
    [
      'Which foods contain gluten?',
      'Which foods do not contain gluten?',
      ['foods contain', 'foods do not contain'],
    ],
    ['How much does it cost?', 'How much does it cost in total?', ['cost', 'cost in total']],
    ['Is it safe?', 'So is it safe?', ['is', 'so is']],
    // Reordered: everything between the first and the last word that differ.
    [
      'In Boston, how much renters insurance do I need?',
      'How much renters insurance do I need in Boston?',
      ['in boston how much renters insurance do i need', 'how much renters insurance do i need in boston'],
    ],
  ])('%s / %s: %j', (cached, asked, expected) => {
    expect(changedWords(cached, asked)).toEqual(expected);
  });
});

describe('changedWordsWithParticle (RULE95)', () => {
  it.each([
    ['What wine goes well with salmon?', 'What wine pairs well with salmon?', ['goes well', 'pairs well']],
    [
      'Why does my wifi keep cutting out?',
      'Why does my wifi keep dropping out?',
      ['cutting out', 'dropping out'],
    ],
    ['Why did the handle break off?', 'Why did the handle snap off?', ['break off', 'snap off']],
    // Case and punctuation aside.
    ['How do I SET UP a tent?', 'how do i put up a tent', ['set up', 'put up']],
  ])('%s / %s: %j', (cached, asked, expected) => {
    expect(changedWordsWithParticle(cached, asked)).toEqual(expected);
  });

  it.each([
    // A preposition after an adjective or a noun starts a phrase of its own.
    ['Is it safe to travel there?', 'Is it possible to travel there?'],
    ['What key in this song?', 'What value in this song?'],
    ['Is the city crowded around Christmas?', 'Is the city expensive around Christmas?'],
    // Not right after the changed word.
    ['How do I set it up?', 'How do I rig it up?'],
    // Two words changed, or a word added.
    ['How do I clean the filter out?', 'How do I rinse the screen out?'],
    ['Why does it keep cutting out?', 'Why does it keep cutting in and out?'],
    // The particle itself changed.
    ['How do I turn it up?', 'How do I turn it down?'],
    // Nothing after the changed word, or a different word after it on each side.
    ['What goes well?', 'What pairs well with it?'],
    ['Which wine goes with fish?', 'Which wine pairs with fish?'],
    // The same wording.
    ['What goes well with rice?', 'what goes well with rice'],
  ])('%s / %s: no particle read', (cached, asked) => {
    expect(changedWordsWithParticle(cached, asked)).toBeUndefined();
  });

  it('reads the changed words with their particle, where alone they read apart (the shipped model)', async () => {
    const [cached, asked] = [
      'How do I shut off the main water valve?',
      'How do I switch off the main water valve?',
    ];
    const [alone, reverse] = await Promise.all([
      verifier.score('shut', 'switch'),
      verifier.score('switch', 'shut'),
    ]);
    expect(Math.min(alone, reverse)).toBeLessThan(VERIFIER_CHANGED_WORDS_SCORE);
    expect(await changedWordsScore(verifier, cached, asked)).toBeGreaterThanOrEqual(
      VERIFIER_CHANGED_WORDS_SCORE,
    );
    // Without a particle, the words alone as before.
    expect(
      await changedWordsScore(
        verifier,
        'How do I shut the main water valve?',
        'How do I switch the main water valve?',
      ),
    ).toBe(Math.min(alone, reverse));
  });
});

describe('synonymWordsNeed (RULE86, RULE118, RULE125)', () => {
  beforeAll(async () => {
    await Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]);
  });

  it.each([
    // WordNet and Moby both pair the two words: WordNet's need.
    [
      'How do I silence a squeaky door hinge?',
      'How do I quiet a squeaky door hinge?',
      VERIFIER_WORDNET_SYNONYM_WORDS,
    ],
    ['Are pangolins shy animals?', 'Are pangolins timid animals?', VERIFIER_WORDNET_SYNONYM_WORDS],
    // After a shared context clause.
    [
      'We booked a cottage in Devon; can the owner refuse our booking because we have a dog?',
      'We booked a cottage in Devon; can the owner deny our booking because we have a dog?',
      VERIFIER_WORDNET_SYNONYM_WORDS,
    ],
    // Listed in some sense only ("top of a structure"): the words read alone decide, not this test.
    ['What does a chimney crown do?', 'What does a chimney cap do?', VERIFIER_WORDNET_SYNONYM_WORDS],
    // "Stop" stops what is not yet done: not a verb that undoes here (RULE120).
    ['Do cattle guards stop horses?', 'Do cattle guards deter horses?', VERIFIER_SYNONYM_WORDS],
    // Moby's alone: its own, higher need.
    [
      'Is it legal to fly a drone over a beach?',
      'Is it permissible to fly a drone over a beach?',
      VERIFIER_SYNONYM_WORDS,
    ],
    ['What is the atomic number of carbon?', 'What is the atomic mass of carbon?', VERIFIER_SYNONYM_WORDS],
  ])('%s / %s: one word for its synonym, its words needing %s', (cached, asked, need) => {
    expect(synonymWordsNeed(cached, asked)).toBe(need);
    expect(synonymWordsNeed(asked, cached)).toBe(need);
  });

  it.each([
    // A phrase for the word WordNet lists it with: nothing asked of the two read alone (RULE125).
    [
      'How long does it take for a wart to go away on its own?',
      'How long does it take for a wart to disappear on its own?',
    ],
    ['Should I take out the battery?', 'Should I remove the battery?'],
    // In the same inflection on both sides, the phrase's verb in a regular one.
    ['Why do warts keep going away and coming back?', 'Why do warts keep disappearing and coming back?'],
    ['Do leftovers go bad faster in summer?', 'Do leftovers spoil faster in summer?'],
    // A verb phrase of function words ("get over"), an adverb phrase, a phrase for a phrase.
    ['Will moot court help me get over it?', 'Will moot court help me overcome it?'],
    [
      'Will the hair be gone for good after laser removal?',
      'Will the hair be gone permanently after laser removal?',
    ],
    ['How do I turn down a job offer politely?', 'How do I reject a job offer politely?'],
  ])('%s / %s: a phrase WordNet lists for the other side, needing nothing (RULE125)', (cached, asked) => {
    expect(synonymWordsNeed(cached, asked)).toBe(VERIFIER_PHRASE_WORDS);
    expect(synonymWordsNeed(asked, cached)).toBe(VERIFIER_PHRASE_WORDS);
  });

  it.each([
    // A noun phrase: nouns are left out ("death cap" / "destroying angel" are two mushrooms).
    ['What does a death cap look like?', 'What does a destroying angel look like?'],
    ['Do strollers need a car seat adapter?', 'Do baby carriages need a car seat adapter?'],
    // An irregular past: the file holds a verb phrase's regular inflections only.
    [
      'The wart went away last week; will it come back?',
      'The wart disappeared last week; will it come back?',
    ],
    // A phrase WordNet does not list with the word.
    ['Who will pay for the repair?', 'Who will cover the repair?'],
    ['When does the store open up?', 'When does the store close?'],
    // Adverb phrases of function words alone, which near misses swap ("at most" / "at least").
    ['Can I carry at most two bags?', 'Can I carry at least two bags?'],
  ])('%s / %s: no phrase WordNet lists for the other side', (cached, asked) => {
    expect(synonymWordsNeed(cached, asked)).toBeUndefined();
    expect(synonymWordsNeed(asked, cached)).toBeUndefined();
  });

  it('asks more of a synonym only Moby lists than of one WordNet lists', () => {
    expect(VERIFIER_WORDNET_SYNONYM_WORDS).toBeLessThan(VERIFIER_SYNONYM_WORDS);
  });

  it.each([
    // A word no list pairs with the other.
    ['My printer says there is a paper jam', 'My printer says there is a carriage jam'],
    // A closed kind (CLOSED_KINDS), though Moby lists it.
    ['How many times per minute does it beat?', 'How many times per second does it beat?'],
    // Two words changed, each a synonym of its own.
    ['How do I silence a loud pipe?', 'How do I quiet a noisy pipe?'],
    // A phrase for a word, and a word added.
    ['Who will pay for the repair?', 'Who will cover the repair?'],
    ['How do I silence the pipes?', 'How do I silence the pipes quickly?'],
    // The same wording.
    ['How do I quiet the pipes?', 'how do I quiet the pipes'],
    // A verb that undoes for one that does not, though a list pairs them (RULE120).
    ['How do I correct the registration?', 'How do I cancel the registration?'],
    ['How do I edit the listing?', 'How do I delete the listing?'],
    ['How do I suspend my gym membership?', 'How do I cancel my gym membership?'],
  ])('%s / %s: not one word for its synonym', (cached, asked) => {
    expect(synonymWordsNeed(cached, asked)).toBeUndefined();
    expect(synonymWordsNeed(asked, cached)).toBeUndefined();
  });
});

describe('withoutSharedContext', () => {
  it.each([
    [
      'a shared clause before a semicolon',
      "I'm making scones on Sunday; can I use margarine instead of butter?",
      "I'm making scones on Sunday; can I use margarine in place of butter?",
      'can I use margarine instead of butter?',
      'can I use margarine in place of butter?',
    ],
    [
      'two shared clauses, matched word for word whatever the case and punctuation',
      'We live in Leeds. Our boiler is old, what does a new one cost?',
      'we live in Leeds! Our boiler is old: what does a replacement cost?',
      'what does a new one cost?',
      'what does a replacement cost?',
    ],
    [
      'a clause ending in a comma',
      'If I leave Berlin on Friday, do I need a visa for Prague?',
      'If I leave Berlin on Friday, is a visa required for Prague?',
      'do I need a visa for Prague?',
      'is a visa required for Prague?',
    ],
    [
      'every clause but the last when all are the same words',
      'In Leeds, is it cold?',
      'in Leeds, is it cold',
      'is it cold?',
      'is it cold',
    ],
  ])('drops %s', (_what, cached, asked, cachedLeft, askedLeft) => {
    expect(withoutSharedContext(cached, asked)).toEqual([cachedLeft, askedLeft]);
  });

  it.each([
    [
      'a first clause that differs (the changed detail stays in view)',
      "I'm renting in Berlin; how much notice must I give?",
      "I'm renting in Munich; how much notice must I give?",
    ],
    ['one clause each side', 'How do I reset my router?', 'How can I reset my router?'],
    [
      'commas inside numbers and abbreviations with no space after them',
      'Is 1,000 a lot, e.g.for rent?',
      'Is 1,000 too much, e.g.for rent?',
    ],
  ])('keeps both questions whole when %s', (_what, cached, asked) => {
    expect(withoutSharedContext(cached, asked)).toEqual([cached, asked]);
  });

  it('keeps whatever follows the shared clauses, however many there are on each side', () => {
    expect(
      withoutSharedContext(
        'I have a cat. She is old. Should I worry?',
        'I have a cat. Should I worry, she is old?',
      ),
    ).toEqual(['She is old. Should I worry?', 'Should I worry, she is old?']);
  });
});

describe('sameWording', () => {
  it.each([
    [
      "What's the max weight limit on a 10ft trampoline?",
      "What's the max weight limit on a 10-ft trampoline?",
    ],
    ['Is 2am too late?', 'is 2 am too late'],
  ])('reads case, punctuation and letters beside figures alike: %s / %s', (cached, asked) => {
    expect(sameWording(cached, asked)).toBe(true);
  });

  it.each([
    ['Is 2am too late?', 'Is 3am too late?'],
    ['What is a co-op?', 'What is a coop?'],
  ])('keeps other words apart: %s / %s', (cached, asked) => {
    expect(sameWording(cached, asked)).toBe(false);
  });
});
