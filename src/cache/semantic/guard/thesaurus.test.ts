import { describe, expect, it, vi } from 'vitest';

describe('thesaurusSynonyms', () => {
  it('knows nothing until the file is loaded, then the pairs Moby lists, never of a closed kind or opposites', async () => {
    // A module of its own: unit files share a process, and another may have loaded the file.
    vi.resetModules();
    const { loadThesaurus, thesaurusSynonyms } = await import('./thesaurus.ts');
    expect(thesaurusSynonyms('store', 'keep')).toBe(false);
    await loadThesaurus();
    // Either way round, which WordNet does not pair.
    expect(thesaurusSynonyms('store', 'keep')).toBe(true);
    expect(thesaurusSynonyms('keep', 'store')).toBe(true);
    expect(thesaurusSynonyms('manager', 'boss')).toBe(true);
    expect(thesaurusSynonyms('whole', 'entire')).toBe(true);
    expect(thesaurusSynonyms('gear', 'equipment')).toBe(true);
    // One of the two common is enough (RULE61): "adhesive" is no whole word of the verifier's vocabulary.
    expect(thesaurusSynonyms('glue', 'adhesive')).toBe(true);
    // The same ending on both: their stems are.
    expect(thesaurusSynonyms('stores', 'keeps')).toBe(true);
    expect(thesaurusSynonyms('managers', 'bosses')).toBe(true);
    expect(thesaurusSynonyms('stores', 'keep')).toBe(false);
    // Moby lists members of one kind and opposites; a near miss swaps them.
    expect(thesaurusSynonyms('month', 'year')).toBe(false);
    expect(thesaurusSynonyms('summer', 'winter')).toBe(false);
    expect(thesaurusSynonyms('french', 'english')).toBe(false);
    expect(thesaurusSynonyms('best', 'worst')).toBe(false);
    expect(thesaurusSynonyms('increase', 'decrease')).toBe(false);
    // Other things of one kind Moby does not list, a word and itself, an unknown word.
    expect(thesaurusSynonyms('autumn', 'spring')).toBe(false);
    expect(thesaurusSynonyms('store', 'store')).toBe(false);
    expect(thesaurusSynonyms('store', 'zzzz')).toBe(false);
  });
});
