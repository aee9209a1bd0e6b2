import { describe, expect, it, vi } from 'vitest';

describe('wordnetSynonyms, wordnetAntonyms, wordnetFirstSenses, wordnetPhrases, listedTypo and isWordnetName', () => {
  it('know nothing until the files are loaded, then synonyms in some sense and names', async () => {
    // A module of its own: unit files share a process, and another may have loaded the files.
    vi.resetModules();
    const {
      isWordnetName,
      listedTypo,
      loadWordnet,
      wordnetAntonyms,
      wordnetFirstSenses,
      wordnetParts,
      wordnetPhrases,
      wordnetSynonyms,
    } = await import('./wordnet.ts');
    expect(wordnetPhrases('go away', 'disappear')).toBe(false);
    expect(wordnetSynonyms('stiff', 'rigid')).toBe(false);
    expect(wordnetFirstSenses('blurry', 'fuzzy')).toBe(false);
    expect(listedTypo('watter', 'water')).toBe(false);
    expect(wordnetAntonyms('tall', 'short')).toBe(false);
    expect(isWordnetName('seattle')).toBe(false);
    expect(wordnetParts()).toEqual([]);
    await loadWordnet();
    // Nouns named a part of another thing in their first or second sense ("wick" of a candle).
    expect(wordnetParts()).toEqual(expect.arrayContaining(['wick', 'handrail', 'soundboard', 'nozzle']));
    expect(wordnetParts()).not.toContain('city');
    expect(wordnetParts()).not.toContain('language');
    // Names the word list lacks: places, months, languages; not the list's words, not a typo.
    expect(isWordnetName('seattle')).toBe(true);
    expect(isWordnetName('december')).toBe(true);
    expect(isWordnetName('hindi')).toBe(true);
    expect(isWordnetName('water')).toBe(false);
    expect(isWordnetName('seatle')).toBe(false);
    expect(wordnetSynonyms('stiff', 'rigid')).toBe(true);
    expect(wordnetSynonyms('retain', 'keep')).toBe(true);
    expect(wordnetSynonyms('murky', 'cloudy')).toBe(true);
    // Each inflection its own: "retains" is not "keep".
    expect(wordnetSynonyms('retains', 'keeps')).toBe(true);
    expect(wordnetSynonyms('retains', 'keep')).toBe(false);
    // Any sense: "minute" and "second" are both a moment; the verifier reads them apart.
    expect(wordnetSynonyms('minute', 'second')).toBe(true);
    // Other things of one kind are not synonyms, nor is a word of itself or of an unknown word.
    expect(wordnetSynonyms('autumn', 'spring')).toBe(false);
    expect(wordnetSynonyms('gold', 'silver')).toBe(false);
    expect(wordnetSynonyms('stiff', 'stiff')).toBe(false);
    expect(wordnetSynonyms('stiff', 'zzzz')).toBe(false);
    // Direct antonyms, either way round, and through a regular ending both share.
    expect(wordnetAntonyms('tall', 'short')).toBe(true);
    expect(wordnetAntonyms('short', 'tall')).toBe(true);
    expect(wordnetAntonyms('start', 'finish')).toBe(true);
    expect(wordnetAntonyms('thickest', 'thinnest')).toBe(true);
    expect(wordnetAntonyms('appreciates', 'depreciates')).toBe(true);
    expect(wordnetAntonyms('thickest', 'thin')).toBe(false);
    expect(wordnetAntonyms('stiff', 'rigid')).toBe(false);
    expect(wordnetAntonyms('tall', 'tall')).toBe(false);
    // First senses (RULE62): the first sense of one among the first two of the other, either way
    // round, in the same inflection.
    expect(wordnetFirstSenses('blurry', 'fuzzy')).toBe(true);
    expect(wordnetFirstSenses('link', 'connect')).toBe(true);
    expect(wordnetFirstSenses('rented', 'leased')).toBe(true);
    expect(wordnetFirstSenses('rented', 'lease')).toBe(false);
    // Senses further down are not: "minute" / "second", "coach" / "train", "main" / "primary".
    expect(wordnetFirstSenses('minute', 'second')).toBe(false);
    expect(wordnetFirstSenses('coach', 'train')).toBe(false);
    expect(wordnetFirstSenses('main', 'primary')).toBe(false);
    // A second sense SemCor never tagged for either: "bike" is a motorcycle second.
    expect(wordnetFirstSenses('bike', 'motorcycle')).toBe(false);
    expect(wordnetFirstSenses('blurry', 'blurry')).toBe(false);
    // Typos that are rare words of the list (RULE63), either way round: one edit, the same first
    // letter or the first two swapped; never a word WordNet or the verifier's vocabulary knows
    // ("finner" is a whale), nor one the other with an ending.
    expect(listedTypo('watter', 'water')).toBe(true);
    expect(listedTypo('floor', 'flor')).toBe(true);
    expect(listedTypo('thrid', 'third')).toBe(true);
    expect(listedTypo('finner', 'finer')).toBe(false);
    expect(listedTypo('water', 'wader')).toBe(false);
    expect(listedTypo('watter', 'matter')).toBe(false);
    // Phrases (RULE125): a phrase of two or three words and a word or phrase that share a verb,
    // adjective or adverb synset, in the same inflection, either way round.
    expect(wordnetPhrases('go away', 'disappear')).toBe(true);
    expect(wordnetPhrases('disappear', 'go away')).toBe(true);
    expect(wordnetPhrases('goes away', 'disappears')).toBe(true);
    expect(wordnetPhrases('putting in', 'installing')).toBe(true);
    expect(wordnetPhrases('get over', 'overcome')).toBe(true);
    expect(wordnetPhrases('for good', 'permanently')).toBe(true);
    expect(wordnetPhrases('sought after', 'coveted')).toBe(true);
    expect(wordnetPhrases('turn down', 'reject')).toBe(true);
    expect(wordnetPhrases('goes away', 'disappear')).toBe(false);
    // Nouns are left out; so are adverbs of function words alone; two single words are not phrases.
    expect(wordnetPhrases('death cap', 'destroying angel')).toBe(false);
    expect(wordnetPhrases('french fries', 'chips')).toBe(false);
    expect(wordnetPhrases('at most', 'at the most')).toBe(false);
    expect(wordnetPhrases('stiff', 'rigid')).toBe(false);
    expect(wordnetPhrases('go away', 'go away')).toBe(false);
    expect(wordnetPhrases('go away', 'stay')).toBe(false);
  });
});
