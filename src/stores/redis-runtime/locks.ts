/**
 * The Redis runtime store's locks (e.g. one stale-while-revalidate refresh per entry, across every
 * gateway replica): a random token under the lock's key, taken with SET NX PX and released by a
 * compare-and-delete, so that only the holder can release and a lock whose holder died expires.
 */
import { assertLockName, assertLockRelease, assertTtlMs } from '../cache-records.ts';
import { newLockToken } from '../memory-cache.ts';
import { RedisScript } from '../redis-script.ts';
import type { RuntimeLocks } from '../types.ts';
import type { RedisRuntimeConnection } from './connection.ts';

/** KEYS: the lock. ARGV: token. Deletes the lock only while that token holds it. */
const RELEASE_LOCK = new RedisScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  1,
);

export class RedisLocks implements RuntimeLocks {
  readonly #connection: RedisRuntimeConnection;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | undefined> {
    assertLockName(name);
    assertTtlMs(ttlMs);
    const { client, keys } = this.#connection;
    const token = newLockToken();
    const reply = await client.set(keys.cacheLock(name), token, 'PX', ttlMs, 'NX');
    return reply === 'OK' ? token : undefined;
  }

  async releaseLock(name: string, token: string): Promise<void> {
    assertLockRelease(name, token);
    const { client, keys } = this.#connection;
    await RELEASE_LOCK.run(client, [keys.cacheLock(name)], [token]);
  }
}
