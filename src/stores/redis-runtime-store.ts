/**
 * The runtime store on Redis (layout in redis-keys.ts), assembled from one module per domain under
 * redis-runtime/, each with its own Lua scripts: counters, revocations, audit log, response cache,
 * locks. They share one connection; the revocation and cache feeds each open their own subscriber
 * connection when first watched.
 */

import { Redis } from 'ioredis';
import { ComposedRuntimeStore } from './composed-runtime-store.ts';
import {
  closeRedisClient,
  createRedisClient,
  type RedisClient,
  type RedisStoreOptions,
} from './redis-client.ts';
import { createRedisKeyLayout, type RedisKeyLayout } from './redis-keys.ts';
import { RedisAuditLog } from './redis-runtime/audit-log.ts';
import type { RedisRuntimeConnection } from './redis-runtime/connection.ts';
import { RedisCounters } from './redis-runtime/counters.ts';
import { RedisLocks } from './redis-runtime/locks.ts';
import { RedisResponseCache } from './redis-runtime/response-cache.ts';
import { RedisRevocations } from './redis-runtime/revocations.ts';
import { RedisSemanticIndex } from './redis-runtime/semantic-index.ts';
import { assertSemanticMirrorBytes, type SemanticMirrorStats } from './redis-runtime/semantic-mirror.ts';
import { RedisStoredResponses } from './redis-runtime/stored-responses.ts';
import { RedisUsage } from './redis-runtime/usage.ts';
import { assertAuditLimit } from './runtime-records.ts';
import { AUDIT_LOG_LIMIT, type RuntimeStore } from './types.ts';
import { waitAtMost } from './wait-at-most.ts';

export interface RedisRuntimeStoreOptions extends RedisStoreOptions {
  /** Audit entries kept per tenant; default AUDIT_LOG_LIMIT (smaller in tests). */
  auditLimit?: number;
  /**
   * Bytes of semantic buckets this process mirrors, so that a scan reads only the records written
   * since (redis-runtime/semantic-mirror.ts); default 64 MiB, 0 mirrors nothing.
   */
  semanticMirrorBytes?: number;
  /**
   * How long `ping` waits for its answer (false after it); default 1000 ms. Without a timer per
   * command (`commandTimeoutMs: 0`), a stalled Redis would otherwise keep a readiness check waiting.
   */
  pingTimeoutMs?: number;
}

export class RedisRuntimeStore extends ComposedRuntimeStore implements RuntimeStore {
  readonly #client: RedisClient;
  readonly #keys: RedisKeyLayout;
  readonly #revocations: RedisRevocations;
  readonly #cache: RedisResponseCache;
  readonly #semantic: RedisSemanticIndex;
  readonly #pingTimeoutMs: number;

  constructor(options: RedisRuntimeStoreOptions) {
    const auditLimit = options.auditLimit ?? AUDIT_LOG_LIMIT;
    // Checked before the connection opens: a refused option must not leave a client behind.
    assertAuditLimit(auditLimit);
    if (options.semanticMirrorBytes !== undefined) assertSemanticMirrorBytes(options.semanticMirrorBytes);
    const connection: RedisRuntimeConnection = {
      keys: createRedisKeyLayout(options.keyPrefix),
      onError: options.onError ?? (() => {}),
      client: createRedisClient(options, 'gw-runtime'),
    };
    const revocations = new RedisRevocations(connection);
    const cache = new RedisResponseCache(connection);
    const semantic = new RedisSemanticIndex(connection, options.semanticMirrorBytes);
    super({
      counters: new RedisCounters(connection),
      revocations,
      auditLog: new RedisAuditLog(connection, auditLimit),
      cache,
      locks: new RedisLocks(connection),
      semantic,
      usage: new RedisUsage(connection),
      responses: new RedisStoredResponses(connection),
    });
    this.#client = connection.client;
    this.#keys = connection.keys;
    this.#revocations = revocations;
    this.#cache = cache;
    this.#semantic = semantic;
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 1000;
  }

  /** The work of the semantic buckets' mirror so far, and what it holds. */
  get semanticMirrorStats(): Readonly<SemanticMirrorStats> {
    return this.#semantic.mirrorStats;
  }

  /**
   * Renames balances and counters written before their keys carried a hash tag (`rt:bal:<id>`
   * to `rt:bal:{<id>}`), so that an upgraded deployment keeps its balances and spend. RENAMENX:
   * a key already under its new name wins, and several processes may run this at once. One SCAN at
   * start, not on a request path; a Redis Cluster (new deployments only) has nothing to rename.
   * Returns how many keys were renamed.
   */
  async migrateKeyLayout(): Promise<number> {
    const client = this.#client;
    if (!(client instanceof Redis)) return 0;
    const { prefix } = this.#keys;
    let renamed = 0;
    for (const [kind, rename] of [
      ['bal', (id: string) => this.#keys.balance(id)],
      ['ctr', (id: string) => this.#keys.counter(id)],
    ] as const) {
      const legacy = `${prefix}rt:${kind}:`;
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${legacy}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          const id = key.slice(legacy.length);
          if (id.startsWith('{')) continue;
          if ((await client.renamenx(key, rename(id))) === 1) renamed += 1;
        }
      } while (cursor !== '0');
    }
    return renamed;
  }

  override async ping(): Promise<boolean> {
    const answered = this.#client.ping().then(
      (reply) => reply === 'PONG',
      () => false,
    );
    return waitAtMost(answered, this.#pingTimeoutMs, false);
  }

  override async close(): Promise<void> {
    await Promise.all([this.#revocations.close(), this.#cache.close(), closeRedisClient(this.#client)]);
  }
}
