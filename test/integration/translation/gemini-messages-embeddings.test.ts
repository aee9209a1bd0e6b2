import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_GEMINI_EMBEDDING_MODEL,
  FAKE_GEMINI_REPLY,
  fakeGeminiEmbedding,
  startFakeGemini,
} from '../../fakes/fake-gemini.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let geminiFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  geminiFake = await startFakeGemini('gemini-platform-key');
  gateway = await startTestGateway({
    GEMINI_API_KEY: 'gemini-platform-key',
    GEMINI_BASE_URL: geminiFake.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await geminiFake?.stop();
});

const openai = () =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = () =>
  new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url, maxRetries: 0 });

describe('/v1/messages on gemini/* (official Anthropic SDK)', () => {
  it('translates the Messages request to generateContent and the answer back', async () => {
    const message = await anthropic().messages.create({
      model: 'gemini/gemini-2.5-flash',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: FAKE_GEMINI_REPLY }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 7 });
    const upstream = geminiFake.requests.at(-1)!;
    expect(upstream.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream.headers['x-goog-api-key']).toBe('gemini-platform-key');
    expect(upstream.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      generationConfig: { maxOutputTokens: 64 },
    });
  });

  it('streams Anthropic events translated from the Gemini stream', async () => {
    const stream = anthropic().messages.stream({
      model: 'gemini/gemini-2.5-flash',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Gemini.' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(7);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(geminiFake.requests.at(-1)!.path).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('answers a Gemini function call with a tool_use block', async () => {
    geminiFake.overrideNext((_request, response) =>
      sendJson(response, 200, {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 },
      }),
    );
    const message = await anthropic().messages.create({
      model: 'gemini/gemini-2.5-flash',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        {
          name: 'get_weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }),
    ]);
    expect(geminiFake.requests.at(-1)!.body).toMatchObject({
      tools: [{ functionDeclarations: [expect.objectContaining({ name: 'get_weather' })] }],
    });
  });

  it("renders Gemini's rate limit in the Anthropic envelope with Retry-After", async () => {
    geminiFake.overrideNext((_request, response) =>
      sendJson(response, 429, {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }],
        },
      }),
    );
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      { model: 'gemini/gemini-2.5-flash', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('17');
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it("answers a refused platform key with an Anthropic error type (api_error), the gateway's code kept", async () => {
    geminiFake.overrideNext((_request, response) =>
      sendJson(response, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      }),
    );
    const error = await anthropic()
      .messages.create({
        model: 'gemini/gemini-2.5-flash',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'api_error', code: 'service.upstream_error' },
    });
  });
});

describe('/v1/embeddings on gemini/*', () => {
  const model = `gemini/${FAKE_GEMINI_EMBEDDING_MODEL}`;

  it('embeds one input with embedContent and estimates the usage Gemini does not report', async () => {
    const before = geminiFake.requests.length;
    const result = await openai().embeddings.create({ model, input: 'hello 7', encoding_format: 'float' });
    expect(result.data).toEqual([
      { object: 'embedding', index: 0, embedding: fakeGeminiEmbedding('hello 7') },
    ]);
    expect(result.model).toBe(model);
    expect(result.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    const calls = geminiFake.requests.slice(before);
    expect(calls.map((call) => call.path)).toEqual([
      `/v1beta/models/${FAKE_GEMINI_EMBEDDING_MODEL}:embedContent`,
    ]);
    expect(calls[0]!.headers['x-goog-api-key']).toBe('gemini-platform-key');
  });

  it('splits 150 inputs into two batchEmbedContents calls and keeps the input order', async () => {
    const before = geminiFake.requests.length;
    const inputs = Array.from({ length: 150 }, (_, index) => `document ${index}`);
    // The openai client asks for base64 by default and decodes it: the float32 encoding is checked too.
    const result = await openai().embeddings.create({ model, input: inputs });
    expect(result.data).toHaveLength(150);
    result.data.forEach((item, index) => {
      expect(item.index).toBe(index);
      expect(item.embedding).toEqual(fakeGeminiEmbedding(inputs[index]!));
    });
    const calls = geminiFake.requests.slice(before);
    expect(calls.map((call) => call.path)).toEqual([
      `/v1beta/models/${FAKE_GEMINI_EMBEDDING_MODEL}:batchEmbedContents`,
      `/v1beta/models/${FAKE_GEMINI_EMBEDDING_MODEL}:batchEmbedContents`,
    ]);
    const sizes = calls.map((call) => (call.body as { requests: unknown[] }).requests.length).sort();
    expect(sizes).toEqual([100, 50]);
  });

  it('maps a refused batch to the gateway error (bad platform key: 502)', async () => {
    geminiFake.overrideNext((_request, response) =>
      sendJson(response, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      }),
    );
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model, input: ['a 1', 'b 2'] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { type: 'upstream_auth_error' } });
  });

  it('refuses token-array input, which Gemini cannot embed', async () => {
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model, input: [[1, 2, 3]] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(400);
  });
});
