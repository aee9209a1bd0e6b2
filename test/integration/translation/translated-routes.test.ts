import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents, startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { FAKE_GEMINI_REPLY, startFakeGemini } from '../../fakes/fake-gemini.ts';
import { FAKE_OPENAI_REPLY, STREAM_PIECES, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson, sendSse } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openaiFake: FakeServer;
let anthropicFake: FakeServer;
let geminiFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openaiFake = await startFakeOpenAi();
  anthropicFake = await startFakeAnthropic();
  geminiFake = await startFakeGemini('gemini-platform-key');
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${openaiFake.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropicFake.url,
    GEMINI_API_KEY: 'gemini-platform-key',
    GEMINI_BASE_URL: geminiFake.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await openaiFake?.stop();
  await anthropicFake?.stop();
  await geminiFake?.stop();
});

const openai = () =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = () =>
  new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url, maxRetries: 0 });

describe('anthropic/* on /v1/chat/completions', () => {
  it('translates the request to Anthropic Messages and the answer back (official openai client)', async () => {
    const completion = await openai().chat.completions.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from the fake Anthropic upstream.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10 });
    const upstream = anthropicFake.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/messages');
    expect(upstream.body).toMatchObject({
      model: 'claude-3-5-sonnet-20241022',
      system: [{ type: 'text', text: 'Be brief.' }],
      max_tokens: 8192,
    });
  });

  it('translates the Anthropic stream into chat.completion.chunks', async () => {
    const stream = await openai().chat.completions.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Anthropic.');
  });

  it('bills the translated answer at the Anthropic price', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'anthropic/claude-3-5-sonnet-20241022', messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    // 20 input * $3 + 10 output * $15 per million.
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('210');
  });

  // 10 input * $3 + 2000 cache reads * $0.30 + 1000 cache writes * $3.75 + 4 output * $15 per million:
  // prompt-cache writes at their own price, though OpenAI's usage folds them into prompt_tokens.
  const CACHED_USAGE = {
    input_tokens: 10,
    cache_creation_input_tokens: 1000,
    cache_read_input_tokens: 2000,
    output_tokens: 4,
  };
  const CACHED_COST = 10 * 3 + 2000 * 0.3 + 1000 * 3.75 + 4 * 15;

  it('bills prompt-cache writes at their own price (JSON)', async () => {
    anthropicFake.overrideNext((_request, response) =>
      sendJson(response, 200, { ...anthropicMessage('claude-3-5-sonnet-20241022'), usage: CACHED_USAGE }),
    );
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'anthropic/claude-3-5-sonnet-20241022', messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    expect(((await response.json()) as { usage: unknown }).usage).toMatchObject({
      prompt_tokens: 3010,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
    expect(response.headers.get('x-service-balance-charged-micros')).toBe(String(CACHED_COST));
  });

  it('bills prompt-cache writes at their own price (stream)', async () => {
    const balance = async () =>
      (await gateway.running.stores.runtime.getBalance(gateway.credentials.tenantId))!;
    const before = await balance();
    anthropicFake.overrideNext(async (_request, response) => {
      const events = anthropicStreamEvents('claude-3-5-sonnet-20241022', ['Hi']).map((event) =>
        event.startsWith('event: message_start')
          ? event
              .replace('"cache_creation_input_tokens":0', '"cache_creation_input_tokens":1000')
              .replace('"cache_read_input_tokens":0', '"cache_read_input_tokens":2000')
              .replace('"input_tokens":20', '"input_tokens":10')
          : event.replace('"output_tokens":1}', '"output_tokens":4}'),
      );
      await sendSse(response, events);
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      {
        model: 'anthropic/claude-3-5-sonnet-20241022',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      },
      gateway.credentials.apiKey,
    );
    expect(await response.text()).toContain('[DONE]');
    await expect.poll(balance).toBe(before - CACHED_COST);
  });
});

describe('/v1/messages on an OpenAI-shaped upstream', () => {
  it('serves the official Anthropic client from openai/ models', async () => {
    const message = await anthropic().messages.create({
      model: 'openai/gpt-4o',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: FAKE_OPENAI_REPLY });
    expect(message.stop_reason).toBe('end_turn');
    const upstream = openaiFake.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/chat/completions');
    // OpenAI's own API takes the cap as max_completion_tokens (its o-series refuse max_tokens).
    expect(upstream.body).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 64 });
    expect(upstream.body).not.toHaveProperty('max_tokens');
  });

  it('streams Anthropic events translated from chat chunks', async () => {
    const final = await anthropic()
      .messages.stream({
        model: 'openai/gpt-4o',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hello' }],
      })
      .finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: STREAM_PIECES.join('') });
  });
});

describe('gemini/* on /v1/chat/completions', () => {
  it('translates to generateContent with x-goog-api-key and back (official openai client)', async () => {
    const completion = await openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe(FAKE_GEMINI_REPLY);
    expect(completion.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 7 });
    expect(geminiFake.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });

  it('streams through streamGenerateContent?alt=sse', async () => {
    const stream = await openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Gemini.');
    expect(geminiFake.requests.at(-1)!.path).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('answers a blocked prompt (HTTP 200, promptFeedback.blockReason) as content_filter, JSON and streamed', async () => {
    const blocked = {
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: 'gemini-2.5-flash',
    };
    const request = {
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user' as const, content: 'Hello' }],
    };
    geminiFake.overrideNext((_request, response) => sendJson(response, 200, blocked));
    const completion = await openai().chat.completions.create(request);
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect(completion.choices[0]!.message.content).toBeNull();
    expect(completion.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 0 });

    geminiFake.overrideNext((_request, response) =>
      sendSse(response, [`data: ${JSON.stringify(blocked)}\r\n\r\n`]),
    );
    const stream = await openai().chat.completions.create({ ...request, stream: true });
    const finishReasons: string[] = [];
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishReasons.push(chunk.choices[0].finish_reason);
    }
    expect(finishReasons).toEqual(['content_filter']);
    expect(text).toBe('');
  });

  it('refuses an https image URL with 400 invalid_request naming the rule, without calling Gemini', async () => {
    const before = geminiFake.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      {
        model: 'gemini/gemini-2.5-flash',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'https://cdn.example.com/cat.png' } }],
          },
        ],
      },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/gemini\/ models take images and files as data: URLs/);
    expect(geminiFake.requests.length).toBe(before);
  });

  it("maps Gemini's 400 for a bad key to a 502 (the platform's key, not the caller's)", async () => {
    geminiFake.overrideNext((request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            code: 400,
            message: 'API key not valid.',
            status: 'INVALID_ARGUMENT',
            details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
          },
        }),
      );
      void request;
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'gemini/gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello' }] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(502);
  });
});
