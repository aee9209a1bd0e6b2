import { describe, expect, it } from 'vitest';
import { cacheEntryBytes, cacheKeyHash, LockTable, LruCache } from './memory-cache.ts';

const entry = (key: string) => cacheEntryBytes(key, 'value');

describe('LruCache', () => {
  it('evicts the least recently used entries beyond its byte budget', () => {
    const cache = new LruCache(entry('k1') * 3);
    cache.set('k1', 'value', 60_000);
    cache.set('k2', 'value', 60_000);
    cache.set('k3', 'value', 60_000);
    expect(cache.bytes).toBe(entry('k1') * 3);
    // A read makes k1 the most recent, so k2 goes first.
    expect(cache.get('k1')).toBe('value');
    cache.set('k4', 'value', 60_000);
    expect(cache.get('k2')).toBeUndefined();
    expect(cache.get('k3')).toBe('value');
    cache.set('k5', 'value', 60_000);
    expect(cache.get('k1')).toBeUndefined();
    expect([cache.get('k3'), cache.get('k4'), cache.get('k5')]).toEqual(['value', 'value', 'value']);
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(entry('k1') * 3);
  });

  it('evicts as many entries as a large one needs, and refuses one larger than the budget', () => {
    const small = cacheEntryBytes('k0', 'x'.repeat(50));
    const cache = new LruCache(small * 5);
    for (let index = 0; index < 5; index += 1) cache.set(`k${index}`, 'x'.repeat(50), 60_000);
    // Worth about two and a half small ones: the three oldest go.
    const big = 'x'.repeat(Math.floor(small * 2.5) - cacheEntryBytes('big', ''));
    cache.set('big', big, 60_000);
    expect(cache.get('big')).toBe(big);
    expect(cache.bytes).toBeLessThanOrEqual(small * 5);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k2')).toBeUndefined();
    expect(cache.get('k4')).toBe('x'.repeat(50));

    // Too large: not stored, and the key's older value is gone rather than served stale.
    cache.set('k4', 'x'.repeat(small * 5), 60_000);
    expect(cache.get('k4')).toBeUndefined();
    expect(cache.get('big')).toBe(big);
  });

  it('charges what a value takes in UTF-8, and gives it back intact', () => {
    const cache = new LruCache(10_000);
    const text = 'héllo wörld, 東京 🎉';
    cache.set('k', text, 60_000);
    expect(cache.get('k')).toBe(text);
    expect(cache.bytes).toBe(cacheEntryBytes('k', text));
    expect(cacheEntryBytes('k', text) - cacheEntryBytes('k', '')).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('keeps every value in one buffer of the budget, however much is written through it', () => {
    // One string for every write: no heap churn, so no collection happens during the loop.
    const value = 'x'.repeat(100_000);
    const before = process.memoryUsage().arrayBuffers;
    const cache = new LruCache(cacheEntryBytes('k000', value) * 10);
    for (let index = 0; index < 200; index += 1)
      cache.set(`k${String(index).padStart(3, '0')}`, value, 60_000);
    for (let index = 190; index < 200; index += 1) cache.set(`k${index}`, value, 60_000);
    expect(cache.size).toBe(10);
    expect(cache.get('k199')).toBe(value);
    // The budget, not the two hundred values written.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(value.length * 11);
  });

  it('serves every entry intact as the ring turns, reads moving entries and values of all sizes', () => {
    // A small budget, so that the ring wraps many times; a model of it checks every answer.
    const budget = 20_000;
    const cache = new LruCache(budget);
    const model = new Map<string, string>();
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let step = 0; step < 20_000; step += 1) {
      const key = `key-${Math.floor(random() * 300)}`;
      const roll = random();
      if (roll < 0.5) {
        const value = `${key}:${step}:${'é'.repeat(Math.floor(random() * 600))}`;
        cache.set(key, value, 60_000, 0);
        model.set(key, value);
      } else if (roll < 0.95) {
        const found = cache.get(key, 0);
        // Evicted is allowed; a wrong or stale value never is.
        if (found !== undefined) expect(found).toBe(model.get(key));
      } else {
        cache.delete(key);
        model.delete(key);
      }
      expect(cache.bytes).toBeLessThanOrEqual(budget);
    }
    expect(cache.size).toBeGreaterThan(10);
  });

  it('keeps keys that share a hash apart, through writes, reads, deletes and evictions', () => {
    // Pairs of keys with the same 30-bit hash, found by trying (about 180,000 keys give a few).
    const seen = new Map<number, string>();
    const pairs: [string, string][] = [];
    for (let index = 0; pairs.length < 6; index += 1) {
      const key = `ws/default:-:0.0:${index.toString(16)}`;
      const other = seen.get(cacheKeyHash(key));
      if (other !== undefined) pairs.push([other, key]);
      else seen.set(cacheKeyHash(key), key);
    }
    const keys = pairs.flat();
    for (const [a, b] of pairs) expect(cacheKeyHash(a)).toBe(cacheKeyHash(b));

    const cache = new LruCache(100_000);
    for (const key of keys) cache.set(key, `value of ${key}`, 60_000);
    for (const key of keys) expect(cache.get(key)).toBe(`value of ${key}`);
    // Either one of a pair deleted or overwritten: the other is untouched.
    const [[first, second], [third, fourth]] = pairs as [[string, string], [string, string]];
    cache.delete(second);
    cache.delete(third);
    cache.set(first, 'new', 60_000);
    expect([cache.get(first), cache.get(second), cache.get(third), cache.get(fourth)]).toEqual([
      'new',
      undefined,
      undefined,
      `value of ${fourth}`,
    ]);

    // The same model check as below, over colliding keys only, with a ring that turns often.
    const small = new LruCache(3_000);
    const model = new Map<string, string>();
    for (let step = 0; step < 5_000; step += 1) {
      const key = keys[(step * 7919) % keys.length] as string;
      if (step % 3 === 0) {
        const value = `${key}:${step}:${'x'.repeat(step % 400)}`;
        small.set(key, value, 60_000, 0);
        model.set(key, value);
      } else if (step % 11 === 0) {
        small.delete(key);
        model.delete(key);
      } else {
        const found = small.get(key, 0);
        if (found !== undefined) expect(found).toBe(model.get(key));
      }
    }
  });

  it('tells keys apart by their characters, non-ASCII ones included', () => {
    const cache = new LruCache(10_000);
    // 'é' is the bytes C3 A9 in UTF-8, which are also the codes of the two characters 'Ã©'.
    const keys = ['é', 'Ã©', 'e', 'ée', '東京', '🎉', 'ab'];
    for (const key of keys) cache.set(key, `v:${key}`, 60_000);
    for (const key of keys) expect(cache.get(key)).toBe(`v:${key}`);
    expect(cache.get('Ã')).toBeUndefined();
    expect(cache.bytes).toBe(keys.reduce((sum, key) => sum + cacheEntryBytes(key, `v:${key}`), 0));
    cache.clear();
    expect([cache.size, cache.bytes, cache.get('é')]).toEqual([0, 0, undefined]);
    cache.set('é', 'again', 60_000);
    expect(cache.get('é')).toBe('again');
  });

  it('charges an overwritten entry once', () => {
    const cache = new LruCache(10_000);
    cache.set('k1', 'short', 60_000);
    cache.set('k1', 'a longer value', 60_000);
    expect(cache.bytes).toBe(cacheEntryBytes('k1', 'a longer value'));
    cache.delete('k1');
    expect(cache.bytes).toBe(0);
  });

  it('expires on read exactly at the TTL, and sweeps expired entries it is never asked for', () => {
    const cache = new LruCache(10_000);
    cache.set('read', 'v', 100, 1000);
    cache.set('unread', 'v', 100, 1000);
    cache.set('live', 'v', 1000, 1000);
    expect(cache.get('read', 1099)).toBe('v');
    expect(cache.get('read', 1100)).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.sweep(1100);
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(cacheEntryBytes('live', 'v'));
    expect(cache.get('live', 1100)).toBe('v');
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(TypeError);
    expect(() => new LruCache(1.5)).toThrow(TypeError);
  });
});

describe('LockTable', () => {
  it('holds a lock until its expiry or its holder releases it', () => {
    const locks = new LockTable();
    const token = locks.acquire('l1', 100, 1000) as string;
    expect(token).toMatch(/^[\w-]{22}$/);
    expect(locks.acquire('l1', 100, 1099)).toBeUndefined();
    locks.release('l1', 'wrong');
    expect(locks.acquire('l1', 100, 1050)).toBeUndefined();
    const next = locks.acquire('l1', 100, 1100) as string;
    expect(next).toBeDefined();
    locks.release('l1', token);
    expect(locks.acquire('l1', 100, 1150)).toBeUndefined();
    locks.release('l1', next);
    expect(locks.acquire('l1', 100, 1150)).toBeDefined();
  });
});
