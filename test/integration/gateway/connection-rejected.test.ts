/**
 * A Connection's own key refused upstream (issue 23, item 10): the tenant's credential is at fault,
 * so the answer is 424 `service.connection_rejected` naming the Connection, a 4xx the official SDKs
 * do not retry (counted at the fake upstream, with the SDKs' default retries on), in every dialect
 * and for every provider family; the platform key's refusal stays a 502.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionSpec } from '../../../src/resources/crd-types.ts';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import { type FakeBedrock, startFakeBedrock } from '../../fakes/fake-bedrock.ts';
import { startFakeGemini } from '../../fakes/fake-gemini.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const TENANT_KEY = 'sk-tenant-revoked-0123456789abcdef';
const CLAUDE_ON_BEDROCK = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

/** OpenAI's real 401 body: its message repeats part of the key, which must not reach the caller. */
const openAiRefusal = {
  error: {
    message: `Incorrect API key provided: ${TENANT_KEY.slice(0, 8)}***${TENANT_KEY.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
};
const anthropicRefusal = {
  type: 'error',
  error: { type: 'authentication_error', message: 'invalid x-api-key' },
};

let platformOpenAi: FakeServer;
let refusingOpenAi: FakeServer;
let refusingAnthropic: FakeServer;
let gemini: FakeServer;
let bedrock: FakeBedrock;
let gateway: TestGateway;

async function applyConnection(
  name: string,
  secret: Record<string, string>,
  spec: Omit<ConnectionSpec, 'secretRef'>,
): Promise<void> {
  const namespace = tenantNamespace(gateway.credentials.tenantId);
  await gateway.running.resources.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-key`, namespace },
    stringData: secret,
  });
  await gateway.running.resources.apply({
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name, namespace },
    spec: { ...spec, secretRef: { name: `${name}-key` } },
  });
}

beforeAll(async () => {
  platformOpenAi = await startFakeOpenAi();
  refusingOpenAi = await new FakeServer()
    .route('POST', '/v1/chat/completions', (_request, response) => sendJson(response, 401, openAiRefusal))
    .route('POST', '/v1/embeddings', (_request, response) => sendJson(response, 401, openAiRefusal))
    .start();
  refusingAnthropic = await new FakeServer()
    .route('POST', '/v1/messages', (_request, response) => sendJson(response, 401, anthropicRefusal))
    .start();
  gemini = await startFakeGemini('gemini-key-the-tenant-does-not-have');
  // Knows no AWS key at all: every signature is refused as Bedrock does (UnrecognizedClientException).
  bedrock = await startFakeBedrock({ service: 'bedrock', keys: [], models: [CLAUDE_ON_BEDROCK] });
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${platformOpenAi.url}/v1`,
  });
  await applyConnection(
    'stale-openai',
    { apiKey: TENANT_KEY },
    { provider: 'openai', baseUrl: `${refusingOpenAi.url}/v1` },
  );
  await applyConnection(
    'stale-anthropic',
    { apiKey: TENANT_KEY },
    { provider: 'anthropic', baseUrl: refusingAnthropic.url },
  );
  await applyConnection('stale-gemini', { apiKey: TENANT_KEY }, { provider: 'gemini', baseUrl: gemini.url });
  await applyConnection(
    'stale-bedrock',
    { awsAccessKeyId: 'AKIASTALE0000EXAMPLE', awsSecretAccessKey: 'stale/secret/EXAMPLEKEY' },
    { provider: 'bedrock', awsRegion: 'eu-west-3', baseUrl: bedrock.url },
  );
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all(
    [platformOpenAi, refusingOpenAi, refusingAnthropic, gemini, bedrock].map((server) => server?.stop()),
  );
});

// The SDKs' own default retries (two) stay on: a retried 424 would show as a second upstream request.
const openai = () => new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1` });
const anthropic = () => new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url });
const hello = [{ role: 'user' as const, content: 'Hello' }];

/** What `call` threw, which must be an SDK's APIError. */
async function apiErrorOf(call: () => Promise<unknown>): Promise<{ status: number; error: unknown }> {
  try {
    await call();
  } catch (error) {
    return error as { status: number; error: unknown };
  }
  throw new Error('the call succeeded');
}

/** Runs `call` and says how many requests `upstream` received meanwhile. */
async function countUpstream<T>(upstream: FakeServer, call: () => Promise<T>): Promise<[T, number]> {
  const before = upstream.requests.length;
  const result = await call();
  return [result, upstream.requests.length - before];
}

function expectRejected(body: unknown, slug: string): void {
  expect(body).toMatchObject({
    error: {
      code: 'service.connection_rejected',
      type: 'authentication_error',
      message: expect.stringContaining(`connection '${slug}'`),
    },
  });
  expect(JSON.stringify(body)).not.toContain(TENANT_KEY.slice(0, 8));
  expect(JSON.stringify(body)).not.toContain(TENANT_KEY.slice(-4));
}

describe('a Connection whose key the upstream refuses, through the official openai client', () => {
  it('answers one chat call with 424 service.connection_rejected after one upstream request', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingOpenAi, () =>
      apiErrorOf(() => openai().chat.completions.create({ model: '@stale-openai/gpt-4o', messages: hello })),
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(424);
    expect((error as unknown as { code: string }).code).toBe('service.connection_rejected');
    expectRejected({ error: error.error }, 'stale-openai');
    expect(upstreamRequests).toBe(1);
  });

  it('answers a stream refused before its first byte the same way', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingOpenAi, () =>
      apiErrorOf(async () => {
        const stream = await openai().chat.completions.create({
          model: '@stale-openai/gpt-4o',
          messages: hello,
          stream: true,
        });
        for await (const _chunk of stream);
      }),
    );
    expect(error.status).toBe(424);
    expectRejected({ error: error.error }, 'stale-openai');
    expect(upstreamRequests).toBe(1);
  });

  it('answers embeddings the same way', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingOpenAi, () =>
      apiErrorOf(() =>
        openai().embeddings.create({ model: '@stale-openai/text-embedding-3-small', input: 'hi' }),
      ),
    );
    expect(error.status).toBe(424);
    expectRejected({ error: error.error }, 'stale-openai');
    expect(upstreamRequests).toBe(1);
  });

  it('answers 424 for a Gemini key refused as API_KEY_INVALID (a 400) on a translated route', async () => {
    const [error, upstreamRequests] = await countUpstream(gemini, () =>
      apiErrorOf(() =>
        openai().chat.completions.create({ model: '@stale-gemini/gemini-2.5-flash', messages: hello }),
      ),
    );
    expect(error.status).toBe(424);
    expectRejected({ error: error.error }, 'stale-gemini');
    expect(upstreamRequests).toBe(1);
  });

  it('answers 424 for AWS keys Bedrock does not recognise (its 403 UnrecognizedClientException)', async () => {
    const [error, upstreamRequests] = await countUpstream(bedrock, () =>
      apiErrorOf(() =>
        openai().chat.completions.create({ model: `@stale-bedrock/${CLAUDE_ON_BEDROCK}`, messages: hello }),
      ),
    );
    expect(error.status).toBe(424);
    expectRejected({ error: error.error }, 'stale-bedrock');
    expect(upstreamRequests).toBe(1);
  });

  it("keeps the platform key's 401 a 502 service.upstream_error (the gateway's key, not the caller's)", async () => {
    platformOpenAi.overrideNext((_request, response) => sendJson(response, 401, openAiRefusal));
    const error = await apiErrorOf(() =>
      new OpenAI({
        apiKey: gateway.credentials.apiKey,
        baseURL: `${gateway.url}/v1`,
        maxRetries: 0,
      }).chat.completions.create({
        model: 'openai/gpt-4o',
        messages: hello,
      }),
    );
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ code: 'service.upstream_error', type: 'upstream_auth_error' });
  });
});

describe('a Connection whose key the upstream refuses, through the official @anthropic-ai/sdk client', () => {
  it('answers /v1/messages with 424 in the Anthropic envelope after one upstream request', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingAnthropic, () =>
      apiErrorOf(() =>
        anthropic().messages.create({
          model: '@stale-anthropic/claude-3-5-sonnet-20241022',
          max_tokens: 64,
          messages: hello,
        }),
      ),
    );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBe(424);
    expect(error.error).toMatchObject({ type: 'error' });
    expectRejected(error.error, 'stale-anthropic');
    expect(upstreamRequests).toBe(1);
  });

  it('answers a refused stream before its first byte the same way', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingAnthropic, () =>
      apiErrorOf(() =>
        anthropic()
          .messages.stream({
            model: '@stale-anthropic/claude-3-5-sonnet-20241022',
            max_tokens: 64,
            messages: hello,
          })
          .finalMessage(),
      ),
    );
    expect(error.status).toBe(424);
    expectRejected(error.error, 'stale-anthropic');
    expect(upstreamRequests).toBe(1);
  });

  it('answers 424 on a translated route too (/v1/messages to an OpenAI Connection)', async () => {
    const [error, upstreamRequests] = await countUpstream(refusingOpenAi, () =>
      apiErrorOf(() =>
        anthropic().messages.create({ model: '@stale-openai/gpt-4o', max_tokens: 64, messages: hello }),
      ),
    );
    expect(error.status).toBe(424);
    expect(error.error).toMatchObject({ type: 'error' });
    expectRejected(error.error, 'stale-openai');
    expect(upstreamRequests).toBe(1);
  });
});

describe('a Connection denied a model (upstream 403 that is not a bad key)', () => {
  it('answers 424 with permission_error', async () => {
    refusingAnthropic.overrideNext((_request, response) =>
      sendJson(response, 403, {
        type: 'error',
        error: {
          type: 'permission_error',
          message: 'Your API key does not have permission to use the specified resource.',
        },
      }),
    );
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      { model: '@stale-anthropic/claude-3-5-sonnet-20241022', max_tokens: 64, messages: hello },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(424);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: {
        code: 'service.connection_rejected',
        type: 'permission_error',
        message: expect.stringContaining("connection 'stale-anthropic'"),
      },
    });
  });
});
