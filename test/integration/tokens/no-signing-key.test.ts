/**
 * A deployment without SERVICE_TOKEN_SIGNING_KEY: ephemeral tokens are disabled on both sides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeToken, newJti } from '../../../src/auth/ephemeral-token.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
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

describe('without a signing key', () => {
  it('answers 401 service.invalid_key to a well-formed, validly signed token', async () => {
    const now = Date.now();
    // Everything about it is right for this deployment but the key, which the gateway does not hold.
    const token = encodeToken(
      {
        v: 1,
        jti: newJti(),
        pk: gateway.credentials.apiKeyId,
        tenant: gateway.credentials.tenantId,
        workspace: gateway.credentials.workspaceId,
        scopes: ['chat'],
        iat: now,
        exp: now + 600_000,
      },
      { id: 'k1', secret: 'some-signing-key-0123456789abcdef0123456789' },
    );
    const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };
    const response = await postJson(`${gateway.url}/v1/chat/completions`, body, token);
    expect(response.status).toBe(401);
    const { error } = (await response.json()) as { error: { code: string } };
    expect(error.code).toBe('service.invalid_key');
    // The workspace key itself is served: only tokens are off.
    expect(
      (await postJson(`${gateway.url}/v1/chat/completions`, body, gateway.credentials.apiKey)).status,
    ).toBe(200);
  });

  it('refuses to mint, saying that no signing key is configured', async () => {
    const result = await graphql<{ mintEphemeralToken: MintedToken }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      MINT,
      { input: { parentKeyId: gateway.credentials.apiKeyId, scopes: ['chat'], ttlSeconds: 600 } },
    );
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('ephemeral tokens are disabled on this deployment');
    expect(result.errors?.[0]?.message).toContain('no signing key is configured');
  });
});
