/**
 * Drift check between the TypeScript home of the CRD shapes (crd-types.ts, types.ts) and the YAML in
 * crds/: every property of the spec and status types exists in the schema with a matching type, the
 * schema has no property the types lack, required fields agree with the non-optional ones, and the
 * limits stated in the CEL rules are the ones validate.ts enforces in standalone.
 *
 * The samples are typed `Required<...>`, so adding a property to a spec type without adding it here
 * is a compile error (tsc), and adding it here without adding it to the YAML fails this test.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROVIDER_KINDS } from '../stores/records.ts';
import type {
  CachePolicySpec,
  Condition,
  ConnectionSpec,
  ModelRouteSpec,
  ModelRouteTargetSpec,
  TenantSpec,
} from './crd-types.ts';
import type { ConnectionResource, TenantResource } from './types.ts';
import { API_GROUP } from './types.ts';
import { MAX_DEFAULT_TAGS, MAX_TENANT_NAME, MAX_TTL_SECONDS, SLUG_PATTERN, TAG_PATTERN } from './validate.ts';
import {
  MODEL_ROUTE_LIMITS,
  ROUTE_MODEL_MAX,
  ROUTE_MODEL_PATTERN,
  ROUTE_RETRY_CONDITIONS,
  ROUTE_STRATEGIES,
  ROUTE_TARGET_MAX,
  ROUTE_TARGET_PATTERN,
} from './validate-model-route.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  maxItems?: number;
  maxLength?: number;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
}

interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

const CRDS_DIR = resolve(import.meta.dirname, '../../crds');

function loadCrd(plural: string): Crd {
  return parse(readFileSync(join(CRDS_DIR, `${API_GROUP}_${plural}.yaml`), 'utf8')) as Crd;
}

function rootSchema(crd: Crd): Schema {
  const version = crd.spec.versions.find((entry) => entry.name === 'v1alpha1');
  if (!version) throw new Error(`${crd.metadata.name} has no v1alpha1`);
  return version.schema.openAPIV3Schema;
}

function child(schema: Schema | undefined, ...path: string[]): Schema {
  let current = schema;
  for (const key of path) {
    current = key === '[]' ? current?.items : current?.properties?.[key];
    if (!current) throw new Error(`schema has no ${path.join('.')}`);
  }
  return current as Schema;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Walks a sample against a schema: every key of the sample is a schema property of the same type,
 * and (with `exhaustive`) every schema property is a key of the sample. Returns the mismatches.
 */
function compareShape(sample: unknown, schema: Schema, path: string, exhaustive = true): string[] {
  const problems: string[] = [];
  const actual = jsonType(sample);
  if (schema.type !== actual) {
    problems.push(`${path}: TS sample is ${actual}, schema says ${schema.type}`);
    return problems;
  }
  if (actual === 'array') {
    for (const [index, item] of (sample as unknown[]).entries()) {
      problems.push(...compareShape(item, schema.items ?? {}, `${path}[${index}]`, exhaustive));
    }
  }
  if (actual === 'object') {
    const sampleKeys = Object.keys(sample as object).sort();
    const schemaKeys = Object.keys(schema.properties ?? {}).sort();
    for (const key of sampleKeys) {
      const inner = schema.properties?.[key];
      if (!inner) problems.push(`${path}.${key}: in the TS type, missing from the schema`);
      else problems.push(...compareShape((sample as Record<string, unknown>)[key], inner, `${path}.${key}`));
    }
    if (exhaustive) {
      for (const key of schemaKeys.filter((name) => !sampleKeys.includes(name))) {
        problems.push(`${path}.${key}: in the schema, missing from the TS type`);
      }
    }
  }
  return problems;
}

// Type-level checks: the required (non-optional) keys of each TS type equal the lists below, which
// the test compares with the schemas' `required`. A change of optionality is a compile error.
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

const TENANT_REQUIRED = ['displayName', 'workspaces'] as const;
const CACHE_POLICY_REQUIRED = [] as const;
const CONNECTION_REQUIRED = ['provider', 'secretRef'] as const;
const MODEL_ROUTE_REQUIRED = ['targets'] as const;
const CONDITION_REQUIRED = ['type', 'status', 'reason', 'message', 'lastTransitionTime'] as const;
type RequiredKeysMatch = [
  Assert<Equal<(typeof TENANT_REQUIRED)[number], RequiredKeys<TenantSpec>>>,
  Assert<Equal<(typeof CACHE_POLICY_REQUIRED)[number], RequiredKeys<CachePolicySpec>>>,
  Assert<Equal<(typeof CONNECTION_REQUIRED)[number], RequiredKeys<ConnectionSpec>>>,
  Assert<Equal<(typeof MODEL_ROUTE_REQUIRED)[number], RequiredKeys<ModelRouteSpec>>>,
  Assert<Equal<(typeof CONDITION_REQUIRED)[number], RequiredKeys<Condition>>>,
];
/** Compiles only while every assertion above holds. */
const requiredKeysMatch: RequiredKeysMatch = [true, true, true, true, true];

const tenantSample: Required<TenantSpec> = {
  displayName: 'Acme',
  parentRef: { name: 'holding' },
  region: 'eu-west-1',
  billingMode: 'delegated',
  slug: 'acme',
  referral: 'partner.x',
  contactEmail: 'owner@acme.example',
  suspended: false,
  strictByok: true,
  workspaces: [{ id: 'main', name: 'Main' }],
};

const cachePolicySample: Required<CachePolicySpec> = {
  policyName: 'default',
  workspace: 'main',
  ttlSeconds: 600,
  swrSeconds: 30,
  maxTtlSeconds: 3600,
  defaultTags: ['docs:v1'],
  semantic: true,
};

const connectionSample: Required<ConnectionSpec> = {
  provider: 'openai-compatible',
  slug: 'vllm',
  label: 'vllm',
  secretRef: { name: 'vllm-key' },
  baseUrl: 'http://vllm.models.svc:8000/v1',
  awsRegion: 'us-east-1',
  vertexProject: 'my-project',
  vertexRegion: 'europe-west4',
  workspace: 'main',
  defaultModel: 'llama-3.1-8b',
  dailyCapMicros: 5_000_000,
};

// Nested objects are compared exhaustively too: every optional field of theirs is in a sample.
const routeTargetSample: Required<ModelRouteTargetSpec> = {
  model: 'openai/gpt-4o-mini',
  weight: 3,
  priority: 0,
};
const routeRetrySample: Required<NonNullable<ModelRouteSpec['retry']>> = {
  maxAttempts: 3,
  on: ['rateLimited', 'timeout'],
  backoffMs: 100,
  maxBackoffMs: 2000,
};
const routeBreakerSample: Required<NonNullable<ModelRouteSpec['circuitBreaker']>> = {
  consecutiveFailures: 5,
  openSeconds: 30,
};
const modelRouteSample: Required<ModelRouteSpec> = {
  model: 'chat-default',
  workspace: 'main',
  strategy: 'leastBusy',
  targets: [routeTargetSample, { model: '@acme-azure/gpt-4o-mini', weight: 1, priority: 1 }],
  retry: routeRetrySample,
  firstByteTimeoutMs: 30_000,
  circuitBreaker: routeBreakerSample,
  shared: false,
};

const conditionSample: Required<Condition> = {
  type: 'Ready',
  status: 'True',
  reason: 'Published',
  message: 'published to the config store',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: 1,
};

const connectionStatusSample: Required<NonNullable<ConnectionResource['status']>> = {
  observedGeneration: 1,
  conditions: [conditionSample],
  keyHint: 'sk-…abcd',
};

const tenantStatusSample: Required<NonNullable<TenantResource['status']>> = {
  observedGeneration: 1,
  conditions: [conditionSample],
  slug: 'acme',
};

/**
 * Paths of schema properties (items included) that lack a description, which `kubectl explain`
 * shows. The root's metadata is the exception: the API server refuses anything but its type there
 * (kubectl explain shows ObjectMeta's own documentation).
 */
function undescribed(schema: Schema, path: string): string[] {
  const missing: string[] = [];
  for (const [key, inner] of Object.entries(schema.properties ?? {})) {
    const innerPath = `${path}.${key}`;
    const rootMetadata = key === 'metadata' && !path.includes('.');
    if (!rootMetadata && !(inner as { description?: string }).description) missing.push(innerPath);
    missing.push(...undescribed(inner, innerPath));
    if (inner.items) missing.push(...undescribed(inner.items, `${innerPath}[]`));
  }
  return missing;
}

const KINDS = [
  { plural: 'tenants', kind: 'Tenant', scope: 'Cluster', spec: tenantSample, required: TENANT_REQUIRED },
  {
    plural: 'cachepolicies',
    kind: 'CachePolicy',
    scope: 'Namespaced',
    spec: cachePolicySample,
    required: CACHE_POLICY_REQUIRED,
  },
  {
    plural: 'connections',
    kind: 'Connection',
    scope: 'Namespaced',
    spec: connectionSample,
    required: CONNECTION_REQUIRED,
  },
  {
    plural: 'modelroutes',
    kind: 'ModelRoute',
    scope: 'Namespaced',
    spec: modelRouteSample,
    required: MODEL_ROUTE_REQUIRED,
  },
] as const;

function rulesOf(schema: Schema): string[] {
  return (schema['x-kubernetes-validations'] ?? []).map((entry) => entry.rule);
}

describe('CRD YAML and the TypeScript CRD types', () => {
  for (const { plural, kind, scope, spec, required } of KINDS) {
    describe(kind, () => {
      const crd = loadCrd(plural);
      const root = rootSchema(crd);

      it('is served and stored as v1alpha1 in the group, with the expected scope', () => {
        expect(crd.metadata.name).toBe(`${plural}.${API_GROUP}`);
        expect(crd.spec.group).toBe(API_GROUP);
        expect(crd.spec.names.kind).toBe(kind);
        expect(crd.spec.scope).toBe(scope);
        expect(crd.spec.versions).toHaveLength(1);
        expect(crd.spec.versions[0]).toMatchObject({ name: 'v1alpha1', served: true, storage: true });
      });

      it('has exactly the spec properties of the TS type, with the same JSON types', () => {
        expect(compareShape(spec, child(root, 'spec'), 'spec')).toEqual([]);
      });

      it('describes every field, for kubectl explain', () => {
        expect(undescribed(root, kind)).toEqual([]);
      });

      it('requires exactly the non-optional spec properties', () => {
        expect(requiredKeysMatch).toEqual([true, true, true, true, true]);
        expect([...(child(root, 'spec').required ?? [])].sort()).toEqual([...required].sort());
      });

      it('has a status with observedGeneration and standard conditions matching the Condition type', () => {
        const status = child(root, 'status');
        const sample =
          kind === 'Connection'
            ? connectionStatusSample
            : kind === 'Tenant'
              ? tenantStatusSample
              : { observedGeneration: 1, conditions: [conditionSample] };
        expect(compareShape(sample, status, 'status')).toEqual([]);
        const condition = child(status, 'conditions', '[]');
        expect([...(condition.required ?? [])].sort()).toEqual([...CONDITION_REQUIRED].sort());
        expect(child(condition, 'status').enum).toEqual(['True', 'False', 'Unknown']);
      });
    });
  }

  it('lists exactly PROVIDER_KINDS as Connection providers (bedrock-mantle included)', () => {
    const provider = child(rootSchema(loadCrd('connections')), 'spec', 'provider');
    expect(provider.enum).toEqual([...PROVIDER_KINDS]);
    expect(provider.enum).toContain('bedrock-mantle');
  });

  it('offers the billing modes of the TS type, defaulting to delegated and refusing pooled', () => {
    const billingMode = child(rootSchema(loadCrd('tenants')), 'spec', 'billingMode');
    const modes: NonNullable<TenantSpec['billingMode']>[] = ['delegated', 'pooled'];
    expect(billingMode.enum).toEqual(modes);
    expect(billingMode.default).toBe('delegated');
    expect(rulesOf(billingMode)).toContain("self != 'pooled'");
  });

  it('states the limits validate.ts enforces (slug and tag patterns, TTL ceiling, tag count, tenant name)', () => {
    const policy = child(rootSchema(loadCrd('cachepolicies')), 'spec');
    const connection = child(rootSchema(loadCrd('connections')), 'spec');
    const tenant = rootSchema(loadCrd('tenants'));
    const slugRule = `self.matches('${SLUG_PATTERN.source}')`;
    for (const slug of [
      child(policy, 'policyName'),
      child(policy, 'workspace'),
      child(connection, 'slug'),
      child(connection, 'label'),
      child(connection, 'workspace'),
      child(tenant, 'spec', 'workspaces', '[]', 'id'),
    ]) {
      expect(rulesOf(slug)).toContain(slugRule);
    }
    expect(rulesOf(child(policy, 'defaultTags', '[]'))).toContain(`self.matches('${TAG_PATTERN.source}')`);
    expect(rulesOf(child(policy, 'defaultTags'))).toContain(`self.size() <= ${MAX_DEFAULT_TAGS}`);
    expect(rulesOf(child(policy, 'ttlSeconds'))).toContain(`self >= 1 && self <= ${MAX_TTL_SECONDS}`);
    expect(rulesOf(child(policy, 'maxTtlSeconds'))).toContain(`self >= 1 && self <= ${MAX_TTL_SECONDS}`);
    expect(rulesOf(child(policy, 'swrSeconds'))).toContain(`self >= 0 && self <= ${MAX_TTL_SECONDS}`);
    expect(rulesOf(child(connection, 'dailyCapMicros'))).toContain(
      `self >= 0 && self <= ${Number.MAX_SAFE_INTEGER}`,
    );
    expect(
      rulesOf(tenant).some((rule) => rule.includes(`self.metadata.name.size() <= ${MAX_TENANT_NAME}`)),
    ).toBe(true);
  });

  it('states the ModelRoute limits validate-model-route.ts enforces, and its enums and defaults', () => {
    const spec = child(rootSchema(loadCrd('modelroutes')), 'spec');
    const range = (schema: Schema, limit: keyof typeof MODEL_ROUTE_LIMITS) =>
      expect(rulesOf(schema)).toContain(
        `self >= ${MODEL_ROUTE_LIMITS[limit].min} && self <= ${MODEL_ROUTE_LIMITS[limit].max}`,
      );
    expect(rulesOf(child(spec, 'model'))).toContain(`self.matches('${ROUTE_MODEL_PATTERN.source}')`);
    expect(child(spec, 'model').maxLength).toBe(ROUTE_MODEL_MAX);
    expect(rulesOf(child(spec, 'workspace'))).toContain(`self.matches('${SLUG_PATTERN.source}')`);
    const target = child(spec, 'targets', '[]', 'model');
    expect(rulesOf(target)).toContain(`self.matches('${ROUTE_TARGET_PATTERN.source.replace('\\/', '/')}')`);
    expect(target.maxLength).toBe(ROUTE_TARGET_MAX);
    expect(rulesOf(child(spec, 'targets'))).toEqual(
      expect.arrayContaining([
        `self.size() >= ${MODEL_ROUTE_LIMITS.targets.min}`,
        `self.size() <= ${MODEL_ROUTE_LIMITS.targets.max}`,
      ]),
    );
    range(child(spec, 'targets', '[]', 'weight'), 'weight');
    range(child(spec, 'targets', '[]', 'priority'), 'priority');
    range(child(spec, 'retry', 'maxAttempts'), 'maxAttempts');
    range(child(spec, 'retry', 'backoffMs'), 'backoffMs');
    range(child(spec, 'retry', 'maxBackoffMs'), 'maxBackoffMs');
    range(child(spec, 'firstByteTimeoutMs'), 'firstByteTimeoutMs');
    range(child(spec, 'circuitBreaker', 'consecutiveFailures'), 'consecutiveFailures');
    range(child(spec, 'circuitBreaker', 'openSeconds'), 'openSeconds');
    expect(child(spec, 'retry', 'on', '[]').enum).toEqual([...ROUTE_RETRY_CONDITIONS]);
    expect(child(spec, 'strategy').enum).toEqual([...ROUTE_STRATEGIES]);
    expect(child(spec, 'strategy').default).toBe('weighted');
    expect(child(spec, 'shared').default).toBe(false);
    expect(child(spec, 'targets', '[]', 'weight').default).toBe(1);
    expect(child(spec, 'targets', '[]', 'priority').default).toBe(0);
  });

  it('defaults what the TS consumers assume (semantic false, swrSeconds 0)', () => {
    const policy = child(rootSchema(loadCrd('cachepolicies')), 'spec');
    expect(child(policy, 'semantic').default).toBe(false);
    expect(child(policy, 'swrSeconds').default).toBe(0);
  });
});
