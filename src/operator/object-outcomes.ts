/**
 * What one object publishes, computed by pure functions over the informer caches: the per-kind
 * desired-record functions of desired-config.ts plus the rules that involve other objects (of two
 * CachePolicies with the same name at one scope, two Connections with one slug, or two ModelRoutes
 * of one model at one scope, the older wins; a credential id belongs to one tenant; a route's
 * `@slug/` target needs a published Connection). `desiredStateWithOwners` applies the same rules to
 * every object at once, for full rebuilds, and says which object owns each record.
 */

import {
  ageKey,
  byAge,
  type DesiredConfigProblem,
  decodeSecretData,
  desiredCachePolicyRecord,
  missingConnectionKeys,
  tenantIdOfNamespace,
} from '../resources/desired-records.ts';
import { desiredModelRouteRecord } from '../resources/model-route-record.ts';
import type {
  CachePolicyResource,
  ConnectionResource,
  ModelRouteResource,
  SecretResource,
  TenantResource,
} from '../resources/types.ts';
import { tenantNamespace } from '../resources/types.ts';
import {
  CONFIG_KINDS,
  type ConfigKind,
  type ConfigRecordMap,
  type ConnectionRecord,
  type TenantRecord,
} from '../stores/records.ts';
import type { ConfigSnapshot } from '../stores/types.ts';
import {
  type CredentialPolicy,
  desiredConnectionRecord,
  desiredTenantRecords,
  type SecretSealing,
} from './desired-config.ts';

export type OwnedRecord = {
  [K in ConfigKind]: { kind: K; id: string; record: ConfigRecordMap[K] };
}[ConfigKind];

export interface ObjectOutcome {
  /** Records the object publishes, tenants before the records that point at them. */
  records: OwnedRecord[];
  /** Why the object (or, for a Tenant, one of its credential Secrets) is left out. */
  problems: DesiredConfigProblem[];
}

type Custom = TenantResource | CachePolicyResource | ConnectionResource | ModelRouteResource;
type Namespaced = CachePolicyResource | ConnectionResource | ModelRouteResource;

/** The work-queue key and owner key of an object: `Kind/namespace/name`. */
export function objectKey(resource: {
  kind: string;
  metadata: { name: string; namespace?: string };
}): string {
  return `${resource.kind}/${resource.metadata.namespace ?? ''}/${resource.metadata.name}`;
}

export function isDeleting(resource: { metadata: { deletionTimestamp?: string } }): boolean {
  return resource.metadata.deletionTimestamp !== undefined;
}

/** The record of the tenant a namespace serves, or undefined (no Tenant, being deleted, or refused). */
export function servingTenantRecord(tenant: TenantResource | undefined): TenantRecord | undefined {
  if (!tenant || isDeleting(tenant)) return undefined;
  return desiredTenantRecords(tenant, []).tenant;
}

function unknownTenant(resource: Namespaced): DesiredConfigProblem {
  const { name, namespace } = resource.metadata;
  const message = `namespace '${namespace}' belongs to no known tenant`;
  return { kind: resource.kind, name, ...(namespace ? { namespace } : {}), reason: 'UnknownTenant', message };
}

/**
 * The Tenant's records: itself, then its credentials (Secrets labelled gateway.service.io/credential
 * in its namespace, oldest first). `claimedElsewhere` says whether another tenant already holds a
 * credential id; such a credential is left out. `policy` says which tenant may hold an admin PAT.
 */
export function tenantOutcome(
  tenant: TenantResource,
  namespaceSecrets: readonly SecretResource[],
  claimedElsewhere: (kind: ConfigKind, id: string) => boolean = () => false,
  policy: CredentialPolicy = {},
): ObjectOutcome {
  const desired = desiredTenantRecords(tenant, byAge(namespaceSecrets), policy);
  const problems = [...desired.problems];
  if (!desired.tenant) return { records: [], problems };
  const records: OwnedRecord[] = [{ kind: 'tenant', id: desired.tenant.id, record: desired.tenant }];
  const seen = new Set<string>();
  const credentials = [
    ...desired.apiKeys.map((record) => ({ kind: 'apiKey' as const, id: record.id, record })),
    ...desired.pats.map((record) => ({ kind: 'pat' as const, id: record.id, record })),
    ...desired.provisioningKeys.map((record) => ({
      kind: 'provisioningKey' as const,
      id: record.id,
      record,
    })),
  ];
  for (const credential of credentials) {
    const slot = `${credential.kind}\u0000${credential.id}`;
    if (seen.has(slot) || claimedElsewhere(credential.kind, credential.id)) {
      const message = `credential id '${credential.id}' is already used by another Secret`;
      problems.push({ kind: 'Tenant', name: tenant.metadata.name, reason: 'DuplicateCredentialId', message });
      continue;
    }
    seen.add(slot);
    records.push(credential);
  }
  return { records, problems };
}

/** Older live objects of the same kind and namespace, oldest first. */
function olderSiblings<T extends Namespaced>(resource: T, siblings: readonly T[]): T[] {
  const own = ageKey(resource);
  return byAge(siblings).filter(
    (sibling) =>
      !isDeleting(sibling) && sibling.metadata.name !== resource.metadata.name && ageKey(sibling) < own,
  );
}

export function cachePolicyOutcome(
  policy: CachePolicyResource,
  tenant: TenantRecord | undefined,
  siblings: readonly CachePolicyResource[],
): ObjectOutcome {
  if (!tenant) return { records: [], problems: [unknownTenant(policy)] };
  const desired = desiredCachePolicyRecord(policy, tenant);
  if (!desired.ok) return { records: [], problems: [desired.problem] };
  for (const sibling of olderSiblings(policy, siblings)) {
    const other = desiredCachePolicyRecord(sibling, tenant);
    if (other.ok && other.id === desired.id) {
      const message = `CachePolicy '${sibling.metadata.name}' already defines '${desired.record.name}' at this scope`;
      const { name, namespace } = policy.metadata;
      return {
        records: [],
        problems: [{ kind: 'CachePolicy', name, namespace, reason: 'NameConflict', message }],
      };
    }
  }
  return { records: [{ kind: 'cachePolicy', id: desired.id, record: desired.record }], problems: [] };
}

/** A sealing that does no work: for telling whether a sibling Connection would publish. */
const NO_SEALING: SecretSealing = { seal: () => '', digest: () => '' };

export function connectionOutcome(
  connection: ConnectionResource,
  tenant: TenantRecord | undefined,
  secretOf: (connection: ConnectionResource) => SecretResource | undefined,
  siblings: readonly ConnectionResource[],
  sealing: SecretSealing,
): ObjectOutcome {
  if (!tenant) return { records: [], problems: [unknownTenant(connection)] };
  const desired = desiredConnectionRecord(connection, secretOf(connection), sealing, tenant);
  if (!desired.ok) return { records: [], problems: [desired.problem] };
  for (const sibling of olderSiblings(connection, siblings)) {
    const other = desiredConnectionRecord(sibling, secretOf(sibling), NO_SEALING, tenant);
    if (other.ok && other.id === desired.id) {
      const message = `Connection '${sibling.metadata.name}' of tenant ${tenant.id} already has slug '${desired.record.slug}'`;
      const { name, namespace } = connection.metadata;
      return {
        records: [],
        problems: [{ kind: 'Connection', name, namespace, reason: 'SlugConflict', message }],
      };
    }
  }
  return { records: [{ kind: 'connection', id: desired.id, record: desired.record }], problems: [] };
}

/**
 * The tenant's published Connection of a slug, as the Connection controller would publish it from
 * these caches (its Secret resolved, the older of two with one slug), for a route's targets.
 */
export function publishedConnectionLookup(
  tenant: TenantRecord,
  connections: readonly ConnectionResource[],
  secretOf: (connection: ConnectionResource) => SecretResource | undefined,
): (slug: string) => ConnectionRecord | undefined {
  return (slug) => {
    for (const connection of connections) {
      if ((connection.spec.slug ?? connection.spec.label ?? connection.metadata.name) !== slug) continue;
      if (isDeleting(connection)) continue;
      const outcome = connectionOutcome(connection, tenant, secretOf, connections, NO_SEALING);
      const published = outcome.records[0];
      if (published?.kind === 'connection') return published.record;
    }
    return undefined;
  };
}

export function modelRouteOutcome(
  route: ModelRouteResource,
  tenant: TenantRecord | undefined,
  siblings: readonly ModelRouteResource[],
  connectionOf: (slug: string) => ConnectionRecord | undefined,
  policy: CredentialPolicy,
): ObjectOutcome {
  if (!tenant) return { records: [], problems: [unknownTenant(route)] };
  const checks = {
    tenant,
    platformTenant: policy.platformTenant,
    providers: policy.routeProviders,
    connectionOf,
  };
  const desired = desiredModelRouteRecord(route, checks);
  if (!desired.ok) return { records: [], problems: [desired.problem] };
  for (const sibling of olderSiblings(route, siblings)) {
    // Only the id matters here: the sibling's targets need not resolve for it to hold the model.
    const other = desiredModelRouteRecord(sibling, { tenant, platformTenant: policy.platformTenant });
    if (other.ok && other.id === desired.id) {
      const message = `ModelRoute '${sibling.metadata.name}' already routes '${desired.record.model}' at this scope`;
      const { name, namespace } = route.metadata;
      return {
        records: [],
        problems: [{ kind: 'ModelRoute', name, namespace, reason: 'ModelConflict', message }],
      };
    }
  }
  return { records: [{ kind: 'modelRoute', id: desired.id, record: desired.record }], problems: [] };
}

/** How a Connection's Secret resolves, for the SecretResolved condition (names keys, never values). */
export function resolveConnectionSecret(
  connection: ConnectionResource,
  secret: SecretResource | undefined,
):
  | { resolved: true; material: Record<string, string> }
  | { resolved: false; reason: string; message: string } {
  const { namespace } = connection.metadata;
  const secretName = connection.spec.secretRef.name;
  if (!secret) {
    return {
      resolved: false,
      reason: 'SecretNotFound',
      message: `Secret '${secretName}' not found in namespace '${namespace}'`,
    };
  }
  const material = decodeSecretData(secret);
  const missing = missingConnectionKeys(connection.spec.provider, material);
  if (missing !== undefined)
    return { resolved: false, reason: 'KeyMissing', message: `Secret '${secretName}' ${missing}` };
  return { resolved: true, material };
}

export interface DesiredCacheContents {
  tenants: readonly TenantResource[];
  cachePolicies: readonly CachePolicyResource[];
  connections: readonly ConnectionResource[];
  modelRoutes?: readonly ModelRouteResource[];
  secrets: readonly SecretResource[];
}

export interface DesiredStateWithOwners {
  records: ConfigSnapshot;
  /** [owner key, kind, id] of every record. */
  owners: [string, ConfigKind, string][];
  problems: DesiredConfigProblem[];
}

function groupByNamespace<T extends { metadata: { namespace?: string } }>(
  items: readonly T[],
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const namespace = item.metadata.namespace ?? '';
    const group = groups.get(namespace);
    if (group) group.push(item);
    else groups.set(namespace, [item]);
  }
  return groups;
}

/** Every record the store should hold and who owns it: the per-object outcomes of every live object. */
export function desiredStateWithOwners(
  input: DesiredCacheContents,
  sealing: SecretSealing,
  policy: CredentialPolicy,
): DesiredStateWithOwners {
  const records = Object.fromEntries(CONFIG_KINDS.map((kind) => [kind, new Map()])) as ConfigSnapshot;
  const owners: DesiredStateWithOwners['owners'] = [];
  const problems: DesiredConfigProblem[] = [];
  const add = (owner: Custom, outcome: ObjectOutcome) => {
    problems.push(...outcome.problems);
    for (const { kind, id, record } of outcome.records) {
      (records[kind] as Map<string, object>).set(id, record);
      owners.push([objectKey(owner), kind, id]);
    }
  };
  const secretsByNamespace = groupByNamespace(input.secrets);
  const tenantRecords = new Map<string, TenantRecord>();
  for (const tenant of byAge(input.tenants).filter((item) => !isDeleting(item))) {
    const namespaceSecrets = secretsByNamespace.get(tenantNamespace(tenant.metadata.name)) ?? [];
    const outcome = tenantOutcome(tenant, namespaceSecrets, (kind, id) => records[kind].has(id), policy);
    const tenantRecord = outcome.records.find((entry) => entry.kind === 'tenant');
    if (tenantRecord) tenantRecords.set(tenantRecord.id, tenantRecord.record as TenantRecord);
    add(tenant, outcome);
  }
  const tenantOf = (namespace: string | undefined) => tenantRecords.get(tenantIdOfNamespace(namespace) ?? '');
  for (const [, policies] of groupByNamespace(input.cachePolicies)) {
    for (const policy of policies.filter((item) => !isDeleting(item))) {
      add(policy, cachePolicyOutcome(policy, tenantOf(policy.metadata.namespace), policies));
    }
  }
  const secretOf = (connection: ConnectionResource) =>
    (secretsByNamespace.get(connection.metadata.namespace ?? '') ?? []).find(
      (secret) => secret.metadata.name === connection.spec.secretRef.name,
    );
  for (const [, connections] of groupByNamespace(input.connections)) {
    for (const connection of connections.filter((item) => !isDeleting(item))) {
      const tenant = tenantOf(connection.metadata.namespace);
      add(connection, connectionOutcome(connection, tenant, secretOf, connections, sealing));
    }
  }
  for (const [namespace, routes] of groupByNamespace(input.modelRoutes ?? [])) {
    const tenant = tenantOf(namespace);
    const connectionOf = (slug: string) => records.connection.get(`${tenant?.id}/${slug}`);
    for (const route of routes.filter((item) => !isDeleting(item))) {
      add(route, modelRouteOutcome(route, tenant, routes, connectionOf, policy));
    }
  }
  return { records, owners, problems };
}
