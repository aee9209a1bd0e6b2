/**
 * What the chart's roles grant, as the API server decides it: SelfSubjectAccessReviews sent with a
 * ServiceAccount's own token, and the table of grants each role must have, exactly. chart-rbac.test.ts
 * checks the tables both ways (every listed verb allowed, every other verb refused); the same suite
 * runs the operator and the control plane with those tokens, which shows the grants are enough.
 */
import { fetch } from 'undici';
import type { KubeControlPlane } from '../../helpers/kube-control-plane.ts';

/** Every verb RBAC knows for a resource; a grant lists the ones allowed, the others must be refused. */
export const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

export interface Grant {
  /** '' is the core group. */
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  verbs: string[];
}

/** The verbs of ALL_VERBS that `token` is allowed on the grant's resource (a SelfSubjectAccessReview each). */
export async function allowedVerbs(
  plane: KubeControlPlane,
  token: string,
  target: Omit<Grant, 'verbs'>,
): Promise<string[]> {
  const allowed = await Promise.all(
    ALL_VERBS.map(async (verb) => {
      const response = await fetch(`${plane.server}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { verb, ...target } },
        }),
        dispatcher: plane.dispatcher,
      });
      if (response.status !== 201) throw new Error(`SelfSubjectAccessReview: HTTP ${response.status}`);
      const review = (await response.json()) as { status: { allowed: boolean } };
      return review.status.allowed ? verb : undefined;
    }),
  );
  return allowed.filter((verb): verb is string => verb !== undefined);
}

/** For a readable failure: `group/resource[/subresource] [ns/name]`. */
export function describeTarget(target: Omit<Grant, 'verbs'>): string {
  const what = `${target.group || 'core'}/${target.resource}${target.subresource ? `/${target.subresource}` : ''}`;
  const where = [target.namespace, target.name].filter(Boolean).join('/');
  return where ? `${what} ${where}` : what;
}

const GROUP = 'gateway.service.io';
const KINDS = ['tenants', 'cachepolicies', 'connections'];

/**
 * The operator's grants, exactly (src/resources/kubernetes-resources.ts, kubernetes-informer.ts,
 * kubernetes-leases.ts). Refused on purpose: update of the kinds and their status (all writes are
 * server-side apply), get of status, the finalizers subresource (finalizers are applied on the
 * object), reading namespaces, core Events, patching Events, patching the Lease, get of Secrets
 * (the informer lists and watches), and any write of Secrets.
 */
export function operatorGrants(
  tenantNamespace: string,
  releaseNamespace: string,
  leaseName: string,
): Grant[] {
  const scoped = (resource: string) => (resource === 'tenants' ? {} : { namespace: tenantNamespace });
  return [
    ...KINDS.map((resource) => ({
      group: GROUP,
      resource,
      ...scoped(resource),
      verbs: ['get', 'list', 'watch', 'patch'],
    })),
    ...KINDS.map((resource) => ({
      group: GROUP,
      resource,
      subresource: 'status',
      ...scoped(resource),
      verbs: ['patch'],
    })),
    ...KINDS.map((resource) => ({
      group: GROUP,
      resource,
      subresource: 'finalizers',
      ...scoped(resource),
      verbs: [],
    })),
    { group: '', resource: 'secrets', namespace: tenantNamespace, verbs: ['list', 'watch'] },
    // A ClusterRole cannot be narrowed to tenant-* namespaces (see values.yaml, "Secrets").
    { group: '', resource: 'secrets', namespace: 'kube-system', verbs: ['list', 'watch'] },
    { group: '', resource: 'namespaces', verbs: ['create', 'patch'] },
    { group: '', resource: 'namespaces', name: tenantNamespace, verbs: ['create', 'patch'] },
    { group: '', resource: 'events', namespace: tenantNamespace, verbs: [] },
    { group: 'events.k8s.io', resource: 'events', namespace: tenantNamespace, verbs: ['create'] },
    // create cannot be narrowed to a name, so it shows on every Lease name of the release namespace.
    { group: 'coordination.k8s.io', resource: 'leases', namespace: releaseNamespace, verbs: ['create'] },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: releaseNamespace,
      name: leaseName,
      verbs: ['get', 'create', 'update'],
    },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: releaseNamespace,
      name: 'someone-elses',
      verbs: ['create'],
    },
    { group: 'coordination.k8s.io', resource: 'leases', namespace: tenantNamespace, verbs: [] },
    { group: '', resource: 'pods', namespace: releaseNamespace, verbs: [] },
    { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', verbs: [] },
  ];
}

/**
 * The control plane's grants, exactly (src/control-plane/*.ts through KubernetesResources):
 * Tenants created (organisations, provisioning), read and patched (workspaces, suspension);
 * server-side apply (patch, create) and delete of CachePolicies, Connections and Secrets, list of
 * CachePolicies and Connections (to find the object behind a name), get and list of Secrets.
 * Refused on purpose: listing or deleting Tenants, status, watch, update, namespaces, Leases, Events.
 */
export function controlPlaneGrants(tenantNamespace: string, releaseNamespace: string): Grant[] {
  return [
    { group: GROUP, resource: 'tenants', verbs: ['get', 'create', 'patch'] },
    { group: GROUP, resource: 'tenants', subresource: 'status', verbs: [] },
    {
      group: GROUP,
      resource: 'cachepolicies',
      namespace: tenantNamespace,
      verbs: ['list', 'create', 'patch', 'delete'],
    },
    {
      group: GROUP,
      resource: 'connections',
      namespace: tenantNamespace,
      verbs: ['list', 'create', 'patch', 'delete'],
    },
    { group: GROUP, resource: 'connections', subresource: 'status', namespace: tenantNamespace, verbs: [] },
    {
      group: '',
      resource: 'secrets',
      namespace: tenantNamespace,
      verbs: ['get', 'list', 'create', 'patch', 'delete'],
    },
    // A ClusterRole cannot be narrowed to tenant-* namespaces (see values.yaml, "Secrets").
    {
      group: '',
      resource: 'secrets',
      namespace: 'kube-system',
      verbs: ['get', 'list', 'create', 'patch', 'delete'],
    },
    { group: '', resource: 'namespaces', verbs: [] },
    { group: 'events.k8s.io', resource: 'events', namespace: tenantNamespace, verbs: [] },
    { group: 'coordination.k8s.io', resource: 'leases', namespace: releaseNamespace, verbs: [] },
    { group: '', resource: 'pods', namespace: releaseNamespace, verbs: [] },
  ];
}
