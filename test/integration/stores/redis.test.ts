import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigView } from '../../../src/stores/config-view.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import { RedisRuntimeStore } from '../../../src/stores/redis-runtime-store.ts';
import { KEY_REVOCATION_TTL_MS } from '../../../src/stores/types.ts';
import { isChange, makeTenant, recordChanges } from '../../contract/config-fixtures.ts';
import { describeConfigStoreContract } from '../../contract/config-store-contract.ts';
import { describeConfigViewContract } from '../../contract/config-view-contract.ts';
import {
  describeRuntimeStoreContract,
  isEventType,
  makeAuditEntry,
  makeTokenRecord,
  recordCacheInvalidations,
  recordRevocations,
} from '../../contract/runtime-store-contract.ts';
import { startRedisServer } from '../../helpers/redis-server.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

/** A fresh key prefix per scope: tests share one server but never each other's keys. */
function freshPrefix(): string {
  return `gw:test:${randomUUID()}:`;
}

describe.runIf(redis !== undefined)('Redis stores', () => {
  const url = redis?.url ?? '';

  describeConfigStoreContract('redis', () => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisConfigStore({ url, keyPrefix }) };
  });

  describeConfigViewContract('redis', () => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisConfigStore({ url, keyPrefix }) };
  });

  describeRuntimeStoreContract('redis', (options) => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisRuntimeStore({ url, keyPrefix, ...options }) };
  });

  describe('key layout and defensive parsing', () => {
    let keyPrefix: string;
    let raw: Redis;
    let config: RedisConfigStore;
    let runtime: RedisRuntimeStore;

    beforeEach(() => {
      keyPrefix = freshPrefix();
      raw = new Redis(url);
      config = new RedisConfigStore({ url, keyPrefix });
      runtime = new RedisRuntimeStore({ url, keyPrefix });
    });
    afterEach(async () => {
      await Promise.all([config.close(), runtime.close(), raw.quit()]);
    });

    it('keeps config records as JSON in one hash per kind, and the epoch beside them', async () => {
      await config.put('tenant', 't1', makeTenant('t1'));
      await config.setEpoch('e1');
      expect(JSON.parse((await raw.hget(`${keyPrefix}{cfg}:tenant`, 't1')) ?? '')).toEqual(makeTenant('t1'));
      expect(await raw.get(`${keyPrefix}{cfg}:epoch`)).toBe('e1');
    });

    it('moves balances and counters from the untagged key layout, keeping their TTLs', async () => {
      await raw.set(`${keyPrefix}rt:bal:old-tenant`, '500');
      await raw.set(`${keyPrefix}rt:ctr:spend:tenant:old-tenant`, '42');
      await raw.set(`${keyPrefix}rt:ctr:budget:j9`, '7', 'EX', 600);
      await raw.set(`${keyPrefix}rt:bal:{both}`, '1');
      await raw.set(`${keyPrefix}rt:bal:both`, '2');
      expect(await runtime.migrateKeyLayout()).toBe(3);
      expect(await runtime.getBalance('old-tenant')).toBe(500);
      expect(await runtime.getCounter('spend:tenant:old-tenant')).toBe(42);
      expect(await runtime.getCounter('budget:j9')).toBe(7);
      expect(await raw.ttl(`${keyPrefix}rt:ctr:{budget:j9}`)).toBeGreaterThan(500);
      // A key already under its new name wins; the old one stays for an operator to look at.
      expect(await runtime.getBalance('both')).toBe(1);
      expect(await runtime.migrateKeyLayout()).toBe(0);
    });

    it('announces changes as JSON on the feed channel', async () => {
      const subscriber = new Redis(url);
      const { promise: received, resolve } = Promise.withResolvers<[string, string]>();
      subscriber.on('message', (channel: string, message: string) => resolve([channel, message]));
      await subscriber.subscribe(`${keyPrefix}cfg:feed`);
      await config.put('tenant', 't1', makeTenant('t1'));
      const [channel, message] = await received;
      expect(channel).toBe(`${keyPrefix}cfg:feed`);
      expect(JSON.parse(message)).toEqual({ op: 'put', kind: 'tenant', id: 't1' });
      await subscriber.quit();
    });

    it('keeps balances and counters as integer strings, with a TTL only on window counters', async () => {
      await runtime.initBalance('t1', 100);
      await runtime.incrementCounter('spend', 3);
      await runtime.incrementCounter('rate', 1, 60);
      expect(await raw.get(`${keyPrefix}rt:bal:{t1}`)).toBe('100');
      expect(await raw.get(`${keyPrefix}rt:ctr:{spend}`)).toBe('3');
      expect(await raw.ttl(`${keyPrefix}rt:ctr:{spend}`)).toBe(-1);
      const ttl = await raw.ttl(`${keyPrefix}rt:ctr:{rate}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
    });

    it('isolates stores with different key prefixes', async () => {
      const neighbour = new RedisConfigStore({ url, keyPrefix: freshPrefix() });
      const recorder = await recordChanges(neighbour);
      await config.put('tenant', 't1', makeTenant('t1'));
      await neighbour.put('tenant', 't2', makeTenant('t2'));
      await recorder.waitFor(isChange('put', 'tenant', 't2'));
      expect(recorder.changes).toEqual([{ op: 'put', kind: 'tenant', id: 't2' }]);
      expect(await neighbour.get('tenant', 't1')).toBeUndefined();
      expect((await config.list('tenant')).map((tenant) => tenant.id)).toEqual(['t1']);
      await neighbour.close();
    });

    it('skips and counts records that are not valid JSON or of another version', async () => {
      const hash = `${keyPrefix}{cfg}:tenant`;
      await config.put('tenant', 'good', makeTenant('good'));
      await raw.hset(hash, 'garbage', '{not json', 'old', JSON.stringify({ ...makeTenant('old'), v: 0 }));
      await raw.hset(hash, 'array', '[1]', 'null', 'null');

      expect(await config.get('tenant', 'garbage')).toBeUndefined();
      expect(await config.get('tenant', 'old')).toBeUndefined();
      expect(config.health.malformedRecords).toBe(2);
      expect((await config.list('tenant')).map((tenant) => tenant.id)).toEqual(['good']);
      expect(config.health.malformedRecords).toBe(6);
      expect([...(await config.snapshot()).tenant.keys()]).toEqual(['good']);
      expect(config.health.malformedRecords).toBe(10);
    });

    it('skips and counts malformed feed messages, and keeps delivering the good ones', async () => {
      const recorder = await recordChanges(config);
      const feed = `${keyPrefix}cfg:feed`;
      await raw.publish(feed, 'not json');
      await raw.publish(feed, JSON.stringify({ op: 'put', kind: 'nonsense', id: 'x' }));
      await raw.publish(feed, JSON.stringify({ op: 'drop', kind: 'tenant', id: 'x' }));
      await raw.publish(feed, JSON.stringify({ op: 'put', kind: 'tenant' }));
      await config.put('tenant', 't1', makeTenant('t1'));
      await recorder.waitFor(isChange('put', 'tenant', 't1'));
      expect(recorder.changes).toEqual([{ op: 'put', kind: 'tenant', id: 't1' }]);
      expect(config.health.malformedFeedMessages).toBe(4);
      await recorder.stop();
    });

    it('lets a view treat a malformed record as absent, and carry on', async () => {
      const view = await ConfigView.start(config);
      await raw.hset(`${keyPrefix}{cfg}:tenant`, 'bad', '{oops');
      await raw.publish(`${keyPrefix}cfg:feed`, JSON.stringify({ op: 'put', kind: 'tenant', id: 'bad' }));
      await config.put('tenant', 't1', makeTenant('t1'));
      await view.whenApplied('tenant', 't1', (record) => record !== undefined, 5000);
      expect(view.tenant('bad')).toBeUndefined();
      expect(config.health.malformedRecords).toBe(1);
      await view.close();
    });
  });

  describe('runtime store: tokens, revocations and the audit log in Redis', () => {
    let keyPrefix: string;
    let raw: Redis;
    let runtime: RedisRuntimeStore;
    let errors: unknown[];

    beforeEach(() => {
      keyPrefix = freshPrefix();
      raw = new Redis(url);
      errors = [];
      runtime = new RedisRuntimeStore({ url, keyPrefix, onError: (error) => errors.push(error) });
    });
    afterEach(async () => {
      await Promise.all([runtime.close(), raw.quit()]);
    });

    it('keeps a reservation counter with a TTL set on creation, never extended', async () => {
      await runtime.reserveWithinCap('budget:j1', 5, 100, 60);
      await raw.pexpire(`${keyPrefix}rt:ctr:{budget:j1}`, 30_000);
      await runtime.reserveWithinCap('budget:j1', 5, 100, 3600);
      expect(await raw.get(`${keyPrefix}rt:ctr:{budget:j1}`)).toBe('10');
      expect(await raw.pttl(`${keyPrefix}rt:ctr:{budget:j1}`)).toBeLessThanOrEqual(30_000);
      await runtime.reserveWithinCap('durable', 5, 100);
      expect(await raw.pttl(`${keyPrefix}rt:ctr:{durable}`)).toBe(-1);
    });

    it('keeps a minted token as JSON under its jti, expiring with it', async () => {
      const record = makeTokenRecord('j1', { expiresAtMs: Date.now() + 60_000 });
      await runtime.recordToken(record);
      expect(JSON.parse((await raw.get(`${keyPrefix}rt:tok:j1`)) ?? '')).toEqual(record);
      const ttl = await raw.pttl(`${keyPrefix}rt:tok:j1`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('skips a malformed token record', async () => {
      await raw.set(`${keyPrefix}rt:tok:j1`, '{"jti":"j1"}');
      expect(await runtime.getToken('j1')).toBeUndefined();
      expect(errors).toHaveLength(1);
    });

    it('keeps revocations in keys that expire with them, indexed in two sorted sets', async () => {
      const now = Date.now();
      await runtime.revokeToken('j1', now + 60_000);
      await runtime.revokeTokensForKey('k1', now);

      expect(await raw.get(`${keyPrefix}rt:{rev}:tok:j1`)).toBe(String(now + 60_000));
      const tokenTtl = await raw.pttl(`${keyPrefix}rt:{rev}:tok:j1`);
      expect(tokenTtl).toBeGreaterThan(55_000);
      expect(tokenTtl).toBeLessThanOrEqual(60_000);
      expect(await raw.get(`${keyPrefix}rt:{rev}:key:k1`)).toBe(String(now));
      const keyTtl = await raw.pttl(`${keyPrefix}rt:{rev}:key:k1`);
      expect(keyTtl).toBeGreaterThan(KEY_REVOCATION_TTL_MS - 5000);
      expect(keyTtl).toBeLessThanOrEqual(KEY_REVOCATION_TTL_MS);

      expect(await raw.zrange(`${keyPrefix}rt:{rev}:tokens`, 0, -1, 'WITHSCORES')).toEqual([
        'j1',
        String(now + 60_000),
      ]);
      expect(await raw.zrange(`${keyPrefix}rt:{rev}:keys`, 0, -1, 'WITHSCORES')).toEqual(['k1', String(now)]);
    });

    it('announces each revocation as JSON on the revocations channel', async () => {
      const subscriber = new Redis(url);
      const messages: string[] = [];
      subscriber.on('message', (_channel: string, message: string) => messages.push(message));
      await subscriber.subscribe(`${keyPrefix}rt:revocations`);
      const now = Date.now();
      await runtime.revokeToken('j"1/x', now + 60_000);
      await runtime.revokeTokensForKey('k1', now);
      await vi.waitFor(() => expect(messages).toHaveLength(2), { timeout: 5000, interval: 10 });
      expect(messages.map((message) => JSON.parse(message))).toEqual([
        { type: 'token', jti: 'j"1/x', expiresAtMs: now + 60_000 },
        { type: 'key', keyId: 'k1', atMs: now },
      ]);
      await subscriber.quit();
    });

    it('trims expired members from the indexes on every revocation and load', async () => {
      const now = Date.now();
      await raw.zadd(`${keyPrefix}rt:{rev}:tokens`, now - 1, 'stale-token');
      await raw.zadd(`${keyPrefix}rt:{rev}:keys`, now - KEY_REVOCATION_TTL_MS - 1, 'stale-key');
      expect(await runtime.loadRevocations()).toEqual({ tokens: new Map(), keys: new Map() });
      expect(await raw.zcard(`${keyPrefix}rt:{rev}:tokens`)).toBe(0);
      expect(await raw.zcard(`${keyPrefix}rt:{rev}:keys`)).toBe(0);

      await raw.zadd(`${keyPrefix}rt:{rev}:tokens`, now - 1, 'stale-token');
      await raw.zadd(`${keyPrefix}rt:{rev}:keys`, now - KEY_REVOCATION_TTL_MS - 1, 'stale-key');
      await runtime.revokeToken('j1', now + 60_000);
      await runtime.revokeTokensForKey('k1', now);
      expect(await raw.zrange(`${keyPrefix}rt:{rev}:tokens`, 0, -1)).toEqual(['j1']);
      expect(await raw.zrange(`${keyPrefix}rt:{rev}:keys`, 0, -1)).toEqual(['k1']);
    });

    it('loads the denylist without SCAN or KEYS', async () => {
      await runtime.revokeToken('j1', Date.now() + 60_000);
      await runtime.revokeTokensForKey('k1', Date.now());
      const monitor = await raw.monitor();
      const commands: string[][] = [];
      monitor.on('monitor', (_time: string, args: string[]) => commands.push(args));
      const marker = `marker:${randomUUID()}`;
      const revocations = await runtime.loadRevocations();
      await raw.echo(marker);
      await vi.waitFor(() => expect(commands.some((args) => args.includes(marker))).toBe(true), {
        timeout: 5000,
        interval: 10,
      });
      monitor.disconnect();
      const names = commands.map((args) => (args[0] ?? '').toUpperCase());
      expect(names).toContain('ZRANGE');
      expect(names).not.toContain('SCAN');
      expect(names).not.toContain('KEYS');
      expect(revocations.tokens.has('j1') && revocations.keys.has('k1')).toBe(true);
    });

    it('skips malformed revocation feed messages and keeps delivering the good ones', async () => {
      const recorder = await recordRevocations(runtime);
      const feed = `${keyPrefix}rt:revocations`;
      await raw.publish(feed, 'not json');
      await raw.publish(feed, JSON.stringify({ type: 'token', jti: 'j1' }));
      await raw.publish(feed, JSON.stringify({ type: 'key', keyId: 'k1', atMs: 1.5 }));
      await raw.publish(feed, JSON.stringify({ type: 'down' }));
      await runtime.revokeTokensForKey('k1', Date.now());
      await recorder.waitFor(isEventType('key'));
      expect(recorder.events.map((event) => event.type)).toEqual(['key']);
      expect(errors).toHaveLength(4);
      await recorder.stop();
    });

    it('runs its scripts again after SCRIPT FLUSH', async () => {
      expect(await runtime.reserveWithinCap('c', 1, 10)).toEqual({ ok: true, value: 1 });
      await raw.script('FLUSH');
      expect(await runtime.reserveWithinCap('c', 1, 10)).toEqual({ ok: true, value: 2 });
      await raw.script('FLUSH');
      await runtime.revokeTokensForKey('k1', Date.now());
      expect(await runtime.keyRevokedAt('k1')).toBeDefined();
    });

    it('rejects a reservation on a counter that holds a non-integer', async () => {
      await raw.set(`${keyPrefix}rt:ctr:{c}`, 'abc');
      await expect(runtime.reserveWithinCap('c', 1, 10)).rejects.toThrow(/non-integer/);
    });

    it('keeps the audit log of a tenant in one sorted set ordered by id, members `<id>\\0<json>`', async () => {
      await runtime.appendAudit('t1', makeAuditEntry(2));
      await runtime.appendAudit('t1', makeAuditEntry(1));
      const members = await raw.zrange(`${keyPrefix}rt:audit:t1`, 0, -1, 'WITHSCORES');
      expect(members).toEqual([
        `a000001\u0000${JSON.stringify(makeAuditEntry(1))}`,
        '0',
        `a000002\u0000${JSON.stringify(makeAuditEntry(2))}`,
        '0',
      ]);
    });

    it('skips malformed audit members', async () => {
      await runtime.appendAudit('t1', makeAuditEntry(1));
      await raw.zadd(`${keyPrefix}rt:audit:t1`, 0, 'a000002\u0000{oops', 0, 'a000003');
      expect((await runtime.listAudit('t1', 10)).map((entry) => entry.id)).toEqual(['a000001']);
      expect(errors).toHaveLength(2);
    });

    it('refuses an audit entry id holding NUL', async () => {
      await expect(runtime.appendAudit('t1', makeAuditEntry(1, { id: 'a\u0000b' }))).rejects.toBeInstanceOf(
        TypeError,
      );
    });
  });

  describe('runtime store: the cache in Redis', () => {
    let keyPrefix: string;
    let raw: Redis;
    let runtime: RedisRuntimeStore;
    let errors: unknown[];

    beforeEach(() => {
      keyPrefix = freshPrefix();
      raw = new Redis(url);
      errors = [];
      runtime = new RedisRuntimeStore({ url, keyPrefix, onError: (error) => errors.push(error) });
    });
    afterEach(async () => {
      await Promise.all([runtime.close(), raw.quit()]);
    });

    it('keeps an entry under its key as given, with a PX of its TTL', async () => {
      await runtime.setCacheEntry('w1:abc123', 'body', 60_000);
      expect(await raw.get(`${keyPrefix}cache:e:w1:abc123`)).toBe('body');
      const ttl = await raw.pttl(`${keyPrefix}cache:e:w1:abc123`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('keeps a lock as its token with a PX, deleted on release', async () => {
      const token = (await runtime.acquireLock('swr:k1', 30_000)) as string;
      expect(await raw.get(`${keyPrefix}cache:lock:swr:k1`)).toBe(token);
      expect(await raw.pttl(`${keyPrefix}cache:lock:swr:k1`)).toBeGreaterThan(25_000);
      await runtime.releaseLock('swr:k1', token);
      expect(await raw.exists(`${keyPrefix}cache:lock:swr:k1`)).toBe(0);
    });

    it('keeps generations and tag times in one hash each per workspace, fields as given', async () => {
      await runtime.purgeCache('w1');
      await runtime.purgeCache('w1', 'a:b c');
      await runtime.purgeCache('w1', 'a:b c');
      await runtime.invalidateCacheTags('w1', ['product:1'], 1_700_000_000_123);
      expect(await raw.hgetall(`${keyPrefix}cache:{w1}:gens`)).toEqual({ '': '1', 'a:b c': '2' });
      expect(await raw.hgetall(`${keyPrefix}cache:{w1}:tags`)).toEqual({ 'product:1': '1700000000123' });
      expect(await raw.pttl(`${keyPrefix}cache:{w1}:gens`)).toBe(-1);
    });

    it('announces purges and tag invalidations as JSON on the cache channel', async () => {
      const subscriber = new Redis(url);
      const messages: string[] = [];
      subscriber.on('message', (_channel: string, message: string) => messages.push(message));
      await subscriber.subscribe(`${keyPrefix}rt:cache`);
      await runtime.purgeCache('w"1');
      await runtime.purgeCache('w"1', 'n/"\\ü');
      await runtime.invalidateCacheTags('w"1', ['t"1', 'ü/2'], 2 ** 52);
      await vi.waitFor(() => expect(messages).toHaveLength(3), { timeout: 5000, interval: 10 });
      expect(messages.map((message) => JSON.parse(message))).toEqual([
        { type: 'purge', workspaceId: 'w"1', generation: 1 },
        { type: 'purge', workspaceId: 'w"1', namespace: 'n/"\\ü', generation: 1 },
        { type: 'tags', workspaceId: 'w"1', tags: ['t"1', 'ü/2'], atMs: 2 ** 52 },
      ]);
      await subscriber.quit();
    });

    it('keeps tag times at full integer precision and never moves them back', async () => {
      const big = Number.MAX_SAFE_INTEGER - 1;
      await runtime.invalidateCacheTags('w1', ['t'], big);
      await runtime.invalidateCacheTags('w1', ['t'], big - 1);
      expect(await raw.hget(`${keyPrefix}cache:{w1}:tags`, 't')).toBe(String(big));
      expect((await runtime.loadCacheScope('w1')).tags.get('t')).toBe(big);
      await runtime.invalidateCacheTags('w1', ['neg'], -5);
      expect((await runtime.loadCacheScope('w1')).tags.get('neg')).toBe(-5);
    });

    it('loads a workspace scope in one round trip, without SCAN or KEYS', async () => {
      await runtime.purgeCache('w1', 'docs');
      await runtime.invalidateCacheTags('w1', ['t1'], Date.now());
      const monitor = await raw.monitor();
      const commands: string[][] = [];
      monitor.on('monitor', (_time: string, args: string[]) => commands.push(args));
      const marker = `marker:${randomUUID()}`;
      const state = await runtime.loadCacheScope('w1');
      await raw.echo(marker);
      await vi.waitFor(() => expect(commands.some((args) => args.includes(marker))).toBe(true), {
        timeout: 5000,
        interval: 10,
      });
      monitor.disconnect();
      const names = commands
        .filter((args) => !args.includes(marker))
        .map((args) => (args[0] ?? '').toUpperCase());
      expect(names).toEqual(['HGETALL', 'HGETALL']);
      expect(state.namespaces.get('docs')).toBe(1);
      expect(state.tags.has('t1')).toBe(true);
    });

    it('skips malformed scope values', async () => {
      await raw.hset(`${keyPrefix}cache:{w1}:gens`, '', 'x', 'docs', '2', 'bad', '1.5');
      await raw.hset(`${keyPrefix}cache:{w1}:tags`, 't1', '', 't2', '7');
      expect(await runtime.loadCacheScope('w1')).toEqual({
        generation: 0,
        namespaces: new Map([['docs', 2]]),
        tags: new Map([['t2', 7]]),
      });
      expect(errors).toHaveLength(3);
    });

    it('overwrites a malformed tag time rather than failing', async () => {
      await raw.hset(`${keyPrefix}cache:{w1}:tags`, 't1', 'oops');
      await runtime.invalidateCacheTags('w1', ['t1'], 5);
      expect(await raw.hget(`${keyPrefix}cache:{w1}:tags`, 't1')).toBe('5');
    });

    it('skips malformed cache feed messages and keeps delivering the good ones', async () => {
      const recorder = await recordCacheInvalidations(runtime);
      const feed = `${keyPrefix}rt:cache`;
      await raw.publish(feed, 'not json');
      await raw.publish(feed, JSON.stringify({ type: 'purge', workspaceId: 'w1' }));
      await raw.publish(
        feed,
        JSON.stringify({ type: 'purge', workspaceId: 'w1', namespace: '', generation: 1 }),
      );
      await raw.publish(feed, JSON.stringify({ type: 'tags', workspaceId: 'w1', tags: [1], atMs: 1 }));
      await raw.publish(feed, JSON.stringify({ type: 'tags', workspaceId: 'w1', tags: ['t'], atMs: 1.5 }));
      await raw.publish(feed, JSON.stringify({ type: 'reset' }));
      await runtime.purgeCache('w1');
      await recorder.waitFor((event) => event.type === 'purge');
      expect(recorder.events).toEqual([{ type: 'purge', workspaceId: 'w1', generation: 1 }]);
      expect(errors).toHaveLength(6);
      await recorder.stop();
    });

    it('runs its cache scripts again after SCRIPT FLUSH', async () => {
      const token = (await runtime.acquireLock('l1', 60_000)) as string;
      await raw.script('FLUSH');
      await runtime.releaseLock('l1', token);
      expect(await raw.exists(`${keyPrefix}cache:lock:l1`)).toBe(0);
      await raw.script('FLUSH');
      expect(await runtime.purgeCache('w1')).toBe(1);
      await raw.script('FLUSH');
      await runtime.invalidateCacheTags('w1', ['t'], 9);
      expect((await runtime.loadCacheScope('w1')).tags.get('t')).toBe(9);
    });
  });
});
