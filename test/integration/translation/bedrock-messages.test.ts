import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_BEDROCK_REPLY,
  FAKE_BEDROCK_STREAM,
  type FakeBedrock,
  sendAwsError,
  sendEventStream,
  startFakeBedrock,
} from '../../fakes/fake-bedrock.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const PLATFORM_KEY = {
  accessKeyId: 'AKIAPLATFORM0000EXAMPLE',
  secretAccessKey: 'platform/secret/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

let runtime: FakeBedrock;
let gateway: TestGateway;

beforeAll(async () => {
  runtime = await startFakeBedrock({ service: 'bedrock', keys: [PLATFORM_KEY], models: [CLAUDE] });
  gateway = await startTestGateway({
    BEDROCK_BASE_URL: runtime.url,
    BEDROCK_REGION: 'eu-west-3',
    AWS_ACCESS_KEY_ID: PLATFORM_KEY.accessKeyId,
    AWS_SECRET_ACCESS_KEY: PLATFORM_KEY.secretAccessKey,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await runtime?.stop();
});

const anthropic = () =>
  new Anthropic({ apiKey: gateway.credentials.apiKey, baseURL: gateway.url, maxRetries: 0 });

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Get the weather for a city.',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('/v1/messages on bedrock/* (Converse, official Anthropic SDK)', () => {
  it('translates the Messages request to Converse, signed with SigV4, and the answer back', async () => {
    const message = await anthropic().messages.create({
      model: `bedrock/${CLAUDE}`,
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: FAKE_BEDROCK_REPLY }]);
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe(CLAUDE);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
    const upstream = runtime.requests.at(-1)!;
    expect(upstream.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(upstream.headers.authorization).toContain('/eu-west-3/bedrock/aws4_request');
    expect(upstream.body).toEqual({
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      inferenceConfig: { maxTokens: 64 },
    });
  });

  it('streams Anthropic events translated from ConverseStream frames', async () => {
    const stream = anthropic().messages.stream({
      model: `bedrock/${CLAUDE}`,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: FAKE_BEDROCK_STREAM.join('') }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 4 });
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(runtime.requests.at(-1)!.path).toBe(
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream',
    );
  });

  it('calls tools, in JSON and streamed, and takes the tool_result back', async () => {
    const client = anthropic();
    const first = await client.messages.create({
      model: `bedrock/${CLAUDE}`,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'any' },
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'tooluse_fake01', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(runtime.requests.at(-1)!.body).toMatchObject({
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather' } }], toolChoice: { any: {} } },
    });

    const streamed = await client.messages
      .stream({
        model: `bedrock/${CLAUDE}`,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [WEATHER_TOOL],
      })
      .finalMessage();
    expect(streamed.content).toEqual([
      { type: 'tool_use', id: 'tooluse_fake01', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(streamed.stop_reason).toBe('tool_use');

    const second = await client.messages.create({
      model: `bedrock/${CLAUDE}`,
      max_tokens: 64,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'tooluse_fake01', content: '{"temp":18}' }],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18°C in Paris.' }]);
    expect((runtime.requests.at(-1)!.body as { messages: unknown[] }).messages.at(-1)).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'tooluse_fake01', content: [{ text: '{"temp":18}' }] } }],
    });
  });

  it('answers a Bedrock error in the Anthropic envelope (the SDK raises its own error class)', async () => {
    runtime.overrideNext((_request, response) =>
      sendAwsError(response, { status: 429, errorType: 'ThrottlingException', message: 'fake throttling' }),
    );
    const error = await anthropic()
      .messages.create({
        model: `bedrock/${CLAUDE}`,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const body = (error as InstanceType<typeof Anthropic.RateLimitError>).error as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.error.message).toContain('fake throttling');
  });

  it('turns an exception frame mid-stream into an Anthropic error event (the SDK throws)', async () => {
    runtime.overrideNext((_request, response) =>
      sendEventStream(response, [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Partial' } } },
        { event: 'throttlingException', payload: { message: 'Too many tokens' }, exception: true },
      ]),
    );
    const stream = anthropic().messages.stream({
      model: `bedrock/${CLAUDE}`,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    await expect(stream.finalMessage()).rejects.toThrow(/Too many tokens/);
    expect(text).toBe('Partial');
  });
});
