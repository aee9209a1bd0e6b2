/**
 * Quoted strings ('...', "...", `...`): each must appear, as words, in the other question, quoted
 * or not ("what does 'FOMO' mean" is "what is the meaning of FOMO"), since what is quoted is what
 * the question is about ("Translate 'good morning'" / "Translate 'good night'"). A quote with
 * symbols (code, formulas) is compared as written, spaces aside (`[] == false` / `[] == []`).
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { containsPhrase } from './word-sequences.ts';

const quotedOk = (mine: Features, theirs: Features) =>
  mine.quoted.every((phrase) => containsPhrase(theirs.words, phrase));
const symbolsOk = (mine: Features, theirs: Features) =>
  mine.quotedSymbols.every((quote) => theirs.compact.includes(quote));

export const missingQuote: GuardRule = {
  reason: 'quoted',
  refuses: ({ asked, cached }) =>
    !quotedOk(asked, cached) ||
    !quotedOk(cached, asked) ||
    !symbolsOk(asked, cached) ||
    !symbolsOk(cached, asked),
};
