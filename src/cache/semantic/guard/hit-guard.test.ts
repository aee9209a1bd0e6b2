import { beforeAll, describe, expect, it } from 'vitest';
import { loadEnglishWords } from './english-words.ts';
import { GuardPair, type RefusalReason } from './guard-rule.ts';
import { checkHitGuard, HIT_GUARD_RULES } from './hit-guard.ts';
import { loadThesaurus } from './thesaurus.ts';
import { loadWordnet } from './wordnet.ts';

describe('checkHitGuard', () => {
  // Every file the rules read, so that no verdict depends on which test file loaded one first.
  beforeAll(() => Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]));

  it.each<[string, string, RefusalReason[]]>([
    ["Translate 'good morning' to French", "Translate 'good luck' to French", ['quoted', 'content']],
    [
      'Who was the first person to walk on the moon?',
      'Who was the second person to walk on the moon?',
      // WordNet holds "first" / "second" as antonyms too (RULE60).
      ['numbers', 'opposite', 'content'],
    ],
    [
      'How do I paint kitchen cabinets?',
      'How do I strip paint from kitchen cabinets?',
      ['opposite', 'narrower'],
    ],
  ])('gives the reason of the first rule that refuses: %s / %s', (question, candidate, reasons) => {
    const pair = new GuardPair(question, candidate);
    expect(HIT_GUARD_RULES.filter((rule) => rule.refuses(pair)).map((rule) => rule.reason)).toEqual(reasons);
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason: reasons[0] });
  });

  it.each(Object.getOwnPropertyNames(Object.prototype))(
    'reads "%s" as any other word (its word lists have no Object.prototype behind them)',
    (word) => {
      const cached = `How do I call the parent ${word} in JavaScript?`;
      expect(checkHitGuard(`how do i call the parent ${word} in javascript`, cached)).toEqual({ ok: true });
      expect(checkHitGuard(`How do I call the child ${word} in JavaScript?`, cached).ok).toBe(false);
    },
  );

  it('lets a pair through when no rule refuses it', () => {
    const pair = new GuardPair('What is the capital of France?', "what's the capital city of France?");
    expect(HIT_GUARD_RULES.filter((rule) => rule.refuses(pair))).toEqual([]);
    expect(checkHitGuard(pair.question, pair.candidate)).toEqual({ ok: true });
  });

  it('beside the verifier, asks only the rules it keeps and names the one it overrules', () => {
    const besideVerifier = {
      asked: new Set<RefusalReason>(['quoted', 'numbers']),
      overrulable: new Set<RefusalReason>(['content']),
    };
    // Refused by the substitution rule alone (another word in the same slot).
    const substituted = ['Write a haiku about autumn', 'Write a haiku about winter'] as const;
    expect(checkHitGuard(...substituted)).toEqual({ ok: false, reason: 'content' });
    expect(checkHitGuard(...substituted, besideVerifier)).toEqual({ ok: true, overruled: 'content' });
    // An asked rule still refuses, whatever the order of the rules.
    expect(
      checkHitGuard("Translate 'good morning' to French", "Translate 'good luck' to French", besideVerifier),
    ).toEqual({ ok: false, reason: 'quoted' });
    // A rule neither asked nor overrulable is not asked ("opposite" and "narrower" refuse this pair).
    expect(
      checkHitGuard(
        'How do I paint kitchen cabinets?',
        'How do I strip paint from kitchen cabinets?',
        besideVerifier,
      ),
    ).toEqual({ ok: true });
    expect(
      checkHitGuard('What is the capital of France?', "what's the capital city of France?", besideVerifier),
    ).toEqual({ ok: true });
  });
});
