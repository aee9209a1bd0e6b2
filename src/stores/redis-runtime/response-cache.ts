/**
 * The Redis runtime store's response cache: entries as plain keys with PX; per workspace one hash
 * of purge generations and one of tag invalidation times, changed by scripts that announce the
 * change on the cache feed in the same atomic step.
 */
import {
  assertCacheEntry,
  assertCacheKey,
  assertPurge,
  assertWorkspaceId,
  checkTagInvalidation,
  parseCacheInvalidationMessage,
} from '../cache-records.ts';
import type { RedisFeed } from '../redis-feed.ts';
import { RedisScript } from '../redis-script.ts';
import type { CacheInvalidationEvent, CacheScopeState, RuntimeResponseCache, Unsubscribe } from '../types.ts';
import { checkTransaction, createEventFeed, type RedisRuntimeConnection } from './connection.ts';

/**
 * KEYS: the workspace's generations hash. ARGV: field ('' for the workspace), feed channel, feed
 * message up to the generation. Bumps the generation and announces it; returns it.
 */
const PURGE = new RedisScript(
  `local generation = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PUBLISH', ARGV[2], ARGV[3] .. generation .. '}')
return generation`,
  1,
);

/**
 * KEYS: the workspace's tag times hash. ARGV: time (ms), feed channel, feed message up to the tag
 * list, then per tag the tag and its JSON. Sets each tag's time unless it is already later (never
 * moves back) and announces the tags now at that time, if any. Returns how many.
 */
const INVALIDATE_TAGS = new RedisScript(
  `local at = tonumber(ARGV[1])
local moved = {}
for i = 4, #ARGV, 2 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if current == nil or current <= at then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
    moved[#moved + 1] = ARGV[i + 1]
  end
end
if #moved > 0 then
  redis.call('PUBLISH', ARGV[2], ARGV[3] .. table.concat(moved, ',') .. ']}')
end
return #moved`,
  1,
);

export class RedisResponseCache implements RuntimeResponseCache {
  readonly #connection: RedisRuntimeConnection;
  readonly #feed: RedisFeed<CacheInvalidationEvent>;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
    this.#feed = createEventFeed(connection, {
      connectionName: 'gw-cache-feed',
      channel: connection.keys.cacheFeed,
      name: 'cache',
      parse: parseCacheInvalidationMessage,
    });
  }

  async getCacheEntry(key: string): Promise<string | undefined> {
    assertCacheKey(key);
    const { client, keys } = this.#connection;
    return (await client.get(keys.cacheEntry(key))) ?? undefined;
  }

  async setCacheEntry(key: string, value: string, ttlMs: number): Promise<void> {
    assertCacheEntry(key, value, ttlMs);
    const { client, keys } = this.#connection;
    await client.set(keys.cacheEntry(key), value, 'PX', ttlMs);
  }

  /** Both hashes in one round trip (pipelined HGETALLs): no SCAN, work bounded by the workspace's own state. */
  async loadCacheScope(workspaceId: string): Promise<CacheScopeState> {
    assertWorkspaceId(workspaceId);
    const { client, keys } = this.#connection;
    const [generations, tags] = checkTransaction(
      await client
        .pipeline()
        .hgetall(keys.cacheGenerations(workspaceId))
        .hgetall(keys.cacheTags(workspaceId))
        .exec(),
    ) as [Record<string, string>, Record<string, string>];
    const state: CacheScopeState = { generation: 0, namespaces: new Map(), tags: new Map() };
    for (const [field, raw] of Object.entries(generations)) {
      const value = this.#parseScopeInteger(workspaceId, raw);
      if (value === undefined) continue;
      if (field === '') state.generation = value;
      else state.namespaces.set(field, value);
    }
    for (const [tag, raw] of Object.entries(tags)) {
      const value = this.#parseScopeInteger(workspaceId, raw);
      if (value !== undefined) state.tags.set(tag, value);
    }
    return state;
  }

  async purgeCache(workspaceId: string, namespace?: string): Promise<number> {
    assertPurge(workspaceId, namespace);
    const { client, keys } = this.#connection;
    const message = JSON.stringify(
      namespace === undefined ? { type: 'purge', workspaceId } : { type: 'purge', workspaceId, namespace },
    );
    const generation = await PURGE.run(
      client,
      [keys.cacheGenerations(workspaceId)],
      [namespace ?? '', keys.cacheFeed, `${message.slice(0, -1)},"generation":`],
    );
    return Number(generation);
  }

  /** Announces the tags whose time is now `atMs` (not those already invalidated later), if any. */
  async invalidateCacheTags(workspaceId: string, tags: readonly string[], atMs: number): Promise<void> {
    const unique = checkTagInvalidation(workspaceId, tags, atMs);
    if (unique.length === 0) return;
    const { client, keys } = this.#connection;
    const message = JSON.stringify({ type: 'tags', workspaceId, atMs });
    await INVALIDATE_TAGS.run(
      client,
      [keys.cacheTags(workspaceId)],
      [
        atMs,
        keys.cacheFeed,
        `${message.slice(0, -1)},"tags":[`,
        ...unique.flatMap((tag) => [tag, JSON.stringify(tag)]),
      ],
    );
  }

  /** As watchRevocations, on its own subscriber connection. */
  watchCacheInvalidations(listener: (event: CacheInvalidationEvent) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  /** Forgets every watcher and closes the feed's connection. */
  close(): Promise<void> {
    return this.#feed.close();
  }

  #parseScopeInteger(workspaceId: string, raw: string): number | undefined {
    const value = Number(raw);
    if (raw !== '' && Number.isSafeInteger(value)) return value;
    this.#connection.onError(new Error(`skipped a malformed cache scope value of '${workspaceId}'`));
    return undefined;
  }
}
