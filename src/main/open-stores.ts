/**
 * Chooses the store implementations: Redis when REDIS_URL is set, the embedded memory stores
 * (durable records persisted under STATE_DIR) otherwise.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import { MemoryConfigStore } from '../stores/memory-config-store.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { RedisConfigStore } from '../stores/redis-config-store.ts';
import { RedisRuntimeStore } from '../stores/redis-runtime-store.ts';
import type { ConfigStore, RuntimeStore } from '../stores/types.ts';

export interface Stores {
  config: ConfigStore;
  runtime: RuntimeStore;
  kind: 'redis' | 'memory';
}

export async function openStores(settings: Readonly<Settings>): Promise<Stores> {
  if (settings.redisUrl !== undefined) {
    return {
      config: new RedisConfigStore({ url: settings.redisUrl }),
      runtime: new RedisRuntimeStore({ url: settings.redisUrl }),
      kind: 'redis',
    };
  }
  await mkdir(settings.stateDir, { recursive: true, mode: 0o700 });
  return {
    config: new MemoryConfigStore(),
    runtime: await MemoryRuntimeStore.open({
      persistFile: join(settings.stateDir, 'runtime.json'),
      maxCacheBytes: settings.cacheMemoryBytes,
    }),
    kind: 'memory',
  };
}
