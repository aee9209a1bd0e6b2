import { describe, expect, it } from 'vitest';
import { makeTenant } from '../../test/contract/config-fixtures.ts';
import { describeConfigStoreContract } from '../../test/contract/config-store-contract.ts';
import { MemoryConfigStore } from './memory-config-store.ts';

describeConfigStoreContract('memory', () => {
  // Every store "opened" in one scope is the same instance: memory has no second process.
  const store = new MemoryConfigStore();
  return { open: async () => store };
});

describe('MemoryConfigStore', () => {
  it('reports a listener that threw to onError', async () => {
    const errors: unknown[] = [];
    const { promise: reported, resolve } = Promise.withResolvers<void>();
    const store = new MemoryConfigStore({
      onError: (error) => {
        errors.push(error);
        resolve();
      },
    });
    await store.watch(() => {
      throw new Error('listener bug');
    });
    await store.put('tenant', 't1', makeTenant('t1'));
    await reported;
    expect(errors).toEqual([new Error('listener bug')]);
  });

  it('announces nothing after close', async () => {
    const store = new MemoryConfigStore();
    let heard = 0;
    await store.watch(() => {
      heard += 1;
    });
    await store.close();
    await store.put('tenant', 't1', makeTenant('t1'));
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(heard).toBe(0);
  });
});
