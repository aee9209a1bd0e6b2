/**
 * The Redis stores when Redis misbehaves: connections killed, the server restarted empty, the data
 * flushed, nothing listening at all. These tests disrupt the whole server, so they have their own.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpendJournal } from '../../../src/billing/spend-journal.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { ConfigView } from '../../../src/stores/config-view.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import { RedisRuntimeStore } from '../../../src/stores/redis-runtime-store.ts';
import { isUnavailability } from '../../../src/stores/store-breaker.ts';
import { isChange, makeApiKey, makeTenant, recordChanges } from '../../contract/config-fixtures.ts';
import {
  isCacheEventType,
  isEventType,
  makeAuditEntry,
  recordCacheInvalidations,
  recordRevocations,
} from '../../contract/runtime-store-contract.ts';
import { findFreePort, startRedisServer } from '../../helpers/redis-server.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

const isPresent = (record: unknown) => record !== undefined;
const isAbsent = (record: unknown) => record === undefined;

describe.runIf(redis !== undefined)('Redis stores under failure', () => {
  const url = redis?.url ?? '';
  let keyPrefix: string;
  let raw: Redis;
  let config: RedisConfigStore;
  let runtime: RedisRuntimeStore;
  let views: ConfigView[];

  beforeEach(() => {
    keyPrefix = `gw:test:${randomUUID()}:`;
    raw = new Redis(url, { maxRetriesPerRequest: null });
    raw.on('error', () => {});
    config = new RedisConfigStore({ url, keyPrefix });
    runtime = new RedisRuntimeStore({ url, keyPrefix });
    views = [];
  });
  afterEach(async () => {
    await Promise.all(views.map((view) => view.close()));
    await Promise.all([config.close(), runtime.close(), raw.quit()]);
  });

  async function killFeedConnections(): Promise<void> {
    expect(await raw.client('KILL', 'TYPE', 'pubsub')).toBeGreaterThan(0);
  }

  it('announces reset when the feed reconnects after its connection was killed, and keeps delivering', async () => {
    const recorder = await recordChanges(config);
    await killFeedConnections();
    await recorder.waitFor(isChange('reset'));
    await config.put('tenant', 't1', makeTenant('t1'));
    await recorder.waitFor(isChange('put', 'tenant', 't1'));
    expect(recorder.changes).toEqual([{ op: 'reset' }, { op: 'put', kind: 'tenant', id: 't1' }]);
    await recorder.stop();
  });

  it('does not announce reset on the first connect', async () => {
    const recorder = await recordChanges(config);
    await config.put('tenant', 't1', makeTenant('t1'));
    await recorder.waitFor(isChange('put', 'tenant', 't1'));
    expect(recorder.changes).toEqual([{ op: 'put', kind: 'tenant', id: 't1' }]);
    await recorder.stop();
  });

  it('lets a view catch up on writes it missed while its feed was down', async () => {
    await config.setEpoch('e1');
    const view = await ConfigView.start(config);
    views.push(view);
    // Written without an announcement, as if published while the subscriber was disconnected.
    await raw.hset(`${keyPrefix}{cfg}:apiKey`, 'k1', JSON.stringify(makeApiKey('k1')));
    expect(view.apiKey('k1')).toBeUndefined();
    await killFeedConnections();
    await view.whenApplied('apiKey', 'k1', isPresent, 5000);
    expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
  });

  it('loses the epoch on FLUSHALL, which tells the reconciler to rebuild', async () => {
    await config.setEpoch('e1');
    await config.put('tenant', 't1', makeTenant('t1'));
    await raw.flushall();
    expect(await config.getEpoch()).toBeUndefined();
    expect(await config.get('tenant', 't1')).toBeUndefined();
  });

  it('survives a restart that wipes Redis: watchers reset, views keep what they knew until the rebuild, stores work again', async () => {
    const watched = new RedisConfigStore({ url, keyPrefix });
    await config.setEpoch('e1');
    await config.put('tenant', 't1', makeTenant('t1'));
    await runtime.initBalance('t1', 100);
    const view = await ConfigView.start(watched);
    views.push(view);
    const recorder = await recordChanges(watched);
    expect(view.tenant('t1')).toBeDefined();

    await redis!.restart();

    await recorder.waitFor(isChange('reset'));
    await vi.waitFor(async () => expect(await runtime.ping()).toBe(true), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect(await config.getEpoch()).toBeUndefined(), {
      timeout: 10_000,
      interval: 50,
    });
    // The store came back empty (no epoch): the view keeps serving what it knew, so valid keys
    // stay valid while the reconciler rebuilds.
    expect(view.tenant('t1')).toBeDefined();
    expect(view.populated).toBe(true);
    expect(await runtime.getBalance('t1')).toBeUndefined();
    expect(await runtime.initBalance('t1', 5)).toBe(true);
    // The rebuild (its records, then the epoch) replaces the view.
    await config.put('tenant', 't2', makeTenant('t2'));
    await view.whenApplied('tenant', 't2', isPresent, 5000);
    await config.setEpoch('e2');
    await view.whenApplied('tenant', 't1', isAbsent, 10_000);
    await recorder.stop();
    await watched.close();
  });
});

describe.runIf(redis !== undefined)('Redis spend on a master that refuses writes', () => {
  // A master a failover left behind, short of the replicas min-replicas-to-write asks for (and, the
  // same way, a demoted master answering READONLY): a counter with a TTL is a MULTI, which Redis
  // refuses whole (EXECABORT) rather than command by command.
  const url = redis?.url ?? '';
  let raw: Redis;
  let runtime: RedisRuntimeStore;

  beforeEach(() => {
    raw = new Redis(url, { maxRetriesPerRequest: null });
    raw.on('error', () => {});
    runtime = new RedisRuntimeStore({ url, keyPrefix: `gw:test:${randomUUID()}:` });
  });
  afterEach(async () => {
    await raw.config('SET', 'min-replicas-to-write', '0');
    await Promise.all([runtime.close(), raw.quit()]);
  });

  it('journals a counter with a TTL the master refused, and applies it once the master takes writes again', async () => {
    expect(await runtime.incrementCounter('spend:token:t1', 5, 120)).toBe(5);
    await raw.config('SET', 'min-replicas-to-write', '1');
    const refused = await runtime.incrementCounter('spend:token:t1', 7, 120).catch((error: unknown) => error);
    expect(refused).toMatchObject({ message: expect.stringMatching(/^EXECABORT /) });
    expect(isUnavailability(refused)).toBe(true);

    const journal = new SpendJournal({ runtime, log: createLogger('silent', 'journal') });
    expect(
      await journal.apply({ kind: 'counter', name: 'spend:token:t1', by: 7, ttlSeconds: 120 }),
    ).toBeUndefined();
    expect(journal.stats).toMatchObject({ entries: 1, journaled: 1 });
    expect(await runtime.getCounter('spend:token:t1')).toBe(5);

    await raw.config('SET', 'min-replicas-to-write', '0');
    await journal.replay();
    expect(journal.size).toBe(0);
    expect(await runtime.getCounter('spend:token:t1')).toBe(12);
  });
});

describe.runIf(redis !== undefined)('Redis revocation feed under failure', () => {
  const url = redis?.url ?? '';
  let keyPrefix: string;
  let raw: Redis;
  let writer: RedisRuntimeStore;
  let watched: RedisRuntimeStore;

  beforeEach(() => {
    keyPrefix = `gw:test:${randomUUID()}:`;
    raw = new Redis(url, { maxRetriesPerRequest: null });
    raw.on('error', () => {});
    writer = new RedisRuntimeStore({ url, keyPrefix });
    watched = new RedisRuntimeStore({ url, keyPrefix });
  });
  afterEach(async () => {
    await Promise.all([writer.close(), watched.close(), raw.quit()]);
  });

  it('announces nothing but revocations while the connection holds', async () => {
    const recorder = await recordRevocations(watched);
    await writer.revokeToken('j1', Date.now() + 60_000);
    await recorder.waitFor(isEventType('token'));
    expect(recorder.events.map((event) => event.type)).toEqual(['token']);
    await recorder.stop();
  });

  it('announces down, then reset once subscribed again, when the subscriber connection is killed', async () => {
    const recorder = await recordRevocations(watched);
    const killed = await raw.client('KILL', 'TYPE', 'pubsub');
    expect(killed).toBeGreaterThan(0);
    await recorder.waitFor(isEventType('reset'));
    expect(recorder.events).toEqual([{ type: 'down' }, { type: 'reset' }]);

    // Subscribed again: revocations flow, and one made meanwhile is in the reloaded list.
    const expiresAtMs = Date.now() + 60_000;
    await writer.revokeToken('j1', expiresAtMs);
    await recorder.waitFor(isEventType('token'));
    expect(recorder.events.at(-1)).toEqual({ type: 'token', jti: 'j1', expiresAtMs });
    expect((await watched.loadRevocations()).tokens.get('j1')).toBe(expiresAtMs);

    // And it does so again at the next drop.
    await raw.client('KILL', 'TYPE', 'pubsub');
    await vi.waitFor(() => expect(recorder.events.filter(isEventType('reset'))).toHaveLength(2), {
      timeout: 5000,
      interval: 10,
    });
    expect(recorder.events.map((event) => event.type)).toEqual(['down', 'reset', 'token', 'down', 'reset']);
    await recorder.stop();
  });

  it('announces down and reset across a restart that wipes Redis, and works on after it', async () => {
    await writer.revokeTokensForKey('k1', Date.now());
    const recorder = await recordRevocations(watched);
    await redis!.restart();
    await recorder.waitFor(isEventType('down'), 10_000);
    await recorder.waitFor(isEventType('reset'), 10_000);
    expect(recorder.events.map((event) => event.type)).toEqual(['down', 'reset']);

    // The wipe took the denylist with it; what the reset reload sees is what Redis now holds.
    expect(await watched.loadRevocations()).toEqual({ tokens: new Map(), keys: new Map() });
    await vi.waitFor(async () => expect(await writer.ping()).toBe(true), { timeout: 10_000, interval: 50 });
    const atMs = Date.now();
    await writer.revokeTokensForKey('k1', atMs);
    await recorder.waitFor((event) => event.type === 'key' && event.atMs === atMs);
    expect(await watched.keyRevokedAt('k1')).toBe(atMs);
    await recorder.stop();
  });

  it('announces nothing to a watcher that has unsubscribed, and closes with its store', async () => {
    const recorder = await recordRevocations(watched);
    await recorder.stop();
    await raw.client('KILL', 'TYPE', 'pubsub').catch(() => 0);
    await writer.revokeToken('j1', Date.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(recorder.events).toEqual([]);
  });
});

describe.runIf(redis !== undefined)('Redis cache feed under failure', () => {
  const url = redis?.url ?? '';
  let keyPrefix: string;
  let raw: Redis;
  let writer: RedisRuntimeStore;
  let watched: RedisRuntimeStore;

  beforeEach(() => {
    keyPrefix = `gw:test:${randomUUID()}:`;
    raw = new Redis(url, { maxRetriesPerRequest: null });
    raw.on('error', () => {});
    writer = new RedisRuntimeStore({ url, keyPrefix });
    watched = new RedisRuntimeStore({ url, keyPrefix });
  });
  afterEach(async () => {
    await Promise.all([writer.close(), watched.close(), raw.quit()]);
  });

  it('announces down, then reset once subscribed again, when the subscriber connection is killed', async () => {
    const recorder = await recordCacheInvalidations(watched);
    const killed = await raw.client('KILL', 'TYPE', 'pubsub');
    expect(killed).toBeGreaterThan(0);
    await recorder.waitFor(isCacheEventType('reset'));
    expect(recorder.events).toEqual([{ type: 'down' }, { type: 'reset' }]);

    // Subscribed again: invalidations flow, and one made meanwhile is in the reloaded scope.
    await writer.purgeCache('w1', 'docs');
    await recorder.waitFor(isCacheEventType('purge'));
    expect(recorder.events.at(-1)).toEqual({
      type: 'purge',
      workspaceId: 'w1',
      namespace: 'docs',
      generation: 1,
    });
    expect((await watched.loadCacheScope('w1')).namespaces.get('docs')).toBe(1);

    await raw.client('KILL', 'TYPE', 'pubsub');
    await vi.waitFor(() => expect(recorder.events.filter(isCacheEventType('reset'))).toHaveLength(2), {
      timeout: 5000,
      interval: 10,
    });
    await writer.invalidateCacheTags('w1', ['t'], 7);
    await recorder.waitFor(isCacheEventType('tags'));
    expect(recorder.events.map((event) => event.type)).toEqual([
      'down',
      'reset',
      'purge',
      'down',
      'reset',
      'tags',
    ]);
    await recorder.stop();
  });

  it('keeps the revocation and cache feeds apart, each with its own down and reset', async () => {
    const cache = await recordCacheInvalidations(watched);
    const revocations = await recordRevocations(watched);
    await writer.purgeCache('w1');
    await writer.revokeToken('j1', Date.now() + 60_000);
    await cache.waitFor(isCacheEventType('purge'));
    await revocations.waitFor(isEventType('token'));
    await raw.client('KILL', 'TYPE', 'pubsub');
    await cache.waitFor(isCacheEventType('reset'));
    await revocations.waitFor(isEventType('reset'));
    expect(cache.events.map((event) => event.type)).toEqual(['purge', 'down', 'reset']);
    expect(revocations.events.map((event) => event.type)).toEqual(['token', 'down', 'reset']);
    await Promise.all([cache.stop(), revocations.stop()]);
  });

  it('loses generations and tags in a restart that wipes Redis; watchers hear down and reset', async () => {
    await writer.purgeCache('w1');
    const recorder = await recordCacheInvalidations(watched);
    await redis!.restart();
    await recorder.waitFor(isCacheEventType('reset'), 10_000);
    expect(recorder.events.map((event) => event.type)).toEqual(['down', 'reset']);
    expect(await watched.loadCacheScope('w1')).toEqual({
      generation: 0,
      namespaces: new Map(),
      tags: new Map(),
    });
    await vi.waitFor(async () => expect(await writer.ping()).toBe(true), { timeout: 10_000, interval: 50 });
    expect(await writer.purgeCache('w1')).toBe(1);
    await recorder.waitFor(isCacheEventType('purge'));
    await recorder.stop();
  });
});

describe.runIf(redis !== undefined)('Redis stores with nothing listening', () => {
  it('reject calls promptly instead of hanging, and report connection errors', async () => {
    const url = `redis://127.0.0.1:${await findFreePort()}`;
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    const config = new RedisConfigStore({ url, onError });
    const runtime = new RedisRuntimeStore({ url, onError });
    const started = Date.now();

    await expect(config.get('tenant', 't1')).rejects.toThrow();
    await expect(config.snapshot()).rejects.toThrow();
    await expect(config.put('tenant', 't1', makeTenant('t1'))).rejects.toThrow();
    await expect(config.getEpoch()).rejects.toThrow();
    await expect(config.watch(() => {})).rejects.toThrow();
    await expect(ConfigView.start(config)).rejects.toThrow();
    await expect(runtime.adjustBalance('t1', 1)).rejects.toThrow();
    await expect(runtime.incrementCounter('c', 1, 10)).rejects.toThrow();
    await expect(runtime.reserveWithinCap('c', 1, 10, 10)).rejects.toThrow();
    await expect(runtime.revokeToken('j1', Date.now() + 60_000)).rejects.toThrow();
    await expect(runtime.loadRevocations()).rejects.toThrow();
    await expect(runtime.isTokenRevoked('j1')).rejects.toThrow();
    await expect(runtime.watchRevocations(() => {})).rejects.toThrow();
    await expect(runtime.appendAudit('t1', makeAuditEntry(1))).rejects.toThrow();
    await expect(runtime.getCacheEntry('k1')).rejects.toThrow();
    await expect(runtime.acquireLock('l1', 1000)).rejects.toThrow();
    await expect(runtime.purgeCache('w1')).rejects.toThrow();
    await expect(runtime.loadCacheScope('w1')).rejects.toThrow();
    await expect(runtime.watchCacheInvalidations(() => {})).rejects.toThrow();
    expect(await runtime.ping()).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(errors.length).toBeGreaterThan(0);

    await config.close();
    await runtime.close();
  });
});
