/**
 * Names: a capitalised name inside the sentence written otherwise in the other question ("Alien" /
 * "Aliens" are two films, "Requiem" / "Requiems"); stemming alone would read them as one word.
 */
import type { GuardRule } from './guard-rule.ts';

export const renamed: GuardRule = {
  reason: 'names',
  refuses: ({ asked, cached }) =>
    [...asked.names].some(([word, written]) => {
      const theirs = cached.names.get(word);
      return theirs !== undefined && theirs !== written;
    }),
};
