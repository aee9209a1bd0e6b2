import { describe, expect, it } from 'vitest';
import { cacheEntryBytes, LockTable, LruCache } from './memory-cache.ts';

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
    const big = 'x'.repeat(Math.floor(small * 2.5) - 400);
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

  it('frees an evicted or overwritten value at once, not at the next garbage collection', () => {
    // One string for every write: no heap churn, so no collection happens during the loop.
    const value = 'x'.repeat(100_000);
    const cache = new LruCache(cacheEntryBytes('k000', value) * 10);
    const before = process.memoryUsage().arrayBuffers;
    for (let index = 0; index < 200; index += 1)
      cache.set(`k${String(index).padStart(3, '0')}`, value, 60_000);
    for (let index = 190; index < 200; index += 1) cache.set(`k${index}`, value, 60_000);
    // The ten held, not the two hundred written.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(value.length * 12);
    cache.clear();
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(value.length);
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
