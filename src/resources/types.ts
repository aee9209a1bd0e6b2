/**
 * The resources interface (DESIGN section 2): the source of truth. Kubernetes in production
 * (custom resources and Secrets), an in-process store under STATE_DIR in standalone. The shapes
 * follow Kubernetes objects so that the same YAML works in both.
 */
import type {
  CachePolicySpec,
  ConnectionSpec,
  ModelRouteSpec,
  ResourceStatus,
  TenantSpec,
  TenantStatus,
} from './crd-types.ts';

export const API_GROUP = 'gateway.service.io';
export const API_VERSION = `${API_GROUP}/v1alpha1`;

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
}

export interface TenantResource {
  apiVersion: typeof API_VERSION;
  kind: 'Tenant';
  metadata: ObjectMeta;
  spec: TenantSpec;
  status?: TenantStatus;
}

export interface CachePolicyResource {
  apiVersion: typeof API_VERSION;
  kind: 'CachePolicy';
  metadata: ObjectMeta;
  spec: CachePolicySpec;
  status?: ResourceStatus;
}

export interface ConnectionResource {
  apiVersion: typeof API_VERSION;
  kind: 'Connection';
  metadata: ObjectMeta;
  spec: ConnectionSpec;
  status?: ResourceStatus & { keyHint?: string };
}

export interface ModelRouteResource {
  apiVersion: typeof API_VERSION;
  kind: 'ModelRoute';
  metadata: ObjectMeta;
  spec: ModelRouteSpec;
  status?: ResourceStatus;
}

export interface SecretResource {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: ObjectMeta;
  type?: string;
  /** Base64 values, as Kubernetes stores them. */
  data?: Record<string, string>;
  /** Plain values, accepted on write and folded into `data`. */
  stringData?: Record<string, string>;
}

export interface ResourceByKind {
  Tenant: TenantResource;
  CachePolicy: CachePolicyResource;
  Connection: ConnectionResource;
  ModelRoute: ModelRouteResource;
  Secret: SecretResource;
}
export type ResourceKind = keyof ResourceByKind;
export type AnyResource = ResourceByKind[ResourceKind];
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  'Tenant',
  'CachePolicy',
  'Connection',
  'ModelRoute',
  'Secret',
];
/** The kinds of gateway.service.io (those with a status the operator writes). */
export type CustomResourceKind = Exclude<ResourceKind, 'Secret'>;

export interface ResourceEvent {
  type: 'added' | 'modified' | 'deleted';
  resource: AnyResource;
}

export interface ResourcesClient {
  list<K extends ResourceKind>(kind: K, namespace?: string): Promise<ResourceByKind[K][]>;
  get<K extends ResourceKind>(
    kind: K,
    name: string,
    namespace?: string,
  ): Promise<ResourceByKind[K] | undefined>;
  /** Creates the object or replaces its spec/data (server-side apply in Kubernetes). */
  apply<R extends AnyResource>(resource: R): Promise<R>;
  /**
   * Creates the object only if no object of that name exists: ResourceConflictError otherwise.
   * For names that must not be taken twice (an organisation's slug, an idempotent provisioning).
   */
  create<R extends AnyResource>(resource: R): Promise<R>;
  /**
   * Replaces the spec/data of an existing object if its `metadata.resourceVersion` is still the
   * one given (read, change, write): ResourceConflictError when it moved, ResourceNotFoundError
   * when the object is gone.
   */
  update<R extends AnyResource>(resource: R): Promise<R>;
  /** Deletes the object; false when it did not exist. */
  delete(kind: ResourceKind, name: string, namespace?: string): Promise<boolean>;
  /** Replaces the status subresource. */
  patchStatus(
    kind: CustomResourceKind,
    name: string,
    namespace: string | undefined,
    status: object,
  ): Promise<void>;
  /** Every create, update and delete from now on. */
  watch(listener: (event: ResourceEvent) => void): () => void;
  /**
   * Resolves once this client may write Secrets in a new tenant's namespace (in Kubernetes, once
   * the RoleBinding the operator makes with the namespace is in force). Absent where writes need
   * no grant.
   */
  awaitNamespaceAccess?(namespace: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * On the Secrets the control plane creates (credentials and Connection keys), with the value
 * CREATED_BY_CONTROL_PLANE: a Tenant's deletion deletes those and no other Secret of its namespace.
 */
export const CREATED_BY_LABEL = `${API_GROUP}/created-by`;
export const CREATED_BY_CONTROL_PLANE = 'controlplane';

/** Label on Secrets that hold a credential hash, and its values. */
export const CREDENTIAL_LABEL = `${API_GROUP}/credential`;
export type CredentialSecretType = 'api-key' | 'pat' | 'provisioning-key';

/** The namespace that holds a tenant's CachePolicies, Connections, ModelRoutes and key Secrets. */
export function tenantNamespace(tenantName: string): string {
  return `tenant-${tenantName}`;
}
