import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import {
  createTestServiceAccount,
  FAKE_VERTEX_GEMINI_REPLY,
  type FakeVertex,
  startFakeVertex,
  type TestServiceAccount,
  VERTEX_CLAUDE_MODEL,
  VERTEX_GEMINI_MODEL,
} from '../../fakes/fake-vertex.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let vertex: FakeVertex;
let gateway: TestGateway;
let platformAccount: TestServiceAccount;
let tenantAccount: TestServiceAccount;

const PLATFORM_PREFIX = '/v1/projects/platform-proj/locations/us-east5/publishers';
const TENANT_PREFIX = '/v1/projects/tenant-proj/locations/europe-west1/publishers';

async function applyVertexConnection(name: string, account: TestServiceAccount): Promise<void> {
  const namespace = tenantNamespace(gateway.credentials.tenantId);
  await gateway.running.resources.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-key`, namespace },
    stringData: { gcpServiceAccountJson: account.json },
  });
  await gateway.running.resources.apply({
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name, namespace },
    spec: {
      provider: 'vertex',
      secretRef: { name: `${name}-key` },
      baseUrl: vertex.url,
      vertexProject: 'tenant-proj',
      vertexRegion: 'europe-west1',
    },
  });
}

beforeAll(async () => {
  vertex = await startFakeVertex();
  platformAccount = createTestServiceAccount({
    tokenUri: vertex.tokenUri,
    project: 'platform-proj',
    name: 'gateway',
  });
  // The tenant's tokens live two seconds, so that the gateway has to refresh them.
  tenantAccount = createTestServiceAccount({
    tokenUri: vertex.tokenUri,
    project: 'other-proj',
    name: 'tenant',
  });
  vertex.trust(platformAccount).trust(tenantAccount, 2);
  vertex.serveLocation('platform-proj', 'us-east5').serveLocation('tenant-proj', 'europe-west1');
  gateway = await startTestGateway({
    VERTEX_SERVICE_ACCOUNT_JSON: platformAccount.json,
    VERTEX_REGION: 'us-east5',
    VERTEX_BASE_URL: vertex.url,
  });
  await applyVertexConnection('my-vertex', tenantAccount);
  await applyVertexConnection(
    'untrusted-vertex',
    createTestServiceAccount({ tokenUri: vertex.tokenUri, project: 'x', name: 'stranger' }),
  );
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await vertex?.stop();
});

const openai = () =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const grantsOf = (account: TestServiceAccount) =>
  vertex.grants.filter((grant) => grant.clientEmail === account.clientEmail);
const chat = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'Hello' }] });

describe('vertex/* Gemini models (official openai client)', () => {
  it('translates to generateContent on the project and region, with the OAuth token', async () => {
    const completion = await openai().chat.completions.create(chat(`vertex/${VERTEX_GEMINI_MODEL}`));
    expect(completion.choices[0]!.message.content).toBe(FAKE_VERTEX_GEMINI_REPLY);
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 6 });
    const upstream = vertex.modelRequests().at(-1)!;
    expect(upstream.path).toBe(`${PLATFORM_PREFIX}/google/models/${VERTEX_GEMINI_MODEL}:generateContent`);
    expect(upstream.headers.authorization).toBe(`Bearer ${grantsOf(platformAccount)[0]!.token}`);
    expect(upstream.headers['x-goog-api-key']).toBeUndefined();
    expect(upstream.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
  });

  it('sends gs:// image URIs as fileData (Vertex fetches them itself)', async () => {
    await openai().chat.completions.create({
      model: `vertex/${VERTEX_GEMINI_MODEL}`,
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'gs://photos/cat.png' } }] },
      ],
    });
    expect(vertex.modelRequests().at(-1)!.body).toMatchObject({
      contents: [
        { role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'gs://photos/cat.png' } }] },
      ],
    });
  });

  it('streams through streamGenerateContent?alt=sse', async () => {
    const stream = await openai().chat.completions.create({
      ...chat(`vertex/${VERTEX_GEMINI_MODEL}`),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Vertex.');
    expect(vertex.modelRequests().at(-1)!.path).toBe(
      `${PLATFORM_PREFIX}/google/models/${VERTEX_GEMINI_MODEL}:streamGenerateContent?alt=sse`,
    );
  });
});

describe('/v1/messages on vertex/* Gemini models (official Anthropic SDK)', () => {
  it('translates to generateContent and streamGenerateContent on the project, and the answers back', async () => {
    const anthropic = new Anthropic({
      apiKey: gateway.credentials.apiKey,
      baseURL: gateway.url,
      maxRetries: 0,
    });
    const message = await anthropic.messages.create({
      model: `vertex/${VERTEX_GEMINI_MODEL}`,
      max_tokens: 32,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: FAKE_VERTEX_GEMINI_REPLY }]);
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 6 });
    expect(vertex.modelRequests().at(-1)!.path).toBe(
      `${PLATFORM_PREFIX}/google/models/${VERTEX_GEMINI_MODEL}:generateContent`,
    );
    const final = await anthropic.messages
      .stream({
        model: `vertex/${VERTEX_GEMINI_MODEL}`,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Vertex.' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(vertex.modelRequests().at(-1)!.path).toBe(
      `${PLATFORM_PREFIX}/google/models/${VERTEX_GEMINI_MODEL}:streamGenerateContent?alt=sse`,
    );
  });
});

describe('vertex/* Claude models (official openai client)', () => {
  it('translates to rawPredict with anthropic_version in the body and no model', async () => {
    const completion = await openai().chat.completions.create(chat(`vertex/${VERTEX_CLAUDE_MODEL}`));
    expect(completion.choices[0]!.message.content).toBe('Hello from the fake Vertex Claude.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10 });
    const upstream = vertex.modelRequests().at(-1)!;
    expect(upstream.path).toBe(`${PLATFORM_PREFIX}/anthropic/models/${VERTEX_CLAUDE_MODEL}:rawPredict`);
    expect(upstream.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 8192 });
    expect(upstream.body).not.toHaveProperty('model');
    expect(upstream.headers['anthropic-version']).toBeUndefined();
  });

  it('streams through streamRawPredict', async () => {
    const stream = await openai().chat.completions.create({
      ...chat(`vertex/${VERTEX_CLAUDE_MODEL}`),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Vertex Claude.');
    const upstream = vertex.modelRequests().at(-1)!;
    expect(upstream.path).toBe(`${PLATFORM_PREFIX}/anthropic/models/${VERTEX_CLAUDE_MODEL}:streamRawPredict`);
    expect(upstream.body).toMatchObject({ stream: true, anthropic_version: 'vertex-2023-10-16' });
  });

  it('serves /v1/messages for Claude on Vertex as the same shape (official Anthropic SDK)', async () => {
    const anthropic = new Anthropic({
      apiKey: gateway.credentials.apiKey,
      baseURL: gateway.url,
      maxRetries: 0,
    });
    const message = await anthropic.messages.create({
      model: `vertex/${VERTEX_CLAUDE_MODEL}`,
      max_tokens: 32,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake Vertex Claude.' }]);
    const final = await anthropic.messages
      .stream({
        model: `vertex/${VERTEX_CLAUDE_MODEL}`,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Vertex Claude.' }]);
  });
});

describe('Vertex access tokens', () => {
  it('exchanged a verified JWT once, and reused that token for every request since', async () => {
    await Promise.all([
      openai().chat.completions.create(chat(`vertex/${VERTEX_GEMINI_MODEL}`)),
      openai().chat.completions.create(chat(`vertex/${VERTEX_CLAUDE_MODEL}`)),
    ]);
    const grants = grantsOf(platformAccount);
    expect(grants).toHaveLength(1);
    const platformCalls = vertex
      .modelRequests()
      .filter((request) => request.path.startsWith(PLATFORM_PREFIX));
    expect(platformCalls.length).toBeGreaterThanOrEqual(8);
    for (const call of platformCalls) expect(call.headers.authorization).toBe(`Bearer ${grants[0]!.token}`);
  });

  it("refreshes an expired token (a Connection's own service account, project and region)", async () => {
    const model = `@my-vertex/${VERTEX_GEMINI_MODEL}`;
    const first = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(model),
      gateway.credentials.apiKey,
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('x-service-byok')).toBe('true');
    const second = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(model),
      gateway.credentials.apiKey,
    );
    expect(second.status).toBe(200);
    expect(grantsOf(tenantAccount)).toHaveLength(1);
    const tenantCalls = () =>
      vertex.modelRequests().filter((request) => request.path.startsWith(TENANT_PREFIX));
    expect(tenantCalls().map((call) => call.headers.authorization)).toEqual(
      Array(2).fill(`Bearer ${grantsOf(tenantAccount)[0]!.token}`),
    );

    await new Promise((resolve) => setTimeout(resolve, 2000));
    // The fake refuses the expired token: a 200 means the gateway exchanged a new one first.
    const third = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(model),
      gateway.credentials.apiKey,
    );
    expect(third.status).toBe(200);
    expect(grantsOf(tenantAccount)).toHaveLength(2);
    expect(tenantCalls().at(-1)!.headers.authorization).toBe(`Bearer ${grantsOf(tenantAccount)[1]!.token}`);
    expect(grantsOf(platformAccount)).toHaveLength(1);
  });

  it("answers 424 service.connection_rejected when Google refuses the Connection's service account", async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(`@untrusted-vertex/${VERTEX_GEMINI_MODEL}`),
      gateway.credentials.apiKey,
    );
    // The tenant's own credential is at fault: a 4xx SDKs do not retry, not the gateway's 502.
    expect(response.status).toBe(424);
    expect(await response.json()).toMatchObject({
      error: {
        code: 'service.connection_rejected',
        type: 'authentication_error',
        message: expect.stringContaining("connection 'untrusted-vertex'"),
      },
    });
  });

  const unauthenticated: Parameters<FakeVertex['overrideNext']>[0] = (_request, response) => {
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      }),
    );
  };

  it('drops a token Vertex refuses and retries once with a fresh one', async () => {
    const grantsBefore = grantsOf(platformAccount).length;
    vertex.overrideNext(unauthenticated);
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(`vertex/${VERTEX_GEMINI_MODEL}`),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    const grants = grantsOf(platformAccount);
    expect(grants).toHaveLength(grantsBefore + 1);
    expect(vertex.modelRequests().at(-1)!.headers.authorization).toBe(`Bearer ${grants.at(-1)!.token}`);
  });

  it("maps Vertex's 401 UNAUTHENTICATED on the retry too to 502 (the gateway's credential, not the caller's)", async () => {
    // The model call is refused, the token exchange hands out a token the model endpoint does not
    // know, and the retry with it is refused as well.
    vertex.overrideNext(unauthenticated).overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: 'ya29.unknown', expires_in: 3599, token_type: 'Bearer' }));
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat(`vertex/${VERTEX_GEMINI_MODEL}`),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(502);
    expect(vertex.modelRequests().at(-1)!.headers.authorization).toBe('Bearer ya29.unknown');
  });

  it('refuses embeddings on Vertex for now', async () => {
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: 'vertex/text-embedding-005', input: 'hi' },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(400);
  });
});

describe('tool calling on vertex/ (official openai client)', () => {
  const weatherTool = {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  };

  it('Gemini on Vertex: functionCall comes back as tool_calls', async () => {
    // The platform token is already cached, so the next request is the model call.
    await openai().chat.completions.create(chat(`vertex/${VERTEX_GEMINI_MODEL}`));
    vertex.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          candidates: [
            {
              content: {
                role: 'model',
                parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }],
              },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 },
        }),
      );
    });
    const completion = await openai().chat.completions.create({
      ...chat(`vertex/${VERTEX_GEMINI_MODEL}`),
      tools: [weatherTool],
    });
    const sent = vertex.modelRequests().at(-1)!.body as {
      tools: { functionDeclarations: { name: string }[] }[];
    };
    expect(sent.tools[0]!.functionDeclarations[0]!.name).toBe('get_weather');
    const call = completion.choices[0]!.message.tool_calls![0] as {
      function: { name: string; arguments: string };
    };
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
  });

  it('Claude on Vertex: tool_use comes back as tool_calls', async () => {
    await openai().chat.completions.create(chat(`vertex/${VERTEX_CLAUDE_MODEL}`));
    vertex.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'msg_vrtx_01',
          type: 'message',
          role: 'assistant',
          model: VERTEX_CLAUDE_MODEL,
          content: [{ type: 'tool_use', id: 'toolu_vrtx_01', name: 'get_weather', input: { city: 'Oslo' } }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 9 },
        }),
      );
    });
    const completion = await openai().chat.completions.create({
      ...chat(`vertex/${VERTEX_CLAUDE_MODEL}`),
      tools: [weatherTool],
    });
    const sent = vertex.modelRequests().at(-1)!.body as {
      tools: { name: string }[];
      anthropic_version: string;
    };
    expect(sent.tools[0]!.name).toBe('get_weather');
    expect(sent.anthropic_version).toBe('vertex-2023-10-16');
    const call = completion.choices[0]!.message.tool_calls![0] as {
      id: string;
      function: { arguments: string };
    };
    expect(call.id).toBe('toolu_vrtx_01');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
  });
});
