import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { closeOnce, SHUTDOWN_LOG, type ShutdownTarget, shutDown } from './lifecycle.ts';

/** A role whose listeners finish their requests when the test says so; it records each step. */
function fakeTarget() {
  const steps: string[] = [];
  const { promise: requestsDone, resolve: finishRequests } = Promise.withResolvers<void>();
  const closeListeners = closeOnce(async () => {
    steps.push('closing listeners');
    await requestsDone;
    steps.push('listeners closed');
  });
  const target: ShutdownTarget = {
    beginDrain: () => steps.push('draining'),
    closeListeners,
    close: async () => {
      await closeListeners();
      steps.push('stores closed');
    },
  };
  return { target, steps, finishRequests };
}

function recordingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const log = createLogger('info', 'test', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, messages: () => lines.map((line) => line.msg), lines };
}

describe('shutDown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drains at once, closes the listeners after the drain delay, then the stores, and exits 0', async () => {
    const { target, steps, finishRequests } = fakeTarget();
    const { log, messages } = recordingLogger();
    const code = shutDown(log, { drainDelayMs: 5_000, graceMs: 30_000 }, target, 'SIGTERM');

    expect(steps).toEqual(['draining']);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(steps).toEqual(['draining']);
    await vi.advanceTimersByTimeAsync(1);
    expect(steps).toEqual(['draining', 'closing listeners']);

    await vi.advanceTimersByTimeAsync(10_000);
    finishRequests();
    expect(await code).toBe(0);
    expect(steps).toEqual(['draining', 'closing listeners', 'listeners closed', 'stores closed']);
    // One line per step, none per request.
    expect(messages()).toEqual([
      SHUTDOWN_LOG.draining,
      SHUTDOWN_LOG.closingListeners,
      SHUTDOWN_LOG.closingStores,
      SHUTDOWN_LOG.stopped,
    ]);
  });

  it('closes the listeners at once without a drain delay', async () => {
    const { target, steps, finishRequests } = fakeTarget();
    const code = shutDown(recordingLogger().log, { drainDelayMs: 0, graceMs: 1_000 }, target, 'SIGINT');
    await vi.advanceTimersByTimeAsync(0);
    expect(steps).toEqual(['draining', 'closing listeners']);
    finishRequests();
    expect(await code).toBe(0);
  });

  it('counts the grace period from the end of the drain delay', async () => {
    const { target, finishRequests } = fakeTarget();
    const code = shutDown(recordingLogger().log, { drainDelayMs: 2_000, graceMs: 1_000 }, target, 'SIGTERM');
    // 2.9 s after the signal: past the grace if it had started with the signal, not after the drain.
    await vi.advanceTimersByTimeAsync(2_900);
    finishRequests();
    expect(await code).toBe(0);
  });

  it('exits 1 with a warning when the grace period ends with requests still open', async () => {
    const { target, steps } = fakeTarget();
    const { log, lines } = recordingLogger();
    const code = shutDown(log, { drainDelayMs: 1_000, graceMs: 3_000 }, target, 'SIGTERM');
    await vi.advanceTimersByTimeAsync(3_999);
    expect(lines.some((line) => line.msg === SHUTDOWN_LOG.graceOver)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await code).toBe(1);
    expect(steps).toEqual(['draining', 'closing listeners']);
    expect(lines.at(-1)).toMatchObject({ level: 40, msg: SHUTDOWN_LOG.graceOver });
  });
});

describe('closeOnce', () => {
  it('runs the close once; later calls share its promise', async () => {
    let calls = 0;
    const close = closeOnce(async () => {
      calls += 1;
    });
    const first = close();
    expect(close()).toBe(first);
    await first;
    await close();
    expect(calls).toBe(1);
  });
});
