/**
 * The CRDs of crds/ on a real kube-apiserver (the test control plane): valid resources (the
 * examples/ folder and one with every field set) are accepted, defaults are filled in, each rule
 * refuses a bad example with the CRD's own message, status is a subresource, and the printer
 * columns show. Every case is also run through src/resources/validate.ts, so standalone refuses
 * and accepts the same things.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type {
  CachePolicySpec,
  ConnectionSpec,
  ModelRouteSpec,
  TenantSpec,
} from '../../../src/resources/crd-types.ts';
import { API_VERSION } from '../../../src/resources/types.ts';
import { validateResource } from '../../../src/resources/validate.ts';
import {
  type KubeControlPlane,
  kubeAvailable,
  startKubeControlPlane,
} from '../../helpers/kube-control-plane.ts';

const available = kubeAvailable();
const EXAMPLES_DIR = resolve(import.meta.dirname, '../../../examples');
const NAMESPACE = 'tenant-acme';

type Resource = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
};

const PLURALS: Record<string, string> = {
  Tenant: 'tenants',
  CachePolicy: 'cachepolicies',
  Connection: 'connections',
  ModelRoute: 'modelroutes',
  Secret: 'secrets',
};

function collectionPath(resource: Resource): string {
  const plural = PLURALS[resource.kind];
  if (!plural) throw new Error(`no plural for ${resource.kind}`);
  if (resource.kind === 'Secret') return `/api/v1/namespaces/${resource.metadata.namespace}/secrets`;
  const base = `/apis/${API_VERSION}`;
  return resource.kind === 'Tenant'
    ? `${base}/${plural}`
    : `${base}/namespaces/${resource.metadata.namespace}/${plural}`;
}

function tenant(spec: Partial<TenantSpec> & Record<string, unknown>, name = 'acme'): Resource {
  return {
    apiVersion: API_VERSION,
    kind: 'Tenant',
    metadata: { name },
    spec: { displayName: 'Acme', workspaces: [{ id: 'main', name: 'Main' }], ...spec },
  };
}

function cachePolicy(spec: Partial<CachePolicySpec> & Record<string, unknown>, name = 'default'): Resource {
  return { apiVersion: API_VERSION, kind: 'CachePolicy', metadata: { name, namespace: NAMESPACE }, spec };
}

function connection(spec: Partial<ConnectionSpec> & Record<string, unknown>, name = 'openai'): Resource {
  return {
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name, namespace: NAMESPACE },
    spec: { provider: 'openai', secretRef: { name: 'openai-key' }, ...spec },
  };
}

function modelRoute(
  spec: Partial<ModelRouteSpec> & Record<string, unknown>,
  name = 'chat-default',
): Resource {
  return {
    apiVersion: API_VERSION,
    kind: 'ModelRoute',
    metadata: { name, namespace: NAMESPACE },
    spec: { targets: [{ model: 'openai/gpt-4o-mini' }], ...spec },
  };
}

function without(resource: Resource, field: string): Resource {
  const spec = { ...(resource.spec as Record<string, unknown>) };
  delete spec[field];
  return { ...resource, spec };
}

/** One bad example per rule, and the message the API server must answer with. */
const BAD_EXAMPLES: { rule: string; resource: Resource; message: string }[] = [
  // Tenant
  {
    rule: 'billingMode pooled is not implemented',
    resource: tenant({ billingMode: 'pooled' }),
    message:
      "spec.billingMode: Invalid value: \"string\": spec.billingMode 'pooled' is not implemented; use 'delegated'",
  },
  {
    rule: 'billingMode is a known mode',
    resource: tenant({ billingMode: 'prepaid' as 'delegated' }),
    message: 'spec.billingMode: Unsupported value: "prepaid": supported values: "delegated", "pooled"',
  },
  {
    rule: 'workspace ids are unique',
    resource: tenant({
      workspaces: [
        { id: 'main', name: 'Main' },
        { id: 'main', name: 'Other' },
      ],
    }),
    message: 'spec.workspaces ids must be unique',
  },
  {
    rule: 'workspace ids are slugs',
    resource: tenant({ workspaces: [{ id: 'Main_WS', name: 'Main' }] }),
    message: 'spec.workspaces[0].id: Invalid value: "string": spec.workspaces[].id must be a slug',
  },
  {
    rule: 'workspaces are required',
    resource: without(tenant({}), 'workspaces'),
    message: 'spec.workspaces: Required value',
  },
  {
    rule: 'displayName is not blank',
    resource: tenant({ displayName: '   ' }),
    message: 'spec.displayName must not be empty',
  },
  {
    rule: 'region is not blank',
    resource: tenant({ region: '' }),
    message: 'spec.region must not be empty',
  },
  {
    rule: 'a tenant name leaves room for the tenant- namespace prefix',
    resource: tenant({}, 'a'.repeat(57)),
    message: 'metadata.name of a Tenant must be a DNS-1123 label of at most 56 characters',
  },
  {
    rule: 'a tenant is not its own parent',
    resource: tenant({ parentRef: { name: 'acme' } }),
    message: 'spec.parentRef.name must not name the tenant itself',
  },
  {
    rule: 'referral charset',
    resource: tenant({ referral: 'Partner X' }),
    message: 'spec.referral must be at most 64 of a-z 0-9 . _ -',
  },
  {
    rule: 'slug format',
    resource: tenant({ slug: 'Acme Corp' }),
    message: 'spec.slug must be a slug of at most 56 of a-z 0-9 and -',
  },
  {
    rule: 'contactEmail is an address',
    resource: tenant({ contactEmail: 'not an address' }),
    message: 'spec.contactEmail must be an e-mail address',
  },
  // CachePolicy
  {
    rule: 'ttlSeconds >= 1',
    resource: cachePolicy({ ttlSeconds: 0 }),
    message: 'spec.ttlSeconds: Invalid value: "integer": spec.ttlSeconds must be between 1 and 86400',
  },
  {
    rule: 'ttlSeconds <= 86400',
    resource: cachePolicy({ ttlSeconds: 86_401 }),
    message: 'spec.ttlSeconds must be between 1 and 86400',
  },
  {
    rule: 'maxTtlSeconds in 1..86400',
    resource: cachePolicy({ maxTtlSeconds: 100_000 }),
    message: 'spec.maxTtlSeconds must be between 1 and 86400',
  },
  {
    rule: 'swrSeconds >= 0',
    resource: cachePolicy({ swrSeconds: -1 }),
    message: 'spec.swrSeconds: Invalid value: "integer": spec.swrSeconds must be between 0 and 86400',
  },
  {
    rule: 'ttlSeconds <= maxTtlSeconds',
    resource: cachePolicy({ ttlSeconds: 600, maxTtlSeconds: 60 }),
    message: 'spec.ttlSeconds: Invalid value: "object": spec.ttlSeconds must be <= spec.maxTtlSeconds',
  },
  {
    rule: 'at most 16 default tags',
    resource: cachePolicy({ defaultTags: Array.from({ length: 17 }, (_, index) => `tag-${index}`) }),
    message: 'spec.defaultTags: Invalid value: "array": spec.defaultTags must have at most 16 entries',
  },
  {
    rule: 'tag charset',
    resource: cachePolicy({ defaultTags: ['docs', 'Bad Tag'] }),
    message:
      'spec.defaultTags[1]: Invalid value: "string": each spec.defaultTags entry must be a tag (lowercase letters, digits, . _ - :, starting with a letter or digit)',
  },
  {
    rule: 'a tag starts with a letter or digit',
    resource: cachePolicy({ defaultTags: [':docs'] }),
    message: 'each spec.defaultTags entry must be a tag',
  },
  {
    rule: 'policyName is a slug',
    resource: cachePolicy({ policyName: 'Default' }),
    message: 'spec.policyName must be a slug',
  },
  {
    rule: 'policy workspace is a slug',
    resource: cachePolicy({ workspace: '-main' }),
    message: 'spec.workspace must be a slug',
  },
  {
    rule: 'names of namespaced kinds are DNS labels',
    resource: cachePolicy({}, 'team.default'),
    message: 'metadata.name must be a DNS-1123 label',
  },
  // Connection
  {
    rule: 'provider is a known kind',
    resource: connection({ provider: 'azure' as 'openai' }),
    message:
      'spec.provider: Unsupported value: "azure": supported values: "openai", "anthropic", "gemini", "bedrock", "bedrock-mantle", "vertex", "openai-compatible"',
  },
  {
    rule: 'openai-compatible requires baseUrl',
    resource: connection({ provider: 'openai-compatible' }),
    message:
      'spec.baseUrl: Invalid value: "object": spec.baseUrl is required when spec.provider is openai-compatible',
  },
  {
    rule: 'baseUrl is http or https',
    resource: connection({ provider: 'openai-compatible', baseUrl: 'ftp://models.internal/v1' }),
    message: 'spec.baseUrl: Invalid value: "string": spec.baseUrl must be an http or https URL',
  },
  {
    rule: 'baseUrl is a URL',
    resource: connection({ baseUrl: 'not a url' }),
    message: 'spec.baseUrl must be an http or https URL',
  },
  {
    rule: 'slug format',
    resource: connection({ slug: 'My_Slug' }),
    message: 'spec.slug: Invalid value: "string": spec.slug must be a slug',
  },
  {
    rule: 'label (deprecated) format',
    resource: connection({ label: 'My Label' }),
    message: 'spec.label must be a slug',
  },
  {
    rule: 'dailyCapMicros >= 0',
    resource: connection({ dailyCapMicros: -1 }),
    message:
      'spec.dailyCapMicros: Invalid value: "integer": spec.dailyCapMicros must be between 0 and 9007199254740991',
  },
  {
    rule: 'secretRef is required',
    resource: without(connection({}), 'secretRef'),
    message: 'spec.secretRef: Required value',
  },
  {
    rule: 'secretRef.name is a Secret name',
    resource: connection({ secretRef: { name: 'Key_Secret' } }),
    message: 'spec.secretRef.name must be a DNS-1123 subdomain',
  },
  {
    rule: 'awsRegion format',
    resource: connection({ provider: 'bedrock', awsRegion: 'US East 1' }),
    message: 'spec.awsRegion must be a region name',
  },
  {
    rule: 'defaultModel is not blank',
    resource: connection({ defaultModel: ' ' }),
    message: 'spec.defaultModel must not be empty',
  },
  // ModelRoute
  {
    rule: 'at least one target',
    resource: modelRoute({ targets: [] }),
    message: 'spec.targets: Invalid value: "array": spec.targets must have at least one target',
  },
  {
    rule: 'targets are required',
    resource: without(modelRoute({}), 'targets'),
    message: 'spec.targets: Required value',
  },
  {
    rule: 'at most 16 targets',
    resource: modelRoute({
      targets: Array.from({ length: 17 }, (_, index) => ({ model: `openai/m${index}` })),
    }),
    message: 'spec.targets must have at most 16 targets',
  },
  {
    rule: 'a target is provider/model or @connection/model, never a bare name (no chains)',
    resource: modelRoute({ targets: [{ model: 'chat-default' }] }),
    message:
      'spec.targets[0].model: Invalid value: "string": each spec.targets model must be provider/model or @connection/model (a bare name could be a route, and a route never targets a route)',
  },
  {
    rule: "a route's model holds no slash (it could be a target: no chains)",
    resource: modelRoute({ model: 'openai/gpt-4o-mini' }),
    message:
      "spec.model: Invalid value: \"string\": spec.model must be a route name: letters, digits, '.', '_', ':' and '-'",
  },
  {
    rule: 'a target named once',
    resource: modelRoute({ targets: [{ model: 'openai/a' }, { model: 'openai/a', priority: 1 }] }),
    message: 'spec.targets must not name one model twice',
  },
  {
    rule: 'weights >= 0',
    resource: modelRoute({ targets: [{ model: 'openai/a', weight: -1 }] }),
    message:
      'spec.targets[0].weight: Invalid value: "integer": spec.targets[].weight must be between 0 and 1000',
  },
  {
    rule: 'a weight above 0 in every priority',
    resource: modelRoute({
      targets: [
        { model: 'openai/a', weight: 2 },
        { model: 'anthropic/b', weight: 0, priority: 1 },
      ],
    }),
    message: 'every priority of spec.targets must have a target with weight > 0',
  },
  {
    rule: 'maxAttempts 1..10',
    resource: modelRoute({ retry: { maxAttempts: 11 } }),
    message:
      'spec.retry.maxAttempts: Invalid value: "integer": spec.retry.maxAttempts must be between 1 and 10',
  },
  {
    rule: 'maxAttempts >= 1',
    resource: modelRoute({ retry: { maxAttempts: 0 } }),
    message: 'spec.retry.maxAttempts must be between 1 and 10',
  },
  {
    rule: 'retry conditions are known',
    resource: modelRoute({ retry: { on: ['always' as 'timeout'] } }),
    message:
      'spec.retry.on[0]: Unsupported value: "always": supported values: "rateLimited", "serverError", "timeout", "connectError"',
  },
  {
    rule: 'backoff within its ceiling',
    resource: modelRoute({ retry: { backoffMs: 500, maxBackoffMs: 100 } }),
    message:
      'spec.retry.backoffMs: Invalid value: "object": spec.retry.backoffMs must be <= spec.retry.maxBackoffMs',
  },
  {
    rule: 'a first-byte timeout of at least 1 ms',
    resource: modelRoute({ firstByteTimeoutMs: 0 }),
    message: 'spec.firstByteTimeoutMs must be between 1 and 600000',
  },
  {
    rule: 'a circuit opens after at least one failure',
    resource: modelRoute({ circuitBreaker: { consecutiveFailures: 0 } }),
    message: 'spec.circuitBreaker.consecutiveFailures must be between 1 and 100',
  },
  {
    rule: 'strategy is known',
    resource: modelRoute({ strategy: 'roundRobin' as 'weighted' }),
    message: 'spec.strategy: Unsupported value: "roundRobin": supported values: "weighted", "leastBusy"',
  },
  {
    rule: 'a shared route is tenant-wide',
    resource: modelRoute({ shared: true, workspace: 'main' }),
    message:
      'spec.shared: Invalid value: "object": a spec.shared route is tenant-wide; spec.workspace must be absent',
  },
  {
    rule: 'a shared route targets platform models only',
    resource: modelRoute({ shared: true, targets: [{ model: '@acme-openai/gpt-4o' }] }),
    message:
      'spec.targets: Invalid value: "object": a spec.shared route may target only platform models (provider/model), never a Connection (@slug/model)',
  },
];

function loadExamples(): Resource[] {
  const resources: Resource[] = [];
  for (const file of readdirSync(EXAMPLES_DIR).filter((name) => /\.ya?ml$/.test(name))) {
    for (const document of parseAllDocuments(readFileSync(join(EXAMPLES_DIR, file), 'utf8'))) {
      const resource = document.toJS() as Resource | null;
      if (resource) resources.push(resource);
    }
  }
  return resources;
}

describe.runIf(available)('CRDs on a real kube-apiserver', () => {
  let plane: KubeControlPlane;

  async function create(resource: Resource, options: { dryRun?: boolean } = {}) {
    const query = `?fieldValidation=Strict${options.dryRun ? '&dryRun=All' : ''}`;
    const result = await plane.request('POST', `${collectionPath(resource)}${query}`, resource);
    return { status: result.status, body: result.body as Record<string, unknown> & { message?: string } };
  }

  async function get(resource: Resource) {
    const result = await plane.request('GET', `${collectionPath(resource)}/${resource.metadata.name}`);
    expect(result.status).toBe(200);
    return result.body as Resource & {
      metadata: { generation: number; resourceVersion: string };
      spec: Record<string, unknown>;
      status?: Record<string, unknown>;
    };
  }

  beforeAll(async () => {
    plane = await startKubeControlPlane();
    for (const name of [NAMESPACE, 'tenant-full']) {
      const result = await plane.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      expect(result.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await plane?.stop();
  });

  it('accepts every example of examples/ (and so does standalone validation)', async () => {
    const examples = loadExamples();
    expect(examples.map((resource) => resource.kind).sort()).toEqual(
      expect.arrayContaining(['CachePolicy', 'Connection', 'ModelRoute', 'Secret', 'Tenant']),
    );
    for (const resource of examples) {
      expect(validateResource(resource), `${resource.kind}/${resource.metadata.name}`).toEqual([]);
      const result = await create(resource, { dryRun: true });
      expect(result.status, `${resource.kind}/${resource.metadata.name}: ${result.body.message}`).toBe(201);
    }
  });

  it('accepts a resource of each kind with every field set', async () => {
    const spec: {
      tenant: Required<TenantSpec>;
      policy: Required<CachePolicySpec>;
      conn: Required<ConnectionSpec>;
      route: Required<ModelRouteSpec>;
    } = {
      tenant: {
        displayName: 'Full Corp',
        parentRef: { name: 'acme' },
        region: 'us-east-1',
        billingMode: 'delegated',
        slug: 'full-corp',
        referral: 'partner.x_1',
        contactEmail: 'owner@full.example',
        suspended: true,
        strictByok: true,
        workspaces: [
          { id: 'main', name: 'Main' },
          { id: 'ci-2', name: 'CI two' },
        ],
      },
      policy: {
        policyName: 'long-cache',
        workspace: 'main',
        ttlSeconds: 86_400,
        swrSeconds: 86_400,
        maxTtlSeconds: 86_400,
        defaultTags: Array.from({ length: 16 }, (_, index) => `t${index}.a_b:c-d`),
        semantic: true,
      },
      conn: {
        provider: 'bedrock-mantle',
        slug: 'mantle',
        label: 'mantle-old',
        secretRef: { name: 'aws.credentials' },
        baseUrl: 'https://bedrock-mantle.us-east-1.api.aws/v1',
        awsRegion: 'us-east-1',
        vertexProject: 'unused-project',
        vertexRegion: 'us-central1',
        workspace: 'main',
        defaultModel: 'openai.gpt-oss-120b',
        dailyCapMicros: Number.MAX_SAFE_INTEGER,
      },
      route: {
        model: 'Llama-3.1:8b_chat',
        workspace: 'main',
        strategy: 'leastBusy',
        targets: [
          ...Array.from({ length: 15 }, (_, index) => ({
            model: `together/meta-llama/m-${index}`,
            weight: 1000,
            priority: 100,
          })),
          { model: '@mantle/openai.gpt-oss-120b', weight: 0, priority: 100 },
        ],
        retry: {
          maxAttempts: 10,
          on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
          backoffMs: 60_000,
          maxBackoffMs: 60_000,
        },
        firstByteTimeoutMs: 600_000,
        circuitBreaker: { consecutiveFailures: 100, openSeconds: 3600 },
        shared: false,
      },
    };
    const resources = [
      tenant(spec.tenant, 'full'),
      {
        ...cachePolicy(spec.policy, 'long-cache'),
        metadata: { name: 'long-cache', namespace: 'tenant-full' },
      },
      { ...connection(spec.conn, 'mantle'), metadata: { name: 'mantle', namespace: 'tenant-full' } },
      { ...modelRoute(spec.route, 'llama'), metadata: { name: 'llama', namespace: 'tenant-full' } },
    ];
    for (const resource of resources) {
      expect(validateResource(resource), resource.kind).toEqual([]);
      const result = await create(resource);
      expect(result.status, `${resource.kind}: ${result.body.message}`).toBe(201);
      expect((await get(resource)).spec).toEqual(resource.spec);
    }
  });

  it('accepts every provider kind, bedrock-mantle included', async () => {
    for (const provider of [
      'openai',
      'anthropic',
      'gemini',
      'bedrock',
      'bedrock-mantle',
      'vertex',
    ] as const) {
      const result = await create(connection({ provider }, `p-${provider}`), { dryRun: true });
      expect(result.status, `${provider}: ${result.body.message}`).toBe(201);
    }
  });

  it('fills in the ModelRoute defaults: strategy weighted, shared false, weight 1, priority 0', async () => {
    const route = modelRoute(
      { targets: [{ model: 'openai/a' }, { model: 'anthropic/b', priority: 1 }] },
      'defaults',
    );
    expect((await create(route)).status).toBe(201);
    expect((await get(route)).spec).toEqual({
      strategy: 'weighted',
      shared: false,
      targets: [
        { model: 'openai/a', weight: 1, priority: 0 },
        { model: 'anthropic/b', weight: 1, priority: 1 },
      ],
    });
  });

  it('fills in the defaults: billingMode delegated, swrSeconds 0, semantic false', async () => {
    expect((await create(tenant({}, 'defaults'))).status).toBe(201);
    expect((await get(tenant({}, 'defaults'))).spec.billingMode).toBe('delegated');
    const policy = cachePolicy({ ttlSeconds: 60 }, 'defaults');
    expect((await create(policy)).status).toBe(201);
    expect((await get(policy)).spec).toEqual({ ttlSeconds: 60, swrSeconds: 0, semantic: false });
  });

  for (const { rule, resource, message } of BAD_EXAMPLES) {
    it(`refuses a resource that breaks "${rule}" with the CRD's message`, async () => {
      expect(validateResource(resource), 'standalone validation refuses it too').not.toEqual([]);
      const result = await create(resource, { dryRun: true });
      expect(result.status, JSON.stringify(result.body)).toBe(422);
      expect(result.body.reason).toBe('Invalid');
      expect(result.body.message).toContain(message);
    });
  }

  it('refuses unknown fields under strict field validation (kubectl apply does this by default)', async () => {
    const result = await create(cachePolicy({ ttlSeconds: 60, ttl: 60 }, 'typo'), { dryRun: true });
    expect(result.status).toBe(400);
    expect(result.body.message).toContain('unknown field "spec.ttl"');
  });

  it('applies the rules on update too', async () => {
    const policy = cachePolicy({ ttlSeconds: 60, maxTtlSeconds: 120 }, 'updated');
    expect((await create(policy)).status).toBe(201);
    const result = await plane.request(
      'PATCH',
      `${collectionPath(policy)}/updated`,
      { spec: { ttlSeconds: 600 } },
      'application/merge-patch+json',
    );
    expect(result.status).toBe(422);
    expect((result.body as { message: string }).message).toContain(
      'spec.ttlSeconds must be <= spec.maxTtlSeconds',
    );
  });

  it('sets a referral once: an update may neither change, add nor remove it', async () => {
    const withReferral = tenant({ referral: 'partner.x' }, 'referred');
    expect((await create(withReferral)).status).toBe(201);
    const path = `${collectionPath(withReferral)}/referred`;
    for (const spec of [{ referral: 'partner.y' }, { referral: null }]) {
      const result = await plane.request('PATCH', path, { spec }, 'application/merge-patch+json');
      expect(result.status, JSON.stringify(spec)).toBe(422);
      expect((result.body as { message: string }).message).toContain('set once, at creation');
    }
    const plain = tenant({}, 'unreferred');
    expect((await create(plain)).status).toBe(201);
    const added = await plane.request(
      'PATCH',
      `${collectionPath(plain)}/unreferred`,
      { spec: { referral: 'late.add' } },
      'application/merge-patch+json',
    );
    expect(added.status).toBe(422);
    // Other fields still change.
    const suspended = await plane.request(
      'PATCH',
      path,
      { spec: { suspended: true } },
      'application/merge-patch+json',
    );
    expect(suspended.status).toBe(200);
    // Standalone refuses the same changes.
    const current = await get(withReferral);
    expect(
      validateResource({ ...current, spec: { ...current.spec, referral: 'partner.y' } }, current),
    ).toContain('spec.referral is set once, at creation, and never changed');
  });

  it('keeps status in its own subresource, with conditions, observedGeneration and keyHint', async () => {
    const resource = connection({ slug: 'team-openai' }, 'status-demo');
    expect((await create(resource)).status).toBe(201);
    const created = await get(resource);
    expect(created.metadata.generation).toBe(1);

    const status = {
      observedGeneration: 1,
      keyHint: 'sk-…abcd',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Published',
          message: 'published to the config store',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        },
        {
          type: 'SecretResolved',
          status: 'True',
          reason: 'Found',
          message: 'secret openai-key has apiKey',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    const statusPath = `${collectionPath(resource)}/status-demo/status`;
    const patched = await plane.request('PATCH', statusPath, { status }, 'application/merge-patch+json');
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const afterStatus = await get(resource);
    expect(afterStatus.status).toEqual(status);
    expect(afterStatus.metadata.generation).toBe(1);

    // Writing status through the main resource is ignored; a spec change bumps the generation.
    const main = await plane.request(
      'PATCH',
      `${collectionPath(resource)}/status-demo`,
      { spec: { defaultModel: 'gpt-4o' }, status: { keyHint: 'forged' } },
      'application/merge-patch+json',
    );
    expect(main.status).toBe(200);
    const afterSpec = await get(resource);
    expect(afterSpec.status?.keyHint).toBe('sk-…abcd');
    expect(afterSpec.metadata.generation).toBe(2);

    const badCondition = await plane.request(
      'PATCH',
      statusPath,
      { status: { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'X', message: '' }] } },
      'application/merge-patch+json',
    );
    expect(badCondition.status).toBe(422);
  });

  it('prints Ready, provider, slug and key hint for Connections, TTL and SWR for CachePolicies', async () => {
    const table = async (path: string) => {
      const response = await fetch(`${plane.server}${path}`, {
        headers: {
          authorization: `Bearer ${plane.adminToken}`,
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
        },
        dispatcher: plane.dispatcher,
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        columnDefinitions: { name: string }[];
        rows: { cells: unknown[] }[];
      };
      const names = body.columnDefinitions.map((column) => column.name);
      return {
        names,
        rows: body.rows.map((row) => Object.fromEntries(names.map((name, i) => [name, row.cells[i]]))),
      };
    };

    const connections = await table(`/apis/${API_VERSION}/namespaces/${NAMESPACE}/connections/status-demo`);
    expect(connections.names).toEqual([
      'Name',
      'Ready',
      'Provider',
      'Slug',
      'Key-Hint',
      'Workspace',
      'Reason',
      'Age',
    ]);
    expect(connections.rows[0]).toMatchObject({
      Name: 'status-demo',
      Ready: 'True',
      Provider: 'openai',
      Slug: 'team-openai',
      'Key-Hint': 'sk-…abcd',
      Reason: 'Published',
    });

    const policies = await table(`/apis/${API_VERSION}/namespaces/${NAMESPACE}/cachepolicies/defaults`);
    expect(policies.names).toEqual(
      expect.arrayContaining(['Name', 'Workspace', 'TTL', 'SWR', 'Max-TTL', 'Semantic', 'Ready', 'Age']),
    );
    expect(policies.rows[0]).toMatchObject({ Name: 'defaults', TTL: 60, SWR: 0, Semantic: false });

    // The operator writes the slug in force and the Ready reason; both show without -o wide.
    const statusPatch = await plane.request(
      'PATCH',
      `/apis/${API_VERSION}/tenants/full/status`,
      {
        status: {
          slug: 'full-corp',
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'InvalidCredential',
              message: 'Secret k: data.hash must be a hex SHA-256',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
      'application/merge-patch+json',
    );
    expect(statusPatch.status, JSON.stringify(statusPatch.body)).toBe(200);
    const tenants = await table(`/apis/${API_VERSION}/tenants/full`);
    expect(tenants.names).toEqual([
      'Name',
      'Display-Name',
      'Slug',
      'Parent',
      'Billing',
      'Region',
      'Suspended',
      'Ready',
      'Reason',
      'Age',
    ]);
    expect(tenants.rows[0]).toMatchObject({
      Name: 'full',
      'Display-Name': 'Full Corp',
      Slug: 'full-corp',
      Parent: 'acme',
      Suspended: true,
      Ready: 'False',
      Reason: 'InvalidCredential',
    });
  });
  it('prints model, workspace, strategy, Ready and its reason for ModelRoutes', async () => {
    const route = modelRoute({ model: 'fast', workspace: 'main', strategy: 'leastBusy' }, 'printed');
    expect((await create(route)).status).toBe(201);
    const status = {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ConnectionNotFound',
          message: "target '@nope/gpt-4o' names Connection 'nope', which tenant acme does not have",
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    };
    const patched = await plane.request(
      'PATCH',
      `${collectionPath(route)}/printed/status`,
      { status },
      'application/merge-patch+json',
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const response = await fetch(`${plane.server}${collectionPath(route)}/printed`, {
      headers: {
        authorization: `Bearer ${plane.adminToken}`,
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      },
      dispatcher: plane.dispatcher,
    });
    const body = (await response.json()) as {
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[] }[];
    };
    const names = body.columnDefinitions.map((column) => column.name);
    expect(names).toEqual(['Name', 'Model', 'Workspace', 'Strategy', 'Shared', 'Ready', 'Reason', 'Age']);
    expect(Object.fromEntries(names.map((name, index) => [name, body.rows[0]?.cells[index]]))).toMatchObject({
      Name: 'printed',
      Model: 'fast',
      Workspace: 'main',
      Strategy: 'leastBusy',
      Shared: false,
      Ready: 'False',
      Reason: 'ConnectionNotFound',
    });
  });
});
