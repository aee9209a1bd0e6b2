/**
 * Config store records of the custom resources that both the operator (operator/desired-config.ts,
 * the controllers) and the control plane (which validates what it writes before the operator
 * sees it) compute: pure functions of a resource, no I/O. Objects that cannot be turned into a
 * record are reported as problems, for status conditions and for the control plane's answers.
 */
import type { CachePolicyRecord, ProviderKind, TenantRecord } from '../stores/records.ts';
import { cachePolicyId } from '../stores/records.ts';
import type { CachePolicyResource, ConnectionResource, ModelRouteResource, SecretResource } from './types.ts';
import { tenantNamespace } from './types.ts';

/** Why an object produced no record; `reason` is a condition reason (PascalCase). */
export interface DesiredConfigProblem {
  kind: 'Tenant' | 'CachePolicy' | 'Connection' | 'ModelRoute' | 'Secret';
  name: string;
  namespace?: string;
  reason: string;
  message: string;
}

export type DesiredRecord<T> =
  | { ok: true; id: string; record: T }
  | { ok: false; problem: DesiredConfigProblem };

export const CACHE_POLICY_DEFAULTS = { ttlSeconds: 600, swrSeconds: 0, maxTtlSeconds: 86_400 } as const;
const TENANT_NAMESPACE_PREFIX = tenantNamespace('');

/** The tenant whose namespace this is (`tenant-<name>` -> name), or undefined. */
export function tenantIdOfNamespace(namespace: string | undefined): string | undefined {
  if (!namespace?.startsWith(TENANT_NAMESPACE_PREFIX)) return undefined;
  const tenantId = namespace.slice(TENANT_NAMESPACE_PREFIX.length);
  return tenantId === '' ? undefined : tenantId;
}

/** A Secret's values, base64-decoded (with any not yet folded stringData on top). */
export function decodeSecretData(secret: SecretResource): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {})) {
    values[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  return Object.assign(values, secret.stringData);
}

/** Drops undefined fields, so that records compare equal to their JSON round trip. */
export function withoutUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

export function problemOf(
  resource: { kind: DesiredConfigProblem['kind']; metadata: { name: string; namespace?: string } },
  reason: string,
  message: string,
): DesiredConfigProblem {
  const { name, namespace } = resource.metadata;
  return withoutUndefined({ kind: resource.kind, name, namespace, reason, message });
}

export function checkScope(
  resource: CachePolicyResource | ConnectionResource | ModelRouteResource,
  workspace: string | undefined,
  tenant: TenantRecord | undefined,
): DesiredConfigProblem | undefined {
  const tenantId = tenantIdOfNamespace(resource.metadata.namespace);
  if (tenantId === undefined || (tenant !== undefined && tenant.id !== tenantId)) {
    const message = `namespace '${resource.metadata.namespace}' belongs to no known tenant`;
    return problemOf(resource, 'UnknownTenant', message);
  }
  if (workspace !== undefined && tenant && !tenant.workspaces.some((entry) => entry.id === workspace)) {
    return problemOf(resource, 'UnknownWorkspace', `workspace '${workspace}' is not in tenant ${tenantId}`);
  }
  return undefined;
}

/**
 * The CachePolicy's record. With `tenant`, its workspace is checked against the tenant's. An
 * absent ttlSeconds defaults to 600 but never above the policy's own maxTtlSeconds.
 */
export function desiredCachePolicyRecord(
  policy: CachePolicyResource,
  tenant?: TenantRecord,
): DesiredRecord<CachePolicyRecord> {
  const { spec } = policy;
  const problem = checkScope(policy, spec.workspace, tenant);
  if (problem) return { ok: false, problem };
  const tenantId = tenantIdOfNamespace(policy.metadata.namespace) as string;
  const maxTtlSeconds = spec.maxTtlSeconds ?? CACHE_POLICY_DEFAULTS.maxTtlSeconds;
  const record: CachePolicyRecord = withoutUndefined({
    v: 1,
    tenantId,
    workspaceId: spec.workspace,
    name: spec.policyName ?? policy.metadata.name,
    ttlSeconds: spec.ttlSeconds ?? Math.min(CACHE_POLICY_DEFAULTS.ttlSeconds, maxTtlSeconds),
    swrSeconds: spec.swrSeconds ?? CACHE_POLICY_DEFAULTS.swrSeconds,
    maxTtlSeconds,
    defaultTags: [...(spec.defaultTags ?? [])],
    semantic: spec.semantic ?? false,
  });
  return { ok: true, id: cachePolicyId(tenantId, record.workspaceId, record.name), record };
}

/**
 * The Secret keys each provider needs: any one of the alternatives, each complete and non-empty.
 * An openai-compatible server may need no key at all.
 */
export const CONNECTION_SECRET_KEYS: Readonly<Record<ProviderKind, readonly (readonly string[])[]>> = {
  openai: [['apiKey']],
  anthropic: [['apiKey']],
  gemini: [['apiKey']],
  'openai-compatible': [[]],
  bedrock: [['awsAccessKeyId', 'awsSecretAccessKey'], ['apiKey']],
  'bedrock-mantle': [['apiKey'], ['awsAccessKeyId', 'awsSecretAccessKey']],
  vertex: [['gcpServiceAccountJson'], ['apiKey']],
};

/** Why the material lacks what the provider needs (names keys, never values), or undefined. */
export function missingConnectionKeys(
  provider: ProviderKind,
  material: Record<string, string>,
): string | undefined {
  const alternatives = CONNECTION_SECRET_KEYS[provider] ?? [[]];
  if (alternatives.some((keys) => keys.every((key) => (material[key] ?? '') !== ''))) return undefined;
  const wanted = alternatives.map((keys) => keys.join(' and ')).join(', or ');
  return `lacks the keys provider ${provider} needs: ${wanted}`;
}

export type Aged = { metadata: { name: string; namespace?: string; creationTimestamp?: string } };

/** The order of age: creation time, then namespace and name. Of two conflicting objects the older wins. */
export function ageKey(item: Aged): string {
  return `${item.metadata.creationTimestamp ?? ''}\u0000${item.metadata.namespace ?? ''}\u0000${item.metadata.name}`;
}

/** Oldest first (then by namespace and name), so that of two conflicting objects the older wins. */
export function byAge<T extends Aged>(items: readonly T[]): T[] {
  return [...items].sort((left, right) => (ageKey(left) < ageKey(right) ? -1 : 1));
}
