/**
 * The Redis hot path (DESIGN section 5): in steady state a request costs at most one round trip to
 * Redis before the upstream call (balance, a token's rate window and budget, a Connection's cap and
 * the cache lookup, together) and at most one after it (debit, spend, settlements and the cache
 * write, together). Counted by a proxy between the gateway and a real redis-server, so that a
 * change that adds a round trip fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { type RoundTripProxy, startRoundTripProxy } from '../../helpers/redis-round-trips.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis: RedisServer | undefined = await startRedisServer();
let proxy: RoundTripProxy;
let openai: FakeServer;
let gateway: TestGateway;
let counter = 0;

describe.runIf(redis !== undefined)('Redis round trips per request', () => {
  beforeAll(async () => {
    proxy = await startRoundTripProxy({ host: '127.0.0.1', port: (redis as RedisServer).port });
    openai = await startFakeOpenAi();
    gateway = await startTestGateway({
      REDIS_URL: proxy.url,
      GATEWAY_CACHE: 'on',
      // Usage analytics leave in a background flush, not per request: kept out of the counted windows.
      USAGE_FLUSH_INTERVAL_MS: '600000',
      SERVICE_TOKEN_SIGNING_KEY: 'test-signing-key-0123456789abcdef0123456789',
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
    });
    const connection = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      `mutation { upsertProviderCredential(provider: openai, slug: "mine", apiKey: "sk-own-1234", baseUrl: "${openai.url}/v1", dailyCapMicros: 5000000) { ready } }`,
    );
    expect(connection.errors).toBeUndefined();
  });
  afterAll(async () => {
    await gateway?.stop();
    await openai?.stop();
    await proxy?.stop();
    await redis?.stop();
  });

  const ask = (
    credential: string,
    body: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) =>
    postJson(
      `${gateway.url}/v1/chat/completions`,
      {
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: `question ${++counter}` }],
        ...body,
      },
      credential,
      headers,
    );

  /** Round trips of `count` requests made one after another, after two to warm every mirror up. */
  async function roundTripsPerRequest(send: () => Promise<Response>, count = 10): Promise<number> {
    for (let index = 0; index < 2; index += 1) {
      const response = await send();
      expect(response.status).toBe(200);
      await response.text();
    }
    // A stream is accounted for after its client has the whole answer: wait for that to finish.
    await proxy.whenIdle();
    proxy.reset();
    for (let index = 0; index < count; index += 1) {
      const response = await send();
      expect(response.status).toBe(200);
      await response.text();
      await proxy.whenIdle(20);
    }
    return proxy.roundTrips() / count;
  }

  it('a platform-key request that misses the cache: one before the upstream, one after', async () => {
    expect(await roundTripsPerRequest(() => ask(gateway.credentials.apiKey))).toBeLessThanOrEqual(2);
  });

  it('a streamed one too', async () => {
    expect(
      await roundTripsPerRequest(() => ask(gateway.credentials.apiKey, { stream: true })),
    ).toBeLessThanOrEqual(2);
  });

  it('a cache hit: one', async () => {
    const body = { messages: [{ role: 'user', content: 'the same question' }] };
    expect(await roundTripsPerRequest(() => ask(gateway.credentials.apiKey, body))).toBeLessThanOrEqual(1);
  });

  it('an ephemeral token with a budget and rate limits: one before, one after', async () => {
    const minted = await graphql<{ mintEphemeralToken: MintedToken }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      MINT,
      {
        input: {
          parentKeyId: gateway.credentials.apiKeyId,
          ttlSeconds: 600,
          scopes: ['chat'],
          budgetMicros: 50_000_000,
          rateLimits: { requestsPerMinute: 1000, tokensPerMinute: 1_000_000 },
        },
      },
    );
    const token = minted.data?.mintEphemeralToken.token as string;
    expect(await roundTripsPerRequest(() => ask(token))).toBeLessThanOrEqual(2);
  });

  it("a Connection with a daily cap (the tenant's own key): one before, one after", async () => {
    expect(
      await roundTripsPerRequest(() => ask(gateway.credentials.apiKey, { model: '@mine/gpt-4o' })),
    ).toBeLessThanOrEqual(2);
  });
});
