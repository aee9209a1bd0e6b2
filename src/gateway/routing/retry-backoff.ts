/**
 * How long a route waits before an attempt (issue #25). Moving on to a target not tried yet in
 * this request waits nothing: the failure was the other target's, and a failover on a refused
 * connection must cost milliseconds, not a backoff. Trying a target again (every other one was
 * tried) waits `backoffMs`, doubled each time that target is tried again, or the target's own
 * Retry-After when it asked for longer; never more than `maxBackoffMs`.
 */
import type { ModelRouteRecord } from '../../stores/records.ts';

/**
 * @param triedBefore how many times this request already tried the target (0: a first try)
 * @param retryAfterMs the target's Retry-After on its last failure, when it sent one
 */
export function backoffMs(
  retry: ModelRouteRecord['retry'],
  triedBefore: number,
  retryAfterMs: number | undefined,
): number {
  if (triedBefore <= 0) return 0;
  const max = Math.max(0, retry.maxBackoffMs);
  // 2^20 is past any sane maxBackoffMs already; the exponent is bounded so the number stays finite.
  const exponential = Math.max(0, retry.backoffMs) * 2 ** Math.min(triedBefore - 1, 20);
  return Math.min(max, Math.max(exponential, retryAfterMs ?? 0));
}

/** Resolves after `ms`, or at once when the signal aborts (the caller then sees it aborted). */
export function waitMs(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
