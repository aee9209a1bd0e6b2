/** Comparisons of two questions' word lists, in order: what the rules measure a "frame" with. */

/** Lowercase words and figures as written: "48V" is "48", "v"; "30-pound" is "30", "pound"; "1,500" one figure. */
export const wordsAndFigures = (text: string): string[] =>
  text.toLowerCase().match(/\p{L}+|\p{N}+(?:[.,]\p{N}+)*/gu) ?? [];

/** Whether `phrase` occurs in `words` as consecutive words. */
export function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The length of the longest common subsequence of two word lists. */
export function commonWords(left: readonly string[], right: readonly string[]): number {
  let previous = new Array<number>(right.length + 1).fill(0);
  for (const word of left) {
    const current = new Array<number>(right.length + 1).fill(0);
    for (let index = 1; index <= right.length; index += 1) {
      current[index] =
        right[index - 1] === word
          ? (previous[index - 1] as number) + 1
          : Math.max(previous[index] as number, current[index - 1] as number);
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/** The longest common subsequence of two word lists, as a share of the longer. */
export function sameFrame(left: readonly string[], right: readonly string[]): number {
  if (left.length === 0 || right.length === 0) return 0;
  return commonWords(left, right) / Math.max(left.length, right.length);
}

/** How many words two questions begin with alike. */
export function commonStart(left: readonly string[], right: readonly string[]): number {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index += 1;
  return index;
}

/** Whether two word lists are the same words in the same order. */
export const sameWords = (left: readonly string[], right: readonly string[]): boolean =>
  left.length === right.length && left.every((word, index) => word === right[index]);
