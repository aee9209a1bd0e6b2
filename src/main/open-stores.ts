/**
 * Chooses the store implementations: Redis when REDIS_URL (one server), REDIS_CLUSTER_NODES (a
 * Redis Cluster) or REDIS_SENTINELS (a Sentinel-managed master) is set, the embedded memory stores
 * (durable records persisted under STATE_DIR) otherwise.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import { guardRuntimeStore } from '../stores/guarded-runtime-store.ts';
import type { RedisStoreOptions } from '../stores/redis-client.ts';
import type { SemanticMirrorStats } from '../stores/redis-runtime/semantic-mirror.ts';
import { StoreBreaker } from '../stores/store-breaker.ts';
import type { ConfigStore, RuntimeStore } from '../stores/types.ts';
import { waitAtMost } from '../stores/wait-at-most.ts';

export interface Stores {
  config: ConfigStore;
  /** On Redis: behind the circuit breaker. */
  runtime: RuntimeStore;
  kind: 'redis' | 'memory';
  /** On Redis: fails calls fast while Redis is away (degraded mode), probes, and tells when it is back. */
  breaker?: StoreBreaker;
  /** On Redis: the work of the pod's copy of the semantic buckets, for the metrics. */
  semanticMirrorStats?: () => Readonly<SemanticMirrorStats>;
}

/** Where the Redis stores connect: one server, a cluster or a Sentinel's master; undefined without any. */
export function redisConnectionOf(
  settings: Pick<
    Settings,
    'redisUrl' | 'redisClusterNodes' | 'redisSentinel' | 'redisPassword' | 'redisUsername' | 'redisTls'
  >,
): RedisStoreOptions | undefined {
  const { redisUrl, redisClusterNodes, redisSentinel } = settings;
  const where =
    redisClusterNodes !== undefined
      ? { clusterNodes: redisClusterNodes }
      : redisSentinel !== undefined
        ? { sentinel: redisSentinel }
        : undefined;
  if (where === undefined && redisUrl === undefined) return undefined;
  return {
    ...where,
    ...(redisUrl === undefined ? {} : { url: redisUrl }),
    ...(settings.redisPassword === undefined ? {} : { password: settings.redisPassword }),
    ...(settings.redisUsername === undefined ? {} : { username: settings.redisUsername }),
    ...(settings.redisTls === undefined ? {} : { tls: settings.redisTls }),
  };
}

/** How long a start waits for the key-layout migration (a SCAN of the keyspace). */
const MIGRATION_WAIT_MS = 30_000;

/**
 * Each kind's modules are loaded only when it is the one opened: a process on the memory stores
 * never loads ioredis (about 6 MB of heap).
 */
export async function openStores(settings: Readonly<Settings>, log?: Logger): Promise<Stores> {
  const redis = redisConnectionOf(settings);
  if (redis !== undefined) {
    const [{ RedisConfigStore }, { RedisRuntimeStore }] = await Promise.all([
      import('../stores/redis-config-store.ts'),
      import('../stores/redis-runtime-store.ts'),
    ]);
    // No timer per command: the breaker bounds each call (REDIS_COMMAND_TIMEOUT_MS) and lets the
    // command go on, so that the spend journal learns whether a stalled Redis took a debit.
    const direct = new RedisRuntimeStore({
      ...redis,
      commandTimeoutMs: 0,
      pingTimeoutMs: settings.redisCommandTimeoutMs,
      failFastWhenDown: true,
      semanticMirrorBytes: settings.semanticCache.mirrorBytes,
    });
    // Best effort: a Redis unreachable (or stalled) at start is the outage path's business (the next
    // start migrates; a migration still going on finishes in the background, each rename idempotent).
    await waitAtMost(
      direct.migrateKeyLayout().catch(() => 0),
      MIGRATION_WAIT_MS,
      0,
    );
    const breaker = new StoreBreaker({
      name: 'runtime',
      probe: () => direct.ping(),
      callTimeoutMs: settings.redisCommandTimeoutMs,
      log: log ?? createLogger('silent', 'stores'),
    });
    const runtime = guardRuntimeStore(direct, breaker);
    return {
      config: new RedisConfigStore(redis),
      runtime,
      kind: 'redis',
      breaker,
      semanticMirrorStats: () => direct.semanticMirrorStats,
    };
  }
  await mkdir(settings.stateDir, { recursive: true, mode: 0o700 });
  const [{ MemoryConfigStore }, { MemoryRuntimeStore }] = await Promise.all([
    import('../stores/memory-config-store.ts'),
    import('../stores/memory-runtime-store.ts'),
  ]);
  return {
    config: new MemoryConfigStore(),
    runtime: await MemoryRuntimeStore.open({
      persistFile: join(settings.stateDir, 'runtime.json'),
      maxCacheBytes: settings.cacheMemoryBytes,
      maxStoredResponseBytes: settings.responses.memoryBytes,
    }),
    kind: 'memory',
  };
}

/** Closes both stores; independent connections, so together (a stalled Redis gives each its QUIT's wait at once). */
export async function closeStores(stores: Stores): Promise<void> {
  await Promise.all([stores.config.close(), stores.runtime.close()]);
}
