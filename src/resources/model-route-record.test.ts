import { describe, expect, it } from 'vitest';
import type { ConnectionRecord, TenantRecord } from '../stores/records.ts';
import type { ModelRouteSpec } from './crd-types.ts';
import { desiredModelRouteRecord, type ModelRouteChecks, modelRouteRecordOf } from './model-route-record.ts';
import { API_VERSION, type ModelRouteResource } from './types.ts';

const tenant: TenantRecord = {
  v: 1,
  id: 'acme',
  displayName: 'Acme',
  slug: 'acme',
  billingMode: 'delegated',
  strictByok: false,
  workspaces: [
    { id: 'main', name: 'Main' },
    { id: 'ci', name: 'CI' },
  ],
};

function route(spec: Partial<ModelRouteSpec> = {}, namespace = 'tenant-acme'): ModelRouteResource {
  return {
    apiVersion: API_VERSION,
    kind: 'ModelRoute',
    metadata: { name: 'chat-default', namespace },
    spec: { targets: [{ model: 'openai/gpt-4o-mini' }], ...spec },
  };
}

function connection(slug: string, workspaceId?: string): ConnectionRecord {
  return {
    v: 1,
    id: `acme/${slug}`,
    tenantId: 'acme',
    slug,
    provider: 'openai',
    ...(workspaceId === undefined ? {} : { workspaceId }),
    keyHint: 'sk-…abcd',
    sealedSecret: 'sealed',
    secretDigest: 'digest',
  };
}

const checks = (overrides: Partial<ModelRouteChecks> = {}): ModelRouteChecks => ({
  tenant,
  platformTenant: 'platform',
  providers: ['openai', 'anthropic'],
  connectionOf: (slug) => (slug === 'acme-azure' ? connection(slug) : undefined),
  ...overrides,
});

describe('modelRouteRecordOf', () => {
  it('fills in every default, the model from metadata.name', () => {
    expect(modelRouteRecordOf(route(), 'acme')).toEqual({
      v: 1,
      tenantId: 'acme',
      model: 'chat-default',
      strategy: 'weighted',
      targets: [{ model: 'openai/gpt-4o-mini', weight: 1, priority: 0 }],
      retry: {
        maxAttempts: 3,
        on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
        backoffMs: 100,
        maxBackoffMs: 2000,
      },
      firstByteTimeoutMs: 30_000,
      circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
      shared: false,
    });
  });

  it('keeps what the spec says, and the retry conditions in one order whatever the spec order', () => {
    const record = modelRouteRecordOf(
      route({
        model: 'fast',
        workspace: 'main',
        strategy: 'leastBusy',
        targets: [
          { model: 'openai/a', weight: 3 },
          { model: 'anthropic/b', weight: 0, priority: 1 },
        ],
        retry: { maxAttempts: 5, on: ['timeout', 'rateLimited'], backoffMs: 50, maxBackoffMs: 500 },
        firstByteTimeoutMs: 1500,
        circuitBreaker: { consecutiveFailures: 2, openSeconds: 10 },
      }),
      'acme',
    );
    expect(record).toMatchObject({
      workspaceId: 'main',
      model: 'fast',
      strategy: 'leastBusy',
      targets: [
        { model: 'openai/a', weight: 3, priority: 0 },
        { model: 'anthropic/b', weight: 0, priority: 1 },
      ],
      retry: { maxAttempts: 5, on: ['rateLimited', 'timeout'], backoffMs: 50, maxBackoffMs: 500 },
      firstByteTimeoutMs: 1500,
      circuitBreaker: { consecutiveFailures: 2, openSeconds: 10 },
    });
  });

  it('never makes a default wait cross a given one (backoff <= maxBackoff)', () => {
    expect(modelRouteRecordOf(route({ retry: { backoffMs: 5000 } }), 'acme').retry).toMatchObject({
      backoffMs: 5000,
      maxBackoffMs: 5000,
    });
    expect(modelRouteRecordOf(route({ retry: { maxBackoffMs: 40 } }), 'acme').retry).toMatchObject({
      backoffMs: 40,
      maxBackoffMs: 40,
    });
  });
});

describe('desiredModelRouteRecord', () => {
  it('publishes a route whose targets resolve, under modelRouteId', () => {
    const desired = desiredModelRouteRecord(
      route({ workspace: 'main', targets: [{ model: 'openai/a' }, { model: '@acme-azure/gpt-4o' }] }),
      checks(),
    );
    expect(desired.ok && desired.id).toBe('acme/main/chat-default');
  });

  it.each([
    [
      'a target of a provider the gateway does not know',
      route({ targets: [{ model: 'azure/gpt-4o' }] }),
      checks(),
      'UnknownProvider',
      "target 'azure/gpt-4o' names provider 'azure', which the gateway does not know (known: openai, anthropic)",
    ],
    [
      'a target of a Connection the tenant does not have',
      route({ targets: [{ model: 'openai/a' }, { model: '@nope/gpt-4o' }] }),
      checks(),
      'ConnectionNotFound',
      "target '@nope/gpt-4o' names Connection 'nope', which tenant acme does not have (or which is not Ready)",
    ],
    [
      "a tenant-wide route on one workspace's Connection",
      route({ targets: [{ model: '@ci-only/gpt-4o' }] }),
      checks({ connectionOf: (slug) => connection(slug, 'ci') }),
      'ConnectionOutOfScope',
      "target '@ci-only/gpt-4o' names Connection 'ci-only', which serves only workspace ci, and the route serves the whole tenant",
    ],
    [
      "a workspace route on another workspace's Connection",
      route({ workspace: 'main', targets: [{ model: '@ci-only/gpt-4o' }] }),
      checks({ connectionOf: (slug) => connection(slug, 'ci') }),
      'ConnectionOutOfScope',
      'and the route serves workspace main',
    ],
    [
      'a shared route outside the platform tenant',
      route({ shared: true }),
      checks(),
      'SharedOutsidePlatform',
      "shared: true is honoured only in the platform tenant's namespace (tenant-platform); the route is not published",
    ],
    [
      'a shared route with no platform tenant configured',
      route({ shared: true }),
      checks({ platformTenant: undefined }),
      'SharedOutsidePlatform',
      'in no namespace (no platform tenant is configured)',
    ],
    [
      'a workspace the tenant does not have',
      route({ workspace: 'gone' }),
      checks(),
      'UnknownWorkspace',
      "workspace 'gone' is not in tenant acme",
    ],
    [
      'a namespace of no tenant',
      route({}, 'default'),
      checks(),
      'UnknownTenant',
      "namespace 'default' belongs to no known tenant",
    ],
  ])('refuses %s', (_label, resource, given, reason, message) => {
    const desired = desiredModelRouteRecord(resource, given);
    expect(desired.ok).toBe(false);
    if (desired.ok) return;
    expect(desired.problem).toMatchObject({ kind: 'ModelRoute', name: 'chat-default', reason });
    expect(desired.problem.message).toContain(message);
  });

  it("publishes the platform tenant's shared route, and checks nothing it was not given", () => {
    const shared = desiredModelRouteRecord(route({ shared: true }, 'tenant-platform'), {
      platformTenant: 'platform',
      providers: ['openai'],
    });
    expect(shared.ok && shared.record.shared).toBe(true);
    const unchecked = desiredModelRouteRecord(
      route({ targets: [{ model: 'any/x' }, { model: '@any/y' }] }),
      {},
    );
    expect(unchecked.ok).toBe(true);
  });
});
