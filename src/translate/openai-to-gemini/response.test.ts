import { describe, expect, it } from 'vitest';
import type { GeminiGenerateContentResponse } from '../../shapes/gemini.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import {
  convertGeminiResponseToChat,
  type GeminiResponseContext,
  mapGeminiFinishReason,
  parseGeminiUsage,
} from './response.ts';

const fixture = (name: string): GeminiGenerateContentResponse =>
  translatorFixtures('openai-to-gemini').json(name);

const sequentialIds = (): (() => string) => {
  let next = 0;
  return () => `id${++next}`;
};

const context = (): GeminiResponseContext => ({
  model: 'gemini-fallback',
  created: 1_760_000_000,
  generateId: sequentialIds(),
});

const convert = (name: string) => convertGeminiResponseToChat(fixture(name), context());

describe('convertGeminiResponseToChat', () => {
  it('converts a text answer, with thoughts counted as reasoning output', () => {
    expect(convert('text.response.json')).toEqual({
      id: 'chatcmpl-l3mOaK2VNMXYnsEPwd6J8Ak',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              "The capital of France is Paris. It has been the country's capital since 987 AD, apart from a few short interruptions.",
            refusal: null,
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 11,
        completion_tokens: 27 + 374,
        total_tokens: 412,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 374 },
      },
    });
  });

  it('converts parallel function calls to tool_calls with generated ids and JSON-string arguments', () => {
    const completion = convert('tool-call.response.json');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: 'call_id1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
            },
            {
              id: 'call_id2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('keeps text next to a function call and nested arguments intact', () => {
    const [choice] = convert('text-and-tool-call.response.json').choices;
    expect(choice?.message.content).toBe('Let me look that up for you.');
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(JSON.parse(choice?.message.tool_calls?.[0]?.function.arguments ?? '')).toEqual({
      from: 'SFO',
      to: 'NRT',
      date: '2025-11-03',
      passengers: 2,
      filters: { nonstop: true, cabin: 'economy' },
    });
  });

  it('uses a function call id when Gemini sends one', () => {
    const completion = convertGeminiResponseToChat(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { id: 'fc_7', name: 'noop' } }] },
            finishReason: 'STOP',
          },
        ],
      },
      context(),
    );
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'fc_7', type: 'function', function: { name: 'noop', arguments: '{}' } },
    ]);
    expect(completion.id).toBe('chatcmpl-id1');
    expect(completion.model).toBe('gemini-fallback');
    expect(completion.usage).toBeUndefined();
  });

  it.each([
    [
      'max-tokens.response.json',
      'length',
      'Once upon a time, in a kingdom by the sea, there lived a lighthouse keeper who',
    ],
    ['safety.response.json', 'content_filter', null],
    ['recitation.response.json', 'content_filter', 'It was the best of times, it was the worst of times,'],
    ['malformed-function-call.response.json', 'stop', null],
    [
      'json-output.response.json',
      'stop',
      '{\n  "name": "Ada Lovelace",\n  "born": 1815,\n  "fields": ["mathematics", "computing"],\n  "spouse": null\n}',
    ],
    [
      'image.response.json',
      'stop',
      'A tabby cat is curled up asleep on a sunlit windowsill next to a potted basil plant.',
    ],
  ])('converts %s to finish_reason %s', (name, finishReason, content) => {
    const [choice] = convert(name).choices;
    expect(choice?.finish_reason).toBe(finishReason);
    expect(choice?.message.content).toBe(content);
  });

  it('answers a blocked prompt as a 200-shaped completion with content_filter and no content', () => {
    const completion = convert('blocked-prompt.response.json');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null },
        logprobs: null,
        finish_reason: 'content_filter',
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 0,
      total_tokens: 9,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('reports cached prompt tokens inside prompt_tokens, as OpenAI does', () => {
    expect(convert('cached-usage.response.json').usage).toEqual({
      prompt_tokens: 45_120,
      completion_tokens: 21 + 208,
      total_tokens: 45_349,
      prompt_tokens_details: { cached_tokens: 44_800 },
      completion_tokens_details: { reasoning_tokens: 208 },
    });
  });

  it('converts several candidates to choices by index', () => {
    const completion = convert('two-candidates.response.json');
    expect(completion.choices.map((choice) => [choice.index, choice.message.content])).toEqual([
      [0, 'Sunrise over quiet hills.'],
      [1, 'Morning light on silent peaks.'],
    ]);
  });

  it('leaves thought summaries out of the content', () => {
    const completion = convertGeminiResponseToChat(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: '42' }] },
            finishReason: 'STOP',
          },
        ],
      },
      context(),
    );
    expect(completion.choices[0]?.message.content).toBe('42');
  });
});

describe('mapGeminiFinishReason', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['OTHER', false, 'stop'],
    ['SOMETHING_NEW', false, 'stop'],
    [undefined, true, 'tool_calls'],
  ] as const)('maps %s (function call seen: %s) to %s', (reason, sawCall, expected) => {
    expect(mapGeminiFinishReason(reason, sawCall)).toBe(expected);
  });
});

describe('parseGeminiUsage', () => {
  it('splits inclusive prompt tokens into uncached and cached for billing', () => {
    expect(parseGeminiUsage(fixture('cached-usage.response.json').usageMetadata)).toEqual({
      inputTokens: 320,
      cachedInputTokens: 44_800,
      cacheWriteTokens: 0,
      outputTokens: 229,
    });
  });

  it('adds tool-use prompt tokens to the prompt and is undefined without usage', () => {
    expect(
      parseGeminiUsage({ promptTokenCount: 10, toolUsePromptTokenCount: 5, candidatesTokenCount: 2 }),
    ).toEqual({
      inputTokens: 15,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 2,
    });
    expect(parseGeminiUsage(undefined)).toBeUndefined();
  });
});
