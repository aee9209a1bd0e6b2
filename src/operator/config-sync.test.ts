import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretSealer } from '../auth/secret-box.ts';
import { LocalResources } from '../resources/local-resources.ts';
import {
  API_VERSION,
  type ConnectionResource,
  type SecretResource,
  type TenantResource,
} from '../resources/types.ts';
import { MemoryConfigStore } from '../stores/memory-config-store.ts';
import type { ConfigKind, ConfigRecordMap } from '../stores/records.ts';
import type { ConfigChange } from '../stores/types.ts';
import { LocalReconciler, syncConfigStore } from './config-sync.ts';
import { computeDesiredConfig, type DesiredConfigInput } from './desired-config.ts';

const sealer = createSecretSealer(randomBytes(32));

const tenant = (name = 'acme', displayName = 'Acme'): TenantResource => ({
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name },
  spec: { displayName, workspaces: [{ id: 'main', name: 'Main' }] },
});

const connection = (name: string): ConnectionResource => ({
  apiVersion: API_VERSION,
  kind: 'Connection',
  metadata: { name, namespace: 'tenant-acme' },
  spec: { provider: 'openai', secretRef: { name: 'openai-key' } },
});

const secret = (name: string, stringData: Record<string, string>, credential?: string): SecretResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace: 'tenant-acme',
    ...(credential ? { labels: { 'gateway.service.io/credential': credential } } : {}),
  },
  data: Object.fromEntries(
    Object.entries(stringData).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
});

const HASH = 'c'.repeat(64);
const baseInput = (): DesiredConfigInput => ({
  tenants: [tenant()],
  cachePolicies: [
    {
      apiVersion: API_VERSION,
      kind: 'CachePolicy',
      metadata: { name: 'docs', namespace: 'tenant-acme' },
      spec: {},
    },
  ],
  connections: [connection('main')],
  secrets: [
    secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' }),
    secret('k', { id: 'key_1', hash: HASH, workspace: 'main' }, 'api-key'),
  ],
});

/** Counts the changes the store announces. */
async function watchChanges(store: MemoryConfigStore): Promise<ConfigChange[]> {
  const changes: ConfigChange[] = [];
  await store.watch((change) => changes.push(change));
  return changes;
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('syncConfigStore', () => {
  it('puts every desired record into an empty store and sets the epoch', async () => {
    const store = new MemoryConfigStore();
    const counts = await syncConfigStore(store, computeDesiredConfig(baseInput(), sealer).records, {
      epoch: 'e1',
    });
    expect(counts).toEqual({ put: 4, deleted: 0, unchanged: 0 });
    expect(await store.get('tenant', 'acme')).toMatchObject({ displayName: 'Acme' });
    expect(await store.get('connection', 'acme/main')).toMatchObject({ keyHint: 'sk-…1234' });
    expect(await store.getEpoch()).toBe('e1');
  });

  it('changes nothing on a second sync, although every seal differs', async () => {
    const store = new MemoryConfigStore();
    await syncConfigStore(store, computeDesiredConfig(baseInput(), sealer).records);
    const changes = await watchChanges(store);
    const again = computeDesiredConfig(baseInput(), sealer).records;
    expect(again.connection.get('acme/main')?.sealedSecret).not.toBe(
      (await store.get('connection', 'acme/main'))?.sealedSecret,
    );
    expect(await syncConfigStore(store, again)).toEqual({ put: 0, deleted: 0, unchanged: 4 });
    await settle();
    expect(changes).toEqual([]);
  });

  it('puts what changed and deletes what is no longer desired', async () => {
    const store = new MemoryConfigStore();
    await syncConfigStore(store, computeDesiredConfig(baseInput(), sealer).records);
    const stray: ConfigRecordMap['pat'] = {
      v: 1,
      id: 'pat_old',
      hash: HASH,
      tenantId: 'acme',
      permissions: [],
      admin: false,
      createdAt: '',
    };
    await store.put('pat', 'pat_old', stray);
    const changes = await watchChanges(store);

    const input = baseInput();
    input.tenants = [tenant('acme', 'Acme Inc')];
    input.cachePolicies = [];
    input.secrets = [
      secret('openai-key', { apiKey: 'sk-proj-rotated000000005678' }),
      ...input.secrets.slice(1),
    ];
    const counts = await syncConfigStore(store, computeDesiredConfig(input, sealer).records);

    expect(counts).toEqual({ put: 2, deleted: 2, unchanged: 1 });
    await settle();
    const seen = changes.map((change) =>
      change.op === 'reset' ? 'reset' : `${change.op} ${change.kind} ${change.id}`,
    );
    expect(seen.sort()).toEqual([
      'delete cachePolicy acme/*/docs',
      'delete pat pat_old',
      'put connection acme/main',
      'put tenant acme',
    ]);
    expect(await store.get('connection', 'acme/main')).toMatchObject({ keyHint: 'sk-…5678' });
    expect(sealer.unseal((await store.get('connection', 'acme/main'))?.sealedSecret ?? '')).toEqual({
      apiKey: 'sk-proj-rotated000000005678',
    });
  });
});

/** A memory store that can be wiped (as Redis restarted without persistence) and made to fail. */
class TestConfigStore extends MemoryConfigStore {
  snapshots = 0;
  failNextPuts = 0;
  #epochGone = false;
  #onEpoch: (() => void) | undefined;

  override async snapshot() {
    this.snapshots += 1;
    return super.snapshot();
  }

  override async put<K extends ConfigKind>(kind: K, id: string, record: ConfigRecordMap[K]): Promise<void> {
    if (this.failNextPuts > 0) {
      this.failNextPuts -= 1;
      throw new Error('store unavailable');
    }
    return super.put(kind, id, record);
  }

  async wipe(): Promise<void> {
    const snapshot = await super.snapshot();
    for (const [kind, records] of Object.entries(snapshot)) {
      for (const id of records.keys()) await super.delete(kind as ConfigKind, id);
    }
    this.#epochGone = true;
  }

  override async getEpoch(): Promise<string | undefined> {
    return this.#epochGone ? undefined : super.getEpoch();
  }

  override async setEpoch(epoch: string): Promise<void> {
    this.#epochGone = false;
    await super.setEpoch(epoch);
    this.#onEpoch?.();
  }

  nextEpoch(timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no epoch set in time')), timeoutMs);
      this.#onEpoch = () => {
        clearTimeout(timer);
        this.#onEpoch = undefined;
        resolve();
      };
    });
  }
}

describe('LocalReconciler', () => {
  const running: { resources: LocalResources; reconciler: LocalReconciler }[] = [];
  afterEach(async () => {
    for (const { resources, reconciler } of running.splice(0)) {
      await reconciler.stop();
      await resources.close();
    }
  });

  async function startReconciler(options: { epochCheckIntervalMs?: number; store?: TestConfigStore } = {}) {
    const resources = await LocalResources.open();
    const store = options.store ?? new TestConfigStore();
    const logged: string[] = [];
    const log = {
      warn: (_details: object, message: string) => void logged.push(message),
      error: (_details: object, message: string) => void logged.push(message),
    };
    const reconciler = new LocalReconciler({
      resources,
      store,
      sealing: sealer,
      log,
      retryBaseMs: 5,
      epochCheckIntervalMs: options.epochCheckIntervalMs ?? 60_000,
    });
    running.push({ resources, reconciler });
    return { resources, store, reconciler, logged };
  }

  it('syncs at start and after every change of the resources', async () => {
    const { resources, store, reconciler, logged } = await startReconciler();
    await resources.apply(tenant());
    await reconciler.start();
    expect(await store.get('tenant', 'acme')).toBeDefined();
    expect(await store.getEpoch()).toBeDefined();

    await resources.apply(connection('main'));
    await reconciler.synced();
    expect(await store.get('connection', 'acme/main')).toBeUndefined();
    expect(reconciler.problems()).toMatchObject([{ name: 'main', reason: 'SecretNotFound' }]);
    expect(logged).toContain('resource left out of the config store');

    await resources.apply(secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' }));
    await reconciler.synced();
    expect(await store.get('connection', 'acme/main')).toMatchObject({ slug: 'main' });
    expect(reconciler.problems()).toEqual([]);

    await resources.delete('Tenant', 'acme');
    await reconciler.synced();
    expect(await store.list('tenant')).toEqual([]);
    expect(await store.list('connection')).toEqual([]);
  });

  it('coalesces a burst of events into few syncs', async () => {
    const { resources, store, reconciler } = await startReconciler();
    await reconciler.start();
    const before = store.snapshots;
    await Promise.all(Array.from({ length: 20 }, (_, index) => resources.apply(tenant(`t${index}`))));
    await reconciler.synced();
    expect(await store.list('tenant')).toHaveLength(20);
    expect(store.snapshots - before).toBeLessThanOrEqual(2);
  });

  it('does not sync for a status-only change', async () => {
    const { resources, store, reconciler } = await startReconciler();
    await resources.apply(tenant());
    await reconciler.start();
    const before = store.snapshots;
    await resources.patchStatus('Tenant', 'acme', undefined, { observedGeneration: 1 });
    await reconciler.synced();
    expect(store.snapshots).toBe(before);
    await resources.apply(tenant('acme', 'Renamed'));
    await reconciler.synced();
    expect(store.snapshots).toBe(before + 1);
  });

  it('rebuilds a store that lost its epoch', async () => {
    const { resources, store, reconciler, logged } = await startReconciler({ epochCheckIntervalMs: 10 });
    await resources.apply(tenant());
    await reconciler.start();
    const rebuilt = store.nextEpoch();
    await store.wipe();
    await rebuilt;
    await reconciler.synced();
    expect(await store.get('tenant', 'acme')).toBeDefined();
    expect(logged).toContain('config store has no epoch (wiped?); rebuilding it');
  });

  it('retries a failed sync with backoff until it succeeds', async () => {
    const store = new TestConfigStore();
    store.failNextPuts = 3;
    const { resources, reconciler, logged } = await startReconciler({ store });
    await resources.apply(tenant());
    await reconciler.start();
    await reconciler.synced();
    expect(await store.get('tenant', 'acme')).toBeDefined();
    expect(logged.filter((message) => message === 'config sync failed; retrying')).toHaveLength(3);
  });

  it('rejects pending synced() calls when stopped', async () => {
    const store = new TestConfigStore();
    store.failNextPuts = 1_000;
    const { resources, reconciler } = await startReconciler({ store });
    await resources.apply(tenant());
    await reconciler.start();
    const waiting = reconciler.synced();
    await reconciler.stop();
    await expect(waiting).rejects.toThrow('the reconciler was stopped');
  });
});
