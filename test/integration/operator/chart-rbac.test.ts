/**
 * The chart's RBAC, for real: `helm template` renders the ServiceAccounts, ClusterRoles, Role and
 * bindings of the operator and the control plane; they are applied to the test API server; tokens
 * for the ServiceAccounts come from the TokenRequest API. With only those tokens, an operator
 * reconciles a Tenant, CachePolicy and Connection end to end (finalizers, namespace, status, events,
 * the Lease) and a control plane serves every mutation that writes resources; and each token is
 * refused every verb its role does not grant (SelfSubjectAccessReviews, see chart-access.ts).
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { loadSettings } from '../../../src/config/settings.ts';
import { readTenantRoleBindings } from '../../../src/config/tenant-role-bindings.ts';
import { type RunningControlPlane, startControlPlane } from '../../../src/main/controlplane-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { graphql } from '../../helpers/graphql.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  allowedVerbs,
  controlPlaneClusterRules,
  controlPlaneGrants,
  controlPlaneTenantRules,
  describeTarget,
  type Grant,
  grantedRules,
  operatorClusterRules,
  operatorGrants,
} from './chart-access.ts';
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
const RELEASE = 'inference-gateway';
const TENANT_NAMESPACE = 'tenant-rbac';
const RBAC_KINDS = new Set(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

interface RenderedObject extends KubeObject {
  spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } };
  subjects?: { kind: string; name: string }[];
  roleRef?: { name: string };
}

async function renderChart(): Promise<RenderedObject[]> {
  const { helm } = requireHelmTools();
  const result = await run(helm, [
    'template',
    RELEASE,
    `${REPO_ROOT}/charts/inference-gateway`,
    '--namespace',
    NAMESPACE,
    ...['rbac', 'operator', 'controlplane'].flatMap((name) => ['--show-only', `templates/${name}.yaml`]),
  ]);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

describe.runIf(available)("the chart's RBAC", () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;
  let controlPlane: RunningControlPlane;
  let operatorToken: string;
  let controlPlaneToken: string;
  let controlPlaneKubeconfig: string;
  let leaseName: string;
  const pat = generateCredential('tt_pat_');

  const requestAs = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${bed.plane.server}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: bed.plane.dispatcher,
    });
    return response.status;
  };
  const asOperator = (method: string, path: string, body?: unknown) =>
    requestAs(operatorToken, method, path, body);

  /**
   * Applies a ServiceAccount with the roles bound to it (and the ClusterRoles no chart binding
   * names: the operator binds those per tenant namespace), and returns a token for it.
   */
  const serviceAccountToken = async (rendered: RenderedObject[], name: string) => {
    const bindings = rendered.filter(
      (object) =>
        RBAC_KINDS.has(object.kind) &&
        object.subjects?.some((subject) => subject.kind === 'ServiceAccount' && subject.name === name),
    );
    const roleNames = new Set(bindings.map((binding) => binding.roleRef?.name));
    const boundByChart = new Set(rendered.map((object) => object.roleRef?.name));
    const objects = rendered.filter(
      (object) =>
        (object.kind === 'ServiceAccount' && object.metadata.name === name) ||
        bindings.includes(object) ||
        ((object.kind === 'ClusterRole' || object.kind === 'Role') && roleNames.has(object.metadata.name)),
    );
    const unbound = rendered.filter(
      (object) => object.kind === 'ClusterRole' && !boundByChart.has(object.metadata.name),
    );
    expect(objects.map((object) => object.kind).sort(), name).toContain('ServiceAccount');
    for (const object of [...objects, ...unbound]) {
      const result = await bed.plane.request(
        'PATCH',
        `${rbacPath(object)}?fieldManager=helm&force=true`,
        object,
        'application/apply-patch+yaml',
      );
      if (result.status >= 300)
        throw new Error(`applying ${object.kind} ${object.metadata.name}: ${JSON.stringify(result.body)}`);
    }
    const tokenRequest = await bed.plane.request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    const token = (tokenRequest.body as { status: { token: string } }).status.token;
    expect(token).toBeTruthy();
    return { token, kinds: objects.map((object) => object.kind).sort() };
  };

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    const rendered = await renderChart();
    const accounts = rendered.filter((object) => object.kind === 'ServiceAccount');
    const accountOf = (component: string) =>
      accounts.find((object) => object.metadata.name.endsWith(`-${component}`))?.metadata.name ?? '';
    const operatorAccount = await serviceAccountToken(rendered, accountOf('operator'));
    expect(operatorAccount.kinds).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ServiceAccount'].sort(),
    );
    operatorToken = operatorAccount.token;
    const controlPlaneAccount = await serviceAccountToken(rendered, accountOf('controlplane'));
    expect(controlPlaneAccount.kinds).toEqual(['ClusterRole', 'ClusterRoleBinding', 'ServiceAccount']);
    controlPlaneToken = controlPlaneAccount.token;

    const deployment = rendered.find(
      (object) => object.kind === 'Deployment' && object.metadata.name.endsWith('-operator'),
    );
    const env = deployment?.spec?.template?.spec?.containers?.[0]?.env ?? [];
    leaseName = env.find((entry) => entry.name === 'OPERATOR_LEASE_NAME')?.value ?? '';
    expect(leaseName).toBeTruthy();
    const bindings = env.find((entry) => entry.name === 'OPERATOR_TENANT_ROLE_BINDINGS')?.value;
    const tenantRoleBindings = readTenantRoleBindings(bindings, (message) => {
      throw new Error(message);
    });
    expect(tenantRoleBindings.map((binding) => binding.serviceAccount.name)).toEqual([
      accountOf('controlplane'),
      accountOf('operator'),
    ]);
    operator = await bed.startOperator({
      kubeconfigPath: await bed.plane.writeKubeconfig(operatorToken, accountOf('operator')),
      leaseNamespace: NAMESPACE,
      leaseName,
      // The tenant whose namespace holds this suite's admin PAT.
      platformTenant: TENANT_NAMESPACE.slice('tenant-'.length),
      tenantRoleBindings,
    });
    await vi.waitFor(() => expect(operator.isLeader()).toBe(true), { timeout: 10_000 });

    // The control-plane role finds the cluster through KUBECONFIG, as in a pod through its
    // service account.
    controlPlaneKubeconfig = await bed.plane.writeKubeconfig(controlPlaneToken, accountOf('controlplane'));
    process.env.KUBECONFIG = controlPlaneKubeconfig;
    controlPlane = await startControlPlane(
      loadSettings(
        {
          HOST: '127.0.0.1',
          CONTROL_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
          SERVICE_TOKEN_SIGNING_KEY: 'rbac-signing-key-0123456789abcdef0123456789',
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'controlplane'),
    );
  });
  afterAll(async () => {
    await controlPlane?.close();
    await bed?.close();
  });

  it('is enough for the operator to reconcile a Tenant, a CachePolicy and a Connection fully', async () => {
    const ns = TENANT_NAMESPACE;
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
    expect(refusals()).toEqual([]);
  });

  it('is enough for the control plane to write keys, cache policies and provider credentials', async () => {
    await bed.applyTenant(tenant('rbac'));
    await bed.apply(
      secret(
        'admin-pat',
        TENANT_NAMESPACE,
        { id: pat.id, hash: pat.hash, permissions: 'keys:manage,cache:manage,credentials:manage' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    const call = async (query: string, variables: Record<string, unknown> = {}) => {
      const result = await graphql(controlPlane.url, pat.plaintext, query, variables);
      expect(result.errors, query).toBeUndefined();
      return result.data as Record<string, unknown>;
    };
    await expect
      .poll(async () => (await graphql(controlPlane.url, pat.plaintext, '{ apiKeys { id } }')).status, {
        timeout: 10_000,
      })
      .toBe(200);

    const created = await call('mutation { createApiKey(workspaceId: "main") { id } }');
    const keyId = (created.createApiKey as { id: string }).id;
    expect(await call('mutation($id: String!) { revokeApiKey(id: $id) }', { id: keyId })).toEqual({
      revokeApiKey: true,
    });

    await call('mutation { upsertCachePolicy(input: { name: "docs", ttlSeconds: 60 }) { name } }');
    expect(await call('mutation { deleteCachePolicy(name: "docs") }')).toEqual({ deleteCachePolicy: true });

    const upsert = `mutation($apiKey: String) {
      upsertProviderCredential(providerName: "openai", slug: "own", apiKey: $apiKey) { keyHint ready }
    }`;
    expect(await call(upsert, { apiKey: 'sk-rbac-own-key-first-01234' })).toEqual({
      upsertProviderCredential: { keyHint: 'sk-…1234', ready: true },
    });
    // A second upsert reads the Secret back (get) and updates both objects.
    expect(await call(upsert, { apiKey: 'sk-rbac-own-key-second-5678' })).toEqual({
      upsertProviderCredential: { keyHint: 'sk-…5678', ready: true },
    });
    expect(await call('{ providerCredentials { slug } }')).toEqual({
      providerCredentials: [{ slug: 'own' }],
    });
    expect(await call('mutation { revokeProviderCredential(slug: "own") }')).toEqual({
      revokeProviderCredential: true,
    });
    expect(await bed.read('Secret', 'own-credential', TENANT_NAMESPACE)).toBeUndefined();
  });

  it('is enough for the control plane to create organisations, provision tenants, add workspaces and suspend', async () => {
    const created = await postJson(`${controlPlane.url}/auth/org/create`, {
      name: 'RBAC Org',
      email: 'ops@rbac.example',
    });
    expect(created.status).toBe(201);
    const org = (await created.json()) as { organization: { id: string }; pat: { token: string } };
    const owner = (query: string) => graphql(controlPlane.url, org.pat.token, query);
    expect(
      (await owner('mutation { createWorkspace(name: "Second", id: "second") { id } }')).errors,
    ).toBeUndefined();
    const key = await owner('mutation { createProvisioningKey { key } }');
    expect(key.errors).toBeUndefined();
    const provisioned = await postJson(
      `${controlPlane.url}/provision/tenant`,
      { name: 'RBAC Child' },
      (key.data as { createProvisioningKey: { key: string } }).createProvisioningKey.key,
      { 'idempotency-key': 'rbac-child' },
    );
    expect(provisioned.status).toBe(201);
    const child = (await provisioned.json()) as { tenantId: string };

    const admin = generateCredential('tt_pat_');
    await bed.apply(
      secret(
        'platform-admin',
        TENANT_NAMESPACE,
        { id: admin.id, hash: admin.hash, admin: 'true' },
        {
          'gateway.service.io/credential': 'pat',
        },
      ),
    );
    const suspend = `mutation { suspendTenant(id: "${child.tenantId}") { suspended } }`;
    await expect
      .poll(
        async () => (await graphql(controlPlane.url, admin.plaintext, suspend, {}, '/admin/graphql')).data,
        {
          timeout: 10_000,
        },
      )
      .toEqual({ suspendTenant: { suspended: true } });
    expect(refusals()).toEqual([]);
  });

  it('is no more: each token is refused every verb its role does not grant', async () => {
    const check = async (token: string, grants: Grant[]) => {
      const actual = await Promise.all(
        grants.map(async ({ verbs: _expected, ...target }) => ({
          target: describeTarget(target),
          verbs: (await allowedVerbs(bed.plane, token, target)).sort(),
        })),
      );
      expect(actual).toEqual(
        grants.map(({ verbs, ...target }) => ({ target: describeTarget(target), verbs: [...verbs].sort() })),
      );
    };
    await check(operatorToken, operatorGrants(TENANT_NAMESPACE, NAMESPACE, leaseName, RELEASE));
    await check(controlPlaneToken, controlPlaneGrants(TENANT_NAMESPACE, NAMESPACE));
  });

  it('lists, for each token, exactly the rules it holds cluster-wide, in its tenant namespaces and its own', async () => {
    // kube-system: no binding of the release is there, so what shows is what is granted everywhere.
    expect(await grantedRules(bed.plane, operatorToken, 'kube-system')).toEqual(
      operatorClusterRules(RELEASE),
    );
    expect(await grantedRules(bed.plane, controlPlaneToken, 'kube-system')).toEqual(
      controlPlaneClusterRules(),
    );
    expect(await grantedRules(bed.plane, controlPlaneToken, NAMESPACE)).toEqual(controlPlaneClusterRules());
    expect(await grantedRules(bed.plane, controlPlaneToken, TENANT_NAMESPACE)).toEqual(
      controlPlaneTenantRules(),
    );
    expect(await grantedRules(bed.plane, operatorToken, TENANT_NAMESPACE)).toEqual(
      [...operatorClusterRules(RELEASE), 'delete core/secrets'].sort(),
    );
    expect(await grantedRules(bed.plane, operatorToken, NAMESPACE)).toEqual(
      [
        ...operatorClusterRules(RELEASE),
        'create coordination.k8s.io/leases',
        `get coordination.k8s.io/leases:${leaseName}`,
        `update coordination.k8s.io/leases:${leaseName}`,
      ].sort(),
    );
  });

  it('answers kubectl auth can-i as the control plane: Secrets of its tenant namespaces only', async () => {
    const canI = async (...args: string[]) => {
      const result = await run(requireHelmTools().kubectl, [
        '--kubeconfig',
        controlPlaneKubeconfig,
        'auth',
        'can-i',
        ...args,
      ]);
      return result.stdout.trim();
    };
    expect(await canI('delete', 'secrets', '-n', 'kube-system')).toBe('no');
    expect(await canI('get', 'secrets', '-n', NAMESPACE)).toBe('no');
    expect(await canI('delete', 'secrets', '-n', TENANT_NAMESPACE)).toBe('yes');
    expect(await canI('create', 'rolebindings', '-n', TENANT_NAMESPACE)).toBe('no');
  });

  it('is no more, on real requests: the operator token cannot read pods, delete, or write Secrets', async () => {
    expect(await asOperator('GET', '/api/v1/pods')).toBe(403);
    expect(await asOperator('DELETE', `/api/v1/namespaces/${TENANT_NAMESPACE}`)).toBe(403);
    expect(await asOperator('GET', `/api/v1/namespaces/${TENANT_NAMESPACE}`)).toBe(403);
    expect(
      await asOperator('POST', `/api/v1/namespaces/${TENANT_NAMESPACE}/secrets`, {
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
    // It may create RoleBindings, but only of the two tenant roles: binding another is escalation.
    const binding = (role: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'planted' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: TENANT_NAMESPACE }],
    });
    const rolebindings = `/apis/rbac.authorization.k8s.io/v1/namespaces/${TENANT_NAMESPACE}/rolebindings`;
    expect(await asOperator('POST', rolebindings, binding('cluster-admin'))).toBe(403);
    expect(await asOperator('POST', rolebindings, binding(`${RELEASE}-controlplane`))).toBe(403);
  });

  it('is no more, on real requests: the control plane token cannot touch Secrets outside tenant namespaces', async () => {
    const secrets = (namespace: string) => `/api/v1/namespaces/${namespace}/secrets`;
    for (const namespace of ['kube-system', NAMESPACE]) {
      expect(await requestAs(controlPlaneToken, 'GET', secrets(namespace))).toBe(403);
      expect(await requestAs(controlPlaneToken, 'DELETE', `${secrets(namespace)}/anything`)).toBe(403);
      expect(
        await requestAs(controlPlaneToken, 'POST', secrets(namespace), {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'planted' },
        }),
      ).toBe(403);
    }
    expect(await requestAs(controlPlaneToken, 'GET', secrets(TENANT_NAMESPACE))).toBe(200);
  });

  /** Log lines where the API server refused the operator something. */
  const refusals = () =>
    bed.logs.filter((line) => line.includes('"statusCode":403') || line.includes('forbidden'));
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
