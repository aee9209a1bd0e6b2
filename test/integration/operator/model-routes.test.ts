/**
 * ModelRoute objects on a real kube-apiserver, reconciled by the operator into a real Redis config
 * store: the record with every default filled in, Ready and the finalizer; Ready=False with a reason
 * for what CEL cannot see (a Connection that does not exist or is not published, a provider the
 * gateway does not know, `shared` outside the platform tenant, an unknown workspace, a second route
 * of one model at one scope), each recovering when its cause goes; updates, deletion, and a
 * Tenant's deletion taking its routes' records with it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import {
  condition,
  connection,
  modelRoute,
  type OperatorTestBed,
  operatorSuitesAvailable,
  PLATFORM_TENANT,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const FINALIZER = 'gateway.service.io/finalizer';
const POLL = { timeout: 10_000 };

describe.runIf(available)('ModelRoutes through the operator', () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;
  const ns = 'tenant-acme';
  const ready = async (name: string, namespace = ns) =>
    condition(await bed.read('ModelRoute', name, namespace), 'Ready');

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    operator = await bed.startOperator();
    await vi.waitFor(() => expect(operator.isLeader()).toBe(true), POLL);
    await bed.applyTenant(tenant('acme'));
    await bed.applyTenant(tenant(PLATFORM_TENANT));
    await bed.apply(secret('azure-key', ns, { apiKey: 'sk-azure-0123456789abcdef' }));
    await bed.apply(
      connection('azure', ns, { provider: 'openai', slug: 'acme-azure', secretRef: { name: 'azure-key' } }),
    );
    await vi.waitFor(
      async () => expect(await bed.store.get('connection', 'acme/acme-azure')).toBeDefined(),
      POLL,
    );
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("publishes the issue's route with every default filled in, Ready, with the finalizer", async () => {
    await bed.apply(
      modelRoute('chat-default', ns, {
        model: 'chat-default',
        workspace: 'main',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3 },
          { model: '@acme-azure/gpt-4o-mini', weight: 1 },
          { model: 'anthropic/claude-3-5-haiku-latest', priority: 1 },
        ],
        retry: { maxAttempts: 3, on: ['rateLimited', 'serverError', 'timeout', 'connectError'] },
        circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
      }),
    );
    await expect
      .poll(() => bed.store.get('modelRoute', 'acme/main/chat-default'), POLL)
      .toEqual({
        v: 1,
        tenantId: 'acme',
        workspaceId: 'main',
        model: 'chat-default',
        strategy: 'weighted',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
          { model: '@acme-azure/gpt-4o-mini', weight: 1, priority: 0 },
          { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
        ],
        retry: {
          maxAttempts: 3,
          on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
          backoffMs: 100,
          maxBackoffMs: 2000,
        },
        firstByteTimeoutMs: 30_000,
        circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
        shared: false,
      });
    await expect
      .poll(() => ready('chat-default'), POLL)
      .toMatchObject({
        status: 'True',
        reason: 'Published',
        observedGeneration: 1,
        message: "route 'chat-default' (3 targets) published for workspace main of tenant acme",
      });
    const object = await bed.read('ModelRoute', 'chat-default', ns);
    expect(object?.metadata.finalizers).toContain(FINALIZER);
    // The API server filled in the schema's defaults.
    expect(object?.spec).toMatchObject({ strategy: 'weighted', shared: false });
  });

  it('follows an update of the spec, and takes the model from metadata.name when spec.model is absent', async () => {
    await bed.apply(
      modelRoute('chat-default', ns, {
        workspace: 'main',
        strategy: 'leastBusy',
        targets: [{ model: 'openai/gpt-4o-mini' }],
        firstByteTimeoutMs: 5000,
      }),
    );
    await expect
      .poll(() => bed.store.get('modelRoute', 'acme/main/chat-default'), POLL)
      .toMatchObject({
        strategy: 'leastBusy',
        targets: [{ model: 'openai/gpt-4o-mini' }],
        firstByteTimeoutMs: 5000,
      });
    await expect.poll(async () => (await ready('chat-default'))?.observedGeneration, POLL).toBe(2);
  });

  it('waits for a Connection that does not exist yet (ConnectionNotFound), then publishes; unpublishes when it goes', async () => {
    await bed.apply(modelRoute('later', ns, { targets: [{ model: '@later/gpt-4o' }] }));
    await expect
      .poll(() => ready('later'), POLL)
      .toMatchObject({
        status: 'False',
        reason: 'ConnectionNotFound',
        message:
          "target '@later/gpt-4o' names Connection 'later', which tenant acme does not have (or which is not Ready)",
      });
    expect(await bed.store.get('modelRoute', 'acme/*/later')).toBeUndefined();
    // A Connection without its Secret is not published: the route still waits.
    await bed.apply(connection('later', ns, { provider: 'openai', secretRef: { name: 'later-key' } }));
    await bed.apply(secret('later-key', ns, { apiKey: 'sk-later-0123456789abcdef' }));
    await expect.poll(() => bed.store.get('modelRoute', 'acme/*/later'), POLL).toBeDefined();
    await expect.poll(() => ready('later'), POLL).toMatchObject({ status: 'True', reason: 'Published' });
    // Its Secret deleted, the Connection is unpublished, and so is the route.
    await bed.remove('Secret', 'later-key', ns);
    await expect.poll(() => bed.store.get('modelRoute', 'acme/*/later'), POLL).toBeUndefined();
    await expect
      .poll(() => ready('later'), POLL)
      .toMatchObject({ status: 'False', reason: 'ConnectionNotFound' });
  });

  it("refuses a Connection of another workspace than the route's (ConnectionOutOfScope)", async () => {
    await bed.apply(secret('ws-key', ns, { apiKey: 'sk-ws-0123456789abcdef' }));
    await bed.apply(
      connection('ws-only', ns, { provider: 'openai', workspace: 'main', secretRef: { name: 'ws-key' } }),
    );
    await bed.apply(modelRoute('everywhere', ns, { targets: [{ model: '@ws-only/gpt-4o' }] }));
    await expect
      .poll(() => ready('everywhere'), POLL)
      .toMatchObject({
        status: 'False',
        reason: 'ConnectionOutOfScope',
      });
    await bed.apply(
      modelRoute('everywhere', ns, { workspace: 'main', targets: [{ model: '@ws-only/gpt-4o' }] }),
    );
    await expect.poll(() => ready('everywhere'), POLL).toMatchObject({ status: 'True' });
    expect(await bed.store.get('modelRoute', 'acme/main/everywhere')).toBeDefined();
  });

  it.each([
    [
      'a provider the gateway does not know',
      'unknown-provider',
      { targets: [{ model: 'azure/gpt-4o' }] },
      'UnknownProvider',
    ],
    [
      'a workspace the tenant does not have',
      'unknown-workspace',
      { workspace: 'nope', targets: [{ model: 'openai/a' }] },
      'UnknownWorkspace',
    ],
    [
      'shared outside the platform tenant',
      'not-platform',
      { shared: true, targets: [{ model: 'openai/a' }] },
      'SharedOutsidePlatform',
    ],
  ])('reports %s as Ready=False, publishing nothing', async (_label, name, spec, reason) => {
    await bed.apply(modelRoute(name, ns, spec));
    await expect.poll(() => ready(name), POLL).toMatchObject({ status: 'False', reason });
    expect((await bed.store.list('modelRoute')).map((record) => record.model)).not.toContain(name);
  });

  it('shares a route of the platform tenant', async () => {
    const platformNs = `tenant-${PLATFORM_TENANT}`;
    await bed.apply(
      modelRoute('everyone', platformNs, { shared: true, targets: [{ model: 'openai/gpt-4o-mini' }] }),
    );
    await expect
      .poll(() => bed.store.get('modelRoute', `${PLATFORM_TENANT}/*/everyone`), POLL)
      .toMatchObject({ shared: true, tenantId: PLATFORM_TENANT });
    await expect
      .poll(() => ready('everyone', platformNs), POLL)
      .toMatchObject({
        status: 'True',
        message: `route 'everyone' (1 target) published for the whole tenant of tenant ${PLATFORM_TENANT}, and shared with every tenant without its own`,
      });
  });

  it('gives a model at one scope to the older route (ModelConflict), and to the other once it goes', async () => {
    await bed.apply(modelRoute('first', ns, { model: 'dup', targets: [{ model: 'openai/a' }] }));
    await expect.poll(() => ready('first'), POLL).toMatchObject({ status: 'True' });
    await bed.apply(modelRoute('second', ns, { model: 'dup', targets: [{ model: 'openai/b' }] }));
    await expect
      .poll(() => ready('second'), POLL)
      .toMatchObject({ status: 'False', reason: 'ModelConflict' });
    expect(await bed.store.get('modelRoute', 'acme/*/dup')).toMatchObject({
      targets: [{ model: 'openai/a' }],
    });
    await bed.remove('ModelRoute', 'first', ns);
    await expect
      .poll(() => bed.store.get('modelRoute', 'acme/*/dup'), POLL)
      .toMatchObject({ targets: [{ model: 'openai/b' }] });
    await expect.poll(() => ready('second'), POLL).toMatchObject({ status: 'True' });
  });

  it('removes the record before the finalizer goes, and the object with it', async () => {
    await bed.remove('ModelRoute', 'chat-default', ns);
    await expect.poll(() => bed.read('ModelRoute', 'chat-default', ns), POLL).toBeUndefined();
    expect(await bed.store.get('modelRoute', 'acme/main/chat-default')).toBeUndefined();
  });

  it("takes a deleted Tenant's route records with it, leaving its ModelRoutes in place", async () => {
    expect(await bed.store.get('modelRoute', 'acme/*/dup')).toBeDefined();
    await bed.remove('Tenant', 'acme');
    await expect.poll(() => bed.read('Tenant', 'acme'), { timeout: 20_000 }).toBeUndefined();
    const left = (await bed.store.list('modelRoute')).filter((record) => record.tenantId === 'acme');
    expect(left).toEqual([]);
    expect(await bed.read('ModelRoute', 'second', ns)).toBeDefined();
    await expect
      .poll(() => ready('second'), POLL)
      .toMatchObject({ status: 'False', reason: 'UnknownTenant' });
  });
});
