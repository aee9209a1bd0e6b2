import { describe, expect, it } from 'vitest';
import type { AnthropicMessagesRequest } from '../../shapes/anthropic.ts';
import type { BedrockConverseResponse } from '../../shapes/bedrock.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import {
  eventBodies as bodies,
  encodeAwsEventStream,
  replayAwsEventStream,
  splitEvery,
} from '../test-support/wire.ts';
import {
  type AnthropicConverseContext,
  convertAnthropicRequestToConverse,
  convertConverseResponseToAnthropic,
  createConverseStreamToAnthropicTranslator,
} from './index.ts';

// The fixtures of the two translators this pair composes.
const anthropicFixtures = translatorFixtures('anthropic-to-openai');
const converseFixtures = translatorFixtures('openai-to-bedrock');

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const CONTEXT: AnthropicConverseContext = { model: MODEL, messageId: 'msg_bdrk1', chatId: 'chatcmpl-1' };

/** A Converse `.chunks.txt` fixture as Bedrock's wire bytes, fed in pieces of `size` bytes. */
const replay = (name: string, size = 11): SseEvent[] =>
  replayAwsEventStream(
    createConverseStreamToAnthropicTranslator(CONTEXT),
    splitEvery(encodeAwsEventStream(converseFixtures.lines(name)), size),
  );

describe('convertAnthropicRequestToConverse', () => {
  it('maps system, turns, tool uses and tool results through the chat shape', () => {
    const { body } = convertAnthropicRequestToConverse(
      anthropicFixtures.json<AnthropicMessagesRequest>('tool-results.request.json'),
      CONTEXT,
    );
    expect(body.system).toEqual([{ text: 'You can call tools to look things up.' }]);
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [{ text: 'Compare the weather in Paris and Tokyo, and show me the radar.' }],
    });
    expect(body.messages[1]?.role).toBe('assistant');
    expect(
      body.messages[1]?.content.map((block) => ('toolUse' in block ? block.toolUse.name : block)),
    ).toEqual([{ text: 'Let me check both cities.' }, 'get_weather', 'get_weather']);
    expect(body.messages[2]?.content.filter((block) => 'toolResult' in block)).toHaveLength(2);
    expect(body.inferenceConfig?.maxTokens).toBe(4096);
  });

  it('carries output_config.format as the forced json tool, and its answer back as text', () => {
    const plan = convertAnthropicRequestToConverse(
      {
        model: 'bedrock/x',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Extract the event.' }],
        output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      } as AnthropicMessagesRequest,
      CONTEXT,
    );
    expect(plan.body.toolConfig?.toolChoice).toEqual({ tool: { name: 'json' } });
    const message = convertConverseResponseToAnthropic(
      converseFixtures.json<BedrockConverseResponse>('json-tool.response.json'),
      plan.context,
    );
    expect(message.content).toEqual([{ type: 'text', text: '{"name":"Science fair","date":"Friday"}' }]);
    expect(message.stop_reason).toBe('end_turn');
  });
});

describe('convertConverseResponseToAnthropic', () => {
  it('returns text and tool_use blocks, the stop reason and the exclusive usage', () => {
    const message = convertConverseResponseToAnthropic(
      converseFixtures.json<BedrockConverseResponse>('tool-use.response.json'),
      CONTEXT,
    );
    expect(message).toMatchObject({
      id: 'msg_bdrk1',
      type: 'message',
      model: MODEL,
      stop_reason: 'tool_use',
    });
    expect(message.content).toEqual([
      { type: 'text', text: "I'll look up both cities." },
      {
        type: 'tool_use',
        id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
        name: 'get_weather',
        input: { city: 'Paris', unit: 'celsius' },
      },
      {
        type: 'tool_use',
        id: 'tooluse_pGp3vEGtTjmqyhvbGlMhNg',
        name: 'get_weather',
        input: { city: 'Tokyo', unit: 'celsius' },
      },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 412, output_tokens: 141 });
  });
});

describe('createConverseStreamToAnthropicTranslator', () => {
  it('streams ConverseStream frames as Anthropic events, tool inputs and usage included', () => {
    const events = bodies(replay('tool-use.chunks.txt'));
    expect(events[0]).toMatchObject({ type: 'message_start', message: { id: 'msg_bdrk1', model: MODEL } });
    const inputs = new Map<number, string>();
    for (const event of events)
      if (event.type === 'content_block_delta') {
        const delta = event.delta as Record<string, unknown>;
        if (delta.type === 'input_json_delta')
          inputs.set(event.index as number, (inputs.get(event.index as number) ?? '') + delta.partial_json);
      }
    expect([...inputs.values()].map((json) => JSON.parse(json))).toEqual([
      { city: 'Paris', unit: 'celsius' },
      { city: 'Tokyo', unit: 'celsius' },
    ]);
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 412,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 141,
      },
    });
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('turns a mid-stream exception into an Anthropic error event and ends there', () => {
    const events = replay('mid-stream-error.chunks.txt');
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'ThrottlingException: Too many tokens, please wait before trying again.',
        },
      }),
    });
    expect(bodies(events).some((event) => event.type === 'message_stop')).toBe(false);
  });
});
