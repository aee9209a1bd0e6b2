/**
 * The chart's operator RBAC, for real: `helm template` renders the operator's ServiceAccount,
 * ClusterRole, Role and bindings; they are applied to the test API server; a token for the
 * ServiceAccount comes from the TokenRequest API; an operator running with only that token
 * reconciles a Tenant, CachePolicy and Connection end to end (finalizers, namespace, status,
 * events, the Lease), and the same token is refused what the role does not grant.
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import {
  cachePolicy,
  condition,
  connection,
  type KubeObject,
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable() && helmAvailable();
const NAMESPACE = 'gateway-system';
const OPERATOR_KINDS = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

interface RenderedObject extends KubeObject {
  spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } };
  subjects?: { kind: string; name: string }[];
}

async function renderOperatorObjects(): Promise<RenderedObject[]> {
  const { helm } = requireHelmTools();
  const result = await run(helm, [
    'template',
    'inference-gateway',
    `${REPO_ROOT}/charts/inference-gateway`,
    '--namespace',
    NAMESPACE,
    '--show-only',
    'templates/rbac.yaml',
    '--show-only',
    'templates/operator.yaml',
  ]);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

describe.runIf(available)("the chart's operator RBAC", () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;
  let token: string;
  let serviceAccount: string;

  const asOperator = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${bed.plane.server}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: bed.plane.dispatcher,
    });
    return response.status;
  };

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    const rendered = await renderOperatorObjects();
    const account = rendered.find((object) => object.kind === 'ServiceAccount');
    if (!account) throw new Error('the chart renders no operator ServiceAccount');
    serviceAccount = account.metadata.name;
    // The operator's objects: its ServiceAccount and the roles bound to it (not the control plane's).
    const bindings = rendered.filter(
      (object) =>
        (object.kind === 'ClusterRoleBinding' || object.kind === 'RoleBinding') &&
        object.subjects?.some(
          (subject) => subject.kind === 'ServiceAccount' && subject.name === serviceAccount,
        ),
    );
    const roleNames = new Set(bindings.map((binding) => (binding.roleRef as { name: string }).name));
    const objects = rendered.filter(
      (object) =>
        OPERATOR_KINDS.has(object.kind) &&
        (object.kind === 'ServiceAccount' ||
          bindings.includes(object) ||
          roleNames.has(object.metadata.name)),
    );
    expect(objects.map((object) => object.kind).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ServiceAccount'].sort(),
    );
    for (const object of objects) {
      const path = rbacPath(object);
      const result = await bed.plane.request(
        'PATCH',
        `${path}?fieldManager=helm&force=true`,
        object,
        'application/apply-patch+yaml',
      );
      if (result.status >= 300)
        throw new Error(`applying ${object.kind} ${object.metadata.name}: ${JSON.stringify(result.body)}`);
    }
    const tokenRequest = await bed.plane.request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${serviceAccount}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    token = (tokenRequest.body as { status: { token: string } }).status.token;
    expect(token).toBeTruthy();

    const deployment = rendered.find((object) => object.kind === 'Deployment');
    const env = deployment?.spec?.template?.spec?.containers?.[0]?.env ?? [];
    const leaseName = env.find((entry) => entry.name === 'OPERATOR_LEASE_NAME')?.value;
    operator = await bed.startOperator({
      kubeconfigPath: await bed.plane.writeKubeconfig(token, serviceAccount),
      leaseNamespace: NAMESPACE,
      leaseName,
    });
    await vi.waitFor(() => expect(operator.isLeader()).toBe(true), { timeout: 10_000 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('is enough to reconcile a Tenant, a CachePolicy and a Connection fully', async () => {
    const ns = 'tenant-rbac';
    await bed.applyTenant(tenant('rbac'));
    await expect.poll(() => bed.read('Namespace', ns), { timeout: 10_000 }).toBeDefined();
    await bed.apply(secret('key', ns, { apiKey: 'sk-rbac-test-key-000000001' }));
    await bed.apply(cachePolicy('default', ns, { ttlSeconds: 60 }));
    await bed.apply(connection('openai', ns, { provider: 'openai', secretRef: { name: 'key' } }));
    await expect.poll(() => bed.store.get('connection', 'rbac/openai'), { timeout: 10_000 }).toBeDefined();
    await expect
      .poll(() => bed.store.get('cachePolicy', 'rbac/*/default'), { timeout: 10_000 })
      .toBeDefined();
    for (const [kind, name, namespace] of [
      ['Tenant', 'rbac', undefined],
      ['CachePolicy', 'default', ns],
      ['Connection', 'openai', ns],
    ] as const) {
      await expect
        .poll(async () => condition(await bed.read(kind, name, namespace), 'Ready')?.status, {
          timeout: 10_000,
        })
        .toBe('True');
    }
    await bed.remove('Connection', 'openai', ns);
    await expect.poll(() => bed.read('Connection', 'openai', ns), { timeout: 10_000 }).toBeUndefined();
    expect(await bed.store.get('connection', 'rbac/openai')).toBeUndefined();

    const events = await bed.plane.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
    expect((events.body as { items: unknown[] }).items.length).toBeGreaterThan(0);
    await operator.settled();
    const refusals = bed.logs.filter(
      (line) => line.includes('"statusCode":403') || line.includes('forbidden'),
    );
    expect(refusals).toEqual([]);
  });

  it('is no more: the token cannot read pods, delete namespaces, write Secrets or delete resources', async () => {
    expect(await asOperator('GET', '/api/v1/pods')).toBe(403);
    expect(await asOperator('DELETE', '/api/v1/namespaces/tenant-rbac')).toBe(403);
    expect(
      await asOperator('POST', '/api/v1/namespaces/tenant-rbac/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'planted' },
      }),
    ).toBe(403);
    expect(await asOperator('DELETE', '/apis/gateway.service.io/v1alpha1/tenants/rbac')).toBe(403);
    expect(
      await asOperator('GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/someone-elses`),
    ).toBe(403);
    expect(await asOperator('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).toBe(403);
  });
});

function rbacPath(object: RenderedObject): string {
  const name = object.metadata.name;
  switch (object.kind) {
    case 'ServiceAccount':
      return `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}`;
    case 'ClusterRole':
      return `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
    case 'ClusterRoleBinding':
      return `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`;
    case 'Role':
      return `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/roles/${name}`;
    default:
      return `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings/${name}`;
  }
}
