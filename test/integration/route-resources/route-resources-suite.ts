/**
 * Model routes as resources, through standalone: `upsertModelRoute`, `modelRoutes` and
 * `deleteModelRoute` over GraphQL (in force in the view the gateway reads when they return,
 * refused with the CRD's and the reconcile step's reasons before anything is written, tenant
 * scoped), a route upserted there serving on the gateway at once, and a ModelRoute from a
 * RESOURCES_DIR file. Defined once and run on the memory store and on a real Redis. What a route
 * does to requests is test/integration/routes/.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { credentialSecret } from '../../../src/resources/credential-secret.ts';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const ROUTE_FIELDS = `model workspaceId strategy targets { model weight priority }
  retry { maxAttempts on backoffMs maxBackoffMs } firstByteTimeoutMs
  circuitBreaker { consecutiveFailures openSeconds } shared`;
const UPSERT = `mutation($input: ModelRouteInput!) { upsertModelRoute(input: $input) { ${ROUTE_FIELDS} } }`;
const LIST = `query($workspaceId: String) { modelRoutes(workspaceId: $workspaceId) { model workspaceId } }`;
const DELETE =
  'mutation($model: String!, $workspaceId: String) { deleteModelRoute(model: $model, workspaceId: $workspaceId) }';

const DEFAULTS = {
  strategy: 'weighted',
  retry: {
    maxAttempts: 3,
    on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
    backoffMs: 100,
    maxBackoffMs: 2000,
  },
  firstByteTimeoutMs: 30_000,
  circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
  shared: false,
};

const ROUTES_YAML = `apiVersion: v1
kind: Secret
metadata: {name: azure-key, namespace: tenant-default}
stringData: {apiKey: sk-azure-0123456789}
---
apiVersion: gateway.service.io/v1alpha1
kind: Connection
metadata: {name: acme-azure, namespace: tenant-default}
spec: {provider: openai, secretRef: {name: azure-key}}
---
apiVersion: gateway.service.io/v1alpha1
kind: ModelRoute
metadata: {name: chat-default, namespace: tenant-default}
spec:
  strategy: leastBusy
  targets:
    - {model: openai/gpt-4o-mini, weight: 3}
    - {model: "@acme-azure/gpt-4o-mini", weight: 1}
    - {model: anthropic/claude-3-5-haiku-latest, priority: 1}
  retry:
    maxAttempts: 2
    on: [rateLimited, timeout]
---
apiVersion: gateway.service.io/v1alpha1
kind: ModelRoute
metadata: {name: dangling, namespace: tenant-default}
spec:
  targets: [{model: "@nobody/gpt-4o"}]
`;

export function describeRouteResources(name: string, env: () => Record<string, string> | undefined): void {
  describe.runIf(env() !== undefined)(`model routes as resources (${name})`, () => {
    let gateway: TestGateway;
    let openai: FakeServer;
    let resourcesDir: string;
    let otherPat: string;
    let cacheOnlyPat: string;

    beforeAll(async () => {
      resourcesDir = await mkdtemp(join(tmpdir(), 'gateway-routes-'));
      await writeFile(join(resourcesDir, 'routes.yaml'), ROUTES_YAML);
      openai = await startFakeOpenAi();
      gateway = await startTestGateway({
        ...env(),
        RESOURCES_DIR: resourcesDir,
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
      });
      const { resources } = gateway.running;
      // Another tenant (not the platform's) with a PAT, and a PAT of ours without credentials:manage.
      await resources.apply({
        apiVersion: API_VERSION,
        kind: 'Tenant',
        metadata: { name: 'other' },
        spec: { displayName: 'Other', workspaces: [{ id: 'main', name: 'Main' }] },
      });
      const other = generateCredential('tt_pat_');
      otherPat = other.plaintext;
      await resources.apply(credentialSecret('other', 'pat', other, { permissions: 'credentials:manage' }));
      const cacheOnly = generateCredential('tt_pat_');
      cacheOnlyPat = cacheOnly.plaintext;
      await resources.apply(
        credentialSecret(gateway.credentials.tenantId, 'pat', cacheOnly, { permissions: 'cache:manage' }),
      );
      await gateway.running.settled();
    });

    afterAll(async () => {
      await gateway?.stop();
      await openai?.stop();
      if (resourcesDir) await rm(resourcesDir, { recursive: true, force: true });
    });

    const admin = (query: string, variables: Record<string, unknown> = {}, pat = gateway.credentials.pat) =>
      graphql(gateway.controlUrl, pat, query, variables);
    const tenantId = () => gateway.credentials.tenantId;
    const workspaceId = () => gateway.credentials.workspaceId;

    it('publishes a ModelRoute from a RESOURCES_DIR file, and leaves out one whose Connection does not exist', () => {
      expect(gateway.running.view.modelRoute(tenantId(), undefined, 'chat-default')).toEqual({
        v: 1,
        tenantId: tenantId(),
        model: 'chat-default',
        ...DEFAULTS,
        strategy: 'leastBusy',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
          { model: '@acme-azure/gpt-4o-mini', weight: 1, priority: 0 },
          { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
        ],
        retry: { ...DEFAULTS.retry, maxAttempts: 2, on: ['rateLimited', 'timeout'] },
      });
      expect(gateway.running.view.modelRoute(tenantId(), undefined, 'dangling')).toBeUndefined();
    });

    it('upserts a tenant-wide route with every default, in force when the mutation returns', async () => {
      const result = await admin(UPSERT, {
        input: { model: 'fast', targets: [{ model: 'openai/gpt-4o-mini' }] },
      });
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual({
        upsertModelRoute: {
          model: 'fast',
          workspaceId: null,
          ...DEFAULTS,
          targets: [{ model: 'openai/gpt-4o-mini', weight: 1, priority: 0 }],
        },
      });
      expect(gateway.running.view.modelRoute(tenantId(), workspaceId(), 'fast')?.targets).toHaveLength(1);
    });

    it('serves the route on the gateway as soon as the mutation returns', async () => {
      const input = { model: 'served', targets: [{ model: 'openai/gpt-4o-mini' }] };
      expect((await admin(UPSERT, { input })).errors).toBeUndefined();
      const response = await postJson(
        `${gateway.url}/v1/chat/completions`,
        { model: 'served', messages: [{ role: 'user', content: 'Hi' }] },
        gateway.credentials.apiKey,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('x-service-route')).toBe('served');
      expect(response.headers.get('x-service-route-target')).toBe('openai/gpt-4o-mini');
      expect((openai.requests.at(-1)?.body as { model?: string } | undefined)?.model).toBe('gpt-4o-mini');
    });

    it('keeps a workspace route beside the tenant-wide one of the same model, the workspace one winning', async () => {
      const input = {
        model: 'fast',
        workspaceId: workspaceId(),
        strategy: 'leastBusy',
        targets: [
          { model: 'anthropic/claude-3-5-haiku-latest', weight: 2 },
          { model: '@acme-azure/gpt-4o', priority: 1 },
        ],
        retry: { maxAttempts: 5, on: ['timeout', 'connectError'], backoffMs: 0, maxBackoffMs: 500 },
        firstByteTimeoutMs: 2500,
        circuitBreaker: { consecutiveFailures: 2, openSeconds: 10 },
      };
      const result = await admin(UPSERT, { input });
      expect(result.errors).toBeUndefined();
      expect(result.data?.upsertModelRoute).toEqual({
        ...input,
        shared: false,
        targets: [
          { model: 'anthropic/claude-3-5-haiku-latest', weight: 2, priority: 0 },
          { model: '@acme-azure/gpt-4o', weight: 1, priority: 1 },
        ],
        retry: { maxAttempts: 5, on: ['timeout', 'connectError'], backoffMs: 0, maxBackoffMs: 500 },
      });
      const { view } = gateway.running;
      expect(view.modelRoute(tenantId(), workspaceId(), 'fast')?.strategy).toBe('leastBusy');
      expect(view.modelRoute(tenantId(), undefined, 'fast')?.strategy).toBe('weighted');
      const listed = await admin(LIST, { workspaceId: workspaceId() });
      expect(listed.data?.modelRoutes).toEqual(
        expect.arrayContaining([
          { model: 'fast', workspaceId: null },
          { model: 'fast', workspaceId: workspaceId() },
          { model: 'chat-default', workspaceId: null },
        ]),
      );
    });

    it('replaces the whole route on upsert (fields left out back at their defaults), a hand-written object in place', async () => {
      await gateway.running.resources.apply({
        apiVersion: API_VERSION,
        kind: 'ModelRoute',
        metadata: { name: 'hand-written', namespace: tenantNamespace(tenantId()) },
        spec: { model: 'handmade', strategy: 'leastBusy', targets: [{ model: 'openai/a' }] },
      });
      await gateway.running.settled();
      const result = await admin(UPSERT, { input: { model: 'handmade', targets: [{ model: 'openai/b' }] } });
      expect(result.data?.upsertModelRoute).toMatchObject({
        strategy: 'weighted',
        targets: [{ model: 'openai/b' }],
      });
      const objects = await gateway.running.resources.list('ModelRoute', tenantNamespace(tenantId()));
      expect(
        objects.filter((route) => route.spec.model === 'handmade').map((route) => route.metadata.name),
      ).toEqual(['hand-written']);
    });

    it('names the object after the model, whatever characters the model holds', async () => {
      const result = await admin(UPSERT, {
        input: { model: 'Llama-3.1:8B', targets: [{ model: 'together/meta-llama/Llama-3-8b' }] },
      });
      expect(result.errors).toBeUndefined();
      const objects = await gateway.running.resources.list('ModelRoute', tenantNamespace(tenantId()));
      const object = objects.find((route) => route.spec.model === 'Llama-3.1:8B');
      expect(object?.metadata.name).toMatch(/^llama-3-1-8b-[0-9a-f]{8}$/);
    });

    it.each([
      ['no targets', { model: 'x', targets: [] }, 'targets must have at least one target'],
      [
        'a bare target (it could be a route: no chains)',
        { model: 'x', targets: [{ model: 'gpt-4o' }] },
        'targets[0].model must be provider/model or @connection/model',
      ],
      [
        'a route name with a slash',
        { model: 'openai/x', targets: [{ model: 'openai/y' }] },
        'model must be a route name',
      ],
      [
        'a tier with no weight',
        { model: 'x', targets: [{ model: 'openai/a', weight: 0 }] },
        'every priority of targets must have a target with weight > 0',
      ],
      [
        'eleven attempts',
        { model: 'x', targets: [{ model: 'openai/a' }], retry: { maxAttempts: 11 } },
        'retry.maxAttempts must be between 1 and 10',
      ],
      [
        'an unknown provider',
        { model: 'x', targets: [{ model: 'azure/gpt-4o' }] },
        "names provider 'azure', which the gateway does not know",
      ],
      [
        'a Connection the tenant does not have',
        { model: 'x', targets: [{ model: '@nobody/gpt-4o' }] },
        "names Connection 'nobody', which tenant default does not have",
      ],
      [
        'a shared route in a workspace',
        { model: 'x', workspaceId: 'default', shared: true, targets: [{ model: 'openai/a' }] },
        'a shared route is tenant-wide; workspaceId must be absent',
      ],
      [
        'a shared route on a Connection',
        { model: 'x', shared: true, targets: [{ model: '@acme-azure/a' }] },
        'a shared route may target only platform models',
      ],
    ])('refuses %s with VALIDATION_ERROR, writing nothing', async (_label, input, message) => {
      const before = (await gateway.running.resources.list('ModelRoute')).length;
      const result = await admin(UPSERT, { input });
      expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      expect(result.errors?.[0]?.message).toContain(message);
      expect((await gateway.running.resources.list('ModelRoute')).length).toBe(before);
    });

    it("shares a platform tenant's route, and refuses `shared` to any other tenant", async () => {
      const input = { model: 'everyone', shared: true, targets: [{ model: 'openai/gpt-4o-mini' }] };
      const platform = await admin(UPSERT, { input });
      expect(platform.errors).toBeUndefined();
      expect(gateway.running.view.modelRoute('other', 'main', 'everyone')?.tenantId).toBe(tenantId());
      const refused = await admin(UPSERT, { input }, otherPat);
      expect(refused.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      expect(refused.errors?.[0]?.message).toContain(
        "shared: true is honoured only in the platform tenant's namespace",
      );
    });

    it('keeps tenants apart: another tenant neither lists nor deletes our routes, and names its own', async () => {
      expect(workspaceId()).toBe('default');
      expect((await admin(LIST, {}, otherPat)).data?.modelRoutes).toEqual([]);
      const deleted = await admin(DELETE, { model: 'fast' }, otherPat);
      expect(deleted.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const own = await admin(
        UPSERT,
        { input: { model: 'fast', targets: [{ model: 'openai/a' }] } },
        otherPat,
      );
      expect(own.errors).toBeUndefined();
      expect(gateway.running.view.modelRoute('other', undefined, 'fast')?.targets[0]?.model).toBe('openai/a');
      expect(gateway.running.view.modelRoute(tenantId(), undefined, 'fast')?.targets[0]?.model).toBe(
        'openai/gpt-4o-mini',
      );
      // Our workspace is none of theirs.
      const foreign = await admin(
        UPSERT,
        { input: { model: 'y', workspaceId: 'default', targets: [{ model: 'openai/a' }] } },
        otherPat,
      );
      expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    it('needs credentials:manage', async () => {
      for (const [query, variables] of [
        [LIST, {}],
        [UPSERT, { input: { model: 'x', targets: [{ model: 'openai/a' }] } }],
        [DELETE, { model: 'fast' }],
      ] as const) {
        const result = await admin(query, variables, cacheOnlyPat);
        expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        expect(result.errors?.[0]?.message).toContain("'credentials:manage'");
      }
    });

    it('deletes a route: gone from the view when the mutation returns; a second delete is NOT_FOUND', async () => {
      expect((await admin(DELETE, { model: 'fast', workspaceId: workspaceId() })).data).toEqual({
        deleteModelRoute: true,
      });
      const { view } = gateway.running;
      // The tenant-wide route of that model serves the workspace again.
      expect(view.modelRoute(tenantId(), workspaceId(), 'fast')?.workspaceId).toBeUndefined();
      const again = await admin(DELETE, { model: 'fast', workspaceId: workspaceId() });
      expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const audit = await admin('{ auditLog(limit: 50) { operation target outcome } }');
      expect(audit.data?.auditLog).toEqual(
        expect.arrayContaining([
          { operation: 'deleteModelRoute', target: `${workspaceId()}/fast`, outcome: 'success' },
          { operation: 'deleteModelRoute', target: `${workspaceId()}/fast`, outcome: 'failure' },
          { operation: 'upsertModelRoute', target: '*/fast', outcome: 'success' },
        ]),
      );
    });
  });
}
