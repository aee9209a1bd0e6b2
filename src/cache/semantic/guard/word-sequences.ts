/** Comparisons of two questions' word lists, in order: what the rules measure a "frame" with. */

/** Lowercase words and figures as written: "48V" is "48", "v"; "30-pound" is "30", "pound"; "1,500" one figure. */
export const wordsAndFigures = (text: string): string[] =>
  text.toLowerCase().match(/\p{L}+|\p{N}+(?:[.,]\p{N}+)*/gu) ?? [];

/** Whether a token of `wordsAndFigures` is a figure ("50", "2.5"). */
export const isFigure = (token: string | undefined): boolean => token !== undefined && /^\p{N}/u.test(token);

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

/** Where two word lists of one length differ, when they differ in exactly one place. */
export function soleChange(left: readonly string[], right: readonly string[]): number | undefined {
  if (left.length !== right.length) return undefined;
  let found: number | undefined;
  for (let index = 0; index < left.length; index += 1) {
    if (left[index] === right[index]) continue;
    if (found !== undefined) return undefined;
    found = index;
  }
  return found;
}

/** Where two word lists of one length differ, every place ("a b c" / "a x y": 1 and 2). */
export const changedPlaces = (left: readonly string[], right: readonly string[]): number[] =>
  left.flatMap((word, index) => (word === right[index] ? [] : [index]));

/** Whether two word lists are the same words in the same order. */
export const sameWords = (left: readonly string[], right: readonly string[]): boolean =>
  left.length === right.length && left.every((word, index) => word === right[index]);

/** Damerau (optimal string alignment) distance, or `limit + 1` once beyond `limit`. */
export function editDistance(left: string, right: string, limit: number): number {
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= left.length; i += 1) {
    const row: number[] = [i];
    for (let j = 1; j <= right.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const previous = rows[i - 1] as number[];
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[left.length] as number[])[right.length] as number;
}
