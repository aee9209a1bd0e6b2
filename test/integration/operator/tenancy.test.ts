/**
 * Tenancy on a real kube-apiserver: provisioning and organisation creation through the
 * control-plane role write Tenant resources and key Secrets, the operator reconciles them into
 * Redis, and the returned keys work on a gateway reading only that Redis when the call returns.
 * Suspension is a Tenant spec field; workspace changes keep concurrent writes; a Tenant with an
 * invalid key Secret is not Ready; and the chart's day-one credentials (admin PAT, first tenant)
 * work once applied.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { PAT_PERMISSIONS } from '../../../src/auth/permissions.ts';
import { loadSettings } from '../../../src/config/settings.ts';
import { type RunningControlPlane, startControlPlane } from '../../../src/main/controlplane-role.ts';
import { ensureSecrets } from '../../../src/main/ensure-secrets.ts';
import { type RunningGateway, startGateway } from '../../../src/main/gateway-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { KubernetesResources } from '../../../src/resources/kubernetes-resources.ts';
import { loadKubeConfig } from '../../../src/resources/kubernetes-transport.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  condition,
  type KubeObject,
  type OperatorTestBed,
  objectPath,
  operatorSuitesAvailable,
  PLATFORM_TENANT,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const RELEASE_NAMESPACE = 'gateway-system';

describe.runIf(available)('tenancy on a real API server', () => {
  let bed: OperatorTestBed;
  let upstream: FakeServer;
  let gateway: RunningGateway;
  let controlPlane: RunningControlPlane;
  const admin = generateCredential('tt_pat_');
  const provisioningKey = generateCredential('tt_prov_');

  const chat = (key: string, content = 'Hi') =>
    postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] },
      key,
    );
  const adminQuery = <T>(query: string, variables: Record<string, unknown> = {}) =>
    graphql<T>(controlPlane.url, admin.plaintext, query, variables, '/admin/graphql');
  const readyStatus = async (name: string) => condition(await bed.read('Tenant', name), 'Ready');

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    upstream = await startFakeOpenAi();
    await bed.startOperator();
    const common = {
      HOST: '127.0.0.1',
      REDIS_URL: bed.redis.url,
      SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      GATEWAY_CACHE: 'off',
      LOG_LEVEL: 'silent',
    };
    gateway = await startGateway(
      loadSettings({ ...common, GATEWAY_PORT: '0' }, PROVIDER_NAMES),
      createLogger('silent', 'gateway'),
    );
    process.env.KUBECONFIG = bed.plane.kubeconfigPath;
    controlPlane = await startControlPlane(
      loadSettings({ ...common, CONTROL_PORT: '0' }, PROVIDER_NAMES),
      createLogger('silent', 'controlplane'),
    );
    // The liable parent: a tenant with a provisioning key; the platform's admin PAT in the platform tenant.
    await bed.applyTenant(tenant('holding'));
    await bed.applyTenant(tenant(PLATFORM_TENANT));
    await bed.apply(
      secret(
        'prov',
        'tenant-holding',
        { id: provisioningKey.id, hash: provisioningKey.hash },
        {
          'gateway.service.io/credential': 'provisioning-key',
        },
      ),
    );
    await bed.apply(
      secret(
        'admin',
        `tenant-${PLATFORM_TENANT}`,
        { id: admin.id, hash: admin.hash, permissions: PAT_PERMISSIONS.join(','), admin: 'true' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    await vi.waitFor(async () => expect((await readyStatus('holding'))?.status).toBe('True'), {
      timeout: 15_000,
      interval: 100,
    });
    // Both credentials are in the control plane's view: the key is known (a bad body is a 400,
    // not a 401) and the admin PAT is accepted.
    await vi.waitFor(
      async () => {
        const probe = await postJson(`${controlPlane.url}/provision/tenant`, {}, provisioningKey.plaintext);
        expect(probe.status).toBe(400);
        expect((await adminQuery('{ tenantTree { id } }')).status).toBe(200);
      },
      { timeout: 15_000, interval: 100 },
    );
  });
  afterAll(async () => {
    await controlPlane?.close();
    await gateway?.close();
    await upstream?.stop();
    await bed?.close();
  });

  it('provisions a child: Tenant resource, namespace and key Secret exist, Ready, and the key works at once', async () => {
    const response = await postJson(
      `${controlPlane.url}/provision/tenant`,
      { name: 'Kube Child', region: 'eu-west-1' },
      provisioningKey.plaintext,
      { 'idempotency-key': 'kube-child-1' },
    );
    expect(response.status).toBe(201);
    const body = (await response.json()) as { tenantId: string; workspaceId: string; apiKey: string };
    // Returned only once the gateway accepts the key.
    expect((await chat(body.apiKey)).status).toBe(200);

    const resource = await bed.read('Tenant', body.tenantId);
    expect(resource?.spec).toMatchObject({
      displayName: 'Kube Child',
      parentRef: { name: 'holding' },
      region: 'eu-west-1',
      workspaces: [{ id: 'default' }],
    });
    expect(await bed.read('Namespace', `tenant-${body.tenantId}`)).toBeDefined();
    const secrets = await bed.plane.request('GET', `/api/v1/namespaces/tenant-${body.tenantId}/secrets`);
    const items = (secrets.body as { items: KubeObject[] }).items;
    const keySecret = items.find(
      (item) => item.metadata.labels?.['gateway.service.io/credential'] === 'api-key',
    );
    expect(keySecret).toBeDefined();
    expect(JSON.stringify(items)).not.toContain(body.apiKey);
    await expect
      .poll(async () => (await readyStatus(body.tenantId))?.status, { timeout: 15_000 })
      .toBe('True');
    expect((await bed.read('Tenant', body.tenantId))?.status).toMatchObject({ slug: body.tenantId });

    // A retry finds the tenant the first call made (the API server's 409 on create).
    const retry = await postJson(
      `${controlPlane.url}/provision/tenant`,
      { name: 'Kube Child', region: 'eu-west-1' },
      provisioningKey.plaintext,
      { 'idempotency-key': 'kube-child-1' },
    );
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ tenantId: body.tenantId, apiKey: null, replayed: true });
  });

  it('creates an organisation whose PAT works, with its referral on the resource and on /admin/graphql', async () => {
    const response = await postJson(`${controlPlane.url}/auth/org/create`, {
      name: 'Kube Org',
      email: 'ops@kube.example',
      referral: 'kube.partner',
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { organization: { id: string }; pat: { token: string } };
    expect(body.organization.id).toBe('kube-org');
    const resource = await bed.read('Tenant', 'kube-org');
    expect(resource?.spec).toMatchObject({ referral: 'kube.partner', contactEmail: 'ops@kube.example' });
    const tenantQuery = await graphql(controlPlane.url, body.pat.token, '{ tenant { id slug } }');
    expect(tenantQuery.data).toEqual({ tenant: { id: 'kube-org', slug: 'kube-org' } });
    const summary = await adminQuery<{ organization: { referral: string } }>(
      '{ organization(slug: "kube-org") { referral } }',
    );
    expect(summary.data?.organization.referral).toBe('kube.partner');
    // The API server refuses a change of the referral (the CRD's transition rule).
    const change = await bed.plane.request(
      'PATCH',
      `${objectPath('Tenant', 'kube-org')}?fieldManager=test&force=true`,
      { ...resource, metadata: { name: 'kube-org' }, spec: { ...resource?.spec, referral: 'other' } },
      'application/apply-patch+yaml',
    );
    expect(change.status).toBe(422);
    expect(JSON.stringify(change.body)).toContain('set once, at creation');
  });

  it('keeps every workspace of concurrent creations (read, change, write with a resourceVersion precondition)', async () => {
    const org = (await (
      await postJson(`${controlPlane.url}/auth/org/create`, { name: 'Many Spaces', email: 'a@b.example' })
    ).json()) as { organization: { id: string }; pat: { token: string } };
    const results = await Promise.all(
      ['one', 'two', 'three'].map((id) =>
        graphql(
          controlPlane.url,
          org.pat.token,
          `mutation { createWorkspace(name: "${id}", id: "${id}") { id } }`,
        ),
      ),
    );
    expect(results.map((result) => result.errors)).toEqual([undefined, undefined, undefined]);
    const resource = await bed.read('Tenant', org.organization.id);
    const ids = ((resource?.spec?.workspaces ?? []) as { id: string }[]).map((workspace) => workspace.id);
    expect(ids).toEqual(expect.arrayContaining(['default', 'one', 'two', 'three']));
  });

  it('suspends through the Tenant spec: the next request of its keys and its children is 403', async () => {
    const child = (await (
      await postJson(
        `${controlPlane.url}/provision/tenant`,
        { name: 'Suspended Child' },
        provisioningKey.plaintext,
      )
    ).json()) as { tenantId: string; apiKey: string };
    const suspended = await adminQuery('mutation { suspendTenant(id: "holding") { suspended } }');
    expect(suspended.data).toEqual({ suspendTenant: { suspended: true } });
    expect((await bed.read('Tenant', 'holding'))?.spec?.suspended).toBe(true);
    const refused = await chat(child.apiKey);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'service.tenant_suspended',
    );
    await adminQuery('mutation { resumeTenant(id: "holding") { suspended } }');
    expect((await chat(child.apiKey, 'again')).status).toBe(200);
  });

  it('reports a Tenant with an invalid key Secret as not Ready, with the reason', async () => {
    await bed.applyTenant(tenant('broken'));
    await bed.apply(
      secret(
        'bad-hash',
        'tenant-broken',
        { id: 'key_bad', hash: 'not-a-hash', workspace: 'main' },
        {
          'gateway.service.io/credential': 'api-key',
        },
      ),
    );
    await expect
      .poll(async () => (await readyStatus('broken'))?.reason, { timeout: 15_000 })
      .toBe('InvalidCredential');
    expect((await readyStatus('broken'))?.status).toBe('False');
    await bed.remove('Secret', 'bad-hash', 'tenant-broken');
    await bed.apply(
      secret(
        'wrong-workspace',
        'tenant-broken',
        { id: 'key_ws', hash: 'a'.repeat(64), workspace: 'nope' },
        {
          'gateway.service.io/credential': 'api-key',
        },
      ),
    );
    await expect
      .poll(async () => (await readyStatus('broken'))?.reason, { timeout: 15_000 })
      .toBe('UnknownWorkspace');
    await bed.remove('Secret', 'wrong-workspace', 'tenant-broken');
    await expect.poll(async () => (await readyStatus('broken'))?.status, { timeout: 15_000 }).toBe('True');
  });

  it('publishes an admin PAT only from the platform tenant: elsewhere it is refused and its Tenant says why', async () => {
    // Anyone who may write a Secret in their own tenant namespace must not become platform admin.
    const claimed = generateCredential('tt_pat_');
    await bed.applyTenant(tenant('mallory'));
    await bed.apply(
      secret(
        'root-pat',
        'tenant-mallory',
        { id: claimed.id, hash: claimed.hash, permissions: PAT_PERMISSIONS.join(','), admin: 'true' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    await expect
      .poll(async () => (await readyStatus('mallory'))?.reason, { timeout: 15_000 })
      .toBe('AdminNotAllowed');
    const ready = await readyStatus('mallory');
    expect(ready?.status).toBe('False');
    expect(ready?.message).toContain('root-pat');
    expect(ready?.message).toContain(`tenant-${PLATFORM_TENANT}`);
    const asAdmin = await graphql(
      controlPlane.url,
      claimed.plaintext,
      '{ tenantTree { id } }',
      {},
      '/admin/graphql',
    );
    expect(asAdmin.status).toBe(401);
    expect(asAdmin.data).toBeUndefined();
    // Not published at all: not even as a plain PAT of its own tenant.
    expect((await graphql(controlPlane.url, claimed.plaintext, '{ tenant { id } }')).status).toBe(401);

    // The same Secret without the claim is an ordinary PAT of its tenant, and the Tenant is Ready.
    await bed.apply(
      secret(
        'root-pat',
        'tenant-mallory',
        { id: claimed.id, hash: claimed.hash, permissions: 'billing:read', admin: 'false' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    await expect.poll(async () => (await readyStatus('mallory'))?.status, { timeout: 15_000 }).toBe('True');
    await expect
      .poll(async () => (await graphql(controlPlane.url, claimed.plaintext, '{ tenant { id } }')).data, {
        timeout: 15_000,
      })
      .toEqual({ tenant: { id: 'mallory' } });
    expect(
      (await graphql(controlPlane.url, claimed.plaintext, '{ tenantTree { id } }', {}, '/admin/graphql'))
        .status,
    ).toBe(403);
  });

  it('leaves out a PAT Secret with an unknown permission or an admin value other than "true"/"false"', async () => {
    await bed.applyTenant(tenant('sloppy'));
    const typo = generateCredential('tt_pat_');
    await bed.apply(
      secret(
        'typo-pat',
        'tenant-sloppy',
        { id: typo.id, hash: typo.hash, permissions: 'billing:read,root' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    await expect
      .poll(async () => (await readyStatus('sloppy'))?.reason, { timeout: 15_000 })
      .toBe('UnknownGrant');
    expect((await readyStatus('sloppy'))?.message).toContain('typo-pat');
    expect((await graphql(controlPlane.url, typo.plaintext, '{ tenant { id } }')).status).toBe(401);
    await bed.remove('Secret', 'typo-pat', 'tenant-sloppy');

    const odd = generateCredential('tt_pat_');
    await bed.apply(
      secret(
        'odd-admin',
        `tenant-${PLATFORM_TENANT}`,
        { id: odd.id, hash: odd.hash, permissions: 'billing:read', admin: 'True' },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    await expect
      .poll(async () => (await readyStatus(PLATFORM_TENANT))?.reason, { timeout: 15_000 })
      .toBe('InvalidValue');
    expect((await graphql(controlPlane.url, odd.plaintext, '{ tenant { id } }')).status).toBe(401);
    await bed.remove('Secret', 'odd-admin', `tenant-${PLATFORM_TENANT}`);
    await expect
      .poll(async () => (await readyStatus(PLATFORM_TENANT))?.status, { timeout: 15_000 })
      .toBe('True');
    await expect.poll(async () => (await readyStatus('sloppy'))?.status, { timeout: 15_000 }).toBe('True');
  });

  it.runIf(helmAvailable())(
    "accepts the chart's day-one credentials: the admin PAT and the first tenant's key work",
    async () => {
      const { helm } = requireHelmTools();
      const rendered = await run(helm, [
        'template',
        'day-one',
        `${REPO_ROOT}/charts/inference-gateway`,
        '--namespace',
        RELEASE_NAMESPACE,
        '--show-only',
        'templates/bootstrap.yaml',
        '--show-only',
        'templates/ensure-secrets.yaml',
        '--set',
        'bootstrap.firstTenant.enabled=true',
      ]);
      expect(rendered.code, rendered.stderr).toBe(0);
      const all = parseAllDocuments(rendered.stdout)
        .map((document) => document.toJS() as KubeObject | null)
        .filter((object): object is KubeObject => object !== null);
      // The Tenants and their namespaces here; the credentials from the ensure-secrets Job below.
      const objects = all.filter((object) => object.kind === 'Tenant' || object.kind === 'Namespace');
      const path = (object: KubeObject) =>
        objectPath(
          object.kind as 'Tenant' | 'Secret' | 'Namespace',
          object.metadata.name,
          object.metadata.namespace,
        );
      for (const object of objects) {
        const result = await bed.plane.request(
          'PATCH',
          `${path(object)}?fieldManager=helm&force=true`,
          object,
          'application/apply-patch+yaml',
        );
        expect(
          result.status,
          `${object.kind} ${object.metadata.name}: ${JSON.stringify(result.body)}`,
        ).toBeLessThan(300);
      }
      // The Job's code with the environment the chart renders for it (test/integration/chart/
      // gitops.test.ts runs it as the Job's own ServiceAccount).
      const job = all.find((object) => object.kind === 'Job') as
        | (KubeObject & {
            spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
          })
        | undefined;
      const env: Record<string, string> = {};
      for (const entry of job?.spec.template.spec.containers[0]?.env ?? [])
        if (entry.value !== undefined) env[entry.name] = entry.value;
      const resources = new KubernetesResources({ kubeConfig: loadKubeConfig(bed.plane.kubeconfigPath) });
      try {
        await ensureSecrets(resources, RELEASE_NAMESPACE, loadSettings(env, PROVIDER_NAMES).ensureSecrets);
      } finally {
        await resources.close();
      }
      for (const name of ['platform', 'first']) {
        await expect.poll(async () => (await readyStatus(name))?.status, { timeout: 15_000 }).toBe('True');
      }
      // What NOTES.txt tells the user to run: read the plaintexts from the release namespace.
      const read = async (name: string) => {
        const result = await bed.plane.request(
          'GET',
          `/api/v1/namespaces/${RELEASE_NAMESPACE}/secrets/${name}`,
        );
        const data = (result.body as { data: Record<string, string> }).data;
        return Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
        );
      };
      const adminPat = (await read('day-one-inference-gateway-admin-pat')).token as string;
      expect(adminPat).toMatch(/^tt_pat_[A-Za-z0-9_-]{43}$/);
      // Ready says the records are in the config store; each pod's view follows its change feed a
      // moment later, so the keys are polled rather than tried once.
      const tree = async () =>
        (
          await graphql<{ tenantTree: { id: string }[] }>(
            controlPlane.url,
            adminPat,
            '{ tenantTree { id } }',
            {},
            '/admin/graphql',
          )
        ).data?.tenantTree.map((node) => node.id);
      await expect.poll(tree, { timeout: 10_000 }).toEqual(expect.arrayContaining(['platform', 'first']));
      const first = await read('day-one-inference-gateway-first-tenant');
      await expect
        .poll(async () => (await chat(first.apiKey as string, 'day one')).status, { timeout: 10_000 })
        .toBe(200);
      await expect
        .poll(
          async () =>
            (await graphql(controlPlane.url, first.pat as string, '{ tenant { id workspaces { id } } }'))
              .data,
          { timeout: 10_000 },
        )
        .toEqual({ tenant: { id: 'first', workspaces: [{ id: 'main' }] } });
    },
  );
});
