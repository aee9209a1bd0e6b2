/**
 * POST /provision/tenant in standalone: only a provisioning key may call it; it creates a child
 * tenant whose key works on the gateway on the very next request; Idempotency-Key retries return
 * the first result's ids without a second tenant or a second key; bad bodies are 400/413; abuse
 * limits answer 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { PAT_PERMISSIONS } from '../../../src/auth/permissions.ts';
import { credentialSecret } from '../../../src/resources/credential-secret.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
let openai: FakeServer;
let gateway: TestGateway;

interface Provisioned {
  tenantId: string;
  workspaceId: string;
  apiKeyId?: string;
  apiKey: string | null;
  topUpUrl: string;
  replayed?: boolean;
  message?: string;
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openai.url}/v1`,
    PROVISION_RATE_PER_KEY: 'off',
    PROVISION_RATE_PER_IP: 'off',
  });
});
afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
});

const provision = (body: unknown, credential?: string, headers: Record<string, string> = {}) =>
  postJson(
    `${gateway.controlUrl}/provision/tenant`,
    body,
    credential ?? gateway.credentials.provisioningKey,
    headers,
  );

async function errorOf(response: Response): Promise<{ code: string; message: string; fields?: string[] }> {
  return ((await response.json()) as { error: { code: string; message: string; fields?: string[] } }).error;
}

const chat = (credential: string) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
    credential,
  );

const childrenOfDefault = async () => {
  const result = await graphql<{ tenant: { children: { id: string; name: string; parentId: string }[] } }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    '{ tenant { children { id name parentId } } }',
  );
  return result.data!.tenant.children;
};

describe('POST /provision/tenant', () => {
  it('creates a child tenant whose key works on the gateway on the very next request', async () => {
    const response = await provision({ name: 'Acme Kids', region: 'eu-west-1' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Provisioned;
    expect(body.tenantId).toMatch(/^t[0-9a-f]{20}$/);
    expect(body.workspaceId).toBe('default');
    expect(body.apiKey).toMatch(/^tt_sk_/);
    expect(body.topUpUrl).toBe(`${gateway.controlUrl}/billing/top-up/${body.tenantId}`);
    expect((await chat(body.apiKey!)).status).toBe(200);

    const children = await childrenOfDefault();
    expect(children).toContainEqual({ id: body.tenantId, name: 'Acme Kids', parentId: 'default' });
    const tenant = await gateway.running.resources.get('Tenant', body.tenantId);
    expect(tenant?.spec).toMatchObject({
      parentRef: { name: 'default' },
      region: 'eu-west-1',
      billingMode: 'delegated',
    });
    // The key is stored hashed: its plaintext is nowhere in the resources.
    expect(JSON.stringify(await gateway.running.resources.list('Secret'))).not.toContain(body.apiKey);
  });

  it.each([
    ['no credential', undefined, 401, 'UNAUTHENTICATED'],
    [
      'an unknown provisioning key',
      'tt_prov_unknown000000000000000000000000000000000',
      401,
      'UNAUTHENTICATED',
    ],
    ['a PAT', 'pat', 403, 'FORBIDDEN'],
    ['a workspace key', 'apiKey', 403, 'FORBIDDEN'],
    ['an ephemeral token', 'token', 403, 'FORBIDDEN'],
  ])('refuses %s', async (_name, which, status, code) => {
    let credential: string | undefined;
    if (which === 'pat') credential = gateway.credentials.pat;
    else if (which === 'apiKey') credential = gateway.credentials.apiKey;
    else if (which === 'token') {
      const minted = await graphql<{ mintEphemeralToken: MintedToken }>(
        gateway.controlUrl,
        gateway.credentials.pat,
        MINT,
        {
          input: { parentKeyId: gateway.credentials.apiKeyId, scopes: ['chat'], ttlSeconds: 60 },
        },
      );
      credential = minted.data!.mintEphemeralToken.token;
    } else credential = which;
    const response = await fetch(`${gateway.controlUrl}/provision/tenant`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
      },
      body: JSON.stringify({ name: 'Nope' }),
    });
    expect(response.status).toBe(status);
    const error = await errorOf(response);
    expect(error.code).toBe(code);
    if (status === 403) expect(error.message).toContain('provisioning key');
  });

  it.each([
    ['a missing name', {}, 400, 'name is required'],
    ['a name of the wrong type', { name: 42 }, 400, 'name must be'],
    ['an empty name', { name: '  ' }, 400, 'name must be'],
    ['a region of the wrong type', { name: 'X', region: ['eu'] }, 400, 'region must be'],
    ['pooled billing', { name: 'X', billingMode: 'pooled' }, 400, "'pooled' is not supported"],
    ['an unknown billing mode', { name: 'X', billingMode: 'free' }, 400, "must be 'delegated'"],
    ['an array body', [], 400, 'JSON object'],
  ])('refuses %s with a clear 400', async (_name, body, status, message) => {
    const response = await provision(body);
    expect(response.status).toBe(status);
    const error = await errorOf(response);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(message);
  });

  it('answers malformed JSON with 400 and an oversized body with 413', async () => {
    const malformed = await provision('{"name": ');
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).code).toBe('BAD_REQUEST');
    const huge = await provision({ name: 'x', padding: 'p'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('returns the first result on a retry with the same Idempotency-Key, never a second tenant or key', async () => {
    const headers = { 'idempotency-key': `retry-${Date.now()}` };
    const before = (await childrenOfDefault()).length;
    const first = await provision({ name: 'Retried' }, undefined, headers);
    expect(first.status).toBe(201);
    const created = (await first.json()) as Provisioned;
    const again = await provision({ name: 'Retried' }, undefined, headers);
    expect(again.status).toBe(200);
    const replayed = (await again.json()) as Provisioned;
    expect(replayed).toMatchObject({
      tenantId: created.tenantId,
      workspaceId: created.workspaceId,
      topUpUrl: created.topUpUrl,
      apiKey: null,
      replayed: true,
    });
    expect(replayed.message).toContain('returned once');
    expect((await childrenOfDefault()).length).toBe(before + 1);
    expect((await chat(created.apiKey!)).status).toBe(200);

    // The same key with another body is a conflict, not a new tenant.
    const other = await provision({ name: 'Something else' }, undefined, headers);
    expect(other.status).toBe(409);
    expect((await errorOf(other)).code).toBe('CONFLICT');
    expect((await childrenOfDefault()).length).toBe(before + 1);
  });

  it('makes one tenant of concurrent retries with one Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `concurrent-${Date.now()}` };
    const before = (await childrenOfDefault()).length;
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => provision({ name: 'Concurrent' }, undefined, headers)),
    );
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as Provisioned[];
    expect(responses.every((response) => response.status === 200 || response.status === 201)).toBe(true);
    expect(new Set(bodies.map((body) => body.tenantId)).size).toBe(1);
    expect((await childrenOfDefault()).length).toBe(before + 1);
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
  });

  it('lets a child neither make provisioning keys nor provision with one', async () => {
    const child = (await (await provision({ name: 'No grandchildren' })).json()) as Provisioned;
    const pat = generateCredential('tt_pat_');
    const key = generateCredential('tt_prov_');
    await gateway.running.resources.apply(
      credentialSecret(child.tenantId, 'pat', pat, {
        permissions: PAT_PERMISSIONS.join(','),
        admin: 'false',
      }),
    );
    await gateway.running.resources.apply(credentialSecret(child.tenantId, 'provisioning-key', key, {}));
    await gateway.running.settled();
    const created = await graphql(
      gateway.controlUrl,
      pat.plaintext,
      'mutation { createProvisioningKey { id } }',
    );
    expect(created.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(created.errors?.[0]?.message).toContain('top-level tenant');
    const refused = await provision({ name: 'Grandchild' }, key.plaintext);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).message).toContain('top-level tenant');
  });

  it('creates, lists and revokes provisioning keys; a revoked key stops at once', async () => {
    const created = await graphql<{ createProvisioningKey: { id: string; key: string } }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { createProvisioningKey(name: "ci") { id key name } }',
    );
    expect(created.errors).toBeUndefined();
    const { id, key } = created.data!.createProvisioningKey;
    expect(key).toMatch(/^tt_prov_/);
    expect((await provision({ name: 'With the new key' }, key)).status).toBe(201);
    const listed = await graphql<{ provisioningKeys: { id: string; keyHint: string; name: string }[] }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ provisioningKeys { id keyHint name } }',
    );
    expect(listed.data!.provisioningKeys).toContainEqual({
      id,
      keyHint: `tt_prov_…${key.slice(-4)}`,
      name: 'ci',
    });
    await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($id: String!) { revokeProvisioningKey(id: $id) }',
      { id },
    );
    const refused = await provision({ name: 'After revocation' }, key);
    expect(refused.status).toBe(401);
  });

  it('serves the top-up URL it hands out', async () => {
    const child = (await (await provision({ name: 'Top me up' })).json()) as Provisioned;
    const page = await fetch(child.topUpUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('topUpBalance');
  });
});

describe('POST /provision/tenant abuse limits', () => {
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startTestGateway({ PROVISION_RATE_PER_KEY: '2/m', PROVISION_RATE_PER_IP: '5/m' });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('answers 429 with Retry-After past the per-key rate, and past the per-address rate', async () => {
    const call = (credential: string) =>
      postJson(`${limited.controlUrl}/provision/tenant`, { name: 'Rate' }, credential);
    expect((await call(limited.credentials.provisioningKey)).status).toBe(201);
    expect((await call(limited.credentials.provisioningKey)).status).toBe(201);
    const refused = await call(limited.credentials.provisioningKey);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe('RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The address limit counts every call, unauthenticated ones too: 3 so far, the 6th is refused.
    expect((await call('tt_prov_guess')).status).toBe(401);
    expect((await call('tt_prov_guess')).status).toBe(401);
    const byAddress = await call('tt_prov_guess');
    expect(byAddress.status).toBe(429);
    expect((await errorOf(byAddress)).message).toContain('client address');
  });
});
