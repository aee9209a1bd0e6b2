/**
 * The chart's life on a real API server with the Helm binary the tooling ships (helm 4, which
 * applies server-side), with the operator and the control plane in-process, each with the token
 * of the ServiceAccount the chart made and the settings of its rendered Deployment (no kubelet runs
 * here, so the chart's pods never start):
 *
 * - `helm install`, the operator reconciles the Tenants the chart created, then `helm upgrade` with
 *   a changed value succeeds: the operator owns no field Helm sets on the objects they share (the
 *   tenant namespaces);
 * - deleting a Tenant removes its config-store records, the Secrets the control plane created for
 *   it and its RoleBindings, and an Event names what it leaves;
 * - with the operator stopped, `<cli> operator release-finalizers` lets a stuck deletion finish;
 * - the uninstall order README "Uninstall" documents leaves nothing hanging.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { loadSettings, type Settings } from '../../../src/config/settings.ts';
import { type RunningControlPlane, startControlPlane } from '../../../src/main/controlplane-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { graphql } from '../../helpers/graphql.ts';
import { helmAvailable, REPO_ROOT, type RunResult, requireHelmTools, run } from '../../helpers/helm.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  cachePolicy,
  condition,
  connection,
  GROUP_PATH,
  type KubeObject,
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable() && helmAvailable();
const NAMESPACE = 'gateway-system';
const RELEASE = 'inference-gateway';
const CHART = `${REPO_ROOT}/charts/inference-gateway`;
const CLI = join(REPO_ROOT, 'src/main/cli.ts');
const CRDS = ['tenants', 'cachepolicies', 'connections', 'modelroutes'].map(
  (plural) => `${plural}.gateway.service.io`,
);

interface ManagedField {
  manager: string;
  operation: string;
  fieldsV1?: { 'f:metadata'?: { 'f:labels'?: Record<string, unknown> } };
}

interface EventList {
  items: { reason: string; type: string; note: string; regarding: { kind: string; name: string } }[];
}

const expectSuccess = (result: RunResult, what: string) =>
  expect(result.code, `${what}: ${result.stderr}${result.stdout}`).toBe(0);

describe.runIf(available)('the chart through install, upgrade, deletions and uninstall', () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;
  let controlPlane: RunningControlPlane;
  let operatorSettings: Readonly<Settings>;
  let operatorKubeconfig: string;

  const helm = (args: readonly string[]) =>
    run(
      requireHelmTools().helm,
      [...args, '--namespace', NAMESPACE, '--kubeconfig', bed.plane.kubeconfigPath],
      {
        timeoutMs: 120_000,
      },
    );
  const kubectl = (args: readonly string[]) =>
    run(requireHelmTools().kubectl, ['--kubeconfig', bed.plane.kubeconfigPath, ...args], {
      timeoutMs: 120_000,
    });

  /** A token of the ServiceAccount the chart created (TokenRequest API). */
  const serviceAccountToken = async (name: string) => {
    const response = await bed.plane.request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    const token = (response.body as { status?: { token?: string } }).status?.token;
    if (!token) throw new Error(`no token for ${name}: ${JSON.stringify(response.body)}`);
    return token;
  };

  /** The settings the operator's pod would read: the plain values of its rendered environment. */
  const deploymentSettings = async (name: string, names: readonly string[]) => {
    const deployment = await bed.plane.request(
      'GET',
      `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}`,
    );
    const env =
      (
        deployment.body as {
          spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
        }
      ).spec.template.spec.containers[0]?.env ?? [];
    const values = Object.fromEntries(
      env
        .filter((entry) => names.includes(entry.name) && entry.value !== undefined)
        .map((entry) => [entry.name, entry.value as string]),
    );
    expect(Object.keys(values).sort()).toEqual([...names].sort());
    return loadSettings(values, PROVIDER_NAMES);
  };

  const startChartOperator = () =>
    bed.startOperator({
      kubeconfigPath: operatorKubeconfig,
      leaseNamespace: NAMESPACE,
      leaseName: operatorSettings.operator.leaseName,
      tenantRoleBindings: operatorSettings.operator.tenantRoleBindings,
      platformTenant: operatorSettings.platformTenant,
    });

  const events = async (namespace: string) =>
    (
      (await bed.plane.request('GET', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`))
        .body as EventList
    ).items;
  const roleBindings = async (namespace: string) =>
    (
      (
        await bed.plane.request(
          'GET',
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
        )
      ).body as { items: KubeObject[] }
    ).items.map((item) => item.metadata.name);
  const secretNames = async (namespace: string) =>
    (
      (await bed.plane.request('GET', `/api/v1/namespaces/${namespace}/secrets`)).body as {
        items: KubeObject[];
      }
    ).items
      .map((item) => item.metadata.name)
      .sort();
  /** Log lines where the API server refused the operator something. */
  const refusals = () =>
    bed.logs.filter((line) => line.includes('"statusCode":403') || line.includes('forbidden'));

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    expectSuccess(
      await helm(['install', RELEASE, CHART, '--set', 'bootstrap.firstTenant.enabled=true']),
      'helm install',
    );
    // What an earlier operator did to the namespace it found: took Helm's label over by force.
    // This operator's first apply must hand it back (drop it from its own set of fields).
    const earlier = await bed.plane.request(
      'PATCH',
      '/api/v1/namespaces/tenant-platform?fieldManager=inference-gateway-operator&force=true',
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: 'tenant-platform',
          labels: {
            'app.kubernetes.io/managed-by': 'inference-gateway-operator',
            'gateway.service.io/tenant': 'platform',
          },
        },
      },
      'application/apply-patch+yaml',
    );
    expect(earlier.status).toBe(200);
    const account = `${RELEASE}-operator`;
    operatorKubeconfig = await bed.plane.writeKubeconfig(await serviceAccountToken(account), account);
    operatorSettings = await deploymentSettings(`${RELEASE}-operator`, [
      'OPERATOR_LEASE_NAME',
      'OPERATOR_TENANT_ROLE_BINDINGS',
      'PLATFORM_TENANT',
    ]);
    operator = await startChartOperator();

    const controlPlaneAccount = `${RELEASE}-controlplane`;
    process.env.KUBECONFIG = await bed.plane.writeKubeconfig(
      await serviceAccountToken(controlPlaneAccount),
      controlPlaneAccount,
    );
    controlPlane = await startControlPlane(
      loadSettings(
        {
          HOST: '127.0.0.1',
          CONTROL_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
          SERVICE_TOKEN_SIGNING_KEY: 'lifecycle-signing-key-0123456789abcdef012345',
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'controlplane'),
    );
  }, 180_000);
  afterAll(async () => {
    await controlPlane?.close();
    await bed?.close();
  });

  it('upgrades after the operator reconciled the tenants the chart created', async () => {
    for (const name of ['platform', 'first']) {
      await expect
        .poll(async () => condition(await bed.read('Tenant', name), 'Ready')?.status, { timeout: 15_000 })
        .toBe('True');
    }
    await operator.settled();

    const upgrade = await helm(['upgrade', RELEASE, CHART, '--reuse-values', '--set', 'operator.replicas=3']);
    expectSuccess(upgrade, 'helm upgrade');
    const deployment = await bed.plane.request(
      'GET',
      `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${RELEASE}-operator`,
    );
    expect((deployment.body as { spec: { replicas: number } }).spec.replicas).toBe(3);

    // Each namespace keeps Helm's labels and the operator's; the operator owns no label Helm sets.
    for (const name of ['platform', 'first']) {
      const namespace = await bed.read('Namespace', `tenant-${name}`);
      expect(namespace?.metadata.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'Helm',
        'gateway.service.io/tenant': name,
      });
      const managed =
        (namespace?.metadata as { managedFields?: ManagedField[] } | undefined)?.managedFields ?? [];
      const operatorLabels = managed
        .filter((entry) => entry.manager === 'inference-gateway-operator')
        .flatMap((entry) => Object.keys(entry.fieldsV1?.['f:metadata']?.['f:labels'] ?? {}));
      expect(operatorLabels, name).toEqual(['f:gateway.service.io/tenant']);
    }

    // A second reconcile round after the upgrade changes nothing Helm would trip over next time.
    await operator.settled();
    expectSuccess(
      await helm(['upgrade', RELEASE, CHART, '--reuse-values', '--set', 'operator.replicas=2']),
      'second helm upgrade',
    );
  });

  it("deletes a Tenant's records, the Secrets the control plane created and its RoleBindings, and names what it leaves", async () => {
    // An organisation (its PAT), an API key and a provider credential: all written by the control plane.
    const created = await postJson(`${controlPlane.url}/auth/org/create`, {
      name: 'Doomed',
      email: 'ops@doomed.example',
    });
    expect(created.status).toBe(201);
    const org = (await created.json()) as { organization: { id: string }; pat: { token: string } };
    const tenantId = org.organization.id;
    const namespace = `tenant-${tenantId}`;
    const call = async (query: string) => {
      const result = await graphql(controlPlane.url, org.pat.token, query);
      expect(result.errors, query).toBeUndefined();
      return result.data as Record<string, { id?: string }>;
    };
    const apiKeyId =
      (await call('mutation { createApiKey(workspaceId: "default") { id } }')).createApiKey?.id ?? '';
    await call(
      'mutation { upsertProviderCredential(providerName: "openai", slug: "own", apiKey: "sk-doomed-own-key-0123") { slug } }',
    );
    const byControlPlane = await secretNames(namespace);
    expect(byControlPlane).toHaveLength(3);
    // The tenant's own objects, made with kubectl (as from git).
    await bed.apply(secret('byo-key', namespace, { apiKey: 'sk-doomed-byo-key-4567' }));
    await bed.apply(connection('byo', namespace, { provider: 'openai', secretRef: { name: 'byo-key' } }));
    await bed.apply(cachePolicy('default', namespace, { ttlSeconds: 60 }));
    const admin = generateCredential('tt_pat_');
    await bed.apply(
      secret(
        'git-pat',
        namespace,
        { id: admin.id, hash: admin.hash, permissions: 'keys:manage' },
        {
          'gateway.service.io/credential': 'pat',
        },
      ),
    );
    await expect
      .poll(() => bed.store.get('connection', `${tenantId}/byo`), { timeout: 10_000 })
      .toBeDefined();
    await expect.poll(() => bed.store.get('pat', admin.id), { timeout: 10_000 }).toBeDefined();
    expect(await bed.store.get('apiKey', apiKeyId)).toBeDefined();
    expect((await roleBindings(namespace)).sort()).toEqual([
      `${RELEASE}-controlplane-tenant`,
      `${RELEASE}-operator-tenant`,
    ]);

    await bed.remove('Tenant', tenantId);
    await expect.poll(() => bed.read('Tenant', tenantId), { timeout: 15_000 }).toBeUndefined();

    for (const [kind, id] of [
      ['tenant', tenantId],
      ['apiKey', apiKeyId],
      ['pat', admin.id],
      ['connection', `${tenantId}/own`],
      ['connection', `${tenantId}/byo`],
    ] as const) {
      expect(await bed.store.get(kind, id), `${kind} ${id}`).toBeUndefined();
    }
    // Removed: what the control plane created, and the RoleBindings. Left: the tenant's own objects.
    expect(await secretNames(namespace)).toEqual(['byo-key', 'git-pat']);
    expect(await roleBindings(namespace)).toEqual([]);
    expect(await bed.read('Namespace', namespace)).toBeDefined();
    expect(await bed.read('Connection', 'byo', namespace)).toBeDefined();
    expect(await bed.read('Connection', 'own', namespace)).toBeDefined();
    expect(await bed.read('CachePolicy', 'default', namespace)).toBeDefined();

    // A cluster-scoped object's Events live in namespace default.
    const deletions = (await events('default')).filter(
      (event) => event.reason === 'TenantDeleted' && event.regarding.name === tenantId,
    );
    expect(deletions).toHaveLength(1);
    const deletion = deletions[0];
    expect(deletion).toMatchObject({ type: 'Normal', regarding: { kind: 'Tenant', name: tenantId } });
    const note = deletion?.note ?? '';
    for (const name of byControlPlane) expect(note).toContain(name);
    expect(note).toContain(`left in place: namespace ${namespace}; 2 Secrets (byo-key, git-pat)`);
    expect(note).toContain('2 Connections (byo, own)');
    expect(note).toContain('1 CachePolicy (default)');
    expect(note).not.toContain('sk-doomed');
    await operator.settled();
    expect(refusals()).toEqual([]);
  });

  it('lets a deletion held by the finalizer finish with the operator gone: operator release-finalizers', async () => {
    await operator.stop();
    await bed.remove('Tenant', 'first');
    const stuck = await bed.read('Tenant', 'first');
    expect(stuck?.metadata.deletionTimestamp).toBeDefined();
    expect(stuck?.metadata.finalizers).toEqual(['gateway.service.io/finalizer']);

    const released = await run(process.execPath, [CLI, 'operator', 'release-finalizers'], {
      env: { PATH: process.env.PATH, KUBECONFIG: bed.plane.kubeconfigPath },
    });
    expectSuccess(released, 'operator release-finalizers');
    expect(released.stdout).toContain('released Tenant first\n');
    expect(released.stdout).toContain('1 finalizer gateway.service.io/finalizer released');
    await expect.poll(() => bed.read('Tenant', 'first'), { timeout: 10_000 }).toBeUndefined();
    // Objects not being deleted keep theirs.
    expect((await bed.read('Tenant', 'platform'))?.metadata.finalizers).toEqual([
      'gateway.service.io/finalizer',
    ]);

    operator = await startChartOperator();
    // The store is rebuilt without the released tenant's records.
    await expect.poll(() => bed.store.get('tenant', 'first'), { timeout: 15_000 }).toBeUndefined();
  });

  it('uninstalls in the documented order without anything left hanging', async () => {
    // 1. The resources, while the operator runs (it releases their records and finalizers).
    expectSuccess(
      await kubectl([
        'delete',
        'connections.gateway.service.io,cachepolicies.gateway.service.io',
        '--all',
        '-A',
        '--timeout=60s',
      ]),
      'delete connections and cache policies',
    );
    expectSuccess(
      await kubectl(['delete', 'tenants.gateway.service.io', '--all', '--timeout=60s']),
      'delete tenants',
    );
    for (const plural of ['tenants', 'cachepolicies', 'connections']) {
      const list = await bed.plane.request('GET', `${GROUP_PATH}/${plural}`);
      expect((list.body as { items: unknown[] }).items, plural).toEqual([]);
    }
    expect(await bed.store.get('tenant', 'platform')).toBeUndefined();
    await operator.stop();
    // 2. The release.
    expectSuccess(await helm(['uninstall', RELEASE, '--timeout', '60s']), 'helm uninstall');
    // 3. The CRDs, which Helm never deletes.
    expectSuccess(await kubectl(['delete', 'crd', ...CRDS, '--timeout=60s']), 'delete the CRDs');
    for (const crd of CRDS) {
      const left = await bed.plane.request(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
      );
      expect(left.status, crd).toBe(404);
    }
  });
});
