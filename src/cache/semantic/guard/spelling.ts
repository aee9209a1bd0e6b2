/**
 * Which content words one question has that the other lacks, one letter apart forgiven when it is
 * a British spelling ("licence") or a typo of an English word ("seperate"), never between two
 * English words ("megabits" / "megabytes") or two words no list has ("roguelike" / "roguelite").
 */
import { isEnglishWord } from './english-words.ts';
import type { Features } from './features.ts';

/** Levenshtein distance of at most one (one letter added, dropped, changed or two swapped). */
function oneEditApart(left: string, right: string): boolean {
  if (Math.abs(left.length - right.length) > 1 || Math.min(left.length, right.length) < 5) return false;
  let start = 0;
  while (start < left.length && left[start] === right[start]) start += 1;
  let leftEnd = left.length;
  let rightEnd = right.length;
  while (leftEnd > start && rightEnd > start && left[leftEnd - 1] === right[rightEnd - 1]) {
    leftEnd -= 1;
    rightEnd -= 1;
  }
  const leftMiddle = left.slice(start, leftEnd);
  const rightMiddle = right.slice(start, rightEnd);
  if (leftMiddle.length <= 1 && rightMiddle.length <= 1) return true;
  return (
    leftMiddle.length === 2 && rightMiddle.length === 2 && leftMiddle === [...rightMiddle].reverse().join('')
  );
}

/** A word with British spellings made American ("licence", "organised", "travelled", "anaemia"). */
export function americanSpelling(word: string): string {
  return word
    .replace(/our(s|ed|ing|ite|ites|able|ful)?$/, 'or$1')
    .replace(/is(e|es|ed|ing|er|ers|ation|ations)$/, 'iz$1')
    .replace(/ys(e|es|ed|ing)$/, 'yz$1')
    .replace(/ence(s)?$/, 'ense$1')
    .replace(/([^aeiou])re(s)?$/, '$1er$2')
    .replace(/ll(ed|ing|er|ers)$/, 'l$1')
    .replace(/([^aeiou])(?:ae|oe)/, '$1e');
}

/**
 * Whether two words one letter apart are one word: a spelling of it or a typo ("licence" /
 * "license", "recieve" / "receive"). Two English words are two words ("megabits" / "megabytes",
 * "desert" / "dessert"), and so are two words the list lacks ("roguelike" / "roguelite"); until
 * the word list is loaded nothing else is forgiven.
 */
function sameWordMisspelt(word: string, other: string, mine: Features, theirs: Features): boolean {
  if (!oneEditApart(word, other)) return false;
  const mineWritten = mine.written.get(word) ?? word;
  const theirsWritten = theirs.written.get(other) ?? other;
  if (americanSpelling(mineWritten) === americanSpelling(theirsWritten)) return true;
  const mineKnown = isEnglishWord(mineWritten);
  const theirsKnown = isEnglishWord(theirsWritten);
  // One word and one non-word: a typo of it. Two non-words are two terms ("roguelike" / "roguelite").
  return mineKnown !== undefined && theirsKnown !== undefined && mineKnown !== theirsKnown;
}

/** Content words of `mine` that `theirs` lacks, a spelling or typo apart forgiven. */
export function lacking(mine: Features, theirs: Features): string[] {
  return [...mine.content].filter(
    (word) =>
      !theirs.content.has(word) &&
      ![...theirs.content].some((other) => sameWordMisspelt(word, other, mine, theirs)),
  );
}
