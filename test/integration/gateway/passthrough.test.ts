import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookupPrice } from '../../../src/billing/prices.ts';
import { computeCostMicros } from '../../../src/billing/usage.ts';
import { parseOpenAiUsage } from '../../../src/shapes/usage.ts';
import { FAKE_ANTHROPIC_REPLY, startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { FAKE_OPENAI_REPLY, STREAM_PIECES, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
let anthropic: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  const pricesFile = join(await mkdtemp(join(tmpdir(), 'prices-')), 'prices.yaml');
  await writeFile(pricesFile, 'my-fine-tune:\n  input: 1\n  output: 2\n');
  gateway = await startTestGateway({
    BILLING_PRICES_FILE: pricesFile,
    OPENAI_API_KEY: 'sk-platform-openai',
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

const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Hello' }],
  ...extra,
});

function dataEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

/** One chat.completion.chunk event carrying `content`, as an upstream writes it. */
const chatChunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

/** The rest of a streamed body, as text. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let rest = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
    rest += new TextDecoder().decode(chunk.value);
  return rest;
}

describe('POST /v1/chat/completions (OpenAI passthrough)', () => {
  it('forwards a JSON completion with the platform key and the provider prefix stripped', async () => {
    const before = openai.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o'),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe(FAKE_OPENAI_REPLY);
    const upstream = openai.requests[before]!;
    expect(upstream.path).toBe('/v1/chat/completions');
    expect(upstream.headers.authorization).toBe('Bearer sk-platform-openai');
    expect((upstream.body as { model: string }).model).toBe('gpt-4o');
    // The caller's own key never reaches the provider.
    expect(JSON.stringify(upstream.headers)).not.toContain(gateway.credentials.apiKey);
  });

  it('sends a bare model to the default provider (openai)', async () => {
    const before = openai.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('gpt-4o-mini'),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    expect((openai.requests[before]!.body as { model: string }).model).toBe('gpt-4o-mini');
  });

  it('keeps fields the gateway does not know', async () => {
    const before = openai.requests.length;
    await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { seed: 7, logit_bias: { '50256': -100 }, vendor_extension: { a: 1 } }),
      gateway.credentials.apiKey,
    );
    expect(openai.requests[before]!.body).toMatchObject({
      seed: 7,
      logit_bias: { '50256': -100 },
      vendor_extension: { a: 1 },
    });
  });

  it('streams SSE chunk by chunk, asks upstream for usage and drops that chunk when the client did not ask', async () => {
    const before = openai.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { stream: true }),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('deferred');
    const events = dataEvents(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events
      .slice(0, -1)
      .map((event) => JSON.parse(event) as { choices: { delta: { content?: string } }[]; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      STREAM_PIECES.join(''),
    );
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    expect((openai.requests[before]!.body as { stream_options: unknown }).stream_options).toEqual({
      include_usage: true,
    });
  });

  it('keeps the usage chunk when the client asked for it', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { stream: true, stream_options: { include_usage: true } }),
      gateway.credentials.apiKey,
    );
    const events = dataEvents(await response.text());
    const usageChunk = JSON.parse(events.at(-2)!) as {
      choices: unknown[];
      usage: { completion_tokens: number };
    };
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.completion_tokens).toBe(STREAM_PIECES.length);
  });

  it("relays the upstream's keep-alive comments while the first token is awaited", async () => {
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    openai.overrideNext(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': OPENROUTER PROCESSING\n\n');
      await released;
      response.write(chatChunk('hi'));
      response.end('data: [DONE]\n\n');
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { stream: true }),
      gateway.credentials.apiKey,
    );
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(': OPENROUTER PROCESSING\n\n');
    release();
    const rest = await readRest(reader);
    expect(dataEvents(rest).at(-1)).toBe('[DONE]');
  });

  it('relays the first chunk before the upstream has finished', async () => {
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    openai.overrideNext(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk('first'));
      await released;
      response.end('data: [DONE]\n\n');
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { stream: true }),
      gateway.credentials.apiKey,
    );
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('first');
    release();
    const rest = await readRest(reader);
    expect(rest).toContain('[DONE]');
  });
});

describe('POST /v1/embeddings', () => {
  it('passes embeddings through', async () => {
    const response = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: 'openai/text-embedding-3-small', input: ['a', 'b'] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { index: number; embedding: number[] }[] };
    expect(body.data.map((item) => item.index)).toEqual([0, 1]);
    expect((openai.requests.at(-1)!.body as { model: string }).model).toBe('text-embedding-3-small');
  });
});

describe('POST /v1/messages (Anthropic passthrough)', () => {
  it('forwards an Anthropic message with x-api-key and anthropic-version', async () => {
    const before = anthropic.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-sonnet-20241022',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      },
      gateway.credentials.apiKey,
      { 'anthropic-beta': 'prompt-caching-2024-07-31' },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { content: { text: string }[] };
    expect(body.content[0]!.text).toBe(FAKE_ANTHROPIC_REPLY);
    const upstream = anthropic.requests[before]!;
    expect(upstream.headers['x-api-key']).toBe('sk-ant-platform');
    expect(upstream.headers['anthropic-version']).toBe('2023-06-01');
    expect(upstream.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect((upstream.body as { model: string }).model).toBe('claude-3-5-sonnet-20241022');
  });

  it("keeps Anthropic's beta flags from an upstream of another shape", async () => {
    const before = openai.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      { model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
      { 'anthropic-beta': 'prompt-caching-2024-07-31' },
    );
    expect(response.status).toBe(200);
    expect(openai.requests[before]!.headers['anthropic-beta']).toBeUndefined();
  });

  it('streams Anthropic events through unchanged, pings included', async () => {
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-sonnet-20241022',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      },
      gateway.credentials.apiKey,
    );
    const text = await response.text();
    const types = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('ping');
    expect(types.at(-1)).toBe('message_stop');
  });
});

describe('billing', () => {
  it('debits the balance and reports it in X-Service-Balance-* headers, pricing a versioned id as its alias', async () => {
    const first = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o-2024-08-06'),
      gateway.credentials.apiKey,
    );
    const remainingBefore = Number(first.headers.get('x-service-balance-remaining-micros'));
    const second = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o-2024-08-06'),
      gateway.credentials.apiKey,
    );
    expect(second.headers.get('x-service-balance-mode')).toBe('prepaid');
    expect(second.headers.get('x-service-balance-currency')).toBe('USD');
    const charged = Number(second.headers.get('x-service-balance-charged-micros'));
    // The fake reports 12 prompt and 8 completion tokens; gpt-4o-2024-08-06 is priced as gpt-4o.
    const expected = computeCostMicros(
      lookupPrice('gpt-4o')!,
      parseOpenAiUsage({
        prompt_tokens: 12,
        completion_tokens: 8,
        prompt_tokens_details: { cached_tokens: 0 },
      })!,
    );
    expect(charged).toBe(expected);
    expect(charged).toBeGreaterThan(0);
    expect(Number(second.headers.get('x-service-balance-remaining-micros'))).toBe(remainingBefore - expected);
  });

  it.each([
    // BILLING_PRICES_FILE: $1 in, $2 out per million; the fake reports 12 prompt and 8 completion tokens.
    ['a model priced by the deployment', 'openai/my-fine-tune-2025-01-01', 12 * 1 + 8 * 2],
    // Nobody priced it: BILLING_FALLBACK_PRICE's default of $15 in, $75 out per million.
    ['a model nobody priced, at the fallback price', 'openai/unheard-of-model', 12 * 15 + 8 * 75],
  ])('charges %s', async (_name, model, micros) => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody(model),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-balance-charged-micros')).toBe(String(micros));
  });

  it('prices an Anthropic response from its usage', async () => {
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-sonnet-20241022',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      },
      gateway.credentials.apiKey,
    );
    // 20 input * $3 + 10 output * $15 per million = 60 + 150 micros
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('210');
  });

  it('settles a stream when it ends', async () => {
    const balance = async () =>
      (await gateway.running.stores.runtime.getBalance(gateway.credentials.tenantId))!;
    const before = await balance();
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chatBody('openai/gpt-4o', { stream: true }),
      gateway.credentials.apiKey,
    );
    await response.text();
    const expected = computeCostMicros(lookupPrice('gpt-4o')!, {
      inputTokens: 12,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: STREAM_PIECES.length,
    });
    await expect.poll(balance).toBe(before - expected);
  });
});
