/**
 * Where each kind lives in the Kubernetes API, and how a write's body and a refusal are shaped:
 * the pure part of the resources client (kubernetes-resources.ts).
 */
import { KubeApiError } from './kubernetes-transport.ts';
import { ResourceValidationError } from './resource-errors.ts';
import { type AnyResource, API_GROUP, type CustomResourceKind, type ResourceKind } from './types.ts';

interface KindInfo {
  apiVersion: string;
  plural: string;
  namespaced: boolean;
}

/** The kinds the project's CRDs define (types.ts). */
export type { CustomResourceKind };

/** One custom object, by kind, name and (for a namespaced kind) namespace. */
export interface ObjectRef {
  kind: CustomResourceKind;
  name: string;
  namespace?: string;
}

const CUSTOM_API = `/apis/${API_GROUP}/v1alpha1`;
export const KINDS: Record<ResourceKind, KindInfo> = {
  Tenant: { apiVersion: `${API_GROUP}/v1alpha1`, plural: 'tenants', namespaced: false },
  CachePolicy: { apiVersion: `${API_GROUP}/v1alpha1`, plural: 'cachepolicies', namespaced: true },
  Connection: { apiVersion: `${API_GROUP}/v1alpha1`, plural: 'connections', namespaced: true },
  ModelRoute: { apiVersion: `${API_GROUP}/v1alpha1`, plural: 'modelroutes', namespaced: true },
  Secret: { apiVersion: 'v1', plural: 'secrets', namespaced: true },
};

/**
 * Secret types never read as credentials: service-account and bootstrap tokens, image pull
 * secrets, TLS key pairs and Helm release records (often the largest Secrets of a cluster). A
 * Connection's or a key's Secret is Opaque (or of any other type).
 */
export const IGNORED_SECRET_TYPES = [
  'kubernetes.io/service-account-token',
  'bootstrap.kubernetes.io/token',
  'kubernetes.io/dockercfg',
  'kubernetes.io/dockerconfigjson',
  'kubernetes.io/tls',
  'helm.sh/release.v1',
] as const;

export function collectionPath(kind: ResourceKind, namespace?: string): string {
  const info = KINDS[kind];
  const base = kind === 'Secret' ? '/api/v1' : CUSTOM_API;
  return info.namespaced && namespace !== undefined
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${info.plural}`
    : `${base}/${info.plural}`;
}

export function objectPath(kind: ResourceKind, name: string, namespace?: string): string {
  if (KINDS[kind].namespaced && namespace === undefined) throw new Error(`${kind} ${name} needs a namespace`);
  return `${collectionPath(kind, KINDS[kind].namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`;
}

export function describeObject(kind: ResourceKind, name: string, namespace?: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

/** A 422 from the API server as the same error LocalResources throws, with the CRD's own messages. */
export function validationError(error: unknown, what: string): unknown {
  if (!(error instanceof KubeApiError) || error.statusCode !== 422) return error;
  const causes = error.status?.details?.causes ?? [];
  const messages = causes.map((cause) =>
    cause.field && !cause.message?.startsWith(cause.field)
      ? `${cause.field}: ${cause.message}`
      : (cause.message ?? ''),
  );
  return new ResourceValidationError(what, messages.length > 0 ? messages : [error.message]);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The object as a write sends it: no status, none of the fields the server owns, and the
 * resourceVersion only when it is to be a precondition.
 */
export function requestBody(
  resource: AnyResource,
  options: { keepResourceVersion: boolean },
): Record<string, unknown> {
  const body = { ...clone(resource) } as Record<string, unknown>;
  delete body.status;
  const metadata = { ...resource.metadata } as Record<string, unknown>;
  for (const field of ['uid', 'generation', 'creationTimestamp', 'managedFields']) delete metadata[field];
  if (!options.keepResourceVersion) delete metadata.resourceVersion;
  body.metadata = metadata;
  body.apiVersion = KINDS[resource.kind].apiVersion;
  return body;
}
