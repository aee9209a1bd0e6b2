import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeGemini } from '../../fakes/fake-gemini.ts';
import { type FakeServer, sendJson, sendSse } from '../../fakes/fake-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let anthropicFake: FakeServer;
let geminiFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  anthropicFake = await startFakeAnthropic();
  geminiFake = await startFakeGemini('gemini-platform-key');
  gateway = await startTestGateway({
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropicFake.url,
    GEMINI_API_KEY: 'gemini-platform-key',
    GEMINI_BASE_URL: geminiFake.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await anthropicFake?.stop();
  await geminiFake?.stop();
});

const client = () =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('tool calling through translated routes (official openai client)', () => {
  it('anthropic/: tools go out as input_schema, tool_use comes back as tool_calls, and results go back as tool_result', async () => {
    anthropicFake.overrideNext((_request, response) =>
      sendJson(response, 200, {
        id: 'msg_01ToolUse',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-sonnet-20241022',
        content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 12 },
      }),
    );
    const first = await client().chat.completions.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    });
    const upstreamTools = (
      anthropicFake.requests.at(-1)!.body as { tools: { name: string; input_schema: unknown }[] }
    ).tools;
    expect(upstreamTools[0]).toMatchObject({
      name: 'get_weather',
      input_schema: weatherTool.function.parameters,
    });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: 'toolu_01A', type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({
      city: 'Paris',
    });

    await client().chat.completions.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        choice.message,
        { role: 'tool', tool_call_id: call.id, content: '{"temperature": 18}' },
      ],
      tools: [weatherTool],
    });
    const messages = (
      anthropicFake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }
    ).messages;
    expect(messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01A' }],
    });
  });

  it('gemini/: tools go out as function declarations, functionCall comes back as tool_calls', async () => {
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
        modelVersion: 'gemini-2.5-flash',
      }),
    );
    const completion = await client().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
      tool_choice: 'required',
    });
    const body = geminiFake.requests.at(-1)!.body as {
      tools: { functionDeclarations: { name: string }[] }[];
      toolConfig: { functionCallingConfig: { mode: string } };
    };
    expect(body.tools[0]!.functionDeclarations[0]!.name).toBe('get_weather');
    expect(body.toolConfig.functionCallingConfig.mode).toBe('ANY');
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0] as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
  });
});

const anthropicEvent = (data: { type: string } & Record<string, unknown>) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

describe('streamed tool calls through translated routes (official openai client)', () => {
  it('anthropic/: tool_use blocks and their input_json_delta pieces assemble into tool_calls', async () => {
    const jsonDelta = (index: number, partial_json: string) =>
      anthropicEvent({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json },
      });
    anthropicFake.overrideNext((_request, response) =>
      sendSse(response, [
        anthropicEvent({
          type: 'message_start',
          message: {
            id: 'msg_01Stream',
            type: 'message',
            role: 'assistant',
            model: 'claude-3-5-sonnet-20241022',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 40, output_tokens: 1 },
          },
        }),
        anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        anthropicEvent({
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'Checking both.' },
        }),
        anthropicEvent({ type: 'content_block_stop', index: 0 }),
        anthropicEvent({
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_01Paris', name: 'get_weather', input: {} },
        }),
        jsonDelta(1, '{"ci'),
        jsonDelta(1, 'ty": "Par'),
        jsonDelta(1, 'is"}'),
        anthropicEvent({ type: 'content_block_stop', index: 1 }),
        anthropicEvent({
          type: 'content_block_start',
          index: 2,
          content_block: { type: 'tool_use', id: 'toolu_02Tokyo', name: 'get_weather', input: {} },
        }),
        jsonDelta(2, '{"city": '),
        jsonDelta(2, '"Tokyo"}'),
        anthropicEvent({ type: 'content_block_stop', index: 2 }),
        anthropicEvent({
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 30 },
        }),
        anthropicEvent({ type: 'message_stop' }),
      ]),
    );
    const completion = await client()
      .chat.completions.stream({
        model: 'anthropic/claude-3-5-sonnet-20241022',
        messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
        tools: [weatherTool],
      })
      .finalChatCompletion();
    expect(anthropicFake.requests.at(-1)!.body).toMatchObject({ stream: true });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Checking both.');
    expect(
      choice.message.tool_calls!.map((call) =>
        call.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : call,
      ),
    ).toEqual([
      ['toolu_01Paris', 'get_weather', { city: 'Paris' }],
      ['toolu_02Tokyo', 'get_weather', { city: 'Tokyo' }],
    ]);
  });

  it('gemini/: a streamed functionCall (finishReason in a later chunk) assembles into a tool call', async () => {
    const chunk = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;
    geminiFake.overrideNext((_request, response) =>
      sendSse(response, [
        chunk({
          candidates: [
            {
              content: {
                role: 'model',
                parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
              },
              index: 0,
            },
          ],
          modelVersion: 'gemini-2.5-flash',
        }),
        chunk({
          candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 },
          modelVersion: 'gemini-2.5-flash',
        }),
      ]),
    );
    const completion = await client()
      .chat.completions.stream({
        model: 'gemini/gemini-2.5-flash',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      })
      .finalChatCompletion();
    expect(geminiFake.requests.at(-1)!.path).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect(call.id).toMatch(/^call_/);
  });
});
