import { describe, expect, it } from 'vitest';
import type { BedrockConverseResponse } from '../../shapes/bedrock.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertConverseResponseToChat, mapConverseStopReason } from './response.ts';

const fixture = (name: string): BedrockConverseResponse => translatorFixtures('openai-to-bedrock').json(name);

const CONTEXT = {
  id: 'chatcmpl-7c1d2a3e',
  model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  created: 1_761_000_000,
};

describe('convertConverseResponseToChat', () => {
  it('joins text blocks, takes id and model from the context and counts cache tokens into prompt_tokens', () => {
    expect(convertConverseResponseToChat(fixture('text.response.json'), CONTEXT)).toEqual({
      id: 'chatcmpl-7c1d2a3e',
      object: 'chat.completion',
      created: 1_761_000_000,
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
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

  it('returns toolUse blocks as tool_calls with JSON-string arguments and drops reasoning', () => {
    const completion = convertConverseResponseToChat(fixture('tool-use.response.json'), CONTEXT);
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: "I'll look up both cities.",
        refusal: null,
        tool_calls: [
          {
            id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
          {
            id: 'tooluse_pGp3vEGtTjmqyhvbGlMhNg',
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
    const message = convertConverseResponseToChat(fixture('only-tool-use.response.json'), CONTEXT).choices[0]!
      .message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: 'tooluse_Q0x3kd9W', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it("returns the json tool's input as the content, finishing with stop", () => {
    const choice = convertConverseResponseToChat(fixture('json-tool.response.json'), {
      ...CONTEXT,
      jsonToolName: 'json',
    }).choices[0]!;
    expect(choice.message).toEqual({
      role: 'assistant',
      content: '{"name":"Science fair","date":"Friday"}',
      refusal: null,
    });
    expect(choice.finish_reason).toBe('stop');
  });

  it.each([
    ['max-tokens.response.json', 'length'],
    ['guardrail.response.json', 'content_filter'],
  ])('maps the stop reason of %s to %s', (name, finishReason) => {
    expect(convertConverseResponseToChat(fixture(name), CONTEXT).choices[0]!.finish_reason).toBe(
      finishReason,
    );
  });
});

describe('mapConverseStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['malformed_tool_use', 'stop'],
    ['something_new', 'stop'],
  ])('%s -> %s', (reason, finishReason) => {
    expect(mapConverseStopReason(reason)).toBe(finishReason);
  });
});
