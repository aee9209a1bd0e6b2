import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  describeRuntimeStoreContract,
  makeAuditEntry,
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

describe('MemoryRuntimeStore persistence', () => {
  let directory: string;
  let file: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-runtime-'));
    file = join(directory, 'state', 'runtime.json');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps balances and durable counters across a reopen, but not TTL counters', async () => {
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    await first.initBalance('t1', 1000);
    await first.adjustBalance('t1', -250);
    await first.incrementCounter('spend:t1', 42);
    await first.incrementCounter('rate:t1', 3, 60);
    await first.close();

    const second = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await second.getBalance('t1')).toBe(750);
    expect(await second.initBalance('t1', 5)).toBe(false);
    expect(await second.getCounter('spend:t1')).toBe(42);
    expect(await second.getCounter('rate:t1')).toBe(0);
    await second.close();
  });

  it('writes behind without waiting for close, to a file only its owner can read', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file, persistDelayMs: 10 });
    await store.initBalance('t1', 7);
    await vi.waitFor(
      async () => expect(JSON.parse(await readFile(file, 'utf8')).balances).toEqual({ t1: 7 }),
      {
        timeout: 2000,
        interval: 20,
      },
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('writes the latest state of a burst of changes', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.initBalance('t1', 0);
    await Promise.all(Array.from({ length: 50 }, () => store.adjustBalance('t1', 2)));
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect(await reopened.getBalance('t1')).toBe(100);
    await reopened.close();
  });

  it('starts empty without a file, and refuses a corrupt one rather than resetting balances', async () => {
    const empty = new MemoryRuntimeStore({ persistFile: file });
    expect(await empty.getBalance('t1')).toBeUndefined();
    await empty.close();

    await writeFile(join(directory, 'corrupt.json'), '{"v":1,"balances":');
    expect(() => new MemoryRuntimeStore({ persistFile: join(directory, 'corrupt.json') })).toThrow();
    await writeFile(join(directory, 'fractional.json'), '{"v":1,"balances":{"t1":1.5},"counters":{}}');
    expect(() => new MemoryRuntimeStore({ persistFile: join(directory, 'fractional.json') })).toThrow(
      /not an integer/,
    );
  });

  it('keeps a TTL counter kept durable across a reopen, with its expiry', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.UTC(2026, 3, 1, 12);
      vi.setSystemTime(start);
      const first = new MemoryRuntimeStore({ persistFile: file });
      expect(await first.reserveWithinCap('budget:j1', 30, 100, 60, 'durable')).toEqual({
        ok: true,
        value: 30,
      });
      // Later touches without the flag keep it durable (as they keep its expiry).
      await first.incrementCounter('budget:j1', 12, 60);
      await first.incrementCounter('rate:j1', 1, 60, 'memory');
      await first.close();

      vi.setSystemTime(start + 59_000);
      const second = new MemoryRuntimeStore({ persistFile: file });
      expect(await second.getCounter('budget:j1')).toBe(42);
      expect(await second.getCounter('rate:j1')).toBe(0);
      await second.close();

      vi.setSystemTime(start + 60_000);
      const third = new MemoryRuntimeStore({ persistFile: file });
      expect(await third.getCounter('budget:j1')).toBe(0);
      await third.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a file whose expiring counters are malformed', async () => {
    const malformed = join(directory, 'expiring.json');
    await writeFile(
      malformed,
      '{"v":2,"balances":{},"counters":{},"expiringCounters":{"c":{"value":1.5,"expiresAt":9}}}',
    );
    expect(() => new MemoryRuntimeStore({ persistFile: malformed })).toThrow(/not an integer/);
    await writeFile(malformed, '{"v":2,"balances":{},"counters":{},"expiringCounters":{"c":7}}');
    expect(() => new MemoryRuntimeStore({ persistFile: malformed })).toThrow(/not an integer/);
  });

  it('turns a durable counter into an expiring one when first given a TTL, as Redis EXPIRE NX does', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.incrementCounter('c', 1);
    await store.incrementCounter('c', 1, 60);
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect(await reopened.getCounter('c')).toBe(0);
    await reopened.close();
  });
});

describe('MemoryRuntimeStore persistence of tokens, revocations and the audit log', () => {
  let directory: string;
  let file: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-runtime-'));
    file = join(directory, 'runtime.json');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps them across a reopen', async () => {
    const now = Date.now();
    const token = makeTokenRecord('j1', { expiresAtMs: now + 60_000 });
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    await first.recordToken(token);
    await first.revokeToken('j1', token.expiresAtMs);
    await first.revokeTokensForKey('k1', now);
    await first.appendAudit('t1', makeAuditEntry(1));
    await first.appendAudit('t1', makeAuditEntry(2, { outcome: 'failure', message: 'denied' }));
    await first.close();

    const second = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await second.getToken('j1')).toEqual(token);
    expect(await second.isTokenRevoked('j1')).toBe(true);
    expect(await second.keyRevokedAt('k1')).toBe(now);
    expect(await second.loadRevocations()).toEqual({
      tokens: new Map([['j1', token.expiresAtMs]]),
      keys: new Map([['k1', now]]),
    });
    expect(await second.listAudit('t1', 10)).toEqual([
      makeAuditEntry(2, { outcome: 'failure', message: 'denied' }),
      makeAuditEntry(1),
    ]);
    // Still monotonic after the reopen.
    await second.revokeTokensForKey('k1', now - 1000);
    expect(await second.keyRevokedAt('k1')).toBe(now);
    await second.close();
  });

  it('writes them behind, without waiting for close', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file, persistDelayMs: 10 });
    await store.revokeToken('j1', Date.now() + 60_000);
    await vi.waitFor(
      async () => expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).revokedTokens)).toEqual(['j1']),
      { timeout: 2000, interval: 20 },
    );
    await store.close();
  });

  it('drops entries that expired while it was closed, on load and from the next write', async () => {
    const now = Date.now();
    const live = makeTokenRecord('live', { expiresAtMs: now + 60_000 });
    await writeFile(
      file,
      JSON.stringify({
        v: 2,
        balances: { t1: 5 },
        counters: {},
        tokens: [makeTokenRecord('dead', { expiresAtMs: now - 1 }), live],
        revokedTokens: { dead: now - 1, live: now + 60_000 },
        revokedKeys: { dead: now - KEY_REVOCATION_TTL_MS - 1, live: now },
        audit: { t1: [makeAuditEntry(2), makeAuditEntry(1)] },
      }),
    );
    const store = new MemoryRuntimeStore({ persistFile: file });
    expect(await store.getToken('dead')).toBeUndefined();
    expect(await store.getToken('live')).toEqual(live);
    expect(await store.loadRevocations()).toEqual({
      tokens: new Map([['live', now + 60_000]]),
      keys: new Map([['live', now]]),
    });
    expect((await store.listAudit('t1', 10)).map((entry) => entry.id)).toEqual(['a000002', 'a000001']);
    await store.adjustBalance('t1', 1);
    await store.close();
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written.v).toBe(2);
    expect(written.tokens.map((token: { jti: string }) => token.jti)).toEqual(['live']);
    expect(Object.keys(written.revokedTokens)).toEqual(['live']);
    expect(Object.keys(written.revokedKeys)).toEqual(['live']);
  });

  it('drops revocations and tokens lazily once they expire while open', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.recordToken(makeTokenRecord('j1', { expiresAtMs: Date.now() + 200 }));
    await store.revokeToken('j1', Date.now() + 200);
    await vi.waitFor(async () => expect(await store.isTokenRevoked('j1')).toBe(false), {
      timeout: 2000,
      interval: 20,
    });
    expect(await store.getToken('j1')).toBeUndefined();
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect((await reopened.loadRevocations()).tokens.size).toBe(0);
    await reopened.close();
  });

  it('reads a version 1 file (balances and counters only) and writes version 2', async () => {
    await writeFile(file, '{"v":1,"balances":{"t1":7},"counters":{"c":2}}');
    const store = new MemoryRuntimeStore({ persistFile: file });
    expect(await store.getBalance('t1')).toBe(7);
    expect(await store.getCounter('c')).toBe(2);
    expect(await store.loadRevocations()).toEqual({ tokens: new Map(), keys: new Map() });
    await store.appendAudit('t1', makeAuditEntry(1));
    await store.close();
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written).toMatchObject({ v: 2, balances: { t1: 7 }, counters: { c: 2 } });
    expect(written.audit.t1).toHaveLength(1);
  });

  it('trims a stored audit log to a smaller limit on load', async () => {
    const first = new MemoryRuntimeStore({ persistFile: file });
    for (let sequence = 1; sequence <= 6; sequence += 1)
      await first.appendAudit('t1', makeAuditEntry(sequence));
    await first.close();
    const second = new MemoryRuntimeStore({ persistFile: file, auditLimit: 3 });
    expect((await second.listAudit('t1', 10)).map((entry) => entry.id)).toEqual([
      'a000006',
      'a000005',
      'a000004',
    ]);
    await second.close();
  });

  it('refuses a file with malformed tokens, revocations or audit entries', async () => {
    const base = { v: 2, balances: {}, counters: {} };
    const cases = [
      { ...base, tokens: [{ jti: 'j1' }] },
      { ...base, tokens: {} },
      { ...base, revokedTokens: { j1: 'soon' } },
      { ...base, revokedKeys: { k1: 1.5 } },
      { ...base, audit: { t1: [{ id: 'a1' }] } },
      { ...base, audit: { t1: {} } },
      { ...base, v: 3 },
    ];
    for (const [index, state] of cases.entries()) {
      const path = join(directory, `bad-${index}.json`);
      await writeFile(path, JSON.stringify(state));
      expect(() => new MemoryRuntimeStore({ persistFile: path }), JSON.stringify(state)).toThrow();
    }
  });
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
