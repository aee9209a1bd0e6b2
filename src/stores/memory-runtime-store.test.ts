import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  describeRuntimeStoreContract,
  makeTokenRecord,
  recordCacheInvalidations,
  recordRevocations,
} from '../../test/contract/runtime-store-contract.ts';
import { cacheEntryBytes } from './memory-cache.ts';
import { MemoryRuntimeStore } from './memory-runtime-store.ts';
import { KEY_REVOCATION_TTL_MS } from './types.ts';

describeRuntimeStoreContract('memory', (options) => {
  const store = new MemoryRuntimeStore(options);
  return { open: async () => store };
});

describe('MemoryRuntimeStore revocation feed', () => {
  it('delivers asynchronously, never announces down or reset, and stops at close', async () => {
    const store = new MemoryRuntimeStore();
    const recorder = await recordRevocations(store);
    const revoking = store.revokeTokensForKey('k1', Date.now());
    expect(recorder.events).toEqual([]);
    await revoking;
    await recorder.waitFor((event) => event.type === 'key');
    await store.close();
    await store.revokeToken('j1', Date.now() + 60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.events.map((event) => event.type)).toEqual(['key']);
  });

  it('reports a listener that throws to onError', async () => {
    const errors: unknown[] = [];
    const store = new MemoryRuntimeStore({ onError: (error) => errors.push(error) });
    await store.watchRevocations(() => {
      throw new Error('listener failed');
    });
    await store.revokeToken('j1', Date.now() + 60_000);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 1000, interval: 10 });
    await store.close();
  });
});

describe('MemoryRuntimeStore expiry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires a TTL counter exactly at its TTL', async () => {
    vi.useFakeTimers();
    const store = new MemoryRuntimeStore();
    await store.incrementCounter('window', 5, 10);
    vi.advanceTimersByTime(9_999);
    expect(await store.getCounter('window')).toBe(5);
    vi.advanceTimersByTime(1);
    expect(await store.getCounter('window')).toBe(0);
    expect(await store.incrementCounter('window', 1, 10)).toBe(1);
    await store.close();
  });

  it('expires tokens and revocations exactly at their time, a key revoke-all a day after its time', async () => {
    vi.useFakeTimers();
    const now = Date.now();
    const store = new MemoryRuntimeStore();
    await store.recordToken(makeTokenRecord('j1', { expiresAtMs: now + 10_000 }));
    await store.revokeToken('j1', now + 10_000);
    await store.revokeTokensForKey('k1', now);
    vi.advanceTimersByTime(9_999);
    expect(await store.getToken('j1')).toBeDefined();
    expect(await store.isTokenRevoked('j1')).toBe(true);
    vi.advanceTimersByTime(1);
    expect(await store.getToken('j1')).toBeUndefined();
    expect(await store.isTokenRevoked('j1')).toBe(false);
    vi.advanceTimersByTime(KEY_REVOCATION_TTL_MS - 10_001);
    expect(await store.keyRevokedAt('k1')).toBe(now);
    vi.advanceTimersByTime(1);
    expect(await store.keyRevokedAt('k1')).toBeUndefined();
    expect(await store.loadRevocations()).toEqual({ tokens: new Map(), keys: new Map() });
    await store.close();
  });
});

describe('MemoryRuntimeStore cache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('evicts the least recently used entries beyond maxCacheBytes', async () => {
    const value = 'x'.repeat(100);
    const store = new MemoryRuntimeStore({ maxCacheBytes: cacheEntryBytes('k0', value) * 3 });
    await store.setCacheEntry('k0', value, 60_000);
    await store.setCacheEntry('k1', value, 60_000);
    await store.setCacheEntry('k2', value, 60_000);
    expect(await store.getCacheEntry('k0')).toBe(value);
    await store.setCacheEntry('k3', value, 60_000);
    expect(await store.getCacheEntry('k1')).toBeUndefined();
    expect(await store.getCacheEntry('k0')).toBe(value);
    expect(await store.getCacheEntry('k2')).toBe(value);
    expect(await store.getCacheEntry('k3')).toBe(value);
    // Larger than the whole budget: not cached at all.
    await store.setCacheEntry('huge', 'x'.repeat(1000), 60_000);
    expect(await store.getCacheEntry('huge')).toBeUndefined();
    expect(await store.getCacheEntry('k3')).toBe(value);
    await store.close();
  });

  it('stays within a small budget under many writes', async () => {
    const store = new MemoryRuntimeStore({ maxCacheBytes: 10_000 });
    for (let index = 0; index < 1000; index += 1)
      await store.setCacheEntry(`k${index}`, 'v'.repeat(90), 60_000);
    const kept = [];
    for (let index = 0; index < 1000; index += 1) {
      if ((await store.getCacheEntry(`k${index}`)) !== undefined) kept.push(index);
    }
    const perEntry = cacheEntryBytes('k999', 'v'.repeat(90));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(Math.floor(10_000 / cacheEntryBytes('k0', 'v'.repeat(90))));
    expect(kept.length).toBeGreaterThanOrEqual(Math.floor(10_000 / perEntry));
    // The newest survive.
    expect(kept.at(-1)).toBe(999);
    await store.close();
  });

  it('refuses a maxCacheBytes that is not a positive integer', () => {
    expect(() => new MemoryRuntimeStore({ maxCacheBytes: 0 })).toThrow(TypeError);
    expect(() => new MemoryRuntimeStore({ maxCacheBytes: 1.5 })).toThrow(TypeError);
  });

  it('expires entries and locks exactly at their TTL', async () => {
    vi.useFakeTimers();
    const store = new MemoryRuntimeStore();
    await store.setCacheEntry('k1', 'v', 10_000);
    const token = await store.acquireLock('l1', 5_000);
    expect(token).toBeDefined();
    vi.advanceTimersByTime(4_999);
    expect(await store.acquireLock('l1', 5_000)).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(await store.acquireLock('l1', 5_000)).toBeDefined();
    vi.advanceTimersByTime(4_999);
    expect(await store.getCacheEntry('k1')).toBe('v');
    vi.advanceTimersByTime(1);
    expect(await store.getCacheEntry('k1')).toBeUndefined();
    await store.close();
  });

  it('sweeps expired entries it is never asked for, freeing their share of the budget', async () => {
    vi.useFakeTimers();
    const value = 'x'.repeat(100);
    const budget = cacheEntryBytes('k0', value) * 2;
    const store = new MemoryRuntimeStore({ maxCacheBytes: budget, sweepIntervalMs: 1000 });
    await store.setCacheEntry('short', value.slice(0, 97), 500);
    await store.setCacheEntry('k0', value, 60_000);
    // Read while live: 'short' is now the most recent, k0 the least.
    expect(await store.getCacheEntry('short')).toBe(value.slice(0, 97));
    vi.advanceTimersByTime(1000);
    // Had 'short' not been swept, k0 (least recent) would be evicted to make room for k1.
    await store.setCacheEntry('k1', value, 60_000);
    expect(await store.getCacheEntry('k0')).toBe(value);
    expect(await store.getCacheEntry('k1')).toBe(value);
    await store.close();
  });

  it('persists no cache state: entries, locks, generations and tag times are gone after a reopen', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'gw-runtime-'));
    const file = join(directory, 'runtime.json');
    try {
      const first = await MemoryRuntimeStore.open({ persistFile: file, persistDelayMs: 10 });
      await first.initBalance('t1', 5);
      await first.setCacheEntry('secret-entry', 'cached-body', 60_000);
      await first.acquireLock('l1', 60_000);
      await first.purgeCache('w1', 'docs');
      await first.invalidateCacheTags('w1', ['tag-1'], Date.now());
      await first.close();
      const text = await readFile(file, 'utf8');
      for (const fragment of ['secret-entry', 'cached-body', 'l1', 'docs', 'tag-1'])
        expect(text).not.toContain(fragment);

      const second = await MemoryRuntimeStore.open({ persistFile: file });
      expect(await second.getBalance('t1')).toBe(5);
      expect(await second.getCacheEntry('secret-entry')).toBeUndefined();
      expect(await second.acquireLock('l1', 60_000)).toBeDefined();
      expect(await second.loadCacheScope('w1')).toEqual({
        generation: 0,
        namespaces: new Map(),
        tags: new Map(),
      });
      await second.close();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('delivers cache events asynchronously, never announces down or reset, and stops at close', async () => {
    const store = new MemoryRuntimeStore();
    const recorder = await recordCacheInvalidations(store);
    const purging = store.purgeCache('w1');
    expect(recorder.events).toEqual([]);
    await purging;
    await recorder.waitFor((event) => event.type === 'purge');
    await store.close();
    await store.invalidateCacheTags('w1', ['t'], Date.now());
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.events).toEqual([{ type: 'purge', workspaceId: 'w1', generation: 1 }]);
  });

  it('gives each watcher its own copy of an event, and reports one that throws to onError', async () => {
    const errors: unknown[] = [];
    const store = new MemoryRuntimeStore({ onError: (error) => errors.push(error) });
    await store.watchCacheInvalidations((event) => {
      if (event.type === 'tags') event.tags.push('mutated');
      throw new Error('listener failed');
    });
    const recorder = await recordCacheInvalidations(store);
    await store.invalidateCacheTags('w1', ['t'], 5);
    await recorder.waitFor((event) => event.type === 'tags');
    expect(recorder.events).toEqual([{ type: 'tags', workspaceId: 'w1', tags: ['t'], atMs: 5 }]);
    expect(errors).toHaveLength(1);
    // Nor can a caller change the store's state through what loadCacheScope returned.
    (await store.loadCacheScope('w1')).tags.set('t', 1);
    expect((await store.loadCacheScope('w1')).tags.get('t')).toBe(5);
    await store.close();
  });
});
