import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CACHE_BYTES } from '../stores/memory-cache.ts';
import { loadSettings, SettingsError } from './settings.ts';

const load = (env: Record<string, string>) => loadSettings(env, ['openai']);

function pricesFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.yaml');
  writeFileSync(file, text);
  return file;
}

describe('loadSettings: prices', () => {
  it('charges unpriced models at the top of the table unless told otherwise', () => {
    expect(load({}).billingFallbackPrice).toEqual({ input: 15, output: 75 });
    expect(load({ BILLING_FALLBACK_PRICE: '0, 0' }).billingFallbackPrice).toEqual({ input: 0, output: 0 });
  });

  it.each(['15', '1,2,3', 'a,b', '-1,2'])('refuses BILLING_FALLBACK_PRICE=%s', (value) => {
    expect(() => load({ BILLING_FALLBACK_PRICE: value })).toThrow(SettingsError);
  });

  it('reads BILLING_PRICES_FILE as YAML or JSON', () => {
    const yaml = pricesFile('my-model:\n  input: 1.5\n  output: 6\n  cachedInput: 0.15\n');
    expect([...load({ BILLING_PRICES_FILE: yaml }).billingPrices]).toEqual([
      ['my-model', { input: 1.5, output: 6, cachedInput: 0.15 }],
    ]);
    const json = pricesFile('{"a": {"input": 1, "output": 2, "cacheWrite": 1.25}}');
    expect(load({ BILLING_PRICES_FILE: json }).billingPrices.get('a')).toEqual({
      input: 1,
      output: 2,
      cacheWrite: 1.25,
    });
  });

  it.each([
    ['a list', '- a\n', /must map model ids/],
    ['a missing output', 'm:\n  input: 1\n', /needs both input and output/],
    ['an unknown field', 'm:\n  input: 1\n  output: 1\n  inputt: 2\n', /unknown field 'inputt'/],
    ['a negative price', 'm:\n  input: -1\n  output: 1\n', /from 0 to 1000000/],
  ])('refuses a prices file with %s', (_name, text, message) => {
    expect(() => load({ BILLING_PRICES_FILE: pricesFile(text) })).toThrow(message);
  });

  it('says when the prices file cannot be read', () => {
    expect(() => load({ BILLING_PRICES_FILE: '/nonexistent/prices.yaml' })).toThrow(
      /BILLING_PRICES_FILE cannot be read/,
    );
  });
});

describe('loadSettings: GATEWAY_CORS_ORIGINS', () => {
  it('allows any origin by default, a list, or none', () => {
    expect(load({}).corsOrigins).toBe('*');
    expect(load({ GATEWAY_CORS_ORIGINS: 'https://a.example, http://localhost:3000' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    expect(load({ GATEWAY_CORS_ORIGINS: 'off' }).corsOrigins).toEqual([]);
  });

  it.each(['app.example.com', 'https://a.example/path'])('refuses %s, which is not an origin', (origin) => {
    expect(() => load({ GATEWAY_CORS_ORIGINS: origin })).toThrow(SettingsError);
  });
});

describe('loadSettings: shutdown', () => {
  it('drains for no time by default (a laptop stops at once) and 30 s of grace', () => {
    expect(load({})).toMatchObject({ shutdownDrainDelayMs: 0, shutdownGraceMs: 30_000 });
    expect(load({ SHUTDOWN_DRAIN_DELAY_MS: '5000', SHUTDOWN_GRACE_MS: '60000' })).toMatchObject({
      shutdownDrainDelayMs: 5_000,
      shutdownGraceMs: 60_000,
    });
  });

  it.each(['-1', '1.5', 'five', '600001'])('refuses SHUTDOWN_DRAIN_DELAY_MS=%s', (value) => {
    expect(() => load({ SHUTDOWN_DRAIN_DELAY_MS: value })).toThrow(
      /SHUTDOWN_DRAIN_DELAY_MS must be an integer between 0 and 600000/,
    );
  });
});

describe('loadSettings: upstream connections', () => {
  it('allows thousands of connections per upstream origin by default, any bound from 1 when told', () => {
    expect(load({}).upstreamConnections).toBe(4096);
    expect(load({ GATEWAY_UPSTREAM_CONNECTIONS: '20000' }).upstreamConnections).toBe(20_000);
    expect(() => load({ GATEWAY_UPSTREAM_CONNECTIONS: '0' })).toThrow(
      /GATEWAY_UPSTREAM_CONNECTIONS must be an integer between 1 and 1000000/,
    );
  });

  it('offers HTTP/2 to upstreams unless GATEWAY_UPSTREAM_HTTP2 is off, and refuses other values', () => {
    expect(load({}).upstreamHttp2).toBe(true);
    expect(load({ GATEWAY_UPSTREAM_HTTP2: 'on' }).upstreamHttp2).toBe(true);
    expect(load({ GATEWAY_UPSTREAM_HTTP2: 'off' }).upstreamHttp2).toBe(false);
    expect(() => load({ GATEWAY_UPSTREAM_HTTP2: 'h2' })).toThrow(
      /GATEWAY_UPSTREAM_HTTP2 must be on or off, got 'h2'/,
    );
  });
});

describe('loadSettings: the semantic cache', () => {
  it('mirrors 64 MiB of semantic buckets by default, any bound from 0 (none) when told', () => {
    expect(load({}).semanticCache.mirrorBytes).toBe(64 * 1024 * 1024);
    expect(load({ GATEWAY_SEMCACHE_MIRROR_BYTES: '0' }).semanticCache.mirrorBytes).toBe(0);
    expect(load({ GATEWAY_SEMCACHE_MIRROR_BYTES: '1048576' }).semanticCache.mirrorBytes).toBe(1048576);
    expect(() => load({ GATEWAY_SEMCACHE_MIRROR_BYTES: '-1' })).toThrow(SettingsError);
  });

  it('runs the lean rules beside the verifier by default, every rule when told, and refuses other values', () => {
    expect(load({}).semanticCache.verifierRules).toBe('lean');
    expect(load({ GATEWAY_SEMCACHE_VERIFIER_RULES: 'ALL' }).semanticCache.verifierRules).toBe('all');
    expect(() => load({ GATEWAY_SEMCACHE_VERIFIER_RULES: 'some' })).toThrow(
      /GATEWAY_SEMCACHE_VERIFIER_RULES must be 'all' or 'lean', got 'some'/,
    );
  });
});

describe('loadSettings: PLATFORM_TENANT', () => {
  it('is unset by default and takes a Tenant name', () => {
    expect(load({}).platformTenant).toBeUndefined();
    expect(load({ PLATFORM_TENANT: ' platform ' }).platformTenant).toBe('platform');
  });

  it.each(['Platform', 'tenant-', 'a_b', 'x'.repeat(60)])('refuses PLATFORM_TENANT=%s', (value) => {
    expect(() => load({ PLATFORM_TENANT: value })).toThrow(SettingsError);
  });
});

describe('loadSettings: GATEWAY_CACHE_MEMORY_BYTES', () => {
  it("defaults to the memory store's own budget, which config/ cannot import", () => {
    expect(loadSettings({}, ['openai']).cacheMemoryBytes).toBe(DEFAULT_MAX_CACHE_BYTES);
  });
});

describe('loadSettings: stored responses', () => {
  it('keeps stored responses 30 days and 4 MiB each by default, as set otherwise', () => {
    expect(load({}).responses).toEqual({
      ttlSeconds: 30 * 24 * 60 * 60,
      maxEntryBytes: 4 * 1024 * 1024,
      memoryBytes: 64 * 1024 * 1024,
    });
    const set = load({
      GATEWAY_RESPONSES_TTL_SECONDS: '3600',
      GATEWAY_RESPONSES_MAX_ENTRY_BYTES: '65536',
      GATEWAY_RESPONSES_MEMORY_BYTES: '2097152',
    }).responses;
    expect(set).toEqual({ ttlSeconds: 3600, maxEntryBytes: 65536, memoryBytes: 2097152 });
  });

  it.each([
    ['GATEWAY_RESPONSES_TTL_SECONDS', '0'],
    ['GATEWAY_RESPONSES_TTL_SECONDS', 'a month'],
    ['GATEWAY_RESPONSES_MAX_ENTRY_BYTES', String(128 * 1024 * 1024)],
  ])('refuses %s=%s', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(SettingsError);
  });
});
