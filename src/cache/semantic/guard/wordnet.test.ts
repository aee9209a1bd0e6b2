import { describe, expect, it, vi } from 'vitest';

describe('wordnetSynonyms', () => {
  it('links no words until the senses are loaded, then words that share a synset in some sense', async () => {
    // A module of its own: unit files share a process, and another may have loaded the senses.
    vi.resetModules();
    const { loadWordnetSenses, wordnetSynonyms } = await import('./wordnet-senses.ts');
    expect(wordnetSynonyms('stiff', 'rigid')).toBe(false);
    await loadWordnetSenses();
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
  });
});
