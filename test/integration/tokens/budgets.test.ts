/**
 * Token budgets (specification 5, rule 3): a token is refused with 402 once its cap is used up,
 * not when a request's estimate does not fit; a cache hit costs nothing and never moves a budget.
 * Run on the memory stores and on a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetCounterName } from '../../../src/billing/ephemeral-token-limits.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

const stores: [string, (() => Record<string, string>) | undefined][] = [
  ['memory stores', () => ({})],
  ['Redis stores', redis === undefined ? undefined : () => ({ REDIS_URL: redis.url })],
];

describe.each(stores)('token budgets on %s', (_name, storeEnv) => {
  let openai: FakeServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    if (storeEnv === undefined) return;
    openai = await startFakeOpenAi();
    gateway = await startTestGateway({
      ...storeEnv(),
      SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GATEWAY_CACHE: 'on',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await openai?.stop();
  });

  async function mint(input: Record<string, unknown>): Promise<MintedToken> {
    const result = await graphql<{ mintEphemeralToken: MintedToken }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      MINT,
      { input: { parentKeyId: gateway.credentials.apiKeyId, ttlSeconds: 600, scopes: ['chat'], ...input } },
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.mintEphemeralToken;
  }

  const chat = (credential: string, content: string, headers: Record<string, string> = {}) =>
    postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content }] },
      credential,
      headers,
    );

  async function spent(jti: string): Promise<number> {
    return gateway.running.stores.runtime.getCounter(budgetCounterName(jti));
  }

  it.runIf(storeEnv !== undefined)('serves a 1-micro token one paid request, then 402', async () => {
    const { token, jti } = await mint({ budgetMicros: 1 });
    const first = await chat(token, 'one paid request', { 'x-service-cache': 'off' });
    expect(first.status).toBe(200);
    // gpt-4o at the fake's 12 in / 8 out tokens costs 110 micros: the cap is overshot once.
    expect(await spent(jti)).toBe(110);
    const second = await chat(token, 'a second paid request', { 'x-service-cache': 'off' });
    expect(second.status).toBe(402);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe(
      'service.credential_cap_exceeded',
    );
    expect(await spent(jti)).toBe(110);
    // The workspace key and another token of the same key are unaffected.
    expect(
      (await chat(gateway.credentials.apiKey, 'workspace traffic', { 'x-service-cache': 'off' })).status,
    ).toBe(200);
    const other = await mint({ budgetMicros: 1 });
    expect((await chat(other.token, 'another token', { 'x-service-cache': 'off' })).status).toBe(200);
  });

  it.runIf(storeEnv !== undefined)(
    'serves cache hits to a 1-micro token, used up or not, without moving its budget',
    async () => {
      const question = `cached question ${Math.random()}`;
      // The answer is cached by the workspace key (a hit costs $0 whoever wrote it).
      const warm = await chat(gateway.credentials.apiKey, question);
      expect(warm.headers.get('x-service-cache')).toBe('miss');
      const upstreamCalls = openai.requests.length;

      const { token, jti } = await mint({ budgetMicros: 1 });
      for (let index = 0; index < 3; index += 1) {
        const hit = await chat(token, question);
        expect(hit.status).toBe(200);
        expect(hit.headers.get('x-service-cache')).toBe('hit');
        expect(hit.headers.get('x-service-balance-charged-micros')).toBe('0');
      }
      expect(await spent(jti)).toBe(0);
      expect(openai.requests.length).toBe(upstreamCalls);

      // The one paid request uses the budget up; hits are still served after it.
      expect((await chat(token, `${question} (paid)`)).status).toBe(200);
      expect(await spent(jti)).toBe(110);
      const hit = await chat(token, question);
      expect(hit.status).toBe(200);
      expect(hit.headers.get('x-service-cache')).toBe('hit');
      expect(await spent(jti)).toBe(110);
      expect((await chat(token, `${question} (refused)`)).status).toBe(402);
    },
  );

  it.runIf(storeEnv !== undefined)(
    'shares out the last micros among concurrent requests instead of letting them all pass',
    async () => {
      const { token, jti } = await mint({ budgetMicros: 3 });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          chat(token, `concurrent ${index}`, { 'x-service-cache': 'off' }),
        ),
      );
      const statuses = results.map((response) => response.status);
      // Each request is estimated at more than 3 micros: the first to reserve takes all that is
      // left, and every other one finds nothing left (reserved, or spent once the first settled).
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 402)).toHaveLength(7);
      expect(await spent(jti)).toBe(110);
    },
  );
});
