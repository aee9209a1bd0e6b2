import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failAfter, waitAtMost } from './wait-at-most.ts';

class Late extends Error {}

/** A promise settled by hand, to put its outcome before or after the deadline. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('waitAtMost and failAfter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answer with the work when it settles before the deadline, and leave no timer behind', async () => {
    const work = pending<string>();
    const waited = waitAtMost(work.promise, 100, 'fallback');
    const failing = failAfter(work.promise, 100, () => new Late());
    work.resolve('done');
    await expect(waited).resolves.toBe('done');
    await expect(failing).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("pass the work's own failure on", async () => {
    const work = pending<string>();
    const waited = waitAtMost(work.promise, 100, 'fallback');
    const failing = failAfter(work.promise, 100, () => new Late());
    work.reject(new Error('store down'));
    await expect(waited).rejects.toThrow('store down');
    await expect(failing).rejects.toThrow('store down');
  });

  it('give the fallback, or the made error, once the deadline passes', async () => {
    const work = pending<string>();
    const waited = waitAtMost(work.promise, 100, 'fallback');
    const failing = failAfter(work.promise, 100, () => new Late('took over 100 ms'));
    const failed = expect(failing).rejects.toBeInstanceOf(Late);
    await vi.advanceTimersByTimeAsync(99);
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waited).resolves.toBe('fallback');
    await failed;
  });

  it('leave a late failure of the work handled', async () => {
    vi.useRealTimers();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const work = pending<string>();
      await expect(waitAtMost(work.promise, 1, false)).resolves.toBe(false);
      work.reject(new Error('too late'));
      // Node reports an unhandled rejection once the microtasks have run: after this turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
