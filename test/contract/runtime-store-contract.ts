/** The behaviour every RuntimeStore implementation must show (run against memory and Redis). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RuntimeStore } from '../../src/stores/types.ts';
import { type CreateStoreScope, ScopeTracker } from './store-scope.ts';

export function describeRuntimeStoreContract(
  name: string,
  createScope: CreateStoreScope<RuntimeStore>,
): void {
  describe(`RuntimeStore contract (${name})`, () => {
    const scope = new ScopeTracker(createScope);
    let store: RuntimeStore;

    beforeEach(async () => {
      store = await scope.begin();
    });
    afterEach(async () => {
      await scope.end();
    });

    it('has no balance for a tenant never set', async () => {
      expect(await store.getBalance('t1')).toBeUndefined();
    });

    it('initialises a balance only once', async () => {
      expect(await store.initBalance('t1', 5_000_000)).toBe(true);
      expect(await store.initBalance('t1', 9_000_000)).toBe(false);
      expect(await store.getBalance('t1')).toBe(5_000_000);
    });

    it('adjusts a balance and returns the new value, below zero too', async () => {
      await store.initBalance('t1', 1000);
      expect(await store.adjustBalance('t1', -400)).toBe(600);
      expect(await store.adjustBalance('t1', -700)).toBe(-100);
      expect(await store.adjustBalance('t1', 50)).toBe(-50);
      expect(await store.getBalance('t1')).toBe(-50);
      expect(await store.getBalance('t2')).toBeUndefined();
    });

    it('adjusts a balance never initialised from zero', async () => {
      expect(await store.adjustBalance('t1', -25)).toBe(-25);
    });

    it('applies 100 concurrent adjustments from two stores atomically', async () => {
      const other = await scope.open();
      await store.initBalance('t1', 1_000_000);
      const deltas = Array.from({ length: 100 }, (_, index) => -(index + 1));
      const results = await Promise.all(
        deltas.map((delta, index) => (index % 2 === 0 ? store : other).adjustBalance('t1', delta)),
      );
      const expected = 1_000_000 - deltas.reduce((sum, delta) => sum - delta, 0);
      expect(await store.getBalance('t1')).toBe(expected);
      // Each adjustment saw a distinct intermediate balance: none was lost or applied twice.
      expect(new Set(results).size).toBe(100);
      expect(Math.min(...results)).toBe(expected);
    });

    it('rejects amounts that are not integers with a TypeError', async () => {
      await expect(store.initBalance('t1', 1.5)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', 0.1)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', Number.NaN)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', 2 ** 60)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 0.5)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 1, 0)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 1, 1.5)).rejects.toBeInstanceOf(TypeError);
      expect(await store.getBalance('t1')).toBeUndefined();
      expect(await store.getCounter('c')).toBe(0);
    });

    it('counts without a TTL durably', async () => {
      expect(await store.getCounter('spend:t1')).toBe(0);
      expect(await store.incrementCounter('spend:t1', 5)).toBe(5);
      expect(await store.incrementCounter('spend:t1', 7)).toBe(12);
      expect(await store.incrementCounter('spend:t1', -2)).toBe(10);
      expect(await store.getCounter('spend:t1')).toBe(10);
      expect(await store.getCounter('spend:t2')).toBe(0);
    });

    it('applies 100 concurrent increments from two stores atomically', async () => {
      const other = await scope.open();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          (index % 2 === 0 ? store : other).incrementCounter('n', 1, 60),
        ),
      );
      expect(new Set(results).size).toBe(100);
      expect(await store.getCounter('n')).toBe(100);
    });

    it('expires a TTL counter after the TTL set by its first increment', async () => {
      expect(await store.incrementCounter('window', 3, 1)).toBe(3);
      // A later, longer TTL does not extend the window (EXPIRE NX); nor does an increment without one.
      expect(await store.incrementCounter('window', 4, 3600)).toBe(7);
      expect(await store.incrementCounter('window', 1)).toBe(8);
      expect(await store.getCounter('window')).toBe(8);
      await vi.waitFor(async () => expect(await store.getCounter('window')).toBe(0), {
        timeout: 3000,
        interval: 100,
      });
      expect(await store.incrementCounter('window', 2, 60)).toBe(2);
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
