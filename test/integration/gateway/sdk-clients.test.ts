import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ANTHROPIC_REPLY, startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { FAKE_OPENAI_REPLY, STREAM_PIECES, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openaiFake: FakeServer;
let anthropicFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openaiFake = await startFakeOpenAi();
  anthropicFake = await startFakeAnthropic();
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${openaiFake.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropicFake.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await openaiFake?.stop();
  await anthropicFake?.stop();
});

describe('the official openai client against the gateway', () => {
  const client = () =>
    new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

  it('completes a chat', async () => {
    const completion = await client().chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe(FAKE_OPENAI_REPLY);
  });

  it('streams a chat', async () => {
    const stream = await client().chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(STREAM_PIECES.join(''));
  });

  it('creates an embedding', async () => {
    const result = await client().embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'hello',
    });
    expect(result.data[0]!.embedding.length).toBe(3);
  });

  it('surfaces a gateway error as an APIError with the code', async () => {
    const bad = new OpenAI({ apiKey: 'tt_sk_nope', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(
      bad.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 401,
      code: 'service.invalid_key',
    });
  });
});

describe('the official @anthropic-ai/sdk client against the gateway', () => {
  const client = () =>
    new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url, maxRetries: 0 });

  it('creates a message', async () => {
    const message = await client().messages.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: FAKE_ANTHROPIC_REPLY });
  });

  it('streams a message', async () => {
    const stream = client().messages.stream({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from Anthropic.' });
    expect(final.usage.output_tokens).toBe(4);
  });
});
