import { describe, expect, it } from 'vitest';
import { buildConditions, statusUpToDate } from './conditions.ts';

const ready = { type: 'Ready', status: 'True', reason: 'Published', message: 'ok' } as const;

describe('conditions', () => {
  it('keeps lastTransitionTime while the status stays, and moves it when the status changes', () => {
    const first = buildConditions(undefined, [ready], 1, 't1');
    expect(first).toEqual([{ ...ready, lastTransitionTime: 't1', observedGeneration: 1 }]);
    const sameStatus = buildConditions(first, [{ ...ready, message: 'still ok' }], 2, 't2');
    expect(sameStatus[0]?.lastTransitionTime).toBe('t1');
    const flipped = buildConditions(
      sameStatus,
      [{ ...ready, status: 'False', reason: 'SecretNotFound' }],
      2,
      't3',
    );
    expect(flipped[0]?.lastTransitionTime).toBe('t3');
  });

  it('says a status is up to date only when every owned field matches', () => {
    const conditions = buildConditions(undefined, [ready], 3, 't1');
    const desired = { observedGeneration: 3, conditions, keyHint: 'sk-…abcd' };
    const current = {
      observedGeneration: 3,
      keyHint: 'sk-…abcd',
      conditions: [...conditions, { ...ready, type: 'Tested', lastTransitionTime: 'x' }],
    };
    expect(statusUpToDate(current, desired)).toBe(true);
    expect(statusUpToDate({ ...current, observedGeneration: 2 }, desired)).toBe(false);
    expect(statusUpToDate({ ...current, keyHint: undefined }, desired)).toBe(false);
    expect(statusUpToDate({ ...current, conditions: [{ ...conditions[0]!, message: 'old' }] }, desired)).toBe(
      false,
    );
    expect(statusUpToDate(undefined, desired)).toBe(false);
  });
});
