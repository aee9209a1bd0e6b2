/**
 * Two tenants each have a workspace called `default`: their caches must never meet, exact or
 * semantic, and a purge of one must not touch the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
let gateway: TestGateway;
let otherKey: string;
let otherPat: string;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gateway = await startTestGateway({
    GATEWAY_CACHE: 'on',
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openai.url}/v1`,
    ORG_INITIAL_BALANCE_MICROS: '100000000',
  });
  const created = await fetch(`${gateway.controlUrl}/auth/org/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Other Org', email: 'owner@other.example' }),
  });
  expect(created.status).toBe(201);
  otherPat = ((await created.json()) as { pat: { token: string } }).pat.token;
  const key = await graphql<{ createApiKey: { key: string } }>(
    gateway.controlUrl,
    otherPat,
    'mutation { createApiKey(workspaceId: "default") { key } }',
  );
  expect(key.errors).toBeUndefined();
  otherKey = key.data?.createApiKey.key as string;
});

afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
});

const ask = (key: string, content: string) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model: 'openai/gpt-4o', messages: [{ role: 'user', content }] },
    key,
  );

describe("two tenants' workspaces of the same name", () => {
  it('never share a cache entry', async () => {
    expect((await ask(gateway.credentials.apiKey, 'shared question')).headers.get('x-service-cache')).toBe(
      'miss',
    );
    expect((await ask(gateway.credentials.apiKey, 'shared question')).headers.get('x-service-cache')).toBe(
      'hit',
    );
    const other = await ask(otherKey, 'shared question');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-service-cache')).toBe('miss');
  });

  it("never have their cache purged by the other's purge", async () => {
    await ask(gateway.credentials.apiKey, 'purge question');
    const purged = await graphql(
      gateway.controlUrl,
      otherPat,
      'mutation { purgeGatewayCache(workspaceId: "default") { generation } }',
    );
    expect(purged.errors).toBeUndefined();
    expect((await ask(gateway.credentials.apiKey, 'purge question')).headers.get('x-service-cache')).toBe(
      'hit',
    );
  });
});
