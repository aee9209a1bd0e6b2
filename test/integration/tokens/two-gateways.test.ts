/**
 * Two gateway processes on one Redis: the standalone in this process (gateway and control plane)
 * and the real `gateway` role in a child process, as two pods would run. Revocations, budgets and
 * rate limits hold across both.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { type GatewayProcess, startGatewayProcess } from '../../helpers/gateway-process.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis = await startRedisServer();

describe.runIf(redis !== undefined)('two gateway processes sharing one Redis', () => {
  let openai: FakeServer;
  let first: TestGateway;
  let second: GatewayProcess;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    const env = {
      REDIS_URL: (redis as RedisServer).url,
      SERVICE_TOKEN_SIGNING_KEY: 'shared-signing-key-0123456789abcdef0123',
      SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      // Repeated identical requests must reach the upstream (and the budget).
      GATEWAY_CACHE: 'off',
    };
    first = await startTestGateway(env);
    second = await startGatewayProcess(env);
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await openai?.stop();
    await redis?.stop();
  });

  async function mint(input: Record<string, unknown>): Promise<MintedToken> {
    const result = await graphql<{ mintEphemeralToken: MintedToken }>(
      first.controlUrl,
      first.credentials.pat,
      MINT,
      {
        input: { parentKeyId: first.credentials.apiKeyId, ttlSeconds: 600, scopes: ['chat'], ...input },
      },
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.mintEphemeralToken;
  }

  async function control(query: string, variables: Record<string, unknown>): Promise<void> {
    const result = await graphql(first.controlUrl, first.credentials.pat, query, variables);
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  }

  /** The status of a chat request, its body read so the connection is free again. */
  async function chat(url: string, token: string): Promise<number> {
    const response = await postJson(
      `${url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
      token,
    );
    await response.arrayBuffer();
    return response.status;
  }

  it('serves a token minted on one on both', async () => {
    const { token } = await mint({});
    expect(await chat(first.url, token)).toBe(200);
    expect(await chat(second.url, token)).toBe(200);
  });

  it('refuses a token revoked through the control plane on both, on the next request', async () => {
    const { token, jti } = await mint({});
    expect(await chat(first.url, token)).toBe(200);
    expect(await chat(second.url, token)).toBe(200);
    await control('mutation($jti: String!) { revokeEphemeralToken(jti: $jti) }', { jti });
    // The very next request on each process is refused: the feed delivers the revocation to the
    // second process while the mutation's answer is still travelling back to the caller.
    expect(await chat(first.url, token)).toBe(401);
    expect(await chat(second.url, token)).toBe(401);
  });

  it("revokes all of a key's earlier tokens on both, and not the ones minted after", async () => {
    const earlier = [await mint({}), await mint({})];
    for (const { token } of earlier) {
      expect(await chat(first.url, token)).toBe(200);
      expect(await chat(second.url, token)).toBe(200);
    }
    await control('mutation($key: String!) { revokeEphemeralTokensForKey(parentKeyId: $key) }', {
      key: first.credentials.apiKeyId,
    });
    for (const { token } of earlier) {
      expect(await chat(second.url, token)).toBe(401);
      expect(await chat(first.url, token)).toBe(401);
    }
    const later = await mint({});
    expect(await chat(second.url, later.token)).toBe(200);
    expect(await chat(first.url, later.token)).toBe(200);
  });

  it('shares one budget across both processes', async () => {
    // 110 micros a request (see gateway-tokens.test.ts): 250 serve three (the last on the 30
    // left), then the budget is used up on both.
    const { token } = await mint({ budgetMicros: 250 });
    expect(await chat(first.url, token)).toBe(200);
    expect(await chat(second.url, token)).toBe(200);
    expect(await chat(first.url, token)).toBe(200);
    expect(await chat(second.url, token)).toBe(402);
    expect(await chat(first.url, token)).toBe(402);
    expect(await chat(second.url, token)).toBe(402);
  });

  it('shares one request rate window across both processes', async () => {
    const minute = () => Math.floor(Date.now() / 60_000);
    // Windows are whole minutes: should the requests straddle a minute's end, try once more.
    for (let attempt = 1; ; attempt += 1) {
      const { token } = await mint({ rateLimits: { requestsPerMinute: 2 } });
      const window = minute();
      const statuses = [
        await chat(first.url, token),
        await chat(second.url, token),
        await chat(first.url, token),
        await chat(second.url, token),
      ];
      if (minute() !== window && attempt < 2) continue;
      expect(statuses).toEqual([200, 200, 429, 429]);
      break;
    }
  });
});
