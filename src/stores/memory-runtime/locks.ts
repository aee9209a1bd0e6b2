/**
 * The memory runtime store's locks (e.g. one stale-while-revalidate refresh per entry): a token
 * and an expiry per name, as SET NX PX and a compare-and-delete keep them on Redis. Never
 * persisted: after a restart no refresh is in flight for a lock to guard.
 */
import { assertLockName, assertLockRelease, assertTtlMs } from '../cache-records.ts';
import { LockTable } from '../memory-cache.ts';
import type { RuntimeLocks } from '../types.ts';

export class MemoryLocks implements RuntimeLocks {
  readonly #locks = new LockTable();

  async acquireLock(name: string, ttlMs: number): Promise<string | undefined> {
    assertLockName(name);
    assertTtlMs(ttlMs);
    return this.#locks.acquire(name, ttlMs);
  }

  async releaseLock(name: string, token: string): Promise<void> {
    assertLockRelease(name, token);
    this.#locks.release(name, token);
  }

  /** Drops the locks expired by `now`, which nothing else would walk. */
  sweep(now: number): void {
    this.#locks.sweep(now);
  }

  close(): void {
    this.#locks.clear();
  }
}
