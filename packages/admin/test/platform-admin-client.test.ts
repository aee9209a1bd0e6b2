import { describe, expect, it } from 'vitest';
import { ADMIN_DOCUMENTS, PlatformAdminClient } from '../src/index.ts';
import { data, fakeFetch } from './fake-fetch.ts';

const URL = 'http://control.test:8081';
const ADMIN_PAT = 'tt_pat_platform-admin-0123456789';

type Call = (client: PlatformAdminClient) => Promise<unknown>;

const CASES: [string, Call, string, Record<string, unknown>, string][] = [
  ['listOrganizations', (c) => c.listOrganizations(), 'AdminOrganizations', {}, 'organizations'],
  [
    'listOrganizations paged',
    (c) => c.listOrganizations({ topLevelOnly: true, limit: 10, after: 'acme' }),
    'AdminOrganizations',
    { topLevelOnly: true, limit: 10, after: 'acme' },
    'organizations',
  ],
  [
    'getOrganization',
    (c) => c.getOrganization('acme-labs'),
    'AdminOrganization',
    { slug: 'acme-labs' },
    'organization',
  ],
  ['getTenant', (c) => c.getTenant('t1'), 'AdminTenant', { id: 't1' }, 'tenant'],
  ['getTenantTree', (c) => c.getTenantTree(), 'AdminTenantTree', {}, 'tenantTree'],
  [
    'suspendTenant',
    (c) => c.suspendTenant({ id: 't1', reason: 'abuse' }),
    'AdminSuspendTenant',
    { id: 't1', reason: 'abuse' },
    'suspendTenant',
  ],
  ['resumeTenant', (c) => c.resumeTenant('t1'), 'AdminResumeTenant', { id: 't1' }, 'resumeTenant'],
  [
    'topUpBalance',
    (c) => c.topUpBalance({ tenantId: 't1', amountMicros: 20_000_000 }),
    'AdminTopUpBalance',
    { tenantId: 't1', amountMicros: 20_000_000 },
    'topUpBalance',
  ],
];

describe('PlatformAdminClient', () => {
  it.each(CASES)(
    '%s sends its operation to /admin/graphql and returns the root field',
    async (_name, call, operation, variables, field) => {
      const fake = fakeFetch(data({ [field]: { marker: operation } }));
      const client = new PlatformAdminClient({ url: URL, token: ADMIN_PAT, fetch: fake.fetch });
      await expect(call(client)).resolves.toEqual({ marker: operation });
      expect(fake.last.url).toBe(`${URL}/admin/graphql`);
      expect(fake.last.headers.authorization).toBe(`Bearer ${ADMIN_PAT}`);
      expect(fake.last.body.operationName).toBe(operation);
      expect(fake.last.body.variables).toEqual(variables);
      expect(fake.last.body.query).toBe(
        ADMIN_DOCUMENTS.find((document) => document.operationName === operation)?.query,
      );
    },
  );

  it('has a method for every /admin/graphql document', () => {
    const covered = new Set(CASES.map((entry) => entry[2]));
    expect(
      ADMIN_DOCUMENTS.map((document) => document.operationName).filter((name) => !covered.has(name)),
    ).toEqual([]);
  });

  it('returns null for an organisation that does not exist', async () => {
    const fake = fakeFetch(data({ organization: null }));
    const client = new PlatformAdminClient({ url: URL, token: ADMIN_PAT, fetch: fake.fetch });
    await expect(client.getOrganization('nobody')).resolves.toBeNull();
  });

  it('needs a token', () => {
    expect(() => new PlatformAdminClient({ url: URL, token: '' })).toThrow(TypeError);
  });
});
