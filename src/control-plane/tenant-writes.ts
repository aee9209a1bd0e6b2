/**
 * Writes of tenants and their credentials, through the resources interface (DESIGN section 7):
 * a Tenant resource (the operator, or standalone's reconcile step, creates its namespace and
 * publishes it) and credential Secrets in the tenant's namespace. Each write returns once the
 * gateway's view shows it, so a caller can use what it got on the very next request.
 */
import {
  type CredentialPrefix,
  type GeneratedCredential,
  generateCredential,
} from '../auth/credential-hash.ts';
import { API_KEY_PREFIX, PAT_PREFIX, PROVISIONING_KEY_PREFIX } from '../auth/credential-prefixes.ts';
import type { TenantSpec } from '../resources/crd-types.ts';
import { credentialSecret, credentialSecretName } from '../resources/credential-secret.ts';
import { decodeSecretData } from '../resources/desired-records.ts';
import { ResourceConflictError } from '../resources/resource-errors.ts';
import {
  API_VERSION,
  CREDENTIAL_LABEL,
  type CredentialSecretType,
  type TenantResource,
  tenantNamespace,
} from '../resources/types.ts';
import type { TenantRecord } from '../stores/records.ts';
import type { ControlPlaneServices } from './graphql/context.ts';

/** A tenant to create. */
export interface NewTenant {
  /** metadata.name: the tenant id (its namespace is tenant-<id>). */
  id: string;
  spec: TenantSpec;
  annotations?: Record<string, string>;
}

/** The workspace every tenant created through the API starts with. */
export const FIRST_WORKSPACE = { id: 'default', name: 'Default workspace' } as const;

const CONFLICT_RETRIES = 5;

/**
 * Creates the Tenant if no Tenant of that name exists (ResourceConflictError otherwise) and
 * resolves with its record once the gateway's view holds it and this process may write the
 * tenant's Secrets (the operator made the namespace and its RoleBindings before publishing it).
 */
export async function createTenant(services: ControlPlaneServices, tenant: NewTenant): Promise<TenantRecord> {
  await services.resources.create<TenantResource>({
    apiVersion: API_VERSION,
    kind: 'Tenant',
    metadata: {
      name: tenant.id,
      ...(tenant.annotations === undefined ? {} : { annotations: tenant.annotations }),
    },
    spec: tenant.spec,
  });
  const record = await awaitTenant(services, tenant.id, () => true);
  await services.resources.awaitNamespaceAccess?.(tenantNamespace(tenant.id));
  return record;
}

/** Resolves with the tenant's record once the gateway's view holds one that satisfies `predicate`. */
export async function awaitTenant(
  services: ControlPlaneServices,
  tenantId: string,
  predicate: (record: TenantRecord) => boolean,
): Promise<TenantRecord> {
  await services.awaitConfig('tenant', tenantId, (record) => record !== undefined && predicate(record));
  return services.view.tenant(tenantId) as TenantRecord;
}

/**
 * Creates a credential (hash, hint and attributes in a labelled Secret of the tenant's namespace)
 * and resolves once it works: the gateway's view (or the control plane's, for PATs) holds it.
 * The plaintext exists only in the returned value.
 */
export async function issueCredential(
  services: ControlPlaneServices,
  tenantId: string,
  type: CredentialSecretType,
  attributes: Record<string, string>,
): Promise<GeneratedCredential> {
  const prefix: CredentialPrefix =
    type === 'api-key' ? API_KEY_PREFIX : type === 'pat' ? PAT_PREFIX : PROVISIONING_KEY_PREFIX;
  const credential = generateCredential(prefix);
  await services.resources.apply(credentialSecret(tenantId, type, credential, attributes));
  const kind = type === 'api-key' ? 'apiKey' : type === 'pat' ? 'pat' : 'provisioningKey';
  await services.awaitConfig(kind, credential.id, (record) => record !== undefined);
  return credential;
}

/**
 * Deletes the Secret that holds a credential: the one named after its hash, else (keys may come
 * from YAML, with Secrets named freely) any Secret of that type holding its id. The record leaves
 * the view through the reconcile step; callers wait for that.
 */
export async function deleteCredential(
  services: ControlPlaneServices,
  tenantId: string,
  type: CredentialSecretType,
  record: { id: string; hash: string },
): Promise<void> {
  const namespace = tenantNamespace(tenantId);
  const secrets = await services.resources.list('Secret', namespace);
  const secret =
    secrets.find((candidate) => candidate.metadata.name === credentialSecretName(type, record.hash)) ??
    secrets.find(
      (candidate) =>
        candidate.metadata.labels?.[CREDENTIAL_LABEL] === type &&
        decodeSecretData(candidate).id === record.id,
    );
  if (secret !== undefined) await services.resources.delete('Secret', secret.metadata.name, namespace);
}

/**
 * Changes a Tenant's spec by read, change, write: a write that raced another is read and changed
 * again (a few times), so concurrent changes (two workspaces created at once) are both kept.
 * `change` returns the new spec, or undefined for "nothing to do". Resolves with the resource
 * written (or read, when unchanged); undefined when the Tenant does not exist.
 */
export async function changeTenantSpec(
  services: ControlPlaneServices,
  tenantId: string,
  change: (spec: TenantSpec) => TenantSpec | undefined,
): Promise<TenantResource | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await services.resources.get('Tenant', tenantId);
    if (current === undefined) return undefined;
    const spec = change(structuredClone(current.spec));
    if (spec === undefined) return current;
    try {
      return await services.resources.update<TenantResource>({
        apiVersion: API_VERSION,
        kind: 'Tenant',
        metadata: {
          name: current.metadata.name,
          ...(current.metadata.resourceVersion === undefined
            ? {}
            : { resourceVersion: current.metadata.resourceVersion }),
          ...(current.metadata.labels === undefined ? {} : { labels: current.metadata.labels }),
          ...(current.metadata.annotations === undefined
            ? {}
            : { annotations: current.metadata.annotations }),
        },
        spec,
      });
    } catch (error) {
      if (!(error instanceof ResourceConflictError) || attempt >= CONFLICT_RETRIES) throw error;
    }
  }
}
