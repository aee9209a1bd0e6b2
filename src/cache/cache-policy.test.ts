import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigView } from '../stores/config-view.ts';
import { MemoryConfigStore } from '../stores/memory-config-store.ts';
import { type CachePolicyRecord, cachePolicyId } from '../stores/records.ts';
import { resolveCachePolicy } from './cache-policy.ts';
import { parseCacheDirective } from './cache-request.ts';

const store = new MemoryConfigStore();
let view: ConfigView;

const policy = (fields: Partial<CachePolicyRecord> & { name: string }): CachePolicyRecord => ({
  v: 1,
  tenantId: 't1',
  ttlSeconds: 100,
  swrSeconds: 0,
  maxTtlSeconds: 3600,
  defaultTags: [],
  semantic: false,
  ...fields,
});

beforeAll(async () => {
  await store.put(
    'cachePolicy',
    cachePolicyId('t1', undefined, 'docs'),
    policy({ name: 'docs', defaultTags: ['tenant'] }),
  );
  await store.put(
    'cachePolicy',
    cachePolicyId('t1', 'ws1', 'docs'),
    policy({
      name: 'docs',
      workspaceId: 'ws1',
      ttlSeconds: 5,
      swrSeconds: 30,
      maxTtlSeconds: 10,
      defaultTags: ['ws'],
    }),
  );
  // A built store: the view serves only a store whose epoch the reconciler set.
  await store.setEpoch('built');
  view = await ConfigView.start(store);
});
afterAll(async () => {
  await view.close();
});

const resolve = (workspaceId: string, headers: Record<string, string>) =>
  resolveCachePolicy(view, 't1', workspaceId, parseCacheDirective(headers));

describe('resolveCachePolicy', () => {
  it('applies the built-in policy when none is named: 600 s fresh, no stale window, no tags', () => {
    expect(resolve('ws1', {})).toEqual({
      name: 'default',
      ttlMs: 600_000,
      swrMs: 0,
      tags: [],
      semantic: false,
    });
  });

  it('caps a requested TTL at 24 hours under the built-in policy', () => {
    expect(resolve('ws1', { 'x-service-cache-ttl': '999999' }).ttlMs).toBe(86_400_000);
  });

  it('prefers the workspace policy of a name over the tenant-wide one, and caps TTLs at its ceiling', () => {
    expect(
      resolve('ws1', {
        'x-service-cache-policy': 'docs',
        'x-service-cache-ttl': '3600',
        'x-service-cache-tags': 'a',
      }),
    ).toEqual({
      name: 'docs',
      ttlMs: 10_000,
      swrMs: 30_000,
      tags: ['a', 'ws'],
      semantic: false,
    });
    expect(resolve('ws2', { 'x-service-cache-policy': 'docs' })).toMatchObject({
      ttlMs: 100_000,
      tags: ['tenant'],
    });
  });

  it('refuses a policy name nobody configured', () => {
    expect(() => resolve('ws1', { 'x-service-cache-policy': 'nope' })).toThrow("unknown cache policy 'nope'");
  });
});

describe('parseCacheDirective', () => {
  it.each(['0', '-1', '1.5', 'soon'])('refuses x-service-cache-ttl: %s, naming the rule', (ttl) => {
    expect(() => parseCacheDirective({ 'x-service-cache-ttl': ttl })).toThrow(
      /at least 1 \(above 86400 counts as 86400\)/,
    );
  });
});
