/**
 * The client SDK (packages/client) against the real standalone gateway: the official openai and
 * Anthropic clients with the SDK's fetch report who served (a Connection created over GraphQL, or
 * the platform's key), a pinned Connection serves unprefixed model names, and the cache's answers
 * arrive in the typed result. The SDK is imported from its sources, as its own tests do.
 */
import Anthropic from '@anthropic-ai/sdk';
import {
  cacheHeaders,
  createGatewayFetch,
  GatewayClient,
  GatewayError,
  type RoutingInfo,
} from '@inference-gateway/client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ANTHROPIC_REPLY, startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { FAKE_OPENAI_REPLY, STREAM_PIECES, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const TENANT_OPENAI_KEY = 'sk-tenant-openai-0123456789';
const TENANT_ANTHROPIC_KEY = 'sk-ant-tenant-0123456789';

let platformOpenAi: FakeServer;
let platformAnthropic: FakeServer;
let tenantOpenAi: FakeServer;
let tenantAnthropic: FakeServer;
let gateway: TestGateway;

const UPSERT = `mutation Upsert($provider: ProviderCredentialKind, $slug: String, $apiKey: String, $baseUrl: String) {
  upsertProviderCredential(provider: $provider, slug: $slug, apiKey: $apiKey, baseUrl: $baseUrl) { id slug ready }
}`;

async function createConnection(variables: Record<string, string>): Promise<void> {
  const result = await graphql<{ upsertProviderCredential: { slug: string; ready: boolean } }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    UPSERT,
    variables,
  );
  expect(result.errors).toBeUndefined();
  expect(result.data?.upsertProviderCredential).toMatchObject({ slug: variables.slug, ready: true });
}

beforeAll(async () => {
  [platformOpenAi, platformAnthropic, tenantOpenAi, tenantAnthropic] = await Promise.all([
    startFakeOpenAi(),
    startFakeAnthropic(),
    startFakeOpenAi(),
    startFakeAnthropic(),
  ]);
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${platformOpenAi.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: platformAnthropic.url,
    GATEWAY_CACHE: 'on',
  });
  await createConnection({
    provider: 'openai',
    slug: 'mine',
    apiKey: TENANT_OPENAI_KEY,
    baseUrl: `${tenantOpenAi.url}/v1`,
  });
  await createConnection({
    provider: 'anthropic',
    slug: 'mine-claude',
    apiKey: TENANT_ANTHROPIC_KEY,
    baseUrl: tenantAnthropic.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all(
    [platformOpenAi, platformAnthropic, tenantOpenAi, tenantAnthropic].map((fake) => fake?.stop()),
  );
});

/** Every request asks something new, so that the cache (on in this suite) answers none by accident. */
let question = 0;
const ask = () => [{ role: 'user' as const, content: `Question ${++question}` }];

const openai = (fetch: ReturnType<typeof createGatewayFetch>) =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, fetch, maxRetries: 0 });
const anthropic = (fetch: ReturnType<typeof createGatewayFetch>) =>
  new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url, fetch, maxRetries: 0 });

describe('the official openai client with the SDK fetch', () => {
  it('reports a BYOK request: byok true, the Connection slug and id', async () => {
    const fetch = createGatewayFetch();
    const completion = await openai(fetch).chat.completions.create({
      model: '@mine/gpt-4o',
      messages: ask(),
    });
    expect(completion.choices[0]?.message.content).toBe(FAKE_OPENAI_REPLY);
    expect(fetch.lastRouting()).toEqual({
      byok: true,
      credentialId: `${gateway.credentials.tenantId}/mine`,
      connectionSlug: 'mine',
      credentialLabel: 'mine',
    });
    expect(tenantOpenAi.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TENANT_OPENAI_KEY}`);
  });

  it("serves an unprefixed model with the pinned Connection ('@mine'), reported to onRouting", async () => {
    const seen: RoutingInfo[] = [];
    const fetch = createGatewayFetch({ connection: '@mine', onRouting: (routing) => seen.push(routing) });
    const tenantBefore = tenantOpenAi.requests.length;
    const platformBefore = platformOpenAi.requests.length;
    await openai(fetch).chat.completions.create({ model: 'gpt-4o', messages: ask() });
    expect(tenantOpenAi.requests.length).toBe(tenantBefore + 1);
    expect(platformOpenAi.requests.length).toBe(platformBefore);
    expect((tenantOpenAi.requests.at(-1)!.body as { model: string }).model).toBe('gpt-4o');
    expect(seen).toEqual([expect.objectContaining({ byok: true, connectionSlug: 'mine' })]);
  });

  it('reports platform traffic: byok false', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    const platformBefore = platformOpenAi.requests.length;
    await openai(fetch).chat.completions.create({ model: 'openai/gpt-4o', messages: ask() });
    expect(fetch.lastRouting()).toEqual({ byok: false });
    expect(platformOpenAi.requests.length).toBe(platformBefore + 1);
    expect(fetch.lastResult()?.balance).toMatchObject({ mode: 'prepaid', chargeDeferred: false });
    expect(fetch.lastResult()?.balance?.chargedMicros).toBeGreaterThan(0);
  });

  it('streams through the Connection, with routing known when the stream starts', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    const stream = await openai(fetch).chat.completions.create({
      model: 'gpt-4o',
      messages: ask(),
      stream: true,
    });
    expect(fetch.lastRouting()).toMatchObject({ byok: true, connectionSlug: 'mine' });
    // BYOK traffic is never charged: the stream says 0 at once, nothing is deferred.
    expect(fetch.lastResult()?.balance).toMatchObject({ chargedMicros: 0, chargeDeferred: false });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(STREAM_PIECES.join(''));
  });
});

describe('the official Anthropic client with the SDK fetch', () => {
  it('reports a BYOK request through the pinned Connection', async () => {
    const fetch = createGatewayFetch({ connection: 'mine-claude' });
    const message = await anthropic(fetch).messages.create({
      model: 'claude-3-5-sonnet-20241022',
      max_tokens: 64,
      messages: ask(),
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: FAKE_ANTHROPIC_REPLY });
    expect(fetch.lastRouting()).toEqual({
      byok: true,
      credentialId: `${gateway.credentials.tenantId}/mine-claude`,
      connectionSlug: 'mine-claude',
      credentialLabel: 'mine-claude',
    });
    expect(tenantAnthropic.requests.at(-1)?.headers['x-api-key']).toBe(TENANT_ANTHROPIC_KEY);
  });

  it('reports platform traffic: byok false', async () => {
    const fetch = createGatewayFetch();
    const platformBefore = platformAnthropic.requests.length;
    await anthropic(fetch).messages.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      max_tokens: 64,
      messages: ask(),
    });
    expect(fetch.lastRouting()).toEqual({ byok: false });
    expect(platformAnthropic.requests.length).toBe(platformBefore + 1);
  });
});

describe('the response cache through the SDK', () => {
  it('misses, then hits, parsed into the typed result (GatewayClient)', async () => {
    const client = new GatewayClient({
      baseUrl: gateway.url,
      apiKey: gateway.credentials.apiKey,
      cache: { ttlSeconds: 300, tags: ['docs', 'product:42'] },
    });
    const body = { model: 'openai/gpt-4o', messages: ask() };
    const upstreamBefore = platformOpenAi.requests.length;
    const first = await client.chat(body);
    expect(first.cache).toEqual({ status: 'miss', served: false });
    expect(first.balance?.chargedMicros).toBeGreaterThan(0);
    const second = await client.chat(body);
    expect(second.cache).toMatchObject({ status: 'hit', served: true });
    expect(second.cache?.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(second.balance).toMatchObject({ mode: 'prepaid', chargedMicros: 0, currency: 'USD' });
    expect(second.routing).toEqual({ byok: false });
    expect(second.data).toEqual(first.data);
    expect(platformOpenAi.requests.length).toBe(upstreamBefore + 1);
    expect(client.lastResult()?.cache?.status).toBe('hit');
  });

  it("namespaces, refreshes and bypasses with an official client's per-call headers", async () => {
    const fetch = createGatewayFetch({ cache: { namespace: 'team-a' } });
    const client = openai(fetch);
    const body = { model: 'openai/gpt-4o', messages: ask() };
    await client.chat.completions.create(body);
    expect(fetch.lastResult()?.cache?.status).toBe('miss');
    await client.chat.completions.create(body);
    expect(fetch.lastResult()?.cache?.status).toBe('hit');
    // Another namespace is another cache.
    await client.chat.completions.create(body, { headers: cacheHeaders({ namespace: 'team-b' }) });
    expect(fetch.lastResult()?.cache?.status).toBe('miss');
    await client.chat.completions.create(body, { headers: cacheHeaders({ cache: 'force-refresh' }) });
    expect(fetch.lastResult()?.cache?.status).toBe('refresh');
    await client.chat.completions.create(body, { headers: cacheHeaders({ cache: 'off' }) });
    expect(fetch.lastResult()?.cache).toBeUndefined();
  });
});

describe('GatewayClient against the gateway', () => {
  it('streams a chat through the pinned Connection', async () => {
    const client = new GatewayClient({
      baseUrl: gateway.url,
      apiKey: gateway.credentials.apiKey,
      connection: 'mine',
    });
    const result = await client.chatStream({ model: 'gpt-4o', messages: ask() });
    expect(result.routing).toMatchObject({ byok: true, connectionSlug: 'mine' });
    let text = '';
    for await (const chunk of result.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(STREAM_PIECES.join(''));
  });

  it("throws the gateway's errors as GatewayError with their codes", async () => {
    const stranger = new GatewayClient({ baseUrl: gateway.url, apiKey: 'tt_sk_unknown' });
    const refused = await stranger.chat({ model: 'openai/gpt-4o', messages: ask() }).catch((error) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ status: 401, code: 'service.invalid_key' });
    const client = new GatewayClient({ baseUrl: gateway.url, apiKey: gateway.credentials.apiKey });
    await expect(client.chat({ model: 'nowhere/gpt-4o', messages: ask() })).rejects.toMatchObject({
      status: 400,
      code: 'service.unknown_provider',
    });
    await expect(
      client.messages({ model: 'nowhere/claude', max_tokens: 8, messages: ask() }),
    ).rejects.toMatchObject({ status: 400, code: 'service.unknown_provider' });
  });
});
