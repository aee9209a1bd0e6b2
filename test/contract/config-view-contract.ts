/** The ConfigView's behaviour over a real store's change feed (run against memory and Redis). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigPropagationTimeoutError, ConfigView } from '../../src/stores/config-view.ts';
import type { ConfigChange, ConfigStore } from '../../src/stores/types.ts';
import {
  makeApiKey,
  makeConnection,
  makeModelRoute,
  makePat,
  makePolicy,
  makeProvisioningKey,
  makeTenant,
} from './config-fixtures.ts';
import { type CreateStoreScope, ScopeTracker } from './store-scope.ts';

const PROPAGATION_MS = 5000;
const isPresent = (record: unknown) => record !== undefined;
const isAbsent = (record: unknown) => record === undefined;

export function describeConfigViewContract(name: string, createScope: CreateStoreScope<ConfigStore>): void {
  describe(`ConfigView (${name})`, () => {
    const scope = new ScopeTracker(createScope);
    let store: ConfigStore;
    const views: ConfigView[] = [];

    async function startView(over: ConfigStore = store): Promise<ConfigView> {
      // A built store: the reconciler sets the epoch after a full sync.
      if ((await over.getEpoch()) === undefined) await over.setEpoch('test-epoch');
      const view = await ConfigView.start(over);
      views.push(view);
      return view;
    }

    beforeEach(async () => {
      store = await scope.begin();
    });
    afterEach(async () => {
      await Promise.all(views.splice(0).map((view) => view.close()));
      await scope.end();
    });

    it('answers from the snapshot it started with', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      await store.put('pat', 'p1', makePat('p1'));
      await store.put('provisioningKey', 'pk1', makeProvisioningKey('pk1'));
      await store.put('connection', 'c1', makeConnection('c1', { slug: 'mine' }));
      const view = await startView();
      expect(view.tenant('t1')).toEqual(makeTenant('t1'));
      expect(view.apiKey('k1')).toEqual(makeApiKey('k1'));
      expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
      expect(view.patByHash('hash-of-p1')?.id).toBe('p1');
      expect(view.provisioningKeyByHash('hash-of-pk1')?.id).toBe('pk1');
      expect(view.connectionBySlug('t1', 'mine')?.id).toBe('c1');
      expect(view.connectionBySlug('t2', 'mine')).toBeUndefined();
      expect(view.connectionsOfTenant('t1').map((connection) => connection.id)).toEqual(['c1']);
      expect(view.connectionsOfTenant('t2')).toEqual([]);
      expect(view.list('tenant')).toEqual([makeTenant('t1')]);
      expect(view.tenant('t2')).toBeUndefined();
      expect(view.apiKeyByHash('hash-of-nothing')).toBeUndefined();
    });

    it('applies a put from the feed, and whenApplied resolves once it is visible', async () => {
      const view = await startView();
      const applied = view.whenApplied('apiKey', 'k1', isPresent, PROPAGATION_MS);
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      expect(await applied).toEqual(makeApiKey('k1'));
      expect(view.apiKeyByHash('hash-of-k1')?.id).toBe('k1');
    });

    it('re-indexes a record whose hash changed', async () => {
      await store.put('apiKey', 'k1', makeApiKey('k1', { hash: 'old' }));
      const view = await startView();
      await store.put('apiKey', 'k1', makeApiKey('k1', { hash: 'new' }));
      await view.whenApplied('apiKey', 'k1', (record) => record?.hash === 'new', PROPAGATION_MS);
      expect(view.apiKeyByHash('old')).toBeUndefined();
      expect(view.apiKeyByHash('new')?.id).toBe('k1');
    });

    it('drops a deleted record from every index', async () => {
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      await store.put('connection', 'c1', makeConnection('c1'));
      await store.put('connection', 'c2', makeConnection('c2'));
      const view = await startView();
      await store.delete('apiKey', 'k1');
      await store.delete('connection', 'c1');
      await view.whenApplied('apiKey', 'k1', isAbsent, PROPAGATION_MS);
      await view.whenApplied('connection', 'c1', isAbsent, PROPAGATION_MS);
      expect(view.apiKey('k1')).toBeUndefined();
      expect(view.apiKeyByHash('hash-of-k1')).toBeUndefined();
      expect(view.connectionBySlug('t1', 'c1')).toBeUndefined();
      expect(view.connectionsOfTenant('t1').map((connection) => connection.id)).toEqual(['c2']);
    });

    it('moves a connection between tenants when its tenant changes', async () => {
      await store.put('connection', 'c1', makeConnection('c1', { tenantId: 't1', slug: 's' }));
      const view = await startView();
      await store.put('connection', 'c1', makeConnection('c1', { tenantId: 't2', slug: 's' }));
      await view.whenApplied('connection', 'c1', (record) => record?.tenantId === 't2', PROPAGATION_MS);
      expect(view.connectionBySlug('t1', 's')).toBeUndefined();
      expect(view.connectionsOfTenant('t1')).toEqual([]);
      expect(view.connectionBySlug('t2', 's')?.id).toBe('c1');
    });

    it('prefers the workspace policy over the tenant-wide one of the same name', async () => {
      const tenantWide = makePolicy('t1', undefined, 'default', { ttlSeconds: 10 });
      const ownWorkspace = makePolicy('t1', 'ws-a', 'default', { ttlSeconds: 20 });
      await store.put('cachePolicy', tenantWide.id, tenantWide.record);
      await store.put('cachePolicy', ownWorkspace.id, ownWorkspace.record);
      const view = await startView();
      expect(view.cachePolicy('t1', 'ws-a', 'default')?.ttlSeconds).toBe(20);
      expect(view.cachePolicy('t1', 'ws-b', 'default')?.ttlSeconds).toBe(10);
      expect(view.cachePolicy('t1', undefined, 'default')?.ttlSeconds).toBe(10);
      expect(view.cachePolicy('t1', 'ws-a', 'other')).toBeUndefined();
      expect(view.cachePolicy('t2', 'ws-a', 'default')).toBeUndefined();

      await store.delete('cachePolicy', ownWorkspace.id);
      await view.whenApplied('cachePolicy', ownWorkspace.id, isAbsent, PROPAGATION_MS);
      expect(view.cachePolicy('t1', 'ws-a', 'default')?.ttlSeconds).toBe(10);
      await store.delete('cachePolicy', tenantWide.id);
      await view.whenApplied('cachePolicy', tenantWide.id, isAbsent, PROPAGATION_MS);
      expect(view.cachePolicy('t1', 'ws-a', 'default')).toBeUndefined();
    });

    it('finds a model route: the workspace one, else the tenant-wide one, else a shared platform one', async () => {
      const tenantWide = makeModelRoute('t1', undefined, 'chat', { firstByteTimeoutMs: 1 });
      const ownWorkspace = makeModelRoute('t1', 'ws-a', 'chat', { firstByteTimeoutMs: 2 });
      const shared = makeModelRoute('platform', undefined, 'chat', { firstByteTimeoutMs: 3, shared: true });
      const unshared = makeModelRoute('platform', undefined, 'private', { firstByteTimeoutMs: 4 });
      for (const { id, record } of [tenantWide, ownWorkspace, shared, unshared]) {
        await store.put('modelRoute', id, record);
      }
      const view = await startView();
      expect(view.modelRoute('t1', 'ws-a', 'chat')?.firstByteTimeoutMs).toBe(2);
      expect(view.modelRoute('t1', 'ws-b', 'chat')?.firstByteTimeoutMs).toBe(1);
      expect(view.modelRoute('t2', 'ws-a', 'chat')?.firstByteTimeoutMs).toBe(3);
      expect(view.modelRoute('t2', undefined, 'private')).toBeUndefined();
      expect(view.modelRoute('platform', undefined, 'private')?.firstByteTimeoutMs).toBe(4);
      expect(view.modelRoute('t1', 'ws-a', 'openai/gpt-4o-mini')).toBeUndefined();

      await store.delete('modelRoute', shared.id);
      await view.whenApplied('modelRoute', shared.id, isAbsent, PROPAGATION_MS);
      expect(view.modelRoute('t2', 'ws-a', 'chat')).toBeUndefined();
      await store.delete('modelRoute', ownWorkspace.id);
      await view.whenApplied('modelRoute', ownWorkspace.id, isAbsent, PROPAGATION_MS);
      expect(view.modelRoute('t1', 'ws-a', 'chat')?.firstByteTimeoutMs).toBe(1);
    });

    it('resolves whenApplied at once when the view already satisfies it', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      const view = await startView();
      await expect(view.whenApplied('tenant', 't1', isPresent, 0)).resolves.toEqual(makeTenant('t1'));
      await expect(view.whenApplied('tenant', 'gone', isAbsent, 0)).resolves.toBeUndefined();
    });

    it('rejects whenApplied with a timeout error when the change never arrives', async () => {
      const view = await startView();
      await expect(view.whenApplied('tenant', 'never', isPresent, 20)).rejects.toBeInstanceOf(
        ConfigPropagationTimeoutError,
      );
    });

    it('counts applied changes in version and tells onChange listeners', async () => {
      const view = await startView();
      const heard: ConfigChange[] = [];
      view.onChange((change) => heard.push(change));
      const before = view.version;
      await store.put('tenant', 't1', makeTenant('t1'));
      await view.whenApplied('tenant', 't1', isPresent, PROPAGATION_MS);
      await store.delete('tenant', 't1');
      await view.whenApplied('tenant', 't1', isAbsent, PROPAGATION_MS);
      expect(view.version).toBe(before + 2);
      expect(heard).toEqual([
        { op: 'put', kind: 'tenant', id: 't1' },
        { op: 'delete', kind: 'tenant', id: 't1' },
      ]);
    });

    it('hands out frozen records, so no caller can change the view', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      const view = await startView();
      const tenant = view.tenant('t1')!;
      expect(() => {
        tenant.displayName = 'changed';
      }).toThrow(TypeError);
      expect(() => tenant.workspaces.push({ id: 'x', name: 'x' })).toThrow(TypeError);
    });

    it('sees changes written through another store on the same backend', async () => {
      const writer = await scope.open();
      const view = await startView();
      await writer.put('pat', 'p1', makePat('p1'));
      await view.whenApplied('pat', 'p1', isPresent, PROPAGATION_MS);
      expect(view.patByHash('hash-of-p1')?.id).toBe('p1');
    });

    it('stops following the feed when closed, and rejects pending waits', async () => {
      const view = await startView();
      const rejected = expect(view.whenApplied('tenant', 't1', isPresent, PROPAGATION_MS)).rejects.toThrow(
        /closed/,
      );
      await view.close();
      await rejected;
      await store.put('tenant', 't1', makeTenant('t1'));
      const probe = await startView();
      await probe.whenApplied('tenant', 't1', isPresent, PROPAGATION_MS);
      expect(view.tenant('t1')).toBeUndefined();
    });
  });
}
