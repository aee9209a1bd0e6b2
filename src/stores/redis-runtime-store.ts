/**
 * The runtime store on Redis (layout in redis-keys.ts), assembled from one module per domain under
 * redis-runtime/, each with its own Lua scripts: counters, revocations, audit log, response cache,
 * locks. They share one connection; the revocation and cache feeds each open their own subscriber
 * connection when first watched.
 */
import { ComposedRuntimeStore } from './composed-runtime-store.ts';
import {
  closeRedisClient,
  createRedisClient,
  type RedisClient,
  type RedisStoreOptions,
} from './redis-client.ts';
import { createRedisKeyLayout } from './redis-keys.ts';
import { RedisAuditLog } from './redis-runtime/audit-log.ts';
import type { RedisRuntimeConnection } from './redis-runtime/connection.ts';
import { RedisCounters } from './redis-runtime/counters.ts';
import { RedisLocks } from './redis-runtime/locks.ts';
import { RedisResponseCache } from './redis-runtime/response-cache.ts';
import { RedisRevocations } from './redis-runtime/revocations.ts';
import { RedisSemanticIndex } from './redis-runtime/semantic-index.ts';
import { assertAuditLimit } from './runtime-records.ts';
import { AUDIT_LOG_LIMIT, type RuntimeStore } from './types.ts';

export interface RedisRuntimeStoreOptions extends RedisStoreOptions {
  /** Audit entries kept per tenant; default AUDIT_LOG_LIMIT (smaller in tests). */
  auditLimit?: number;
}

export class RedisRuntimeStore extends ComposedRuntimeStore implements RuntimeStore {
  readonly #client: RedisClient;
  readonly #revocations: RedisRevocations;
  readonly #cache: RedisResponseCache;

  constructor(options: RedisRuntimeStoreOptions) {
    const auditLimit = options.auditLimit ?? AUDIT_LOG_LIMIT;
    // Checked before the connection opens: a refused option must not leave a client behind.
    assertAuditLimit(auditLimit);
    const connection: RedisRuntimeConnection = {
      keys: createRedisKeyLayout(options.keyPrefix),
      onError: options.onError ?? (() => {}),
      client: createRedisClient(options, 'gw-runtime'),
    };
    const revocations = new RedisRevocations(connection);
    const cache = new RedisResponseCache(connection);
    super({
      counters: new RedisCounters(connection),
      revocations,
      auditLog: new RedisAuditLog(connection, auditLimit),
      cache,
      locks: new RedisLocks(connection),
      semantic: new RedisSemanticIndex(connection),
    });
    this.#client = connection.client;
    this.#revocations = revocations;
    this.#cache = cache;
  }

  override async ping(): Promise<boolean> {
    try {
      return (await this.#client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  override async close(): Promise<void> {
    await Promise.all([this.#revocations.close(), this.#cache.close()]);
    await closeRedisClient(this.#client);
  }
}
