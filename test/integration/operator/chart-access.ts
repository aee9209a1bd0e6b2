/**
 * What the chart's roles grant, as the API server decides it: SelfSubjectAccessReviews and
 * SelfSubjectRulesReviews sent with a ServiceAccount's own token, the table of grants each role
 * must have, exactly, and the list of rules each holds cluster-wide. chart-rbac.test.ts
 * checks the tables both ways (every listed verb allowed, every other verb refused); the same suite
 * runs the operator and the control plane with those tokens, which shows the grants are enough.
 */
import { fetch } from 'undici';
import type { KubeControlPlane } from '../../helpers/kube-control-plane.ts';

const GROUP = 'gateway.service.io';
const RBAC = 'rbac.authorization.k8s.io';
const KINDS = ['tenants', 'cachepolicies', 'connections', 'modelroutes'];

/**
 * Every verb RBAC knows for a resource (with the two it asks of whoever writes RBAC objects); a
 * grant lists the ones allowed, the others must be refused.
 */
export const ALL_VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'bind',
  'escalate',
];

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

/** The rules every authenticated user has (system:basic-user): asking about oneself. */
const SELF_REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/selfsubjectreviews',
]);

/**
 * Every resource rule the token holds in the namespace, as the API server lists it (a
 * SelfSubjectRulesReview, what `kubectl auth can-i --list` shows), one line per verb, group,
 * resource and name: `verb group/resource[:name]`, sorted. A ClusterRoleBinding's rules show in
 * every namespace, so a namespace the release never uses lists exactly what is granted
 * cluster-wide. The self-reviews every user may make are left out.
 */
export async function grantedRules(
  plane: KubeControlPlane,
  token: string,
  namespace: string,
): Promise<string[]> {
  const response = await fetch(`${plane.server}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace },
    }),
    dispatcher: plane.dispatcher,
  });
  if (response.status !== 201) throw new Error(`SelfSubjectRulesReview: HTTP ${response.status}`);
  const review = (await response.json()) as {
    status: {
      incomplete: boolean;
      resourceRules: {
        verbs: string[];
        apiGroups?: string[];
        resources?: string[];
        resourceNames?: string[];
      }[];
    };
  };
  if (review.status.incomplete) throw new Error('SelfSubjectRulesReview: incomplete');
  const lines = new Set<string>();
  for (const rule of review.status.resourceRules) {
    for (const group of rule.apiGroups ?? ['']) {
      for (const resource of rule.resources ?? []) {
        const what = `${group || 'core'}/${resource}`;
        if (SELF_REVIEWS.has(what)) continue;
        for (const verb of rule.verbs) {
          for (const name of rule.resourceNames?.length ? rule.resourceNames : [undefined]) {
            lines.add(`${verb} ${what}${name === undefined ? '' : `:${name}`}`);
          }
        }
      }
    }
  }
  return [...lines].sort();
}

/** `verb group/resource[:name]` lines for each verb of each resource, as grantedRules() writes them. */
export function rules(verbs: string[], resources: string[], name?: string): string[] {
  return verbs.flatMap((verb) => resources.map((resource) => `${verb} ${resource}${name ? `:${name}` : ''}`));
}

/**
 * What the operator is granted in a namespace that is not a tenant's or the release's: its
 * cluster-wide rules, exactly.
 */
export function operatorClusterRules(release: string): string[] {
  const kinds = KINDS.map((kind) => `${GROUP}/${kind}`);
  const tenantRoles = [`${release}-controlplane-tenant`, `${release}-operator-tenant`];
  return [
    ...rules(['get', 'list', 'watch', 'patch'], kinds),
    ...rules(
      ['patch'],
      kinds.map((kind) => `${kind}/status`),
    ),
    ...rules(['list', 'watch'], ['core/secrets']),
    ...rules(['create', 'patch'], ['core/namespaces']),
    ...rules(['create'], ['events.k8s.io/events']),
    ...rules(['create'], ['rbac.authorization.k8s.io/rolebindings']),
    ...tenantRoles.flatMap((role) =>
      rules(['patch', 'delete'], ['rbac.authorization.k8s.io/rolebindings'], role),
    ),
    ...tenantRoles.flatMap((role) => rules(['bind'], ['rbac.authorization.k8s.io/clusterroles'], role)),
  ].sort();
}

/** What the control plane is granted cluster-wide: Tenants, nothing else. */
export function controlPlaneClusterRules(): string[] {
  return rules(['get', 'create', 'patch'], [`${GROUP}/tenants`]).sort();
}

/** What the control plane is granted in a tenant namespace the operator bound its role in. */
export function controlPlaneTenantRules(): string[] {
  return [
    ...controlPlaneClusterRules(),
    ...rules(
      ['list', 'create', 'patch', 'delete'],
      [`${GROUP}/connections`, `${GROUP}/cachepolicies`, `${GROUP}/modelroutes`],
    ),
    ...rules(['get', 'list', 'create', 'patch', 'delete'], ['core/secrets']),
  ].sort();
}

/** For a readable failure: `group/resource[/subresource] [ns/name]`. */
export function describeTarget(target: Omit<Grant, 'verbs'>): string {
  const what = `${target.group || 'core'}/${target.resource}${target.subresource ? `/${target.subresource}` : ''}`;
  const where = [target.namespace, target.name].filter(Boolean).join('/');
  return where ? `${what} ${where}` : what;
}

/**
 * The operator's grants, exactly (src/resources/kubernetes-resources.ts, kubernetes-informer.ts,
 * kubernetes-leases.ts, kubernetes-namespace-access.ts). Refused on purpose: update of the kinds
 * and their status (all writes are server-side apply), get of status, the finalizers subresource
 * (finalizers are applied on the object), reading namespaces, core Events, patching Events,
 * patching the Lease, get of Secrets (the informer lists and watches), any write of Secrets but
 * delete in a tenant namespace, RoleBindings other than the two tenant ones (but create, which
 * cannot be narrowed to a name), and binding any other role.
 */
export function operatorGrants(
  tenantNamespace: string,
  releaseNamespace: string,
  leaseName: string,
  release: string,
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
    // delete through the RoleBinding the operator made in the tenant namespace.
    { group: '', resource: 'secrets', namespace: tenantNamespace, verbs: ['list', 'watch', 'delete'] },
    // One informer watches every namespace (see values.yaml, "Secrets").
    { group: '', resource: 'secrets', namespace: 'kube-system', verbs: ['list', 'watch'] },
    ...[`${release}-controlplane-tenant`, `${release}-operator-tenant`].flatMap((name) => [
      { group: RBAC, resource: 'clusterroles', name, verbs: ['bind'] },
      {
        group: RBAC,
        resource: 'rolebindings',
        namespace: tenantNamespace,
        name,
        verbs: ['create', 'patch', 'delete'],
      },
    ]),
    { group: RBAC, resource: 'clusterroles', name: 'cluster-admin', verbs: [] },
    { group: RBAC, resource: 'clusterroles', name: `${release}-controlplane`, verbs: [] },
    // create cannot be narrowed to a name; `bind` (above) limits what such a binding may grant.
    { group: RBAC, resource: 'rolebindings', namespace: tenantNamespace, name: 'another', verbs: ['create'] },
    { group: RBAC, resource: 'roles', namespace: tenantNamespace, verbs: [] },
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
    { group: RBAC, resource: 'clusterroles', verbs: [] },
  ];
}

/**
 * The control plane's grants, exactly (src/control-plane/*.ts through KubernetesResources):
 * Tenants created (organisations, provisioning), read and patched (workspaces, suspension); in a
 * tenant namespace (through the RoleBinding the operator made there) server-side apply (patch,
 * create) and delete of CachePolicies, Connections, ModelRoutes and Secrets, list of CachePolicies,
 * Connections and ModelRoutes (to find the object behind a name), get and list of Secrets. Refused on purpose:
 * listing or deleting Tenants, status, watch, update, namespaces, Leases, Events, RBAC, and
 * anything in any other namespace.
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
    {
      group: GROUP,
      resource: 'modelroutes',
      namespace: tenantNamespace,
      verbs: ['list', 'create', 'patch', 'delete'],
    },
    { group: GROUP, resource: 'connections', subresource: 'status', namespace: tenantNamespace, verbs: [] },
    { group: GROUP, resource: 'modelroutes', subresource: 'status', namespace: tenantNamespace, verbs: [] },
    {
      group: '',
      resource: 'secrets',
      namespace: tenantNamespace,
      verbs: ['get', 'list', 'create', 'patch', 'delete'],
    },
    // Outside tenant namespaces: nothing.
    { group: '', resource: 'secrets', namespace: 'kube-system', verbs: [] },
    { group: '', resource: 'secrets', namespace: releaseNamespace, verbs: [] },
    { group: GROUP, resource: 'connections', namespace: 'kube-system', verbs: [] },
    { group: RBAC, resource: 'rolebindings', namespace: tenantNamespace, verbs: [] },
    { group: RBAC, resource: 'clusterroles', verbs: [] },
    { group: '', resource: 'namespaces', verbs: [] },
    { group: 'events.k8s.io', resource: 'events', namespace: tenantNamespace, verbs: [] },
    { group: 'coordination.k8s.io', resource: 'leases', namespace: releaseNamespace, verbs: [] },
    { group: '', resource: 'pods', namespace: releaseNamespace, verbs: [] },
  ];
}
