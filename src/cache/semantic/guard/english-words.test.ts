import { describe, expect, it, vi } from 'vitest';
import { findEntry, indexEntries } from './english-words.ts';

describe('isEnglishWord', () => {
  it('answers undefined until the list is loaded, then whether a word is in it', async () => {
    // A module of its own: unit files share a process, and another may have loaded the list.
    vi.resetModules();
    const { isEnglishWord, loadEnglishWords } = await import('./english-words.ts');
    expect(isEnglishWord('receive')).toBeUndefined();
    await loadEnglishWords();
    expect(isEnglishWord('receive')).toBe(true);
    expect(isEnglishWord('megabits')).toBe(true);
    expect(isEnglishWord('recieve')).toBe(false);
    expect(isEnglishWord('zzzz')).toBe(false);
    // Three letters are looked up too ("otu" is a typo of "out"); shorter words count as English.
    expect(isEnglishWord('out')).toBe(true);
    expect(isEnglishWord('otu')).toBe(false);
    expect(isEnglishWord('km')).toBe(true);
    // Words the file has out of order are found too.
    expect(isEnglishWord('manlihood')).toBe(true);
  });
});

describe('indexEntries', () => {
  it('finds an entry by its key, the line up to its first space, out-of-order lines too', () => {
    const text = 'apple 1 2\nbanana 3\ncherry\nabacus 4\n';
    const entries = indexEntries(text, 3);
    expect(findEntry(entries, 'banana')).toBe(text.indexOf('banana'));
    expect(findEntry(entries, 'cherry')).toBe(text.indexOf('cherry'));
    expect(findEntry(entries, 'abacus')).toBe(text.indexOf('abacus'));
    expect(findEntry(entries, 'apple 1')).toBeUndefined();
    expect(findEntry(entries, 'app')).toBeUndefined();
    expect(findEntry(entries, 'bananas')).toBeUndefined();
  });
});
