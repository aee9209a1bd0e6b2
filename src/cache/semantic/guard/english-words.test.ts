import { describe, expect, it, vi } from 'vitest';

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
