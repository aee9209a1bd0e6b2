import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redisConnectionOf } from '../main/open-stores.ts';
import { sentinelOptionsOf } from '../stores/redis-client.ts';
import { loadSettings, SettingsError } from './settings.ts';

const load = (env: Record<string, string>) => loadSettings(env, ['openai']);

describe('loadSettings: Redis modes', () => {
  it('reads one server, a cluster or a Sentinel-managed master', () => {
    expect(redisConnectionOf(load({ REDIS_URL: 'redis://r:6379/2' }))).toEqual({ url: 'redis://r:6379/2' });
    expect(redisConnectionOf(load({ REDIS_CLUSTER_NODES: 'a:7000, b:7001' }))).toEqual({
      clusterNodes: ['a:7000', 'b:7001'],
    });
    expect(
      redisConnectionOf(
        load({
          REDIS_SENTINELS: 's1:26379,s2:26379',
          REDIS_SENTINEL_MASTER: 'gateway',
          REDIS_SENTINEL_PASSWORD: 'sentinel secret',
          REDIS_PASSWORD: 'data secret',
        }),
      ),
    ).toEqual({
      sentinel: { nodes: ['s1:26379', 's2:26379'], masterName: 'gateway', password: 'sentinel secret' },
      password: 'data secret',
    });
    expect(load({ REDIS_SENTINELS: 's1:26379' }).redisSentinel?.masterName).toBe('mymaster');
    expect(redisConnectionOf(load({}))).toBeUndefined();
  });

  it('turns TLS on from rediss://, REDIS_TLS or a CA file, which it reads once', () => {
    expect(load({ REDIS_URL: 'rediss://r:6380' }).redisTls).toEqual({ ca: undefined });
    expect(load({ REDIS_URL: 'redis://r:6379' }).redisTls).toBeUndefined();
    expect(load({ REDIS_SENTINELS: 's:26379', REDIS_TLS: 'on' }).redisTls).toEqual({ ca: undefined });
    const ca = join(mkdtempSync(join(tmpdir(), 'redis-ca-')), 'ca.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMII...\n-----END CERTIFICATE-----\n');
    expect(load({ REDIS_URL: 'redis://r:6379', REDIS_TLS_CA_FILE: ca }).redisTls?.ca).toContain(
      'BEGIN CERTIFICATE',
    );
    expect(() => load({ REDIS_TLS_CA_FILE: join(tmpdir(), 'no-such-ca.crt') })).toThrow(
      /REDIS_TLS_CA_FILE cannot be read/,
    );
    expect(() => load({ REDIS_TLS: 'maybe' })).toThrow(SettingsError);
  });

  it('refuses a cluster and Sentinel at once, bad addresses, and Sentinel settings without sentinels', () => {
    expect(() => load({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINELS: 's:26379' })).toThrow(
      'set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both',
    );
    expect(() => load({ REDIS_SENTINELS: 'sentinel-without-port' })).toThrow(
      "REDIS_SENTINELS must be host:port entries, comma-separated; got 'sentinel-without-port'",
    );
    expect(() => load({ REDIS_SENTINEL_MASTER: 'gateway' })).toThrow(
      'REDIS_SENTINEL_MASTER and REDIS_SENTINEL_PASSWORD need REDIS_SENTINELS',
    );
  });
});

describe('sentinelOptionsOf', () => {
  const sentinel = { nodes: ['s1:26379', 'redis://s2:26380'], masterName: 'gateway', password: 'sp' };

  it("asks the sentinels for the master, with the url's credentials and database and TLS to both", () => {
    const options = sentinelOptionsOf({ url: 'rediss://user:pw%40x@ignored:1/3', sentinel }, sentinel, {});
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      name: 'gateway',
      sentinelPassword: 'sp',
      username: 'user',
      password: 'pw@x',
      db: 3,
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
      failoverDetector: true,
      sentinelCommandTimeout: 3000,
    });
  });

  it('takes REDIS_PASSWORD and the CA over the url, and needs no url at all', () => {
    const options = sentinelOptionsOf(
      { url: 'redis://:old@x:1', password: 'new', tls: { ca: 'PEM' }, sentinel },
      sentinel,
      {},
    );
    expect(options).toMatchObject({ password: 'new', tls: { ca: 'PEM' }, sentinelTLS: { ca: 'PEM' } });
    const bare = sentinelOptionsOf({ sentinel: { ...sentinel, password: undefined } }, sentinel, {});
    expect(bare.tls).toBeUndefined();
    expect(bare.enableTLSForSentinelMode).toBeUndefined();
    expect(bare.db).toBeUndefined();
  });
});
