import { describe, expect, it } from 'vitest';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import type { CacheScopeState } from '../stores/types.ts';
import { CacheScopeMirror } from './scope-mirror.ts';

/** A memory store whose workspace loads wait until released, so events can arrive meanwhile. */
class SlowLoadingStore extends MemoryRuntimeStore {
  #release: (() => void) | undefined;
  loads = 0;

  override async loadCacheScope(workspaceId: string): Promise<CacheScopeState> {
    this.loads++;
    const snapshot = await super.loadCacheScope(workspaceId);
    await new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    return snapshot;
  }

  release(): void {
    this.#release?.();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CacheScopeMirror', () => {
  it('keeps a purge and a revalidation announced while the workspace was being loaded', async () => {
    const store = new SlowLoadingStore();
    const mirror = new CacheScopeMirror(store);
    await mirror.start();
    const loading = mirror.scope('ws1');
    await tick();
    // The snapshot is taken; these arrive before the load completes.
    await store.purgeCache('ws1');
    await store.invalidateCacheTags('ws1', ['docs'], 1234);
    await tick();
    store.release();
    const scope = await loading;
    expect(scope.generation).toBe(1);
    expect(scope.tags.get('docs')).toBe(1234);
    // Remembered: the next call reads the mirror, not the store.
    expect(await mirror.scope('ws1')).toBe(scope);
    expect(store.loads).toBe(1);
    await mirror.close();
    await store.close();
  });

  it('follows purges and revalidations of a loaded workspace from the feed', async () => {
    const store = new MemoryRuntimeStore();
    const mirror = new CacheScopeMirror(store);
    await mirror.start();
    const scope = await mirror.scope('ws1');
    await store.purgeCache('ws1', 'team-a');
    await store.invalidateCacheTags('ws1', ['a', 'b'], 99);
    await tick();
    expect(scope.namespaces.get('team-a')).toBe(1);
    expect([...scope.tags]).toEqual([
      ['a', 99],
      ['b', 99],
    ]);
    await mirror.close();
    await store.close();
  });
});
