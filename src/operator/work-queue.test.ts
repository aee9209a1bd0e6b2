import { describe, expect, it, vi } from 'vitest';
import { WorkQueue } from './work-queue.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('runs a key queued several times once', async () => {
    const seen: string[] = [];
    const gate = deferred();
    const queue = new WorkQueue({
      concurrency: 1,
      handler: async (key) => {
        seen.push(key);
        if (key === 'first') await gate.promise;
        return undefined;
      },
    });
    queue.add('first');
    queue.add('b');
    queue.add('b');
    queue.add('b');
    gate.resolve();
    await queue.idle();
    expect(seen).toEqual(['first', 'b']);
  });

  it('never runs one key twice at once, and reruns it when it was added while running', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const gate = deferred();
    const queue = new WorkQueue({
      concurrency: 4,
      handler: async () => {
        running += 1;
        runs += 1;
        maxRunning = Math.max(maxRunning, running);
        if (runs === 1) await gate.promise;
        running -= 1;
        return undefined;
      },
    });
    queue.add('k');
    await vi.waitFor(() => expect(runs).toBe(1));
    queue.add('k');
    queue.add('k');
    expect(runs).toBe(1);
    gate.resolve();
    await queue.idle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('runs different keys concurrently up to the limit', async () => {
    let running = 0;
    let maxRunning = 0;
    const gate = deferred();
    const queue = new WorkQueue({
      concurrency: 2,
      handler: async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await gate.promise;
        running -= 1;
        return undefined;
      },
    });
    for (const key of ['a', 'b', 'c', 'd']) queue.add(key);
    await vi.waitFor(() => expect(running).toBe(2));
    gate.resolve();
    await queue.idle();
    expect(maxRunning).toBe(2);
  });

  it('retries a failing key with exponential backoff and forgets its failures after a success', async () => {
    const times: number[] = [];
    const errors: { failures: number; retryInMs: number }[] = [];
    const queue = new WorkQueue({
      retryBaseMs: 20,
      retryMaxMs: 1000,
      handler: async () => {
        times.push(Date.now());
        if (times.length <= 3) throw new Error('boom');
        return undefined;
      },
      onError: (_key, _error, failures, retryInMs) => errors.push({ failures, retryInMs }),
    });
    queue.add('k');
    await vi.waitFor(() => expect(times).toHaveLength(4), { timeout: 2_000 });
    expect(errors).toEqual([
      { failures: 1, retryInMs: 20 },
      { failures: 2, retryInMs: 40 },
      { failures: 3, retryInMs: 80 },
    ]);
    expect((times[3] as number) - (times[2] as number)).toBeGreaterThanOrEqual(75);
    expect(queue.failures('k')).toBe(0);
  });

  it('caps the backoff', async () => {
    const errors: number[] = [];
    const queue = new WorkQueue({
      retryBaseMs: 10,
      retryMaxMs: 25,
      handler: async () => {
        throw new Error('always');
      },
      onError: (_key, _error, _failures, retryInMs) => errors.push(retryInMs),
    });
    queue.add('k');
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(4), { timeout: 2_000 });
    expect(errors.slice(0, 4)).toEqual([10, 20, 25, 25]);
    await queue.shutdown();
  });

  it('runs exclusive work with no reconcile in flight, and holds reconciles back meanwhile', async () => {
    const log: string[] = [];
    const gate = deferred();
    const queue = new WorkQueue({
      handler: async (key) => {
        log.push(`start ${key}`);
        if (key === 'slow') await gate.promise;
        log.push(`end ${key}`);
        return undefined;
      },
    });
    queue.add('slow');
    await vi.waitFor(() => expect(log).toEqual(['start slow']));
    const exclusive = queue.exclusive(async () => {
      log.push('exclusive');
    });
    queue.add('later');
    gate.resolve();
    await exclusive;
    await queue.idle();
    expect(log).toEqual(['start slow', 'end slow', 'exclusive', 'start later', 'end later']);
  });

  it('drops queued and delayed keys on drain and accepts nothing after shutdown', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      handler: async (key) => {
        seen.push(key);
        return undefined;
      },
    });
    queue.addAfter('delayed', 50);
    await queue.drain();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(seen).toEqual([]);
    await queue.shutdown();
    queue.add('after');
    await queue.idle();
    expect(seen).toEqual([]);
  });
});
