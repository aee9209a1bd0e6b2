/**
 * What the official clients call besides completions: `GET /v1/models` (OpenAI's `models.list` and
 * `models.retrieve`, Anthropic's `models.list`) and `POST /v1/messages/count_tokens` (Anthropic's
 * `messages.countTokens`), against the standalone service with fake upstreams.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ANTHROPIC_TOKEN_COUNT, startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openaiFake: FakeServer;
let anthropicFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openaiFake = await startFakeOpenAi();
  anthropicFake = await startFakeAnthropic();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: 'test-signing-key-0123456789abcdef0123456789',
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${openaiFake.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropicFake.url,
  });
  const upsert = async (args: string) => {
    const result = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      `mutation { upsertProviderCredential(${args}) { slug ready } }`,
    );
    expect(result.errors).toBeUndefined();
  };
  await upsert(
    `provider: openai, slug: "mine", apiKey: "sk-tenant-own-1234", baseUrl: "${openaiFake.url}/v1", defaultModel: "gpt-4o-mini"`,
  );
  await upsert(
    `provider: anthropic, slug: "own-claude", apiKey: "sk-ant-own-1234", baseUrl: "${anthropicFake.url}"`,
  );
});

afterAll(async () => {
  await gateway?.stop();
  await openaiFake?.stop();
  await anthropicFake?.stop();
});

const openai = (apiKey = gateway.credentials.apiKey) =>
  new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = (apiKey = gateway.credentials.apiKey) =>
  new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });

async function mint(scopes: string[]): Promise<string> {
  const result = await graphql<{ mintEphemeralToken: MintedToken }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    MINT,
    { input: { parentKeyId: gateway.credentials.apiKeyId, ttlSeconds: 600, scopes } },
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.mintEphemeralToken.token;
}

async function listedIds(apiKey?: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of openai(apiKey).models.list()) ids.push(model.id);
  return ids;
}

describe('GET /v1/models', () => {
  it("lists the platform providers' models and the caller's Connections, in OpenAI's shape", async () => {
    const page = await openai().models.list();
    expect(page.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String) });
    expect(typeof page.data[0]?.created).toBe('number');
    const ids = await listedIds();
    expect(ids).toEqual(
      expect.arrayContaining([
        'openai/gpt-4o',
        'openai/text-embedding-3-small',
        'anthropic/claude-sonnet-4-5',
      ]),
    );
    // A Connection with a default model lists it; one without lists its kind's models.
    expect(ids).toContain('@mine/gpt-4o-mini');
    expect(ids).toContain('@own-claude/claude-sonnet-4-5');
    // No platform key for these providers: nothing of theirs.
    expect(ids.some((id) => id.startsWith('groq/') || id.startsWith('gemini/'))).toBe(false);
    expect([...ids].sort()).toEqual(ids);
  });

  it('retrieves one model by its id, and says 404 for one the caller cannot use', async () => {
    expect((await openai().models.retrieve('openai/gpt-4o')).id).toBe('openai/gpt-4o');
    expect((await openai().models.retrieve('@mine/gpt-4o-mini')).owned_by).toBe('@mine');
    await expect(openai().models.retrieve('groq/llama-3.1-8b-instant')).rejects.toMatchObject({
      status: 404,
    });
  });

  it('decodes the id in the path once: a percent sign in it is a 404, not a 500', async () => {
    const retrieve = (encodedId: string) =>
      fetch(`${gateway.url}/v1/models/${encodedId}`, {
        headers: { authorization: `Bearer ${gateway.credentials.apiKey}` },
      });
    expect((await retrieve('openai%2Fgpt-4o')).status).toBe(200);
    // `openai%2Fgpt-4o` literally, which is not a model (decoded twice it would be openai/gpt-4o).
    expect((await retrieve('openai%252Fgpt-4o')).status).toBe(404);
    const percent = await retrieve('openai%2Fgpt-4o%25');
    expect(percent.status).toBe(404);
    expect(((await percent.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('shows a scoped token only what its scopes allow', async () => {
    const embeddingsOnly = await listedIds(await mint(['embeddings']));
    expect(embeddingsOnly).toContain('openai/text-embedding-3-small');
    expect(embeddingsOnly).not.toContain('openai/gpt-4o');
    const named = await listedIds(await mint(['chat', 'model:openai/gpt-4o', 'model:@mine/gpt-4o-mini']));
    expect(named).toEqual(['@mine/gpt-4o-mini', 'openai/gpt-4o']);
    const chatOnly = await listedIds(await mint(['chat']));
    expect(chatOnly).toContain('anthropic/claude-sonnet-4-5');
    expect(chatOnly).not.toContain('openai/text-embedding-3-small');
  });

  it("answers the Anthropic client in Anthropic's shape", async () => {
    const page = await anthropic().models.list();
    const ids = page.data.map((model) => model.id);
    expect(ids).toContain('anthropic/claude-haiku-4-5');
    expect(page.data[0]).toMatchObject({ type: 'model', display_name: expect.any(String) });
    expect(Number.isNaN(Date.parse(page.data[0]!.created_at))).toBe(false);
  });

  it('refuses an unknown key with 401', async () => {
    await expect(openai('tt_sk_not-a-key').models.list()).rejects.toMatchObject({ status: 401 });
  });
});

describe('POST /v1/messages/count_tokens', () => {
  const messages = [{ role: 'user' as const, content: 'How many tokens is this question?' }];

  it('passes through to an Anthropic upstream, on the platform key and on a Connection', async () => {
    const platform = await anthropic()
      .messages.countTokens({ model: 'anthropic/claude-sonnet-4-5', messages })
      .withResponse();
    expect(platform.data.input_tokens).toBe(FAKE_ANTHROPIC_TOKEN_COUNT);
    expect(platform.response.headers.get('x-service-token-count')).toBe('upstream');
    expect(platform.response.headers.get('x-service-byok')).toBe('false');
    const sent = anthropicFake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5' });
    expect(sent.headers['x-api-key']).toBe('sk-ant-platform');

    const own = await anthropic()
      .messages.countTokens({ model: '@own-claude/claude-sonnet-4-5', messages })
      .withResponse();
    expect(own.data.input_tokens).toBe(FAKE_ANTHROPIC_TOKEN_COUNT);
    expect(own.response.headers.get('x-service-byok')).toBe('true');
    expect(anthropicFake.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-own-1234');
  });

  it('estimates for other upstreams, about four characters a token, and says so', async () => {
    const before = openaiFake.requests.length;
    const estimated = await anthropic()
      .messages.countTokens({ model: 'openai/gpt-4o', messages })
      .withResponse();
    expect(estimated.response.headers.get('x-service-token-count')).toBe('estimated');
    const read = JSON.stringify([null, messages, null]).length;
    expect(estimated.data.input_tokens).toBe(Math.ceil(read / 4));
    expect(openaiFake.requests.length).toBe(before);
  });

  it('is authorised like /v1/messages: a token without the messages scope gets 403', async () => {
    const token = await mint(['chat']);
    await expect(
      anthropic(token).messages.countTokens({ model: 'anthropic/claude-sonnet-4-5', messages }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      anthropic().messages.countTokens({ model: 'anthropic/claude-sonnet-4-5', messages: [] }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
