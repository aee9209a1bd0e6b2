import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigView } from '../../../src/stores/config-view.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import { RedisRuntimeStore } from '../../../src/stores/redis-runtime-store.ts';
import { isChange, makeTenant, recordChanges } from '../../contract/config-fixtures.ts';
import { describeConfigStoreContract } from '../../contract/config-store-contract.ts';
import { describeConfigViewContract } from '../../contract/config-view-contract.ts';
import { describeRuntimeStoreContract } from '../../contract/runtime-store-contract.ts';
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

  describeRuntimeStoreContract('redis', () => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisRuntimeStore({ url, keyPrefix }) };
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
      expect(JSON.parse((await raw.hget(`${keyPrefix}cfg:tenant`, 't1')) ?? '')).toEqual(makeTenant('t1'));
      expect(await raw.get(`${keyPrefix}cfg:epoch`)).toBe('e1');
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
      expect(await raw.get(`${keyPrefix}rt:bal:t1`)).toBe('100');
      expect(await raw.get(`${keyPrefix}rt:ctr:spend`)).toBe('3');
      expect(await raw.ttl(`${keyPrefix}rt:ctr:spend`)).toBe(-1);
      const ttl = await raw.ttl(`${keyPrefix}rt:ctr:rate`);
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
      const hash = `${keyPrefix}cfg:tenant`;
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
      await raw.hset(`${keyPrefix}cfg:tenant`, 'bad', '{oops');
      await raw.publish(`${keyPrefix}cfg:feed`, JSON.stringify({ op: 'put', kind: 'tenant', id: 'bad' }));
      await config.put('tenant', 't1', makeTenant('t1'));
      await view.whenApplied('tenant', 't1', (record) => record !== undefined, 5000);
      expect(view.tenant('bad')).toBeUndefined();
      expect(config.health.malformedRecords).toBe(1);
      await view.close();
    });
  });
});
