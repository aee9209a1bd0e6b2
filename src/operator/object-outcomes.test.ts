import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretSealer } from '../auth/secret-box.ts';
import { missingConnectionKeys } from '../resources/desired-records.ts';
import {
  API_VERSION,
  type CachePolicyResource,
  type ConnectionResource,
  CREDENTIAL_LABEL,
  type ModelRouteResource,
  type SecretResource,
  type TenantResource,
} from '../resources/types.ts';
import { computeDesiredConfig } from './desired-config.ts';
import {
  cachePolicyOutcome,
  connectionOutcome,
  desiredStateWithOwners,
  modelRouteOutcome,
  publishedConnectionLookup,
  resolveConnectionSecret,
  servingTenantRecord,
  tenantOutcome,
} from './object-outcomes.ts';

const sealer = createSecretSealer(randomBytes(32));
const HASH = 'b'.repeat(64);

const tenant = (name = 'acme', extra: Partial<TenantResource['metadata']> = {}): TenantResource => ({
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name, creationTimestamp: '2025-01-01T00:00:00Z', ...extra },
  spec: { displayName: name, workspaces: [{ id: 'main', name: 'Main' }] },
});
const policy = (
  name: string,
  spec: CachePolicyResource['spec'],
  created: string,
  extra = {},
): CachePolicyResource => ({
  apiVersion: API_VERSION,
  kind: 'CachePolicy',
  metadata: { name, namespace: 'tenant-acme', creationTimestamp: created, ...extra },
  spec,
});
const connection = (
  name: string,
  spec: Partial<ConnectionResource['spec']>,
  created: string,
): ConnectionResource => ({
  apiVersion: API_VERSION,
  kind: 'Connection',
  metadata: { name, namespace: 'tenant-acme', creationTimestamp: created },
  spec: { provider: 'openai', secretRef: { name: 'key' }, ...spec },
});
const secret = (
  name: string,
  values: Record<string, string>,
  credential?: string,
  namespace = 'tenant-acme',
): SecretResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace,
    creationTimestamp: '2025-01-03T00:00:00Z',
    ...(credential ? { labels: { [CREDENTIAL_LABEL]: credential } } : {}),
  },
  data: Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
});

const modelRoute = (
  name: string,
  spec: Partial<ModelRouteResource['spec']>,
  created: string,
  namespace = 'tenant-acme',
): ModelRouteResource => ({
  apiVersion: API_VERSION,
  kind: 'ModelRoute',
  metadata: { name, namespace, creationTimestamp: created },
  spec: { targets: [{ model: 'openai/gpt-4o-mini' }], ...spec },
});
const ROUTE_POLICY = { platformTenant: 'platform', routeProviders: ['openai', 'anthropic'] };

const acme = servingTenantRecord(tenant());

describe('per-object outcomes', () => {
  it('serves no tenant record for a Tenant being deleted or refused', () => {
    expect(acme?.id).toBe('acme');
    expect(
      servingTenantRecord(tenant('acme', { deletionTimestamp: '2025-02-01T00:00:00Z' })),
    ).toBeUndefined();
    expect(
      servingTenantRecord({ ...tenant(), spec: { ...tenant().spec, billingMode: 'pooled' } }),
    ).toBeUndefined();
    expect(servingTenantRecord(undefined)).toBeUndefined();
  });

  it('publishes a tenant, then its credentials, leaving out ids another tenant holds', () => {
    const outcome = tenantOutcome(
      tenant(),
      [
        secret('k1', { id: 'key_1', hash: HASH, workspace: 'main' }, 'api-key'),
        secret('k2', { id: 'key_taken', hash: HASH, workspace: 'main' }, 'api-key'),
        secret('p1', { id: 'pat_1', hash: HASH }, 'pat'),
      ],
      (kind, id) => kind === 'apiKey' && id === 'key_taken',
    );
    expect(outcome.records.map(({ kind, id }) => `${kind}:${id}`)).toEqual([
      'tenant:acme',
      'apiKey:key_1',
      'pat:pat_1',
    ]);
    expect(outcome.problems).toEqual([
      expect.objectContaining({ kind: 'Tenant', name: 'acme', reason: 'DuplicateCredentialId' }),
    ]);
  });

  it('lets the older of two CachePolicies with one name at one scope win', () => {
    const older = policy('a', { policyName: 'default' }, '2025-01-02T00:00:00Z');
    const younger = policy('b', { policyName: 'default' }, '2025-01-05T00:00:00Z');
    const otherScope = policy('c', { policyName: 'default', workspace: 'main' }, '2025-01-06T00:00:00Z');
    const siblings = [younger, older, otherScope];
    expect(cachePolicyOutcome(older, acme, siblings).records).toHaveLength(1);
    expect(cachePolicyOutcome(younger, acme, siblings).problems).toEqual([
      expect.objectContaining({ reason: 'NameConflict', name: 'b' }),
    ]);
    expect(cachePolicyOutcome(otherScope, acme, siblings).records[0]?.id).toBe('acme/main/default');
    // An older one being deleted no longer blocks.
    const deleting = { ...older, metadata: { ...older.metadata, deletionTimestamp: '2025-02-01T00:00:00Z' } };
    expect(cachePolicyOutcome(younger, acme, [deleting, younger]).records).toHaveLength(1);
  });

  it('reports an unknown tenant for a CachePolicy or Connection outside a served namespace', () => {
    const lonely = policy('a', {}, '2025-01-02T00:00:00Z');
    expect(cachePolicyOutcome(lonely, undefined, [lonely]).problems[0]?.reason).toBe('UnknownTenant');
  });

  it('lets the older of two Connections with one slug win, counting only one that would publish', () => {
    const key = secret('key', { apiKey: 'sk-1234567890abcdef' });
    const secretOf = (item: ConnectionResource) => (item.spec.secretRef.name === 'key' ? key : undefined);
    const broken = connection(
      'broken',
      { slug: 'main', secretRef: { name: 'missing' } },
      '2025-01-01T00:00:00Z',
    );
    const older = connection('first', { slug: 'main' }, '2025-01-02T00:00:00Z');
    const younger = connection('second', { slug: 'main' }, '2025-01-03T00:00:00Z');
    const siblings = [broken, older, younger];
    expect(connectionOutcome(older, acme, secretOf, siblings, sealer).records[0]?.id).toBe('acme/main');
    expect(connectionOutcome(younger, acme, secretOf, siblings, sealer).problems[0]?.reason).toBe(
      'SlugConflict',
    );
    expect(connectionOutcome(broken, acme, secretOf, siblings, sealer).problems[0]?.reason).toBe(
      'SecretNotFound',
    );
  });

  it('resolves a Connection secret by the keys its provider needs, naming keys but never values', () => {
    const bedrock = connection(
      'b',
      { provider: 'bedrock', secretRef: { name: 'aws' } },
      '2025-01-02T00:00:00Z',
    );
    expect(resolveConnectionSecret(bedrock, undefined)).toMatchObject({
      resolved: false,
      reason: 'SecretNotFound',
    });
    const partial = resolveConnectionSecret(
      bedrock,
      secret('aws', { awsSecretAccessKey: 'very-secret-value' }),
    );
    expect(partial).toMatchObject({ resolved: false, reason: 'KeyMissing' });
    expect(JSON.stringify(partial)).not.toContain('very-secret-value');
    expect(
      resolveConnectionSecret(
        bedrock,
        secret('aws', { awsAccessKeyId: 'AKIA0000', awsSecretAccessKey: 'x' }),
      ),
    ).toMatchObject({ resolved: true });
    expect(resolveConnectionSecret(bedrock, secret('aws', { apiKey: 'bedrock-api-key' }))).toMatchObject({
      resolved: true,
    });
  });

  it('knows which keys each provider needs', () => {
    expect(missingConnectionKeys('openai', {})).toBe('lacks the keys provider openai needs: apiKey');
    expect(missingConnectionKeys('openai', { apiKey: '' })).toBeDefined();
    expect(missingConnectionKeys('openai-compatible', {})).toBeUndefined();
    expect(missingConnectionKeys('vertex', { gcpServiceAccountJson: '{}' })).toBeUndefined();
  });
});

describe('model route outcomes', () => {
  const key = secret('key', { apiKey: 'sk-1234567890abcdef' });
  const secretOf = (item: ConnectionResource) => (item.spec.secretRef.name === 'key' ? key : undefined);
  const connections = [
    connection('azure', { slug: 'acme-azure' }, '2025-01-02T00:00:00Z'),
    connection('keyless', { secretRef: { name: 'missing' } }, '2025-01-02T00:00:00Z'),
  ];
  const connectionOf = publishedConnectionLookup(acme!, connections, secretOf);

  it('finds only a Connection that would be published (its Secret resolved)', () => {
    expect(connectionOf('acme-azure')?.id).toBe('acme/acme-azure');
    expect(connectionOf('keyless')).toBeUndefined();
    expect(connectionOf('nope')).toBeUndefined();
  });

  it('publishes a route whose targets resolve, and says why one does not', () => {
    const good = modelRoute(
      'chat',
      { model: 'chat-default', targets: [{ model: 'openai/a' }, { model: '@acme-azure/b' }] },
      '2025-01-02T00:00:00Z',
    );
    expect(modelRouteOutcome(good, acme, [good], connectionOf, ROUTE_POLICY).records).toEqual([
      expect.objectContaining({ kind: 'modelRoute', id: 'acme/*/chat-default' }),
    ]);
    const reasons = [
      modelRoute('a', { targets: [{ model: '@keyless/b' }] }, '2025-01-02T00:00:00Z'),
      modelRoute('b', { targets: [{ model: 'mystery/b' }] }, '2025-01-02T00:00:00Z'),
      modelRoute('c', { shared: true }, '2025-01-02T00:00:00Z'),
    ].map((route) => modelRouteOutcome(route, acme, [route], connectionOf, ROUTE_POLICY).problems[0]?.reason);
    expect(reasons).toEqual(['ConnectionNotFound', 'UnknownProvider', 'SharedOutsidePlatform']);
    const lonely = modelRoute('d', {}, '2025-01-02T00:00:00Z', 'default');
    expect(
      modelRouteOutcome(lonely, undefined, [lonely], connectionOf, ROUTE_POLICY).problems[0]?.reason,
    ).toBe('UnknownTenant');
  });

  it('lets the older of two routes of one model at one scope win, whatever their targets', () => {
    const older = modelRoute(
      'first',
      { model: 'chat', targets: [{ model: '@nope/x' }] },
      '2025-01-02T00:00:00Z',
    );
    const younger = modelRoute('second', { model: 'chat' }, '2025-01-03T00:00:00Z');
    const otherScope = modelRoute('third', { model: 'chat', workspace: 'main' }, '2025-01-04T00:00:00Z');
    const siblings = [younger, older, otherScope];
    expect(modelRouteOutcome(younger, acme, siblings, connectionOf, ROUTE_POLICY).problems).toEqual([
      expect.objectContaining({ reason: 'ModelConflict', name: 'second' }),
    ]);
    expect(modelRouteOutcome(otherScope, acme, siblings, connectionOf, ROUTE_POLICY).records[0]?.id).toBe(
      'acme/main/chat',
    );
  });
});

describe('desiredStateWithOwners', () => {
  const contents = {
    tenants: [tenant(), tenant('gone', { deletionTimestamp: '2025-02-01T00:00:00Z' })],
    cachePolicies: [
      policy('default', { ttlSeconds: 60 }, '2025-01-02T00:00:00Z'),
      policy('dup', { policyName: 'default' }, '2025-01-09T00:00:00Z'),
    ],
    connections: [connection('openai', {}, '2025-01-02T00:00:00Z')],
    modelRoutes: [
      modelRoute('chat', { targets: [{ model: '@openai/gpt-4o' }] }, '2025-01-02T00:00:00Z'),
      modelRoute('dangling', { targets: [{ model: '@nope/gpt-4o' }] }, '2025-01-02T00:00:00Z'),
    ],
    secrets: [
      secret('key', { apiKey: 'sk-1234567890abcdef' }),
      secret('k1', { id: 'key_1', hash: HASH, workspace: 'main' }, 'api-key'),
      secret('stray', { apiKey: 'sk-elsewhere' }, undefined, 'tenant-gone'),
    ],
  };

  it('holds what computeDesiredConfig holds for live objects', () => {
    const withOwners = desiredStateWithOwners(contents, sealer, ROUTE_POLICY);
    const live = { ...contents, tenants: [tenant()] };
    const reference = computeDesiredConfig(live, sealer, ROUTE_POLICY);
    for (const kind of ['tenant', 'apiKey', 'pat', 'provisioningKey', 'cachePolicy', 'modelRoute'] as const) {
      expect(withOwners.records[kind]).toEqual(reference.records[kind]);
    }
    expect([...withOwners.records.connection.keys()]).toEqual([...reference.records.connection.keys()]);
  });

  it('names the owner of every record', () => {
    const { owners, problems } = desiredStateWithOwners(contents, sealer, ROUTE_POLICY);
    expect(problems).toContainEqual(
      expect.objectContaining({ kind: 'ModelRoute', name: 'dangling', reason: 'ConnectionNotFound' }),
    );
    expect(owners).toEqual(
      expect.arrayContaining([
        ['Tenant//acme', 'tenant', 'acme'],
        ['Tenant//acme', 'apiKey', 'key_1'],
        ['CachePolicy/tenant-acme/default', 'cachePolicy', 'acme/*/default'],
        ['Connection/tenant-acme/openai', 'connection', 'acme/openai'],
        ['ModelRoute/tenant-acme/chat', 'modelRoute', 'acme/*/chat'],
      ]),
    );
    expect(owners).toHaveLength(5);
  });
});
