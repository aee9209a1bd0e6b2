import { describe, expect, it } from 'vitest';
import { type CacheOptions, cacheHeaders, validateCacheOptions } from './cache-options.ts';
import { GatewayValidationError } from './errors.ts';

function refusal(options: unknown): GatewayValidationError {
  try {
    validateCacheOptions(options as CacheOptions);
  } catch (error) {
    if (error instanceof GatewayValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('cacheHeaders', () => {
  it('renders every option as its x-service-cache header', () => {
    expect(
      cacheHeaders({
        cache: 'semantic',
        namespace: 'user-42',
        ttlSeconds: 3600,
        tags: ['product:42', 'catalog'],
        policy: 'docs',
        threshold: 0.9,
        force: true,
      }),
    ).toEqual({
      'x-service-cache': 'semantic',
      'x-service-cache-namespace': 'user-42',
      'x-service-cache-ttl': '3600',
      'x-service-cache-tags': 'product:42,catalog',
      'x-service-cache-policy': 'docs',
      'x-service-cache-threshold': '0.9',
      'x-service-cache-force': '1',
    });
  });

  it('renders nothing for no options, and no tags header for an empty list', () => {
    expect(cacheHeaders()).toEqual({});
    expect(cacheHeaders({ tags: [] })).toEqual({});
  });

  it('sends force: false as 0, so that it can override a client-wide force', () => {
    expect(cacheHeaders({ force: false })).toEqual({ 'x-service-cache-force': '0' });
  });

  it('drops repeated tags', () => {
    expect(cacheHeaders({ tags: ['a', 'b', 'a'] })['x-service-cache-tags']).toBe('a,b');
  });

  it('accepts each of the four modes', () => {
    for (const cache of ['off', 'no-store', 'force-refresh', 'semantic'] as const)
      expect(cacheHeaders({ cache })['x-service-cache']).toBe(cache);
  });

  it('validates before rendering', () => {
    expect(() => cacheHeaders({ ttlSeconds: 0 })).toThrow(GatewayValidationError);
  });
});

describe('validateCacheOptions', () => {
  it('allows 16 tags and refuses 17', () => {
    const tags = Array.from({ length: 17 }, (_, index) => `tag-${index}`);
    expect(() => validateCacheOptions({ tags: tags.slice(0, 16) })).not.toThrow();
    const error = refusal({ tags });
    expect(error.option).toBe('cache.tags');
    expect(error.message).toContain('at most 16');
  });

  it.each([
    'Product',
    '-leading-dash',
    '.dot',
    'with space',
    'comma,inside',
    'slash/inside',
    '',
    'é',
    'a'.repeat(129),
  ])('refuses the tag %j, naming it', (tag) => {
    const error = refusal({ tags: ['fine', tag] });
    expect(error.option).toBe('cache.tags[1]');
  });

  it.each(['a', '0', 'product:42', 'v1.2_beta-3', 'a'.repeat(128)])('accepts the tag %j', (tag) => {
    expect(() => validateCacheOptions({ tags: [tag] })).not.toThrow();
  });

  it.each([0, -1, 1.5, 86_401, Number.NaN])('refuses ttlSeconds %s', (ttlSeconds) => {
    expect(refusal({ ttlSeconds }).option).toBe('cache.ttlSeconds');
  });

  it('accepts ttlSeconds 1 and 86400', () => {
    expect(() => validateCacheOptions({ ttlSeconds: 1 })).not.toThrow();
    expect(() => validateCacheOptions({ ttlSeconds: 86_400 })).not.toThrow();
  });

  it.each([-0.1, 1.01, Number.POSITIVE_INFINITY, Number.NaN, '0.5'])('refuses threshold %s', (threshold) => {
    expect(refusal({ threshold }).option).toBe('cache.threshold');
  });

  it('accepts thresholds 0, 0.8 and 1', () => {
    for (const threshold of [0, 0.8, 1]) expect(() => validateCacheOptions({ threshold })).not.toThrow();
  });

  it.each(['', ' padded', 'x'.repeat(257), 'line\nbreak', 'naïve'])(
    'refuses the namespace %j',
    (namespace) => {
      expect(refusal({ namespace }).option).toBe('cache.namespace');
    },
  );

  it('accepts a namespace of 256 characters', () => {
    expect(() => validateCacheOptions({ namespace: 'n'.repeat(256) })).not.toThrow();
  });

  it('refuses an empty policy name', () => {
    expect(refusal({ policy: '' }).option).toBe('cache.policy');
  });

  it('refuses a cache mode it does not know, and unknown options', () => {
    expect(refusal({ cache: 'sometimes' }).option).toBe('cache.cache');
    expect(refusal({ ttl: 60 }).option).toBe('cache.ttl');
  });

  it('refuses a force that is not a boolean', () => {
    expect(refusal({ force: 1 }).option).toBe('cache.force');
  });
});
