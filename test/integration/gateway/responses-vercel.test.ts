/**
 * The Vercel AI SDK's default OpenAI provider (`createOpenAI({ baseURL })(model)`, which calls
 * `/v1/responses`) against the gateway and fake upstreams, on the memory and the Redis stores:
 * generateText, streamText, and a two-step tool call (the SDK sends the call's output back, and
 * with `store` on refers to the gateway's earlier items by `item_reference`).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  heard,
  OPENAI_RESPONSES_REPLY,
  startConversationalAnthropic,
  startConversationalGemini,
  startFakeOpenAiResponses,
  WEATHER_RESULT_PREFIX,
} from '../../fakes/fake-conversation-upstreams.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const GEMINI_MODEL = 'gemini-2.5-flash';

const redis: RedisServer | undefined = await startRedisServer();
const backends = redis === undefined ? ['memory'] : ['memory', 'redis'];

afterAll(async () => {
  await redis?.stop();
});

const weather = tool({
  description: 'Current weather of a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
  execute: async ({ city }) => `18C and cloudy in ${city}`,
});

describe.each(backends)('the Vercel AI SDK default provider on the %s store', (backend) => {
  let anthropic: FakeServer;
  let gemini: FakeServer;
  let openaiFake: FakeServer;
  let gateway: TestGateway;
  let provider: ReturnType<typeof createOpenAI>;

  beforeAll(async () => {
    [anthropic, gemini, openaiFake] = await Promise.all([
      startConversationalAnthropic(),
      startConversationalGemini(GEMINI_MODEL),
      startFakeOpenAiResponses(),
    ]);
    gateway = await startTestGateway({
      ANTHROPIC_API_KEY: 'sk-ant-platform',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gemini-platform',
      GEMINI_BASE_URL: gemini.url,
      OPENAI_API_KEY: 'sk-platform-openai',
      OPENAI_BASE_URL: `${openaiFake.url}/v1`,
      ...(backend === 'redis' ? { REDIS_URL: redis!.url } : {}),
    });
    provider = createOpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1` });
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([anthropic?.stop(), gemini?.stop(), openaiFake?.stop()]);
  });

  it('generateText on anthropic/ calls /v1/responses and gets the text, finish reason and usage', async () => {
    const before = anthropic.requests.length;
    const result = await generateText({
      model: provider('anthropic/claude-sonnet-4-5'),
      prompt: 'Hello there.',
    });
    expect(result.text).toBe(heard(['Hello there.']));
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBe(20);
    expect(result.usage.outputTokens).toBe(9);
    expect(anthropic.requests.length).toBe(before + 1);
  });

  it('generateText on openai/ passes through to OpenAI’s own Responses API', async () => {
    const result = await generateText({ model: provider('openai/gpt-4o-mini'), prompt: 'Hi' });
    expect(result.text).toBe(OPENAI_RESPONSES_REPLY);
    expect(openaiFake.requests.at(-1)).toMatchObject({
      path: '/v1/responses',
      body: { model: 'gpt-4o-mini' },
    });
  });

  it('streamText on gemini/ streams the text deltas and ends with usage', async () => {
    const result = streamText({ model: provider(`gemini/${GEMINI_MODEL}`), prompt: 'Stream to me.' });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(heard(['Stream to me.']));
    expect((await result.usage).outputTokens).toBe(9);
    expect(await result.finishReason).toBe('stop');
  });

  for (const model of ['anthropic/claude-sonnet-4-5', `gemini/${GEMINI_MODEL}`]) {
    it(`runs a two-step tool call on ${model.split('/')[0]}/: the call, its result, the answer`, async () => {
      const result = await generateText({
        model: provider(model),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weather },
        stopWhen: stepCountIs(2),
      });
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]!.toolCalls[0]).toMatchObject({
        toolName: 'get_weather',
        input: { city: 'Paris' },
      });
      expect(result.text).toBe(`${WEATHER_RESULT_PREFIX}18C and cloudy in Paris`);
    });
  }

  it('streams a two-step tool call on anthropic/', async () => {
    const result = streamText({
      model: provider('anthropic/claude-sonnet-4-5'),
      prompt: 'Weather in Paris?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
    });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe(`${WEATHER_RESULT_PREFIX}18C and cloudy in Paris`);
    expect((await result.steps).length).toBe(2);
  });
});
