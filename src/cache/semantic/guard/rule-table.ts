/**
 * The table test each rule's test file runs (tests only): rows of a question, a cached candidate's
 * question, and the guard's verdict on them. A refusal row holds for the rule alone and for the
 * whole guard (the rule gives the reason); a rewording row for the whole guard.
 */
import { beforeAll, expect, it } from 'vitest';
import { loadEnglishWords } from './english-words.ts';
import { GuardPair, type GuardRule, type RefusalReason } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { loadThesaurus } from './thesaurus.ts';
import { loadWordnet } from './wordnet.ts';

/** A question, a cached candidate's question, and the verdict: 'ok' or the reason for refusing. */
export type GuardRow = readonly [question: string, candidate: string, verdict: 'ok' | RefusalReason];

/** Registers the table's cases in the calling `describe`. */
export function itFollowsTable(rule: GuardRule, rows: readonly GuardRow[]): void {
  beforeAll(() => Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]));
  const rewordings = rows.filter(([, , verdict]) => verdict === 'ok');
  const nearMisses = rows.filter(([, , verdict]) => verdict !== 'ok');
  if (rewordings.length > 0)
    it.each(rewordings)('lets a rewording through: %s / %s', (question, candidate) => {
      expect(checkHitGuard(question, candidate)).toEqual({ ok: true });
    });
  if (nearMisses.length > 0)
    it.each(nearMisses)('refuses a near miss: %s / %s (%s)', (question, candidate, reason) => {
      expect(rule.refuses(new GuardPair(question, candidate))).toBe(true);
      expect(rule.reason).toBe(reason);
      expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason });
    });
}
