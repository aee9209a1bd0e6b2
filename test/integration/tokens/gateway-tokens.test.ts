import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeToken, newJti } from '../../../src/auth/ephemeral-token.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
let openai: FakeServer;
let anthropic: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openai.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropic.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
  await anthropic?.stop();
});

async function mint(input: Record<string, unknown>): Promise<MintedToken> {
  const result = await graphql<{ mintEphemeralToken: MintedToken }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    MINT,
    {
      input: { parentKeyId: gateway.credentials.apiKeyId, ttlSeconds: 600, ...input },
    },
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.mintEphemeralToken;
}

const chat = (token: string, model = 'openai/gpt-4o') =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model, messages: [{ role: 'user', content: 'Hi' }] },
    token,
  );
const embed = (token: string) =>
  postJson(`${gateway.url}/v1/embeddings`, { model: 'openai/text-embedding-3-small', input: 'x' }, token);
const message = (token: string) =>
  postJson(
    `${gateway.url}/v1/messages`,
    {
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    },
    token,
  );

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('ephemeral tokens on the gateway', () => {
  it('works on all three routes when scoped for them', async () => {
    const { token } = await mint({ scopes: ['chat', 'embeddings', 'messages'] });
    expect((await chat(token)).status).toBe(200);
    expect((await embed(token)).status).toBe(200);
    expect((await message(token)).status).toBe(200);
  });

  it('refuses a route outside the scopes with 403 service.scope_denied', async () => {
    const { token } = await mint({ scopes: ['embeddings'] });
    expect((await embed(token)).status).toBe(200);
    const refusedChat = await chat(token);
    expect(refusedChat.status).toBe(403);
    expect(await errorCode(refusedChat)).toBe('service.scope_denied');
    const refusedMessage = await message(token);
    expect(refusedMessage.status).toBe(403);
  });

  it('narrows to the models named by model: scopes', async () => {
    const { token } = await mint({ scopes: ['chat', 'model:openai/gpt-4o-mini'] });
    expect((await chat(token, 'openai/gpt-4o-mini')).status).toBe(200);
    const refused = await chat(token, 'openai/gpt-4o');
    expect(refused.status).toBe(403);
    expect(await errorCode(refused)).toBe('service.scope_denied');
  });

  it('refuses an expired token and one past the 24-hour ceiling with 401 service.invalid_key', async () => {
    const now = Date.now();
    const base = {
      v: 1 as const,
      pk: gateway.credentials.apiKeyId,
      tenant: gateway.credentials.tenantId,
      workspace: gateway.credentials.workspaceId,
      scopes: ['chat'],
    };
    const key = { id: 'k1', secret: SIGNING_KEY };
    const expired = encodeToken({ ...base, jti: newJti(), iat: now - 120_000, exp: now - 1000 }, key);
    const tooLong = encodeToken({ ...base, jti: newJti(), iat: now - 1000, exp: now + 2 * 86_400_000 }, key);
    const forged = encodeToken(
      { ...base, jti: newJti(), iat: now, exp: now + 60_000 },
      { id: 'k1', secret: 'x'.repeat(40) },
    );
    for (const token of [expired, tooLong, forged]) {
      const response = await chat(token);
      expect(response.status).toBe(401);
      expect(await errorCode(response)).toBe('service.invalid_key');
    }
  });

  it('refuses a revoked token on the next request with 401 service.revoked_key', async () => {
    const { token, jti } = await mint({ scopes: ['chat'] });
    expect((await chat(token)).status).toBe(200);
    const revoked = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($jti: String!) { revokeEphemeralToken(jti: $jti) }',
      { jti },
    );
    expect(revoked.data).toEqual({ revokeEphemeralToken: true });
    const response = await chat(token);
    expect(response.status).toBe(401);
    expect(await errorCode(response)).toBe('service.revoked_key');
  });

  it("revokes a key's earlier tokens but not later ones", async () => {
    const before = await mint({ scopes: ['chat'] });
    await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($id: String!) { revokeEphemeralTokensForKey(parentKeyId: $id) }',
      {
        id: gateway.credentials.apiKeyId,
      },
    );
    const after = await mint({ scopes: ['chat'] });
    expect(await errorCode(await chat(before.token))).toBe('service.revoked_key');
    expect((await chat(after.token)).status).toBe(200);
  });

  it('revoking the workspace key revokes its tokens, and the key itself', async () => {
    const created = await graphql<{ createApiKey: { id: string; key: string } }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { createApiKey(workspaceId: "default") { id key } }',
    );
    const { id, key } = created.data!.createApiKey;
    // The key works on the gateway as soon as the mutation returned.
    expect((await chat(key)).status).toBe(200);
    const { token } = await mint({ parentKeyId: id, scopes: ['chat'] });
    expect((await chat(token)).status).toBe(200);
    await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($id: String!) { revokeApiKey(id: $id) }',
      { id },
    );
    expect((await chat(token)).status).toBe(401);
    expect((await chat(key)).status).toBe(401);
  });

  it('stops a token with 402 once its budget is used up, while other workspace traffic goes on', async () => {
    // gpt-4o at the fake's 12 in / 8 out tokens: 12*2.5 + 8*10 = 110 micros a request.
    const { token } = await mint({ scopes: ['chat'], budgetMicros: 250 });
    expect((await chat(token)).status).toBe(200);
    expect((await chat(token)).status).toBe(200);
    // 30 micros are left: not used up, so this one is served too (spend 330).
    expect((await chat(token)).status).toBe(200);
    const refused = await chat(token);
    expect(refused.status).toBe(402);
    expect(await errorCode(refused)).toBe('service.credential_cap_exceeded');
    expect((await chat(gateway.credentials.apiKey)).status).toBe(200);
    const other = await mint({ scopes: ['chat'] });
    expect((await chat(other.token)).status).toBe(200);
  });

  it('binds a budget on a model nobody priced, at the fallback price', async () => {
    // The fallback price ($15 in, $75 out per million): 12*15 + 8*75 = 780 micros a request.
    const { token } = await mint({ scopes: ['chat'], budgetMicros: 1000 });
    expect((await chat(token, 'openai/some-private-model')).status).toBe(200);
    expect((await chat(token, 'openai/some-private-model')).status).toBe(200);
    const refused = await chat(token, 'openai/some-private-model');
    expect(refused.status).toBe(402);
    expect(await errorCode(refused)).toBe('service.credential_cap_exceeded');
  });

  it('limits requests per minute with 429 service.rate_limited and Retry-After', async () => {
    const { token } = await mint({ scopes: ['chat'], rateLimits: { requestsPerMinute: 2 } });
    expect((await chat(token)).status).toBe(200);
    expect((await chat(token)).status).toBe(200);
    const limited = await chat(token);
    expect(limited.status).toBe(429);
    expect(await errorCode(limited)).toBe('service.rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('limits tokens per minute once the window is used up', async () => {
    // Each request reports 20 tokens.
    const { token } = await mint({ scopes: ['chat'], rateLimits: { tokensPerMinute: 30 } });
    expect((await chat(token)).status).toBe(200);
    expect((await chat(token)).status).toBe(200);
    expect((await chat(token)).status).toBe(429);
  });

  it('never answers 500 to garbage tokens', async () => {
    for (const token of [
      'tt_ev_',
      'tt_ev_.',
      'tt_ev_a.b.c',
      `tt_ev_k1.${'A'.repeat(3000)}.x`,
      'tt_ev_k1..',
      'tt_ev_\u00e9.x.y',
    ]) {
      const response = await chat(token);
      expect(response.status).toBe(401);
    }
  });
});
