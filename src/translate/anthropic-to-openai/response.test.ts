import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../shapes/openai.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertChatResponseToAnthropic, convertChatUsage, mapChatFinishReason } from './response.ts';

const fixture = (name: string): ChatCompletion => translatorFixtures('anthropic-to-openai').json(name);

describe('convertChatResponseToAnthropic', () => {
  it('returns the text as a text block and splits cached tokens out of input_tokens', () => {
    expect(convertChatResponseToAnthropic(fixture('text.response.json'))).toEqual({
      id: 'msg_chatcmpl-CJ3kZ8n2QpXyTj6bWvR1mLsd4HfGa',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-mini-2024-07-18',
      content: [
        {
          type: 'text',
          text: 'The README explains how to install, configure and run the inference gateway.',
        },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      // 2381 prompt tokens of which 2304 cached
      usage: {
        input_tokens: 77,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 2304,
        output_tokens: 17,
      },
    });
  });

  it('returns tool calls as tool_use blocks with parsed input', () => {
    const message = convertChatResponseToAnthropic(fixture('tool-calls.response.json'));
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: 'call_qF8m2VxN7pLr4Tz1',
        name: 'get_weather',
        input: { city: 'Paris', unit: 'celsius' },
      },
      {
        type: 'tool_use',
        id: 'call_Hw3Kd9sB6yQe0Jm5',
        name: 'get_weather',
        input: { city: 'Tokyo', unit: 'celsius' },
      },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toEqual({
      input_tokens: 96,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 52,
    });
  });

  it.each([
    ['length.response.json', 'max_tokens'],
    ['content-filter.response.json', 'refusal'],
    ['refusal.response.json', 'refusal'],
    ['json.response.json', 'end_turn'],
  ])('maps the finish of %s to stop_reason %s', (name, stopReason) => {
    expect(convertChatResponseToAnthropic(fixture(name)).stop_reason).toBe(stopReason);
  });

  it('returns a refusal as text and a filtered answer as no content', () => {
    expect(convertChatResponseToAnthropic(fixture('refusal.response.json')).content).toEqual([
      { type: 'text', text: "I'm sorry, I can't help with that request." },
    ]);
    expect(convertChatResponseToAnthropic(fixture('content-filter.response.json')).content).toEqual([]);
  });

  it('returns JSON output verbatim as text', () => {
    expect(convertChatResponseToAnthropic(fixture('json.response.json')).content).toEqual([
      { type: 'text', text: '{"name":"Science fair","date":"Friday","participants":["Alice","Bob"]}' },
    ]);
  });

  it('gives invalid tool arguments an empty input, sanitises ids and uses the given id and model', () => {
    const response = fixture('tool-calls.response.json');
    const call = response.choices[0]?.message.tool_calls?.[0];
    if (call) {
      call.id = 'call:1/a';
      call.function.arguments = '{"city": "Par';
    }
    const message = convertChatResponseToAnthropic(response, {
      messageId: 'msg_01Given',
      model: 'openai/gpt-4.1',
    });
    expect(message.content[0]).toEqual({ type: 'tool_use', id: 'call_1_a', name: 'get_weather', input: {} });
    expect(message.id).toBe('msg_01Given');
    expect(message.model).toBe('openai/gpt-4.1');
  });
});

describe('mapChatFinishReason', () => {
  it('follows the reverse table, end_turn otherwise', () => {
    expect(mapChatFinishReason('stop')).toBe('end_turn');
    expect(mapChatFinishReason('length')).toBe('max_tokens');
    expect(mapChatFinishReason('tool_calls')).toBe('tool_use');
    expect(mapChatFinishReason('content_filter')).toBe('refusal');
    expect(mapChatFinishReason('something_new')).toBe('end_turn');
    expect(mapChatFinishReason(null)).toBe('end_turn');
  });
});

describe('convertChatUsage', () => {
  it('gives zeros for a missing usage and never a negative input count', () => {
    expect(convertChatUsage(undefined)).toEqual({
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    });
    expect(
      convertChatUsage({
        prompt_tokens: 5,
        completion_tokens: 1,
        total_tokens: 6,
        prompt_tokens_details: { cached_tokens: 9 },
      }).input_tokens,
    ).toBe(0);
  });
});
