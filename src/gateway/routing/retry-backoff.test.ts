import { describe, expect, it } from 'vitest';
import { backoffMs, waitMs } from './retry-backoff.ts';

const RETRY = { maxAttempts: 5, on: [], backoffMs: 100, maxBackoffMs: 2000 };

describe('backoffMs', () => {
  it('waits nothing before a target not tried yet (a failover)', () => {
    expect(backoffMs(RETRY, 0, 5000)).toBe(0);
  });

  it('doubles the backoff each time the same target is tried again, up to maxBackoffMs', () => {
    expect([1, 2, 3, 4, 5, 6].map((tried) => backoffMs(RETRY, tried, undefined))).toEqual([
      100, 200, 400, 800, 1600, 2000,
    ]);
    expect(backoffMs(RETRY, 1000, undefined)).toBe(2000);
  });

  it("honours the target's Retry-After up to maxBackoffMs", () => {
    expect(backoffMs(RETRY, 1, 1000)).toBe(1000);
    expect(backoffMs(RETRY, 1, 30_000)).toBe(2000);
    // A shorter Retry-After than the backoff does not shorten it.
    expect(backoffMs(RETRY, 3, 0)).toBe(400);
  });
});

describe('waitMs', () => {
  it('ends at once when the signal aborts', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const waiting = waitMs(10_000, controller.signal);
    controller.abort();
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
