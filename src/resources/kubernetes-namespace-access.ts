/**
 * A tenant namespace and who may write in it: the namespace (the operator's one label), the
 * RoleBindings the operator makes there so that the control plane needs no Secret rights in any
 * other namespace, and the control plane's check that such a binding is in force before it writes.
 * KubernetesResources offers these to the operator and the control plane.
 */
import { CONTENT_TYPE_APPLY, type KubeTransport } from './kubernetes-transport.ts';

/** A RoleBinding of a ClusterRole to one ServiceAccount, named after the ClusterRole. */
export interface NamespaceRoleBinding {
  clusterRole: string;
  serviceAccount: { namespace: string; name: string };
}

const RBAC_API = '/apis/rbac.authorization.k8s.io/v1';

function roleBindingPath(namespace: string, name: string): string {
  return `${RBAC_API}/namespaces/${encodeURIComponent(namespace)}/rolebindings/${encodeURIComponent(name)}`;
}

/**
 * Creates or updates a namespace with these labels (server-side apply). Only the labels given are
 * this manager's: a label someone else set (Helm's app.kubernetes.io/managed-by) stays theirs.
 */
export async function applyNamespace(
  transport: KubeTransport,
  fieldManager: string,
  name: string,
  labels: Record<string, string>,
): Promise<void> {
  await transport.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${encodeURIComponent(name)}`,
    query: { fieldManager, force: true },
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
    contentType: CONTENT_TYPE_APPLY,
  });
}

/**
 * Creates or updates the RoleBinding (server-side apply). The API server lets the caller bind the
 * ClusterRole only with the `bind` verb on it (or all of its rights): the chart grants the
 * operator `bind` on its two tenant roles by name.
 */
export async function applyRoleBinding(
  transport: KubeTransport,
  fieldManager: string,
  namespace: string,
  binding: NamespaceRoleBinding,
  labels: Record<string, string>,
): Promise<void> {
  const name = binding.clusterRole;
  await transport.request({
    method: 'PATCH',
    path: roleBindingPath(namespace, name),
    query: { fieldManager, force: true },
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: binding.clusterRole },
      subjects: [{ kind: 'ServiceAccount', ...binding.serviceAccount }],
    },
    contentType: CONTENT_TYPE_APPLY,
  });
}

/** Deletes the RoleBinding; false when it did not exist. */
export async function deleteRoleBinding(
  transport: KubeTransport,
  namespace: string,
  name: string,
): Promise<boolean> {
  const deleted = await transport.requestOptional<object>({
    method: 'DELETE',
    path: roleBindingPath(namespace, name),
  });
  return deleted !== undefined;
}

/** A Secret as a metadata-only list shows it: no data, no type. */
export interface SecretMetadata {
  name: string;
  labels: Record<string, string>;
}

/**
 * The Secrets of a namespace, metadata only (the API server sends no data): every Secret,
 * whatever its type, for saying what a Tenant's deletion leaves.
 */
export async function listSecretMetadata(
  transport: KubeTransport,
  namespace: string,
): Promise<SecretMetadata[]> {
  const list = await transport.request<{
    items?: { metadata: { name: string; labels?: Record<string, string> } }[];
  }>({
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`,
    accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  });
  return (list.items ?? []).map((item) => ({ name: item.metadata.name, labels: item.metadata.labels ?? {} }));
}

/**
 * The type of one Secret, or undefined when the namespace has none of that name: for telling a
 * Secret the informer leaves out (a type Kubernetes keeps for itself) from a missing one. A list
 * narrowed to the name, since the operator may list Secrets but not get them.
 */
export async function secretType(
  transport: KubeTransport,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const list = await transport.request<{ items?: { type?: string }[] }>({
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`,
    query: { fieldSelector: `metadata.name=${name}` },
  });
  const [secret] = list.items ?? [];
  return secret === undefined ? undefined : (secret.type ?? 'Opaque');
}

/** Whether the caller may create Secrets in the namespace (a SelfSubjectAccessReview: any user may ask). */
export async function maySecretsBeCreated(transport: KubeTransport, namespace: string): Promise<boolean> {
  const review = await transport.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', resource: 'secrets', namespace } },
    },
  });
  return review.status?.allowed === true;
}
