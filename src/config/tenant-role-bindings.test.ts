import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './settings.ts';

const load = (value?: string) =>
  loadSettings(value === undefined ? {} : { OPERATOR_TENANT_ROLE_BINDINGS: value }, ['openai']).operator
    .tenantRoleBindings;

describe('OPERATOR_TENANT_ROLE_BINDINGS', () => {
  it('is empty when unset: the operator binds nothing', () => {
    expect(load()).toEqual([]);
    expect(load(' ')).toEqual([]);
  });

  it('reads <clusterRole>=<namespace>/<serviceAccount> entries, comma-separated', () => {
    expect(
      load(
        'ig-controlplane-tenant=gateway-system/ig-controlplane, ig-operator-tenant=gateway-system/ig-operator',
      ),
    ).toEqual([
      {
        clusterRole: 'ig-controlplane-tenant',
        serviceAccount: { namespace: 'gateway-system', name: 'ig-controlplane' },
      },
      {
        clusterRole: 'ig-operator-tenant',
        serviceAccount: { namespace: 'gateway-system', name: 'ig-operator' },
      },
    ]);
  });

  it('refuses an entry that is not three Kubernetes names, naming it', () => {
    for (const value of [
      'ig-role',
      'ig-role=ns',
      'ig-role=/sa',
      'Role=ns/sa',
      'role=ns/sa/x',
      'role=n_s/sa',
    ]) {
      expect(() => load(value), value).toThrow(SettingsError);
      expect(() => load(value), value).toThrow(value);
    }
  });

  it('refuses one ClusterRole named twice (it is also the RoleBinding name)', () => {
    expect(() => load('role=ns/a,role=ns/b')).toThrow(/'role' is named twice/);
  });
});
