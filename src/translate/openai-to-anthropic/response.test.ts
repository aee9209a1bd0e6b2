import { describe, expect, it } from 'vitest';
import type { AnthropicMessagesResponse } from '../../shapes/anthropic.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertAnthropicResponseToChat, convertAnthropicUsage, mapAnthropicStopReason } from './response.ts';

const fixture = (name: string): AnthropicMessagesResponse =>
  translatorFixtures('openai-to-anthropic').json(name);

const CREATED = 1_761_000_000;

describe('convertAnthropicResponseToChat', () => {
  it('joins text blocks and counts cache reads and writes into prompt_tokens', () => {
    expect(convertAnthropicResponseToChat(fixture('text.response.json'), { created: CREATED })).toEqual({
      id: 'msg_01HvJ5WxG8ZQ9YkC2rTqP3aN',
      object: 'chat.completion',
      created: CREATED,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: "Goûtez la tarte aux pralines : une spécialité lyonnaise d'un rose éclatant.",
            refusal: null,
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      // 31 uncached + 2048 read + 1536 written
      usage: {
        prompt_tokens: 3615,
        completion_tokens: 24,
        total_tokens: 3639,
        prompt_tokens_details: { cached_tokens: 2048 },
      },
    });
  });

  it('returns tool_use blocks as tool_calls with JSON-string arguments and drops thinking', () => {
    const completion = convertAnthropicResponseToChat(fixture('tool-use.response.json'), {
      created: CREATED,
    });
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: "I'll look up both cities.",
        refusal: null,
        tool_calls: [
          {
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
          {
            id: 'toolu_01Q8aGXtK6c2jFdNn8yWz7Lr',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' },
          },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 412,
      completion_tokens: 141,
      total_tokens: 553,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('sends content null when the answer is only tool calls', () => {
    const message = convertAnthropicResponseToChat(fixture('only-tool-use.response.json')).choices[0]
      ?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls?.[0]?.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
  });

  it.each([
    ['max-tokens.response.json', 'length'],
    ['stop-sequence.response.json', 'stop'],
    ['refusal.response.json', 'content_filter'],
    ['text.response.json', 'stop'],
    ['only-tool-use.response.json', 'tool_calls'],
  ])('maps the stop reason of %s to %s', (name, finishReason) => {
    expect(convertAnthropicResponseToChat(fixture(name)).choices[0]?.finish_reason).toBe(finishReason);
  });

  it("returns the JSON tool's input as the content with finish_reason stop", () => {
    const choice = convertAnthropicResponseToChat(fixture('json-tool.response.json'), {
      jsonToolName: 'json',
    }).choices[0];
    expect(choice?.message).toEqual({
      role: 'assistant',
      content: '{"name":"Science fair","date":"Friday","participants":["Alice","Bob"]}',
      refusal: null,
    });
    expect(choice?.finish_reason).toBe('stop');
  });

  it('treats a tool named json as an ordinary tool when the request asked for no JSON output', () => {
    const choice = convertAnthropicResponseToChat(fixture('json-tool.response.json')).choices[0];
    expect(choice?.message.tool_calls?.[0]?.function.name).toBe('json');
    expect(choice?.finish_reason).toBe('tool_calls');
  });

  it('shows the client model name when given', () => {
    expect(
      convertAnthropicResponseToChat(fixture('text.response.json'), { model: 'anthropic/claude' }).model,
    ).toBe('anthropic/claude');
  });
});

describe('mapAnthropicStopReason', () => {
  it('follows the reference table, and stop for unknown or missing reasons', () => {
    expect(mapAnthropicStopReason('end_turn')).toBe('stop');
    expect(mapAnthropicStopReason('pause_turn')).toBe('stop');
    expect(mapAnthropicStopReason('model_context_window_exceeded')).toBe('length');
    expect(mapAnthropicStopReason('tool_use', true)).toBe('stop');
    expect(mapAnthropicStopReason(null)).toBe('stop');
    expect(mapAnthropicStopReason('something_new')).toBe('stop');
  });
});

describe('convertAnthropicUsage', () => {
  it('treats missing cache counts as zero', () => {
    expect(convertAnthropicUsage({ input_tokens: 10, output_tokens: 5 })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });
});
