import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectionKeyHint } from '../auth/credential-hash.ts';
import { createSecretSealer } from '../auth/secret-box.ts';
import { desiredCachePolicyRecord } from '../resources/desired-records.ts';
import {
  API_VERSION,
  type CachePolicyResource,
  type ConnectionResource,
  CREDENTIAL_LABEL,
  type ModelRouteResource,
  type SecretResource,
  type TenantResource,
} from '../resources/types.ts';
import { cachePolicyId } from '../stores/records.ts';
import {
  computeDesiredConfig,
  type DesiredConfigInput,
  desiredConnectionRecord,
  desiredTenantRecords,
} from './desired-config.ts';

const sealer = createSecretSealer(randomBytes(32));
const HASH = 'a'.repeat(64);

const tenant = (name = 'acme', spec: Partial<TenantResource['spec']> = {}): TenantResource => ({
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name, creationTimestamp: '2025-01-01T00:00:00Z' },
  spec: { displayName: 'Acme', workspaces: [{ id: 'main', name: 'Main' }], ...spec },
});

const policy = (
  name: string,
  spec: CachePolicyResource['spec'] = {},
  namespace = 'tenant-acme',
  creationTimestamp = '2025-01-02T00:00:00Z',
): CachePolicyResource => ({
  apiVersion: API_VERSION,
  kind: 'CachePolicy',
  metadata: { name, namespace, creationTimestamp },
  spec,
});

const connection = (
  name: string,
  spec: Partial<ConnectionResource['spec']> = {},
  creationTimestamp = '2025-01-02T00:00:00Z',
): ConnectionResource => ({
  apiVersion: API_VERSION,
  kind: 'Connection',
  metadata: { name, namespace: 'tenant-acme', creationTimestamp },
  spec: { provider: 'openai', secretRef: { name: 'openai-key' }, ...spec },
});

const base64 = (values: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );

const secret = (
  name: string,
  values: Record<string, string>,
  options: { namespace?: string; credential?: string } = {},
): SecretResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace: options.namespace ?? 'tenant-acme',
    creationTimestamp: '2025-01-03T00:00:00Z',
    ...(options.credential ? { labels: { [CREDENTIAL_LABEL]: options.credential } } : {}),
  },
  data: base64(values),
});

const input = (overrides: Partial<DesiredConfigInput>): DesiredConfigInput => ({
  tenants: [tenant()],
  cachePolicies: [],
  connections: [],
  secrets: [],
  ...overrides,
});

describe('desiredTenantRecords', () => {
  it('maps a Tenant to its record with defaults and without absent fields', () => {
    const { tenant: record, problems } = desiredTenantRecords(tenant(), []);
    expect(problems).toEqual([]);
    expect(record).toStrictEqual({
      v: 1,
      id: 'acme',
      displayName: 'Acme',
      slug: 'acme',
      billingMode: 'delegated',
      strictByok: false,
      createdAt: '2025-01-01T00:00:00Z',
      workspaces: [{ id: 'main', name: 'Main' }],
    });
  });

  it('carries the slug in force, suspension and the referral', () => {
    const { tenant: record } = desiredTenantRecords(
      tenant('acme', { slug: 'acme-corp', suspended: true, referral: 'partner.x' }),
      [],
    );
    expect(record).toMatchObject({ slug: 'acme-corp', suspended: true, referral: 'partner.x' });
    expect(desiredTenantRecords(tenant('acme', { suspended: false }), []).tenant).not.toHaveProperty(
      'suspended',
    );
  });

  it('takes the parent from parentRef, and region and strictByok from the spec', () => {
    const { tenant: record } = desiredTenantRecords(
      tenant('child', { parentRef: { name: 'acme' }, region: 'eu', strictByok: true, referral: 'x' }),
      [],
    );
    expect(record).toMatchObject({ id: 'child', parentId: 'acme', region: 'eu', strictByok: true });
  });

  it('refuses pooled billing as not implemented', () => {
    const result = desiredTenantRecords(tenant('acme', { billingMode: 'pooled' }), []);
    expect(result.tenant).toBeUndefined();
    expect(result.problems).toMatchObject([{ kind: 'Tenant', name: 'acme', reason: 'NotImplemented' }]);
  });

  it('reads credential hashes from labelled Secrets in the tenant namespace', () => {
    const secrets = [
      secret(
        'k1',
        { id: 'key_1', hash: HASH, workspace: 'main', grants: 'chat:write', createdAt: 'T1' },
        { credential: 'api-key' },
      ),
      secret('k2', { id: 'key_2', hash: HASH, workspace: 'main' }, { credential: 'api-key' }),
      secret(
        'p1',
        { id: 'pat_1', hash: HASH, permissions: 'tokens:mint, keys:manage', admin: 'true' },
        { credential: 'pat' },
      ),
      secret('p2', { id: 'pat_2', hash: HASH }, { credential: 'pat' }),
      secret('v1', { id: 'prov_1', hash: HASH }, { credential: 'provisioning-key' }),
      secret(
        'elsewhere',
        { id: 'key_x', hash: HASH, workspace: 'main' },
        { credential: 'api-key', namespace: 'tenant-other' },
      ),
      secret('unlabelled', { id: 'key_y', hash: HASH, workspace: 'main' }),
    ];
    const result = desiredTenantRecords(tenant(), secrets, { platformTenant: 'acme' });
    expect(result.problems).toEqual([]);
    expect(result.apiKeys).toStrictEqual([
      {
        v: 1,
        id: 'key_1',
        hash: HASH,
        tenantId: 'acme',
        workspaceId: 'main',
        grants: ['chat:write'],
        createdAt: 'T1',
      },
      // No grants listed: a workspace key may call every route.
      {
        v: 1,
        id: 'key_2',
        hash: HASH,
        tenantId: 'acme',
        workspaceId: 'main',
        grants: ['chat:write', 'embed'],
        createdAt: '2025-01-03T00:00:00Z',
      },
    ]);
    expect(result.pats).toMatchObject([
      { id: 'pat_1', permissions: ['tokens:mint', 'keys:manage'], admin: true },
      { id: 'pat_2', permissions: [], admin: false },
    ]);
    expect(result.provisioningKeys).toMatchObject([{ id: 'prov_1', hash: HASH, tenantId: 'acme' }]);
  });

  it('leaves out credentials it cannot trust, with a reason', () => {
    const secrets = [
      secret('no-id', { hash: HASH }, { credential: 'pat' }),
      secret('bad-hash', { id: 'pat_1', hash: 'abc' }, { credential: 'pat' }),
      secret('no-workspace', { id: 'key_1', hash: HASH }, { credential: 'api-key' }),
      secret('other-workspace', { id: 'key_2', hash: HASH, workspace: 'nope' }, { credential: 'api-key' }),
    ];
    const result = desiredTenantRecords(tenant(), secrets);
    expect(result.pats).toEqual([]);
    expect(result.apiKeys).toEqual([]);
    expect(result.problems.map((problem) => `${problem.name}:${problem.reason}`)).toEqual([
      'no-id:InvalidCredential',
      'bad-hash:InvalidCredential',
      'no-workspace:InvalidCredential',
      'other-workspace:UnknownWorkspace',
    ]);
  });

  it('drops unknown grants and says so', () => {
    const secrets = [
      secret(
        'k',
        { id: 'key_1', hash: HASH, workspace: 'main', grants: 'embed,admin' },
        { credential: 'api-key' },
      ),
    ];
    const result = desiredTenantRecords(tenant(), secrets);
    expect(result.apiKeys[0]?.grants).toEqual(['embed']);
    expect(result.problems).toMatchObject([{ reason: 'UnknownGrant' }]);
  });

  describe('PAT Secrets', () => {
    const pat = (name: string, data: Record<string, string>, namespace?: string) =>
      secret(name, { id: `pat_${name}`, hash: HASH, ...data }, { credential: 'pat', namespace });

    it('publishes an admin PAT only in the platform tenant namespace', () => {
      const platform = desiredTenantRecords(
        tenant('platform'),
        [pat('root', { admin: 'true' }, 'tenant-platform')],
        {
          platformTenant: 'platform',
        },
      );
      expect(platform.problems).toEqual([]);
      expect(platform.pats).toMatchObject([{ id: 'pat_root', tenantId: 'platform', admin: true }]);

      const elsewhere = desiredTenantRecords(tenant('acme'), [pat('root', { admin: 'true' })], {
        platformTenant: 'platform',
      });
      expect(elsewhere.pats).toEqual([]);
      expect(elsewhere.problems).toMatchObject([
        { kind: 'Secret', name: 'root', namespace: 'tenant-acme', reason: 'AdminNotAllowed' },
      ]);
      expect(elsewhere.problems[0]?.message).toContain('tenant-platform');
    });

    it('publishes no admin PAT anywhere when no platform tenant is configured', () => {
      const result = desiredTenantRecords(tenant('acme'), [pat('root', { admin: 'true' })]);
      expect(result.pats).toEqual([]);
      expect(result.problems).toMatchObject([{ name: 'root', reason: 'AdminNotAllowed' }]);
    });

    it('still publishes a plain PAT anywhere', () => {
      const result = desiredTenantRecords(
        tenant('acme'),
        [pat('plain', { admin: 'false', permissions: 'billing:read' }), pat('bare', {})],
        { platformTenant: 'platform' },
      );
      expect(result.problems).toEqual([]);
      expect(result.pats).toMatchObject([
        { id: 'pat_plain', admin: false, permissions: ['billing:read'] },
        { id: 'pat_bare', admin: false, permissions: [] },
      ]);
    });

    it('leaves out a PAT with an unknown permission, with UnknownGrant', () => {
      const result = desiredTenantRecords(tenant('acme'), [
        pat('typo', { permissions: 'billing:read,root' }),
      ]);
      expect(result.pats).toEqual([]);
      expect(result.problems).toMatchObject([{ name: 'typo', reason: 'UnknownGrant' }]);
      expect(result.problems[0]?.message).toContain('root');
    });

    it.each(['True', 'yes', '1', ''])('leaves out a PAT whose admin is %j, with InvalidValue', (value) => {
      const result = desiredTenantRecords(
        tenant('platform'),
        [pat('odd', { admin: value }, 'tenant-platform')],
        {
          platformTenant: 'platform',
        },
      );
      expect(result.pats).toEqual([]);
      expect(result.problems).toMatchObject([{ name: 'odd', reason: 'InvalidValue' }]);
    });
  });
});

describe('desiredCachePolicyRecord', () => {
  it('fills the defaults and takes the tenant from the namespace', () => {
    const result = desiredCachePolicyRecord(policy('docs'));
    expect(result).toStrictEqual({
      ok: true,
      id: 'acme/*/docs',
      record: {
        v: 1,
        tenantId: 'acme',
        name: 'docs',
        ttlSeconds: 600,
        swrSeconds: 0,
        maxTtlSeconds: 86_400,
        defaultTags: [],
        semantic: false,
      },
    });
  });

  it('prefers spec.policyName over metadata.name and scopes by workspace', () => {
    const result = desiredCachePolicyRecord(
      policy('docs-main', {
        policyName: 'docs',
        workspace: 'main',
        ttlSeconds: 30,
        swrSeconds: 5,
        maxTtlSeconds: 60,
        defaultTags: ['d'],
        semantic: true,
      }),
    );
    expect(result).toMatchObject({
      ok: true,
      id: cachePolicyId('acme', 'main', 'docs'),
      record: {
        name: 'docs',
        workspaceId: 'main',
        ttlSeconds: 30,
        swrSeconds: 5,
        maxTtlSeconds: 60,
        defaultTags: ['d'],
        semantic: true,
      },
    });
  });

  it('keeps the default TTL under the policy ceiling', () => {
    expect(desiredCachePolicyRecord(policy('short', { maxTtlSeconds: 60 }))).toMatchObject({
      record: { ttlSeconds: 60 },
    });
  });

  it('refuses a namespace that is no tenant namespace', () => {
    expect(desiredCachePolicyRecord(policy('docs', {}, 'default'))).toMatchObject({
      ok: false,
      problem: { kind: 'CachePolicy', name: 'docs', namespace: 'default', reason: 'UnknownTenant' },
    });
  });
});

describe('desiredConnectionRecord', () => {
  const openaiKey = secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' });

  it('takes the slug from spec.slug, then spec.label, then metadata.name', () => {
    const slugOf = (spec: Partial<ConnectionResource['spec']>) => {
      const result = desiredConnectionRecord(connection('by-name', spec), openaiKey, sealer);
      return result.ok ? `${result.id} ${result.record.slug}` : result.problem.reason;
    };
    expect(slugOf({ slug: 'by-slug', label: 'by-label' })).toBe('acme/by-slug by-slug');
    expect(slugOf({ label: 'by-label' })).toBe('acme/by-label by-label');
    expect(slugOf({})).toBe('acme/by-name by-name');
  });

  it('seals every key of the Secret and shows only a hint', () => {
    const material = { apiKey: 'sk-proj-abcdefghijklmnop1234', organization: 'org-1' };
    const result = desiredConnectionRecord(
      connection('main', { baseUrl: 'https://example.com/v1', defaultModel: 'gpt-4o', dailyCapMicros: 5 }),
      secret('openai-key', material),
      sealer,
    );
    if (!result.ok) throw new Error(result.problem.message);
    const { sealedSecret, ...visible } = result.record;
    expect(sealer.unseal(sealedSecret)).toEqual(material);
    expect(visible).toStrictEqual({
      v: 1,
      id: 'acme/main',
      tenantId: 'acme',
      slug: 'main',
      provider: 'openai',
      baseUrl: 'https://example.com/v1',
      defaultModel: 'gpt-4o',
      dailyCapMicros: 5,
      keyHint: 'sk-…1234',
      secretDigest: sealer.digest(material),
    });
    expect(JSON.stringify(visible)).not.toContain('abcdefghijklmnop');
  });

  it('reports a missing Secret, or one in another namespace, as SecretNotFound', () => {
    expect(desiredConnectionRecord(connection('main'), undefined, sealer)).toMatchObject({
      ok: false,
      problem: { kind: 'Connection', name: 'main', reason: 'SecretNotFound' },
    });
    const elsewhere = secret('openai-key', { apiKey: 'x' }, { namespace: 'tenant-other' });
    expect(desiredConnectionRecord(connection('main'), elsewhere, sealer)).toMatchObject({ ok: false });
  });
});

describe('connectionKeyHint', () => {
  it('hints the API key, else the AWS key id, else the GCP account domain', () => {
    expect(
      connectionKeyHint({ apiKey: 'sk-ant-api03-0123456789wxyz', awsAccessKeyId: 'AKIAIOSFODNN7EXAMPLE' }),
    ).toBe('sk-…wxyz');
    expect(connectionKeyHint({ awsAccessKeyId: 'AKIAIOSFODNN7EXAMPLE', awsSecretAccessKey: 'secret' })).toBe(
      '…MPLE',
    );
    const account = JSON.stringify({
      client_email: 'gateway-sa@my-proj.iam.gserviceaccount.com',
      private_key: 'k',
    });
    expect(connectionKeyHint({ gcpServiceAccountJson: account })).toBe('…@my-proj.iam.gserviceaccount.com');
    expect(connectionKeyHint({ gcpServiceAccountJson: 'not json' })).toBe('');
    expect(connectionKeyHint({})).toBe('');
  });
});

describe('computeDesiredConfig', () => {
  it('builds every kind of record from the resources', () => {
    const desired = computeDesiredConfig(
      input({
        cachePolicies: [policy('docs'), policy('docs-main', { policyName: 'docs', workspace: 'main' })],
        connections: [connection('main')],
        modelRoutes: [
          {
            apiVersion: API_VERSION,
            kind: 'ModelRoute',
            metadata: { name: 'chat', namespace: 'tenant-acme' },
            spec: { workspace: 'main', targets: [{ model: '@main/gpt-4o' }, { model: 'openai/gpt-4o' }] },
          },
        ],
        secrets: [
          secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' }),
          secret('k', { id: 'key_1', hash: HASH, workspace: 'main' }, { credential: 'api-key' }),
          secret('p', { id: 'pat_1', hash: HASH }, { credential: 'pat' }),
          secret('v', { id: 'prov_1', hash: HASH }, { credential: 'provisioning-key' }),
        ],
      }),
      sealer,
    );
    expect(desired.problems).toEqual([]);
    const ids = Object.fromEntries(
      Object.entries(desired.records).map(([kind, records]) => [kind, [...records.keys()]]),
    );
    expect(ids).toEqual({
      tenant: ['acme'],
      apiKey: ['key_1'],
      pat: ['pat_1'],
      provisioningKey: ['prov_1'],
      // Workspace and tenant-wide policies of one name both exist; the cache prefers the workspace one.
      cachePolicy: ['acme/*/docs', 'acme/main/docs'],
      connection: ['acme/main'],
      modelRoute: ['acme/main/chat'],
    });
  });

  it('ignores objects in namespaces of unknown tenants and reports why', () => {
    const desired = computeDesiredConfig(
      input({
        cachePolicies: [policy('docs', {}, 'tenant-ghost'), policy('other', {}, 'kube-system')],
        connections: [{ ...connection('main'), metadata: { name: 'main', namespace: 'tenant-ghost' } }],
        secrets: [secret('openai-key', { apiKey: 'sk-1234567890123' }, { namespace: 'tenant-ghost' })],
      }),
      sealer,
    );
    expect(desired.records.cachePolicy.size).toBe(0);
    expect(desired.records.connection.size).toBe(0);
    expect(
      desired.problems.map((problem) => `${problem.kind}/${problem.name}:${problem.reason}`).sort(),
    ).toEqual([
      'CachePolicy/docs:UnknownTenant',
      'CachePolicy/other:UnknownTenant',
      'Connection/main:UnknownTenant',
    ]);
  });

  it('leaves out a Connection whose Secret is missing, and keeps the others', () => {
    const desired = computeDesiredConfig(
      input({
        connections: [connection('main'), connection('orphan', { secretRef: { name: 'missing' } })],
        secrets: [secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' })],
      }),
      sealer,
    );
    expect([...desired.records.connection.keys()]).toEqual(['acme/main']);
    expect(desired.problems).toStrictEqual([
      {
        kind: 'Connection',
        name: 'orphan',
        namespace: 'tenant-acme',
        reason: 'SecretNotFound',
        message: "Secret 'missing' not found in namespace 'tenant-acme'",
      },
    ]);
  });

  it('gives a contested slug or policy name to the oldest object', () => {
    const desired = computeDesiredConfig(
      input({
        connections: [
          connection('newer', { slug: 'shared' }, '2025-02-01T00:00:00Z'),
          connection('older', { label: 'shared', baseUrl: 'https://older.example' }, '2025-01-15T00:00:00Z'),
        ],
        cachePolicies: [
          policy('b', { policyName: 'docs', ttlSeconds: 2 }, 'tenant-acme', '2025-02-01T00:00:00Z'),
          policy('a', { policyName: 'docs', ttlSeconds: 1 }, 'tenant-acme', '2025-01-15T00:00:00Z'),
        ],
        secrets: [secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' })],
      }),
      sealer,
    );
    expect(desired.records.connection.get('acme/shared')?.baseUrl).toBe('https://older.example');
    expect(desired.records.cachePolicy.get('acme/*/docs')?.ttlSeconds).toBe(1);
    expect(desired.problems.map((problem) => `${problem.name}:${problem.reason}`).sort()).toEqual([
      'b:NameConflict',
      'newer:SlugConflict',
    ]);
  });

  it('gives a contested route model to the oldest route, and resolves @slug targets to its Connections', () => {
    const route = (name: string, model: string, target: string, created: string): ModelRouteResource => ({
      apiVersion: API_VERSION,
      kind: 'ModelRoute',
      metadata: { name, namespace: 'tenant-acme', creationTimestamp: created },
      spec: { model, targets: [{ model: target }] },
    });
    const desired = computeDesiredConfig(
      input({
        connections: [connection('mine')],
        modelRoutes: [
          route('newer', 'chat', 'openai/gpt-4o', '2025-02-01T00:00:00Z'),
          route('older', 'chat', '@mine/gpt-4o', '2025-01-15T00:00:00Z'),
          route('dangling', 'other', '@theirs/gpt-4o', '2025-01-15T00:00:00Z'),
        ],
        secrets: [secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' })],
      }),
      sealer,
      { routeProviders: ['openai'] },
    );
    expect(desired.records.modelRoute.get('acme/*/chat')?.targets).toEqual([
      { model: '@mine/gpt-4o', weight: 1, priority: 0 },
    ]);
    expect(desired.records.modelRoute.size).toBe(1);
    expect(desired.problems.map((problem) => `${problem.name}:${problem.reason}`).sort()).toEqual([
      'dangling:ConnectionNotFound',
      'newer:ModelConflict',
    ]);
  });

  it('leaves out policies and connections for a workspace the tenant does not have', () => {
    const desired = computeDesiredConfig(
      input({
        cachePolicies: [policy('docs', { workspace: 'gone' })],
        connections: [connection('main', { workspace: 'gone' })],
        secrets: [secret('openai-key', { apiKey: 'sk-proj-abcdefghijklmnop1234' })],
      }),
      sealer,
    );
    expect(desired.records.cachePolicy.size + desired.records.connection.size).toBe(0);
    expect(desired.problems.map((problem) => problem.reason)).toEqual([
      'UnknownWorkspace',
      'UnknownWorkspace',
    ]);
  });

  it('refuses one credential id used by two Secrets, keeping the older', () => {
    const first = secret('a', { id: 'key_1', hash: HASH, workspace: 'main' }, { credential: 'api-key' });
    const second = secret(
      'b',
      { id: 'key_1', hash: 'b'.repeat(64), workspace: 'main' },
      { credential: 'api-key' },
    );
    second.metadata.creationTimestamp = '2025-03-01T00:00:00Z';
    const desired = computeDesiredConfig(input({ secrets: [second, first] }), sealer);
    expect(desired.records.apiKey.get('key_1')?.hash).toBe(HASH);
    expect(desired.problems).toMatchObject([{ reason: 'DuplicateCredentialId' }]);
  });
});
