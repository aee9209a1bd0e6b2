import { describe, expect, it } from 'vitest';
import { makeApiKey, makeTenant } from '../../test/contract/config-fixtures.ts';
import { describeConfigViewContract } from '../../test/contract/config-view-contract.ts';
import { ConfigView } from './config-view.ts';
import { MemoryConfigStore } from './memory-config-store.ts';
import type { ConfigRecordMap } from './records.ts';
import type { ConfigChange, ConfigSnapshot, ConfigStore, Unsubscribe } from './types.ts';

describeConfigViewContract('memory', () => {
  const store = new MemoryConfigStore();
  return { open: async () => store };
});

/**
 * A memory store whose feed can be muted (writes then happen silently, as while a subscriber is
 * disconnected), told to announce `reset`, or made to fail reads.
 */
class ControllableStore implements ConfigStore {
  readonly inner = new MemoryConfigStore();
  muted = false;
  failingReads = 0;
  readonly #listeners = new Set<(change: ConfigChange) => void>();

  async get<K extends keyof ConfigRecordMap>(kind: K, id: string) {
    if (this.failingReads > 0) {
      this.failingReads -= 1;
      throw new Error('read failed');
    }
    return this.inner.get(kind, id);
  }
  list<K extends keyof ConfigRecordMap>(kind: K) {
    return this.inner.list(kind);
  }
  async snapshot(): Promise<ConfigSnapshot> {
    if (this.failingReads > 0) {
      this.failingReads -= 1;
      throw new Error('snapshot failed');
    }
    return this.inner.snapshot();
  }
  async put<K extends keyof ConfigRecordMap>(kind: K, id: string, record: ConfigRecordMap[K]) {
    await this.inner.put(kind, id, record);
    if (!this.muted) this.announce({ op: 'put', kind, id });
  }
  async delete(kind: keyof ConfigRecordMap, id: string) {
    await this.inner.delete(kind, id);
    if (!this.muted) this.announce({ op: 'delete', kind, id });
  }
  /** Built unless a test says otherwise (undefined: wiped, or never built). */
  epoch: string | undefined = 'built';
  async getEpoch() {
    return this.epoch;
  }
  async setEpoch(epoch: string) {
    this.epoch = epoch;
  }
  async watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe> {
    this.#listeners.add(listener);
    return async () => {
      this.#listeners.delete(listener);
    };
  }
  announce(change: ConfigChange): void {
    for (const listener of this.#listeners) queueMicrotask(() => listener(change));
  }
  close() {
    return this.inner.close();
  }
}

describe('ConfigView', () => {
  it('reloads everything on reset, including writes it was never told about', async () => {
    const store = new ControllableStore();
    const view = await ConfigView.start(store);
    store.muted = true;
    await store.put('tenant', 't1', makeTenant('t1'));
    await store.put('apiKey', 'k1', makeApiKey('k1'));
    expect(view.tenant('t1')).toBeUndefined();

    const resets: ConfigChange[] = [];
    view.onChange((change) => resets.push(change));
    store.announce({ op: 'reset' });
    await view.whenApplied('apiKey', 'k1', (record) => record !== undefined, 5000);
    expect(view.tenant('t1')).toEqual(makeTenant('t1'));
    expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
    expect(resets).toEqual([{ op: 'reset' }]);
    await view.close();
  });

  it('forgets records deleted while it was not told, on reset', async () => {
    const store = new ControllableStore();
    await store.put('apiKey', 'k1', makeApiKey('k1'));
    const view = await ConfigView.start(store);
    store.muted = true;
    await store.delete('apiKey', 'k1');
    store.announce({ op: 'reset' });
    await view.whenApplied('apiKey', 'k1', (record) => record === undefined, 5000);
    expect(view.apiKeyByHash('hash-of-k1')).toBeUndefined();
    await view.close();
  });

  it('recovers from failed reads by reloading, and reports them', async () => {
    const store = new ControllableStore();
    const errors: unknown[] = [];
    const view = await ConfigView.start(store, { onError: (error) => errors.push(error), retryDelayMs: 1 });
    // The re-read of the put fails, then the first reload too; the second reload succeeds.
    store.failingReads = 2;
    await store.put('tenant', 't1', makeTenant('t1'));
    await view.whenApplied('tenant', 't1', (record) => record !== undefined, 5000);
    expect(errors.map((error) => (error as Error).message)).toEqual(['read failed', 'snapshot failed']);
    await view.close();
  });

  it('fails to start when the first snapshot fails, and leaves no subscription behind', async () => {
    const store = new ControllableStore();
    store.failingReads = 1;
    await expect(ConfigView.start(store)).rejects.toThrow('snapshot failed');
    const view = await ConfigView.start(store);
    await store.put('tenant', 't1', makeTenant('t1'));
    await view.whenApplied('tenant', 't1', (record) => record !== undefined, 5000);
    await view.close();
  });

  it('reads each changed record once per batch of changes', async () => {
    const store = new ControllableStore();
    const view = await ConfigView.start(store);
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (async (kind: keyof ConfigRecordMap, id: string) => {
      reads += 1;
      return get(kind, id);
    }) as ControllableStore['get'];
    store.muted = true;
    await store.put('tenant', 't1', makeTenant('t1', { displayName: 'final' }));
    for (let index = 0; index < 5; index += 1) store.announce({ op: 'put', kind: 'tenant', id: 't1' });
    await view.whenApplied('tenant', 't1', (record) => record?.displayName === 'final', 5000);
    expect(reads).toBe(1);
    await view.close();
  });

  it('keeps serving what it knew while the store comes back empty, until it is rebuilt', async () => {
    const store = new ControllableStore();
    await store.put('apiKey', 'k1', makeApiKey('k1'));
    const view = await ConfigView.start(store, { rebuildPollMs: 5 });
    expect(view.populated).toBe(true);
    // Redis restarted without its data: the records and the epoch are gone, the feed reconnects.
    store.muted = true;
    await store.delete('apiKey', 'k1');
    store.epoch = undefined;
    store.announce({ op: 'reset' });
    const reloaded = new Promise<void>((resolve) =>
      view.onChange((change) => change.op === 'reset' && resolve()),
    );
    // The key stays valid while the store is empty...
    await new Promise((resolve) => setImmediate(resolve));
    expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
    // ...and the rebuilt store (its records, then its epoch) replaces the view.
    await store.put('apiKey', 'k2', makeApiKey('k2'));
    store.epoch = 'rebuilt';
    await reloaded;
    expect(view.apiKeyByHash('hash-of-k2')?.id).toBe('k2');
    expect(view.apiKeyByHash('hash-of-k1')).toBeUndefined();
    await view.close();
  });

  it('starts unpopulated on a store that was never built, and fills once it is', async () => {
    const store = new ControllableStore();
    store.epoch = undefined;
    await store.put('apiKey', 'k1', makeApiKey('k1'));
    const view = await ConfigView.start(store, { rebuildPollMs: 5 });
    expect(view.populated).toBe(false);
    expect(view.apiKeyByHash('hash-of-k1')).toBeUndefined();
    const filled = new Promise<void>((resolve) =>
      view.onChange((change) => change.op === 'reset' && resolve()),
    );
    store.epoch = 'built';
    await filled;
    expect(view.populated).toBe(true);
    expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
    await view.close();
  });

  it('keeps working when an onChange listener throws', async () => {
    const store = new ControllableStore();
    const errors: unknown[] = [];
    const view = await ConfigView.start(store, { onError: (error) => errors.push(error) });
    view.onChange(() => {
      throw new Error('listener bug');
    });
    await store.put('tenant', 't1', makeTenant('t1'));
    await view.whenApplied('tenant', 't1', (record) => record !== undefined, 5000);
    await store.put('tenant', 't2', makeTenant('t2'));
    await view.whenApplied('tenant', 't2', (record) => record !== undefined, 5000);
    expect(errors).toHaveLength(2);
    await view.close();
  });
});
