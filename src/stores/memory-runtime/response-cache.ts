/**
 * The memory runtime store's response cache: entries in a byte-bounded LRU, and per workspace the
 * purge generations and tag invalidation times that decide which entries may still be served, each
 * change announced on the cache feed. Memory only: the entries die with the process, and without
 * them the generations and tag times have nothing left to guard after a restart.
 */
import {
  assertCacheEntry,
  assertCacheKey,
  assertPurge,
  assertWorkspaceId,
  checkTagInvalidation,
} from '../cache-records.ts';
import { LruCache } from '../memory-cache.ts';
import type { CacheInvalidationEvent, CacheScopeState, RuntimeResponseCache, Unsubscribe } from '../types.ts';
import { MemoryFeed } from './feed.ts';

export class MemoryResponseCache implements RuntimeResponseCache {
  readonly #entries: LruCache;
  /** workspaceId → its purge generations and tag invalidation times. */
  readonly #scopes = new Map<string, CacheScopeState>();
  readonly #feed: MemoryFeed<CacheInvalidationEvent>;

  /**
   * `maxBytes`: the entries' budget (see LruCache); `onError` is told about feed listeners that
   * threw.
   */
  constructor(maxBytes: number, onError: (error: unknown) => void) {
    this.#entries = new LruCache(maxBytes);
    this.#feed = new MemoryFeed(onError);
  }

  async getCacheEntry(key: string): Promise<string | undefined> {
    assertCacheKey(key);
    return this.#entries.get(key);
  }

  async setCacheEntry(key: string, value: string, ttlMs: number): Promise<void> {
    assertCacheEntry(key, value, ttlMs);
    this.#entries.set(key, value, ttlMs);
  }

  async loadCacheScope(workspaceId: string): Promise<CacheScopeState> {
    assertWorkspaceId(workspaceId);
    const scope = this.#scopes.get(workspaceId);
    return {
      generation: scope?.generation ?? 0,
      namespaces: new Map(scope?.namespaces),
      tags: new Map(scope?.tags),
    };
  }

  async purgeCache(workspaceId: string, namespace?: string): Promise<number> {
    assertPurge(workspaceId, namespace);
    const scope = this.#scope(workspaceId);
    let generation: number;
    if (namespace === undefined) {
      generation = ++scope.generation;
      this.#feed.announce({ type: 'purge', workspaceId, generation });
    } else {
      generation = (scope.namespaces.get(namespace) ?? 0) + 1;
      scope.namespaces.set(namespace, generation);
      this.#feed.announce({ type: 'purge', workspaceId, namespace, generation });
    }
    return generation;
  }

  /** Announces the tags whose time is now `atMs` (not those already invalidated later), if any. */
  async invalidateCacheTags(workspaceId: string, tags: readonly string[], atMs: number): Promise<void> {
    const unique = checkTagInvalidation(workspaceId, tags, atMs);
    if (unique.length === 0) return;
    const scope = this.#scope(workspaceId);
    const moved: string[] = [];
    for (const tag of unique) {
      const current = scope.tags.get(tag);
      if (current !== undefined && current > atMs) continue;
      scope.tags.set(tag, atMs);
      moved.push(tag);
    }
    if (moved.length > 0) this.#feed.announce({ type: 'tags', workspaceId, tags: moved, atMs });
  }

  /** Events are delivered asynchronously (never inside the invalidating call). The feed never goes down. */
  watchCacheInvalidations(listener: (event: CacheInvalidationEvent) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  /** Drops the entries expired by `now` that no read has come for, freeing their share of the budget. */
  sweep(now: number): void {
    this.#entries.sweep(now);
  }

  /** Stops announcing and frees the entries. */
  close(): void {
    this.#feed.close();
    this.#entries.clear();
  }

  #scope(workspaceId: string): CacheScopeState {
    let scope = this.#scopes.get(workspaceId);
    if (scope === undefined) {
      scope = { generation: 0, namespaces: new Map(), tags: new Map() };
      this.#scopes.set(workspaceId, scope);
    }
    return scope;
  }
}
