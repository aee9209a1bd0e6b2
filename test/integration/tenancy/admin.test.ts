/**
 * POST /admin/graphql in standalone: admin PATs only; organisation summaries with the referral,
 * lookup by slug, the tenant tree, suspension (a suspended tenant's keys and tokens, and its
 * children's, get 403 service.tenant_suspended on the next request) and top-ups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
let openai: FakeServer;
let gateway: TestGateway;
let org: { id: string; pat: string };
let child: { tenantId: string; apiKey: string };
let orgKey: { id: string; key: string };

const admin = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}) =>
  graphql<T>(gateway.controlUrl, gateway.credentials.adminPat, query, variables, '/admin/graphql');

const chat = (credential: string) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
    credential,
  );

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openai.url}/v1`,
  });
  const created = (await (
    await postJson(`${gateway.controlUrl}/auth/org/create`, {
      name: 'Admin Target',
      email: 'ops@target.example',
      referral: 'partner.one',
    })
  ).json()) as { organization: { id: string }; pat: { token: string } };
  org = { id: created.organization.id, pat: created.pat.token };
  const key = await graphql<{ createApiKey: { id: string; key: string } }>(
    gateway.controlUrl,
    org.pat,
    'mutation { createApiKey(workspaceId: "default") { id key } }',
  );
  orgKey = key.data!.createApiKey;
  const provisioningKey = await graphql<{ createProvisioningKey: { key: string } }>(
    gateway.controlUrl,
    org.pat,
    'mutation { createProvisioningKey { key } }',
  );
  child = (await (
    await postJson(
      `${gateway.controlUrl}/provision/tenant`,
      { name: 'Target Child' },
      provisioningKey.data!.createProvisioningKey.key,
    )
  ).json()) as { tenantId: string; apiKey: string };
});
afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
});

describe('/admin/graphql access', () => {
  it.each([
    ['no credential', () => undefined, 401, 'UNAUTHENTICATED'],
    ['a tenant PAT', () => gateway.credentials.pat, 403, 'FORBIDDEN'],
    ['an organisation owner PAT', () => org.pat, 403, 'FORBIDDEN'],
    ['a workspace key', () => gateway.credentials.apiKey, 401, 'UNAUTHENTICATED'],
    ['a provisioning key', () => gateway.credentials.provisioningKey, 401, 'UNAUTHENTICATED'],
  ])('refuses %s', async (_name, credential, status, code) => {
    const result = await graphql(
      gateway.controlUrl,
      credential(),
      '{ tenantTree { id } }',
      {},
      '/admin/graphql',
    );
    expect(result.status).toBe(status);
    expect(result.errors?.[0]?.extensions?.code).toBe(code);
  });

  it('does not expose the admin operations on /graphql, nor the referral', async () => {
    const result = await graphql(
      gateway.controlUrl,
      gateway.credentials.adminPat,
      '{ tenantTree { id referral } }',
    );
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('/admin/graphql queries', () => {
  it('summarises organisations with referral, creation time, parent, children, balance and suspension', async () => {
    const result = await admin<{
      organizations: {
        id: string;
        slug: string;
        referral: string | null;
        createdAt: string;
        parentId: string | null;
        childCount: number;
        balanceMicros: number | null;
        suspended: boolean;
      }[];
    }>('{ organizations { id name slug referral createdAt parentId childCount balanceMicros suspended } }');
    expect(result.errors).toBeUndefined();
    const summaries = result.data!.organizations;
    expect(summaries.find((summary) => summary.id === org.id)).toMatchObject({
      slug: org.id,
      referral: 'partner.one',
      parentId: null,
      childCount: 1,
      balanceMicros: 0,
      suspended: false,
    });
    expect(summaries.find((summary) => summary.id === child.tenantId)).toMatchObject({
      parentId: org.id,
      childCount: 0,
      referral: null,
      balanceMicros: null,
    });
    const topLevel = await admin<{ organizations: { id: string }[] }>(
      '{ organizations(topLevelOnly: true) { id } }',
    );
    expect(topLevel.data!.organizations.map((summary) => summary.id)).not.toContain(child.tenantId);
  });

  it('finds an organisation by slug, and walks the tree both ways', async () => {
    const bySlug = await admin<{
      organization: { id: string; referral: string; children: { id: string }[] };
    }>('{ organization(slug: "admin-target") { id referral children { id parent { id } } } }');
    expect(bySlug.data!.organization).toEqual({
      id: org.id,
      referral: 'partner.one',
      children: [{ id: child.tenantId, parent: { id: org.id } }],
    });
    expect((await admin('{ organization(slug: "nobody") { id } }')).data).toEqual({ organization: null });
    const tree = await admin<{ tenantTree: { id: string; children: { id: string }[] }[] }>(
      '{ tenantTree { id children { id } } }',
    );
    expect(tree.data!.tenantTree.map((node) => node.id)).toEqual(expect.arrayContaining(['default', org.id]));
    expect(tree.data!.tenantTree.map((node) => node.id)).not.toContain(child.tenantId);
  });
});

describe('/admin/graphql mutations', () => {
  it('suspends a tenant: its keys, tokens and PATs, and its children, are refused on the next request', async () => {
    const token = await graphql<{ mintEphemeralToken: MintedToken }>(gateway.controlUrl, org.pat, MINT, {
      input: { parentKeyId: orgKey.id, scopes: ['chat'], ttlSeconds: 600 },
    });
    const minted = token.data!.mintEphemeralToken.token;
    // Top up first so that the org's platform traffic is served before the suspension.
    await admin('mutation($id: String!) { topUpBalance(tenantId: $id, amountMicros: 5000000) { mode } }', {
      id: org.id,
    });
    expect((await chat(orgKey.key)).status).toBe(200);
    expect((await chat(minted)).status).toBe(200);
    expect((await chat(child.apiKey)).status).toBe(200);

    const suspended = await admin<{ suspendTenant: { suspended: boolean } }>(
      'mutation($id: String!) { suspendTenant(id: $id, reason: "unpaid") { suspended } }',
      { id: org.id },
    );
    expect(suspended.data?.suspendTenant).toEqual({ suspended: true });
    for (const credential of [orgKey.key, minted, child.apiKey]) {
      const refused = await chat(credential);
      expect(refused.status).toBe(403);
      expect(await codeOf(refused)).toBe('service.tenant_suspended');
    }
    const pat = await graphql(gateway.controlUrl, org.pat, '{ tenant { id } }');
    expect(pat.status).toBe(403);
    expect(pat.errors?.[0]?.extensions?.code).toBe('TENANT_SUSPENDED');
    // Other tenants go on.
    expect((await chat(gateway.credentials.apiKey)).status).toBe(200);
    const resource = await gateway.running.resources.get('Tenant', org.id);
    expect(resource?.spec.suspended).toBe(true);

    await admin('mutation($id: String!) { resumeTenant(id: $id) { suspended } }', { id: org.id });
    expect((await chat(orgKey.key)).status).toBe(200);
    expect((await chat(minted)).status).toBe(200);
    expect((await chat(child.apiKey)).status).toBe(200);
  });

  it("refuses to suspend the admin's own tenant, and an unknown one", async () => {
    const own = await admin('mutation { suspendTenant(id: "default") { id } }');
    expect(own.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unknown = await admin('mutation { suspendTenant(id: "nobody") { id } }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('tops up a balance, which then serves platform traffic; bad amounts are refused', async () => {
    const fresh = (await (
      await postJson(`${gateway.controlUrl}/auth/org/create`, { name: 'Broke Org', email: 'a@b.example' })
    ).json()) as { organization: { id: string }; pat: { token: string } };
    const key = await graphql<{ createApiKey: { key: string } }>(
      gateway.controlUrl,
      fresh.pat.token,
      'mutation { createApiKey(workspaceId: "default") { key } }',
    );
    const broke = await chat(key.data!.createApiKey.key);
    expect(broke.status).toBe(402);
    expect(await codeOf(broke)).toBe('service.insufficient_balance');
    const topped = await admin<{ topUpBalance: { mode: string; remainingMicros: number } }>(
      'mutation($id: String!) { topUpBalance(tenantId: $id, amountMicros: 2000000) { mode remainingMicros } }',
      { id: fresh.organization.id },
    );
    expect(topped.data?.topUpBalance).toEqual({ mode: 'prepaid', remainingMicros: 2_000_000 });
    expect((await chat(key.data!.createApiKey.key)).status).toBe(200);
    for (const amount of [0, -5, 1.5, 1e13]) {
      const refused = await admin(
        'mutation($id: String!, $amount: Float!) { topUpBalance(tenantId: $id, amountMicros: $amount) { mode } }',
        { id: fresh.organization.id, amount },
      );
      expect(refused.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    }
    // Audited in the tenant's own log, with the admin PAT as actor.
    const audit = await graphql<{ auditLog: { operation: string; actor: string }[] }>(
      gateway.controlUrl,
      fresh.pat.token,
      '{ auditLog { operation actor } }',
    );
    expect(audit.data?.auditLog.map((entry) => entry.operation)).toContain('topUpBalance');
  });
});
