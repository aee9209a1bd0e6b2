/**
 * What a tenant manages on /graphql: workspaces (create, list, rename), API keys (grants, keyHint,
 * revoke), PATs (permissions, no escalation, revoke), balance and spend. Each change is in force
 * on the gateway (or the control plane) when its call returns; every secret is returned once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gateway = await startTestGateway({ OPENAI_API_KEY: 'sk-platform', OPENAI_BASE_URL: `${openai.url}/v1` });
});
afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
});

async function call<T>(
  query: string,
  variables: Record<string, unknown> = {},
  pat = gateway.credentials.pat,
) {
  const result = await graphql<T>(gateway.controlUrl, pat, query, variables);
  return result;
}

const chat = (credential: string, model = 'openai/gpt-4o-mini') =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model, messages: [{ role: 'user', content: 'Hi' }] },
    credential,
  );

describe('workspaces', () => {
  it('creates a workspace whose keys work on the gateway when the call returns', async () => {
    const created = await call<{ createWorkspace: { id: string; name: string } }>(
      'mutation { createWorkspace(name: "Staging Env") { id name } }',
    );
    expect(created.data?.createWorkspace).toEqual({ id: 'staging-env', name: 'Staging Env' });
    const key = await call<{ createApiKey: { key: string; workspaceId: string } }>(
      'mutation { createApiKey(workspaceId: "staging-env") { key workspaceId } }',
    );
    expect(key.errors).toBeUndefined();
    expect((await chat(key.data!.createApiKey.key)).status).toBe(200);
    const listed = await call<{ workspaces: { id: string }[] }>('{ workspaces { id name } }');
    expect(listed.data?.workspaces.map((workspace) => workspace.id)).toEqual(['default', 'staging-env']);
  });

  it('keeps every workspace of concurrent creations', async () => {
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        call(`mutation { createWorkspace(name: "W ${id}", id: "w-${id}") { id } }`),
      ),
    );
    expect(results.map((result) => result.errors)).toEqual([undefined, undefined, undefined]);
    const tenant = await gateway.running.resources.get('Tenant', 'default');
    expect(tenant?.spec.workspaces.map((workspace) => workspace.id)).toEqual(
      expect.arrayContaining(['w-a', 'w-b', 'w-c']),
    );
  });

  it('renames a workspace, and refuses duplicates, bad ids and unknown workspaces', async () => {
    const renamed = await call<{ renameWorkspace: { id: string; name: string } }>(
      'mutation { renameWorkspace(id: "default", name: "Production") { id name } }',
    );
    expect(renamed.data?.renameWorkspace).toEqual({ id: 'default', name: 'Production' });
    expect(gateway.running.view.tenant('default')?.workspaces[0]).toEqual({
      id: 'default',
      name: 'Production',
    });
    const duplicate = await call('mutation { createWorkspace(name: "Again", id: "default") { id } }');
    expect(duplicate.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    const badId = await call('mutation { createWorkspace(name: "Bad", id: "Not Valid") { id } }');
    expect(badId.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    const unknown = await call('mutation { renameWorkspace(id: "nope", name: "X") { id } }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('API keys', () => {
  it('creates a key with grants, lists it with its hint, and revokes it for the next request', async () => {
    const created = await call<{ createApiKey: { id: string; key: string; grants: string[] } }>(
      'mutation { createApiKey(workspaceId: "default", grants: ["embed"]) { id key grants } }',
    );
    const { id, key, grants } = created.data!.createApiKey;
    expect(grants).toEqual(['embed']);
    const denied = await chat(key);
    expect(denied.status).toBe(403);
    const listed = await call<{ apiKeys: { id: string; keyHint: string; grants: string[] }[] }>(
      '{ apiKeys { id keyHint grants } }',
    );
    expect(listed.data?.apiKeys).toContainEqual({
      id,
      keyHint: `tt_sk_…${key.slice(-4)}`,
      grants: ['embed'],
    });
    expect(JSON.stringify(listed)).not.toContain(key);
    await call('mutation($id: String!) { revokeApiKey(id: $id) }', { id });
    expect((await chat(key)).status).toBe(401);
  });
});

describe('PATs', () => {
  it('creates a PAT with some of its creator’s permissions, and refuses more than those', async () => {
    const created = await call<{
      createPat: { id: string; token: string; permissions: string[]; name: string };
    }>('mutation { createPat(permissions: ["keys:manage"], name: "ci") { id token permissions name } }');
    const { id, token } = created.data!.createPat;
    expect(created.data!.createPat).toMatchObject({ permissions: ['keys:manage'], name: 'ci' });
    // It works at once, within its permission.
    expect((await call('{ apiKeys { id } }', {}, token)).errors).toBeUndefined();
    const forbidden = await call('{ pats { id } }', {}, token);
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const escalation = await call('mutation { createPat(permissions: ["pats:manage"]) { id } }', {}, token);
    expect(escalation.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unknown = await call('mutation { createPat(permissions: ["root"]) { id } }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');

    const listed = await call<{ pats: { id: string; keyHint: string; permissions: string[] }[] }>(
      '{ pats { id keyHint permissions } }',
    );
    expect(listed.data?.pats).toContainEqual({
      id,
      keyHint: `tt_pat_…${token.slice(-4)}`,
      permissions: ['keys:manage'],
    });
    await call('mutation($id: String!) { revokePat(id: $id) }', { id });
    const revoked = await call('{ apiKeys { id } }', {}, token);
    expect(revoked.status).toBe(401);
  });

  it('never revokes the platform-admin PAT through /graphql', async () => {
    const pats = await call<{ pats: { id: string }[] }>('{ pats { id } }');
    const adminId = gateway.running.view.list('pat').find((pat) => pat.admin)?.id;
    expect(pats.data?.pats.map((pat) => pat.id)).toContain(adminId);
    const refused = await call('mutation($id: String!) { revokePat(id: $id) }', { id: adminId });
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('balance and spend', () => {
  it('reads the balance and what platform traffic spent', async () => {
    const before = await call<{ balance: { mode: string; remainingMicros: number; spentMicros: number } }>(
      '{ balance { tenantId mode remainingMicros spentMicros currency } }',
    );
    expect(before.data?.balance).toMatchObject({ mode: 'prepaid', currency: 'USD' });
    expect((await chat(gateway.credentials.apiKey)).status).toBe(200);
    const after = await call<{ balance: { remainingMicros: number; spentMicros: number } }>(
      '{ balance { remainingMicros spentMicros } }',
    );
    const spent = after.data!.balance.spentMicros - before.data!.balance.spentMicros;
    expect(spent).toBeGreaterThan(0);
    expect(before.data!.balance.remainingMicros - after.data!.balance.remainingMicros).toBe(spent);
    const noPermission = await call<{ createPat: { token: string } }>(
      'mutation { createPat(permissions: ["keys:manage"]) { token } }',
    );
    const refused = await call('{ balance { mode } }', {}, noPermission.data!.createPat.token);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
