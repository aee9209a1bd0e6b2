/**
 * The desired config store contents, computed from the resources by pure functions (no I/O):
 * the reconcile step (LocalReconciler in standalone, the per-kind controllers in the operator)
 * reads resources, calls these, and writes the difference. Objects that cannot be turned into a
 * record are left out and reported as problems, for status conditions.
 */
import { connectionKeyHint } from '../auth/credential-hash.ts';
import { PAT_PERMISSIONS } from '../auth/permissions.ts';
import {
  byAge,
  checkScope,
  type DesiredConfigProblem,
  type DesiredRecord,
  decodeSecretData,
  desiredCachePolicyRecord,
  missingConnectionKeys,
  problemOf,
  tenantIdOfNamespace,
  withoutUndefined,
} from '../resources/desired-records.ts';
import { desiredModelRouteRecord } from '../resources/model-route-record.ts';
import type {
  CachePolicyResource,
  ConnectionResource,
  ModelRouteResource,
  SecretResource,
  TenantResource,
} from '../resources/types.ts';
import { CREDENTIAL_LABEL, tenantNamespace } from '../resources/types.ts';
import { createEmptySnapshot } from '../stores/memory-config-store.ts';
import {
  API_KEY_GRANTS,
  type ApiKeyGrant,
  type ApiKeyRecord,
  type ConnectionRecord,
  type PatRecord,
  type ProvisioningKeyRecord,
  type TenantRecord,
} from '../stores/records.ts';
import type { ConfigSnapshot } from '../stores/types.ts';

/** How secret material is sealed for the config store (see auth/secret-box.ts createSecretSealer). */
export interface SecretSealing {
  seal(value: object): string;
  digest(value: object): string;
}

export interface DesiredConfigInput {
  tenants: readonly TenantResource[];
  cachePolicies: readonly CachePolicyResource[];
  connections: readonly ConnectionResource[];
  modelRoutes?: readonly ModelRouteResource[];
  secrets: readonly SecretResource[];
}

export interface DesiredConfig {
  records: ConfigSnapshot;
  problems: DesiredConfigProblem[];
}

export interface DesiredTenantRecords {
  /** Absent when the Tenant cannot be served (see problems). */
  tenant?: TenantRecord;
  apiKeys: ApiKeyRecord[];
  pats: PatRecord[];
  provisioningKeys: ProvisioningKeyRecord[];
  problems: DesiredConfigProblem[];
}

/**
 * Who may publish what. `platformTenant` names the platform's own tenant: only a PAT Secret in its
 * namespace may say `admin: "true"`. Unset, no key Secret anywhere is published as an admin PAT.
 */
export interface CredentialPolicy {
  platformTenant?: string;
  /**
   * The providers a ModelRoute's `provider/model` target may name: the gateway's registry, handed
   * in by main (the operator does not import providers/). Absent: not checked. The platform
   * tenant is also the only one whose routes may be `shared`.
   */
  routeProviders?: readonly string[];
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function isApiKeyGrant(value: string): value is ApiKeyGrant {
  return (API_KEY_GRANTS as readonly string[]).includes(value);
}

function isPatPermission(value: string): boolean {
  return (PAT_PERMISSIONS as readonly string[]).includes(value);
}

/**
 * The PAT Secret's record, or the problem that keeps it unpublished: an unknown permission, an
 * `admin` value other than "true" or "false" (a "True" or "yes" must not quietly mean "not
 * admin"), or `admin: "true"` outside the platform tenant's namespace. Anyone who may write a
 * Secret in their own tenant namespace must not become platform admin by it.
 */
function patRecord(
  secret: SecretResource,
  data: Record<string, string>,
  common: Omit<PatRecord, 'permissions' | 'admin'>,
  policy: CredentialPolicy,
): DesiredRecord<PatRecord> {
  const permissions = splitList(data.permissions);
  const unknown = permissions.filter((permission) => !isPatPermission(permission));
  if (unknown.length > 0) {
    const message = `permissions ${unknown.join(', ')} are unknown (allowed: ${PAT_PERMISSIONS.join(', ')}); the PAT is not published`;
    return { ok: false, problem: problemOf(secret, 'UnknownGrant', message) };
  }
  if (data.admin !== undefined && data.admin !== 'true' && data.admin !== 'false') {
    const message = `data.admin must be "true" or "false"; the PAT is not published`;
    return { ok: false, problem: problemOf(secret, 'InvalidValue', message) };
  }
  const admin = data.admin === 'true';
  if (admin && common.tenantId !== policy.platformTenant) {
    const where = policy.platformTenant
      ? `only in the platform tenant's namespace (${tenantNamespace(policy.platformTenant)})`
      : 'in no namespace (no platform tenant is configured)';
    const message = `claims admin: "true", which is honoured ${where}; the PAT is not published`;
    return { ok: false, problem: problemOf(secret, 'AdminNotAllowed', message) };
  }
  const record: PatRecord = withoutUndefined({ ...common, permissions, admin });
  return { ok: true, id: record.id, record };
}

type CredentialRecord = ApiKeyRecord | PatRecord | ProvisioningKeyRecord;

function credentialRecord(
  secret: SecretResource,
  tenant: TenantRecord,
  problems: DesiredConfigProblem[],
  policy: CredentialPolicy,
): { type: string; record: CredentialRecord } | undefined {
  const type = secret.metadata.labels?.[CREDENTIAL_LABEL];
  const data = decodeSecretData(secret);
  const fail = (message: string) => {
    problems.push(problemOf(secret, 'InvalidCredential', message));
    return undefined;
  };
  if (!data.id) return fail('data.id is missing');
  if (!data.hash || !SHA256_HEX.test(data.hash))
    return fail('data.hash must be a hex SHA-256 (64 lowercase hex digits)');
  const common = withoutUndefined({
    v: 1 as const,
    id: data.id,
    hash: data.hash,
    keyHint: data.keyHint || undefined,
    tenantId: tenant.id,
    createdAt: data.createdAt ?? secret.metadata.creationTimestamp ?? '',
  });
  const name = data.name || undefined;
  if (type === 'provisioning-key') return { type, record: withoutUndefined({ ...common, name }) };
  if (type === 'pat') {
    const desired = patRecord(secret, data, withoutUndefined({ ...common, name }), policy);
    if (desired.ok) return { type, record: desired.record };
    problems.push(desired.problem);
    return undefined;
  }
  if (type !== 'api-key') return fail(`label ${CREDENTIAL_LABEL} has unknown value '${type}'`);
  if (!data.workspace) return fail('data.workspace is missing');
  if (!tenant.workspaces.some((workspace) => workspace.id === data.workspace)) {
    problems.push(
      problemOf(secret, 'UnknownWorkspace', `workspace '${data.workspace}' is not in tenant ${tenant.id}`),
    );
    return undefined;
  }
  // A workspace key may call any route unless its grants say otherwise (spec.md section 1).
  const listed = data.grants === undefined ? [...API_KEY_GRANTS] : splitList(data.grants);
  const unknown = listed.filter((grant) => !isApiKeyGrant(grant));
  if (unknown.length > 0) {
    problems.push(problemOf(secret, 'UnknownGrant', `grants ${unknown.join(', ')} are unknown and ignored`));
  }
  const record: ApiKeyRecord = {
    ...common,
    workspaceId: data.workspace,
    grants: listed.filter(isApiKeyGrant),
  };
  return { type, record };
}

/** The slug in force: spec.slug, else the Tenant's name. */
export function tenantSlug(tenant: TenantResource): string {
  return tenant.spec.slug ?? tenant.metadata.name;
}

/**
 * The tenant record and its credential records (Secrets labelled CREDENTIAL_LABEL in its
 * namespace); `policy` says which tenant may hold an admin PAT.
 */
export function desiredTenantRecords(
  tenant: TenantResource,
  secrets: readonly SecretResource[],
  policy: CredentialPolicy = {},
): DesiredTenantRecords {
  const result: DesiredTenantRecords = { apiKeys: [], pats: [], provisioningKeys: [], problems: [] };
  const { spec } = tenant;
  if ((spec.billingMode ?? 'delegated') !== 'delegated') {
    result.problems.push(
      problemOf(tenant, 'NotImplemented', `billingMode '${spec.billingMode}' is not implemented`),
    );
    return result;
  }
  const record: TenantRecord = withoutUndefined({
    v: 1,
    id: tenant.metadata.name,
    displayName: spec.displayName,
    slug: tenantSlug(tenant),
    parentId: spec.parentRef?.name,
    region: spec.region,
    billingMode: 'delegated',
    strictByok: spec.strictByok ?? false,
    suspended: spec.suspended === true ? true : undefined,
    referral: spec.referral,
    createdAt: tenant.metadata.creationTimestamp,
    workspaces: (spec.workspaces ?? []).map(({ id, name }) => ({ id, name })),
  });
  result.tenant = record;
  const namespace = tenantNamespace(record.id);
  for (const secret of secrets) {
    if (secret.metadata.namespace !== namespace || !secret.metadata.labels?.[CREDENTIAL_LABEL]) continue;
    const credential = credentialRecord(secret, record, result.problems, policy);
    if (credential?.type === 'api-key') result.apiKeys.push(credential.record as ApiKeyRecord);
    else if (credential?.type === 'pat') result.pats.push(credential.record as PatRecord);
    else if (credential) result.provisioningKeys.push(credential.record);
  }
  return result;
}

/** The Connection's record, its secret material (every key of `secret`) sealed. */
export function desiredConnectionRecord(
  connection: ConnectionResource,
  secret: SecretResource | undefined,
  sealing: SecretSealing,
  tenant?: TenantRecord,
): DesiredRecord<ConnectionRecord> {
  const { spec } = connection;
  const problem = checkScope(connection, spec.workspace, tenant);
  if (problem) return { ok: false, problem };
  const secretName = spec.secretRef.name;
  if (
    !secret ||
    secret.metadata.name !== secretName ||
    secret.metadata.namespace !== connection.metadata.namespace
  ) {
    const message = `Secret '${secretName}' not found in namespace '${connection.metadata.namespace}'`;
    return { ok: false, problem: problemOf(connection, 'SecretNotFound', message) };
  }
  const material = decodeSecretData(secret);
  const missing = missingConnectionKeys(spec.provider, material);
  if (missing !== undefined) {
    return { ok: false, problem: problemOf(connection, 'KeyMissing', `Secret '${secretName}' ${missing}`) };
  }
  const tenantId = tenantIdOfNamespace(connection.metadata.namespace) as string;
  const slug = spec.slug ?? spec.label ?? connection.metadata.name;
  const record: ConnectionRecord = withoutUndefined({
    v: 1,
    id: `${tenantId}/${slug}`,
    tenantId,
    slug,
    provider: spec.provider,
    workspaceId: spec.workspace,
    baseUrl: spec.baseUrl,
    awsRegion: spec.awsRegion,
    vertexProject: spec.vertexProject,
    vertexRegion: spec.vertexRegion,
    defaultModel: spec.defaultModel,
    dailyCapMicros: spec.dailyCapMicros,
    keyHint: connectionKeyHint(material),
    sealedSecret: sealing.seal(material),
    secretDigest: sealing.digest(material),
  });
  return { ok: true, id: record.id, record };
}

/** Every record the config store should hold, and why the objects left out were left out. */
export function computeDesiredConfig(
  input: DesiredConfigInput,
  sealing: SecretSealing,
  policy: CredentialPolicy = {},
): DesiredConfig {
  const records = createEmptySnapshot();
  const problems: DesiredConfigProblem[] = [];
  const secrets = byAge(input.secrets);

  for (const tenant of byAge(input.tenants)) {
    const desired = desiredTenantRecords(tenant, secrets, policy);
    problems.push(...desired.problems);
    if (!desired.tenant) continue;
    records.tenant.set(desired.tenant.id, desired.tenant);
    const credentials = [
      ['apiKey', desired.apiKeys],
      ['pat', desired.pats],
      ['provisioningKey', desired.provisioningKeys],
    ] as const;
    for (const [kind, list] of credentials) {
      const target = records[kind] as Map<string, CredentialRecord>;
      for (const record of list) {
        if (target.has(record.id)) {
          const message = `credential id '${record.id}' is already used by another Secret`;
          problems.push({
            kind: 'Tenant',
            name: tenant.metadata.name,
            reason: 'DuplicateCredentialId',
            message,
          });
        } else target.set(record.id, record);
      }
    }
  }

  const tenantOf = (
    resource: CachePolicyResource | ConnectionResource | ModelRouteResource,
  ): TenantRecord | undefined => {
    const tenant = records.tenant.get(tenantIdOfNamespace(resource.metadata.namespace) ?? '');
    if (!tenant) {
      const message = `namespace '${resource.metadata.namespace}' belongs to no known tenant`;
      problems.push(problemOf(resource, 'UnknownTenant', message));
    }
    return tenant;
  };

  for (const policy of byAge(input.cachePolicies)) {
    const tenant = tenantOf(policy);
    if (!tenant) continue;
    const desired = desiredCachePolicyRecord(policy, tenant);
    if (!desired.ok) problems.push(desired.problem);
    else if (records.cachePolicy.has(desired.id)) {
      const message = `another CachePolicy already defines '${desired.record.name}' at this scope`;
      problems.push(problemOf(policy, 'NameConflict', message));
    } else records.cachePolicy.set(desired.id, desired.record);
  }

  const secretsByName = new Map(
    secrets.map((secret) => [`${secret.metadata.namespace}/${secret.metadata.name}`, secret]),
  );
  for (const connection of byAge(input.connections)) {
    const tenant = tenantOf(connection);
    if (!tenant) continue;
    const secret = secretsByName.get(`${connection.metadata.namespace}/${connection.spec.secretRef.name}`);
    const desired = desiredConnectionRecord(connection, secret, sealing, tenant);
    if (!desired.ok) problems.push(desired.problem);
    else if (records.connection.has(desired.id)) {
      const message = `another Connection of tenant ${tenant.id} already has slug '${desired.record.slug}'`;
      problems.push(problemOf(connection, 'SlugConflict', message));
    } else records.connection.set(desired.id, desired.record);
  }

  for (const route of byAge(input.modelRoutes ?? [])) {
    const tenant = tenantOf(route);
    if (!tenant) continue;
    const desired = desiredModelRouteRecord(route, {
      tenant,
      platformTenant: policy.platformTenant,
      providers: policy.routeProviders,
      connectionOf: (slug) => records.connection.get(`${tenant.id}/${slug}`),
    });
    if (!desired.ok) problems.push(desired.problem);
    else if (records.modelRoute.has(desired.id)) {
      const message = `another ModelRoute already routes '${desired.record.model}' at this scope`;
      problems.push(problemOf(route, 'ModelConflict', message));
    } else records.modelRoute.set(desired.id, desired.record);
  }

  return { records, problems };
}
