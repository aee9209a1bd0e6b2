import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/settings.ts';
import { type RunningGateway, startGateway } from '../../../src/main/gateway-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis = await startRedisServer();

describe.runIf(redis !== undefined)('two gateway processes sharing one Redis', () => {
  const env: Record<string, string> = {};
  let openai: FakeServer;
  let first: TestGateway;
  let second: RunningGateway;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    Object.assign(env, {
      REDIS_URL: (redis as RedisServer).url,
      SERVICE_TOKEN_SIGNING_KEY: 'shared-signing-key-0123456789abcdef0123',
      SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      // Repeated identical requests must reach the upstream (and the budget).
      GATEWAY_CACHE: 'off',
    });
    first = await startTestGateway(env);
    const settings = loadSettings({ ...env, HOST: '127.0.0.1', GATEWAY_PORT: '0' }, PROVIDER_NAMES);
    second = await startGateway(settings, createLogger('silent', 'second'));
  });

  afterAll(async () => {
    await second?.close();
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

  const chat = (url: string, token: string) =>
    postJson(
      `${url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
      token,
    );

  it('serves a token minted on one on both', async () => {
    const { token } = await mint({});
    expect((await chat(first.url, token)).status).toBe(200);
    expect((await chat(second.url, token)).status).toBe(200);
  });

  it('refuses a token revoked through the control plane on both, on the next request', async () => {
    const { token, jti } = await mint({});
    expect((await chat(first.url, token)).status).toBe(200);
    expect((await chat(second.url, token)).status).toBe(200);
    await graphql(
      first.controlUrl,
      first.credentials.pat,
      'mutation($jti: String!) { revokeEphemeralToken(jti: $jti) }',
      { jti },
    );
    // The very next request on each process is refused: the feed delivers the revocation to the
    // second process while the mutation's answer is still travelling back to the caller.
    expect((await chat(first.url, token)).status).toBe(401);
    expect((await chat(second.url, token)).status).toBe(401);
  });

  it('shares one budget across both processes', async () => {
    // 110 micros a request (see gateway-tokens.test.ts): two fit in 250, the third does not.
    const { token } = await mint({ budgetMicros: 250 });
    expect((await chat(first.url, token)).status).toBe(200);
    expect((await chat(second.url, token)).status).toBe(200);
    expect((await chat(first.url, token)).status).toBe(402);
    expect((await chat(second.url, token)).status).toBe(402);
  });
});
