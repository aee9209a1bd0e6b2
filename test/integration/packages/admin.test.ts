/**
 * The admin SDK (packages/admin) against the real standalone service: a representative path of each
 * area through `AdminClient` and `PlatformAdminClient`, over HTTP: tokens, the cache, Connections
 * (against a fake OpenAI-compatible upstream), workspaces, keys and PATs, provisioning with a
 * provisioning key, organisation sign-up with a referral read back by the platform admin, and the
 * typed errors with the server's codes.
 */

import {
  AdminApiError,
  AdminClient,
  type AdminError,
  AdminTransportError,
  PAT_PERMISSIONS,
  PlatformAdminClient,
  usdToMicros,
} from '@inference-gateway/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
const CONNECTION_SECRET = 'sk-sdk-connection-secret-0123456789';

let upstream: FakeServer;
let gateway: TestGateway;
let admin: AdminClient;
let platform: PlatformAdminClient;

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ORG_CREATE_RATE_PER_IP: 'off',
    PROVISION_RATE_PER_KEY: 'off',
    PROVISION_RATE_PER_IP: 'off',
  });
  admin = new AdminClient({ url: gateway.controlUrl, token: gateway.credentials.pat });
  platform = new PlatformAdminClient({ url: gateway.controlUrl, token: gateway.credentials.adminPat });
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
});

const chat = (credential: string) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
    credential,
  );

async function failure(promise: Promise<unknown>): Promise<AdminError> {
  try {
    await promise;
  } catch (error) {
    return error as AdminError;
  }
  throw new Error('the call succeeded');
}

describe('tokens', () => {
  it('mints a token that works on the gateway, and revokes it', async () => {
    const minted = await admin.mintEphemeralToken({
      parentKeyId: gateway.credentials.apiKeyId,
      scopes: ['chat'],
      ttlSeconds: 600,
    });
    expect(minted.token).toMatch(/^tt_ev_/);
    expect(minted.scopes).toEqual(['chat']);
    expect((await chat(minted.token)).status).toBe(200);
    await expect(admin.revokeEphemeralToken(minted.jti)).resolves.toBe(true);
    expect((await chat(minted.token)).status).toBe(401);
  });

  it('revokes every token of a key issued before the call', async () => {
    const minted = await admin.mintEphemeralToken({
      parentKeyId: gateway.credentials.apiKeyId,
      scopes: ['chat', 'model:gpt-4o-mini'],
      ttlSeconds: 60,
    });
    await expect(admin.revokeEphemeralTokensForKey(gateway.credentials.apiKeyId)).resolves.toBe(true);
    expect((await chat(minted.token)).status).toBe(401);
  });

  it('surfaces a refused mint as an AdminApiError with extensions.code', async () => {
    const error = await failure(
      admin.mintEphemeralToken({
        parentKeyId: gateway.credentials.apiKeyId,
        scopes: ['chat'],
        ttlSeconds: 90_000,
      }),
    );
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      path: ['mintEphemeralToken'],
      operation: 'MintEphemeralToken',
    });
    expect(error.message).toMatch(/86400/);
  });
});

describe('cache', () => {
  it('upserts, lists and deletes a policy; revalidates tags; purges a workspace and a namespace', async () => {
    const policy = await admin.upsertCachePolicy({
      name: 'sdk-docs',
      workspaceId: 'default',
      ttlSeconds: 120,
      swrSeconds: 30,
      maxTtlSeconds: 3600,
      defaultTags: ['docs'],
    });
    expect(policy).toEqual({
      name: 'sdk-docs',
      workspaceId: 'default',
      ttlSeconds: 120,
      swrSeconds: 30,
      maxTtlSeconds: 3600,
      defaultTags: ['docs'],
      semantic: false,
    });
    expect(await admin.listCachePolicies({ workspaceId: 'default' })).toContainEqual(policy);
    await expect(
      admin.revalidateCacheTags({ workspaceId: 'default', tags: ['docs', 'doc:1', 'docs'] }),
    ).resolves.toEqual({
      invalidated: 2,
    });
    const purged = await admin.purgeCache({ workspaceId: 'default' });
    expect(purged.purged).toBe(true);
    expect((await admin.purgeCache({ workspaceId: 'default', namespace: 'user-1' })).purged).toBe(true);
    await expect(admin.deleteCachePolicy({ name: 'sdk-docs', workspaceId: 'default' })).resolves.toBe(true);
    expect((await admin.listCachePolicies()).map((entry) => entry.name)).not.toContain('sdk-docs');
  });
});

describe('model routes', () => {
  it('upserts a route with its defaults filled in, lists it, refuses a bad one with its reason, deletes it', async () => {
    const route = await admin.upsertModelRoute({
      model: 'sdk-chat',
      workspaceId: 'default',
      strategy: 'leastBusy',
      targets: [
        { model: 'openai/gpt-4o-mini', weight: 3 },
        { model: 'anthropic/claude-3-5-haiku-latest', priority: 1 },
      ],
      retry: { maxAttempts: 2, on: ['rateLimited', 'timeout'] },
    });
    expect(route).toEqual({
      model: 'sdk-chat',
      workspaceId: 'default',
      strategy: 'leastBusy',
      targets: [
        { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
        { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
      ],
      retry: { maxAttempts: 2, on: ['rateLimited', 'timeout'], backoffMs: 100, maxBackoffMs: 2000 },
      firstByteTimeoutMs: 30_000,
      circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
      shared: false,
    });
    expect(await admin.listModelRoutes({ workspaceId: 'default' })).toContainEqual(route);
    const refused = await admin
      .upsertModelRoute({ model: 'sdk-bad', targets: [{ model: '@no-such-connection/gpt-4o' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdminApiError);
    expect((refused as AdminApiError).code).toBe('VALIDATION_ERROR');
    expect((refused as AdminApiError).message).toContain("names Connection 'no-such-connection'");
    await expect(admin.deleteModelRoute({ model: 'sdk-chat', workspaceId: 'default' })).resolves.toBe(true);
    expect((await admin.listModelRoutes()).map((entry) => entry.model)).not.toContain('sdk-chat');
  });
});

describe('connections', () => {
  it('upserts by slug, then by label, lists, reports availability, tests and revokes', async () => {
    const bySlug = await admin.upsertConnection({
      provider: 'openai-compatible',
      slug: '@sdk-compat',
      apiKey: CONNECTION_SECRET,
      baseUrl: `${upstream.url}/v1`,
      dailyCapMicros: usdToMicros('5'),
    });
    expect(bySlug).toMatchObject({
      slug: 'sdk-compat',
      label: 'sdk-compat',
      kind: 'openaiCompatible',
      provider: 'openai-compatible',
      dailyCapMicros: 5_000_000,
      ready: true,
      status: 'Ready',
    });
    expect(bySlug.keyHint).toMatch(/…/);
    const byLabel = await admin.upsertConnection({
      provider: 'openaiCompatible',
      label: 'sdk-legacy',
      baseUrl: `${upstream.url}/v1`,
    });
    expect(byLabel).toMatchObject({ slug: 'sdk-legacy', label: 'sdk-legacy' });

    const listed = await admin.listConnections();
    expect(listed.map((connection) => connection.slug)).toEqual(
      expect.arrayContaining(['sdk-compat', 'sdk-legacy']),
    );
    const availability = await admin.getProviderAvailability('default');
    expect(availability.find((entry) => entry.provider === 'openai-compatible')).toMatchObject({
      kind: 'openaiCompatible',
      connectionSlugs: ['sdk-compat', 'sdk-legacy'],
      available: true,
    });
    expect(availability.find((entry) => entry.provider === 'openai')).toMatchObject({ platform: true });

    await expect(admin.testConnection('sdk-compat')).resolves.toMatchObject({ ok: true, status: 200 });
    await expect(admin.revokeConnection('sdk-compat')).resolves.toBe(true);
    await expect(admin.revokeConnection('sdk-legacy')).resolves.toBe(true);
    expect((await admin.listConnections()).map((connection) => connection.slug)).not.toContain('sdk-compat');
    expect(await failure(admin.testConnection('sdk-compat'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(JSON.stringify([bySlug, byLabel, listed])).not.toContain(CONNECTION_SECRET);
  });
});

describe('workspaces, keys and PATs', () => {
  it('creates and renames a workspace, and a key in it that works on the gateway', async () => {
    const workspace = await admin.createWorkspace({ name: 'SDK Research' });
    expect(workspace).toEqual({ id: 'sdk-research', name: 'SDK Research' });
    await expect(admin.renameWorkspace({ id: 'sdk-research', name: 'SDK R&D' })).resolves.toEqual({
      id: 'sdk-research',
      name: 'SDK R&D',
    });
    expect(await admin.listWorkspaces()).toContainEqual({ id: 'sdk-research', name: 'SDK R&D' });

    const key = await admin.createApiKey({ workspaceId: 'sdk-research', grants: ['chat:write'] });
    expect(key).toMatchObject({ workspaceId: 'sdk-research', grants: ['chat:write'] });
    expect(key.key).toMatch(/^tt_sk_/);
    expect((await chat(key.key)).status).toBe(200);
    const keys = await admin.listApiKeys({ workspaceId: 'sdk-research' });
    expect(keys.map((entry) => entry.id)).toEqual([key.id]);
    expect(keys[0]?.keyHint).toMatch(/^tt_sk_…/);
    await expect(admin.revokeApiKey(key.id)).resolves.toBe(true);
    expect((await chat(key.key)).status).toBe(401);
  });

  it('creates a PAT that works with its permission only, lists it, and revokes it', async () => {
    const created = await admin.createPat({ permissions: ['billing:read'], name: 'sdk-billing' });
    expect(created.token).toMatch(/^tt_pat_/);
    const billing = new AdminClient({ url: gateway.controlUrl, token: created.token });
    await expect(billing.getBalance()).resolves.toMatchObject({
      tenantId: gateway.credentials.tenantId,
      currency: 'USD',
    });
    expect(await failure(billing.listPats())).toMatchObject({ code: 'FORBIDDEN' });
    expect((await admin.listPats()).map((pat) => pat.id)).toContain(created.id);
    await expect(admin.revokePat(created.id)).resolves.toBe(true);
    expect(await failure(billing.getBalance())).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('reads the tenant with balances, and the audit log newest first', async () => {
    const tenant = await admin.getTenant({ withBalances: true });
    expect(tenant).toMatchObject({ id: gateway.credentials.tenantId, suspended: false });
    expect(tenant.balance?.currency).toBe('USD');
    expect((await admin.getTenant()).balance).toBeUndefined();
    const audit = await admin.listAuditLog({ limit: 3 });
    expect(audit).toHaveLength(3);
    expect(audit[0]!.at >= audit[2]!.at).toBe(true);
  });
});

describe('provisioning', () => {
  it('creates a provisioning key and provisions a child with it, idempotently', async () => {
    const created = await admin.createProvisioningKey({ name: 'sdk-signup' });
    expect(created.key).toMatch(/^tt_prov_/);
    expect((await admin.listProvisioningKeys()).map((key) => key.id)).toContain(created.id);

    const options = { provisioningKey: created.key, idempotencyKey: 'sdk-signup-1' };
    const child = await admin.provisionTenant({ name: 'SDK Customer', region: 'eu-west-1' }, options);
    expect(child).toMatchObject({ workspaceId: 'default', replayed: false });
    expect(child.apiKey).toMatch(/^tt_sk_/);
    expect((await chat(child.apiKey!)).status).toBe(200);
    const replay = await admin.provisionTenant({ name: 'SDK Customer', region: 'eu-west-1' }, options);
    expect(replay).toMatchObject({ tenantId: child.tenantId, apiKey: null, apiKeyId: null, replayed: true });
    expect((await admin.getTenant()).children.map((entry) => entry.id)).toContain(child.tenantId);
    expect(await platform.getTenant(child.tenantId)).toMatchObject({
      parentId: gateway.credentials.tenantId,
      region: 'eu-west-1',
    });

    await expect(admin.revokeProvisioningKey(created.id)).resolves.toBe(true);
    expect(
      await failure(admin.provisionTenant({ name: 'Late' }, { provisioningKey: created.key })),
    ).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
    });
  });

  it('refuses a PAT as the provisioning credential with FORBIDDEN', async () => {
    const error = await failure(
      admin.provisionTenant({ name: 'Nope' }, { provisioningKey: gateway.credentials.pat }),
    );
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403, operation: 'POST /provision/tenant' });
  });

  it('names the fields of a refused body', async () => {
    const error = await failure(
      admin.provisionTenant(
        { name: 'Pooled', billingMode: 'pooled' },
        { provisioningKey: gateway.credentials.provisioningKey },
      ),
    );
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, fields: ['billingMode'] });
  });
});

describe('organisations and the platform admin', () => {
  it('creates an organisation with a referral that the platform admin reads back', async () => {
    const anonymous = new AdminClient({ url: gateway.controlUrl });
    const created = await anonymous.createOrganization({
      name: 'SDK Labs',
      email: 'owner@sdk-labs.example',
      referral: ' partner.sdk ',
    });
    expect(created.organization).toMatchObject({ id: 'sdk-labs', slug: 'sdk-labs', referral: 'partner.sdk' });
    expect(created.pat.permissions).toEqual([...PAT_PERMISSIONS]);

    const summary = await platform.getOrganization('sdk-labs');
    expect(summary).toMatchObject({
      id: 'sdk-labs',
      referral: 'partner.sdk',
      parentId: null,
      workspaceCount: 1,
    });
    expect(await platform.getOrganization('no-such-org')).toBeNull();
    const organizations = await platform.listOrganizations({ topLevelOnly: true });
    expect(organizations.map((entry) => entry.slug)).toContain('sdk-labs');
    const tree = await platform.getTenantTree();
    expect(tree.find((node) => node.id === 'sdk-labs')).toMatchObject({ children: [], childCount: 0 });
    expect(tree.every((node) => node.parentId === null)).toBe(true);

    const balance = await platform.topUpBalance({ tenantId: 'sdk-labs', amountMicros: usdToMicros('20') });
    expect(balance).toMatchObject({ mode: 'prepaid', remainingMicros: 20_000_000 });

    const owner = new AdminClient({ url: gateway.controlUrl, token: created.pat.token });
    await expect(platform.suspendTenant({ id: 'sdk-labs', reason: 'sdk test' })).resolves.toMatchObject({
      suspended: true,
    });
    expect(await failure(owner.listWorkspaces())).toMatchObject({ code: 'TENANT_SUSPENDED', status: 403 });
    await expect(platform.resumeTenant('sdk-labs')).resolves.toMatchObject({ suspended: false });
    await expect(owner.listWorkspaces()).resolves.toEqual([{ id: 'default', name: expect.any(String) }]);
  });

  it('refuses a tenant PAT on the admin API, and a taken slug on sign-up', async () => {
    const notAdmin = new PlatformAdminClient({ url: gateway.controlUrl, token: gateway.credentials.pat });
    expect(await failure(notAdmin.listOrganizations())).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const anonymous = new AdminClient({ url: gateway.controlUrl });
    await anonymous.createOrganization({ name: 'Taken', email: 'a@taken.example', slug: 'taken-slug' });
    expect(
      await failure(
        anonymous.createOrganization({ name: 'Taken', email: 'b@taken.example', slug: 'taken-slug' }),
      ),
    ).toMatchObject({ code: 'CONFLICT', status: 409, fields: ['slug'] });
  });
});

describe('transport', () => {
  it('reports an unreachable control plane as an AdminTransportError', async () => {
    const closed = new AdminClient({
      url: 'http://127.0.0.1:9',
      token: gateway.credentials.pat,
      timeoutMs: 5000,
    });
    const error = await failure(closed.listWorkspaces());
    expect(error).toBeInstanceOf(AdminTransportError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true });
  });
});
