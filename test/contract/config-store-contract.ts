/** The behaviour every ConfigStore implementation must show (run against memory and Redis). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TenantRecord } from '../../src/stores/records.ts';
import type { ConfigChange, ConfigStore } from '../../src/stores/types.ts';
import {
  isChange,
  makeApiKey,
  makeConnection,
  makePat,
  makePolicy,
  makeProvisioningKey,
  makeTenant,
  recordChanges,
} from './config-fixtures.ts';
import { type CreateStoreScope, ScopeTracker } from './store-scope.ts';

export function describeConfigStoreContract(name: string, createScope: CreateStoreScope<ConfigStore>): void {
  describe(`ConfigStore contract (${name})`, () => {
    const scope = new ScopeTracker(createScope);
    let store: ConfigStore;

    beforeEach(async () => {
      store = await scope.begin();
    });
    afterEach(async () => {
      await scope.end();
    });

    it('returns undefined for a record that was never put', async () => {
      expect(await store.get('tenant', 'missing')).toBeUndefined();
      expect(await store.list('tenant')).toEqual([]);
    });

    it('returns what was put, per kind and id', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      expect(await store.get('tenant', 't1')).toEqual(makeTenant('t1'));
      expect(await store.get('apiKey', 'k1')).toEqual(makeApiKey('k1'));
      expect(await store.get('apiKey', 't1')).toBeUndefined();
      expect(await store.get('pat', 'k1')).toBeUndefined();
    });

    it('overwrites a record on a second put', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.put('tenant', 't1', makeTenant('t1', { displayName: 'Renamed' }));
      expect((await store.get('tenant', 't1'))?.displayName).toBe('Renamed');
      expect(await store.list('tenant')).toHaveLength(1);
    });

    it('lists every record of one kind and none of the others', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.put('tenant', 't2', makeTenant('t2'));
      await store.put('pat', 'p1', makePat('p1'));
      const ids = (await store.list('tenant')).map((tenant) => tenant.id).sort();
      expect(ids).toEqual(['t1', 't2']);
    });

    it('deletes a record, and deleting an absent one is a no-op', async () => {
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.delete('tenant', 't1');
      expect(await store.get('tenant', 't1')).toBeUndefined();
      await expect(store.delete('tenant', 't1')).resolves.toBeUndefined();
    });

    it('snapshots every kind, keyed by id', async () => {
      const policy = makePolicy('t1', undefined, 'default');
      await store.put('tenant', 't1', makeTenant('t1'));
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      await store.put('pat', 'p1', makePat('p1'));
      await store.put('provisioningKey', 'pk1', makeProvisioningKey('pk1'));
      await store.put('cachePolicy', policy.id, policy.record);
      await store.put('connection', 'c1', makeConnection('c1'));
      const snapshot = await store.snapshot();
      expect(snapshot.tenant.get('t1')).toEqual(makeTenant('t1'));
      expect(snapshot.apiKey.get('k1')).toEqual(makeApiKey('k1'));
      expect(snapshot.pat.get('p1')).toEqual(makePat('p1'));
      expect(snapshot.provisioningKey.get('pk1')).toEqual(makeProvisioningKey('pk1'));
      expect(snapshot.cachePolicy.get(policy.id)).toEqual(policy.record);
      expect(snapshot.connection.get('c1')).toEqual(makeConnection('c1'));
      expect([...snapshot.tenant.keys()]).toEqual(['t1']);
    });

    it('snapshots an empty store as empty maps', async () => {
      const snapshot = await store.snapshot();
      for (const records of Object.values(snapshot)) expect(records.size).toBe(0);
    });

    it('keeps its state isolated from the objects callers hold', async () => {
      const written = makeTenant('t1');
      await store.put('tenant', 't1', written);
      written.displayName = 'changed after put';
      written.workspaces.push({ id: 'ws-x', name: 'X' });

      const read = (await store.get('tenant', 't1')) as TenantRecord;
      read.displayName = 'changed after get';
      read.workspaces.length = 0;
      const [listed] = (await store.list('tenant')) as TenantRecord[];
      listed!.workspaces.push({ id: 'ws-y', name: 'Y' });
      (await store.snapshot()).tenant.get('t1')!.strictByok = true;

      expect(await store.get('tenant', 't1')).toEqual(makeTenant('t1'));
    });

    it('refuses a record of another schema version and an unknown kind', async () => {
      const stale = { ...makeTenant('t1'), v: 2 } as unknown as TenantRecord;
      await expect(store.put('tenant', 't1', stale)).rejects.toBeInstanceOf(TypeError);
      await expect(store.put('nope' as 'tenant', 't1', makeTenant('t1'))).rejects.toBeInstanceOf(TypeError);
      await expect(store.put('tenant', '', makeTenant(''))).rejects.toBeInstanceOf(TypeError);
      expect(await store.get('tenant', 't1')).toBeUndefined();
    });

    it('has no epoch until one is set, then returns the latest', async () => {
      expect(await store.getEpoch()).toBeUndefined();
      await store.setEpoch('epoch-1');
      await store.setEpoch('epoch-2');
      expect(await store.getEpoch()).toBe('epoch-2');
    });

    it('announces puts and deletes to a watcher, in order', async () => {
      const recorder = await recordChanges(store);
      await store.put('apiKey', 'k1', makeApiKey('k1'));
      await store.delete('apiKey', 'k1');
      await recorder.waitFor(isChange('delete', 'apiKey', 'k1'));
      expect(recorder.changes).toEqual([
        { op: 'put', kind: 'apiKey', id: 'k1' },
        { op: 'delete', kind: 'apiKey', id: 'k1' },
      ]);
      await recorder.stop();
    });

    it('calls watch listeners asynchronously, never inside put', async () => {
      const heard: ConfigChange[] = [];
      const recorder = await recordChanges(store);
      await store.watch((change) => heard.push(change));
      const writing = store.put('tenant', 't1', makeTenant('t1'));
      expect(heard).toEqual([]);
      await writing;
      await recorder.waitFor(isChange('put', 'tenant', 't1'));
      await recorder.stop();
    });

    it('stops announcing to a watcher that unsubscribed, and keeps announcing to the others', async () => {
      const leaving = await recordChanges(store);
      const staying = await recordChanges(store);
      await leaving.stop();
      await store.put('tenant', 't1', makeTenant('t1'));
      await staying.waitFor(isChange('put', 'tenant', 't1'));
      expect(leaving.changes).toEqual([]);
      await staying.stop();
    });

    it('keeps announcing to the other watchers when one listener throws', async () => {
      await store.watch(() => {
        throw new Error('listener bug');
      });
      const recorder = await recordChanges(store);
      await store.put('tenant', 't1', makeTenant('t1'));
      await recorder.waitFor(isChange('put', 'tenant', 't1'));
      await recorder.stop();
    });

    it('shares records and changes between stores opened on the same backend', async () => {
      const other = await scope.open();
      const recorder = await recordChanges(other);
      await store.put('connection', 'c1', makeConnection('c1'));
      await recorder.waitFor(isChange('put', 'connection', 'c1'));
      expect(await other.get('connection', 'c1')).toEqual(makeConnection('c1'));
      await other.delete('connection', 'c1');
      expect(await store.get('connection', 'c1')).toBeUndefined();
      await recorder.stop();
    });
  });
}
