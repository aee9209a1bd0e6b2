import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';
import { collectChatStream as collect } from '../test-support/chat-chunk-client.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { encodeAnthropicEvents, fetchServingSse, replaySse, splitEvery } from '../test-support/wire.ts';
import type { ChatResponseContext } from './response.ts';
import { createAnthropicStreamToChatTranslator } from './stream.ts';

const CREATED = 1_761_000_000;
const fixtures = translatorFixtures('openai-to-anthropic');

/** A `.chunks.txt` fixture as the bytes Anthropic sends. */
const anthropicSse = (name: string): Uint8Array => encodeAnthropicEvents(fixtures.lines(name));

/** Feeds the byte chunks through SseEventReader and the translator, as the gateway does. */
const translate = (chunks: Uint8Array[], context: ChatResponseContext = {}): SseEvent[] =>
  replaySse(createAnthropicStreamToChatTranslator({ created: CREATED, ...context }), chunks);

const TEXT_ID = 'msg_01HvJ5WxG8ZQ9YkC2rTqP3aN';
const TEXT_MODEL = 'claude-sonnet-4-5-20250929';
const textChunk = (delta: object, finishReason: string | null = null) => ({
  data: JSON.stringify({
    id: TEXT_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: TEXT_MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  }),
});

describe('createAnthropicStreamToChatTranslator', () => {
  it('translates a text stream: role chunk, content, finish, usage chunk with cache arithmetic, [DONE]', () => {
    const events = translate([anthropicSse('text.chunks.txt')], { includeUsage: true });
    expect(events).toEqual([
      textChunk({ role: 'assistant', content: '' }),
      textChunk({ content: 'Goûtez' }),
      textChunk({ content: ' la tarte aux pralines' }),
      textChunk({ content: ' : une spécialité' }),
      textChunk({ content: ' lyonnaise d’un rose' }),
      textChunk({ content: ' éclatant 🍰' }),
      textChunk({ content: ' — et pour le thé, un sencha 日本茶.' }),
      textChunk({}, 'stop'),
      {
        data: JSON.stringify({
          id: TEXT_ID,
          object: 'chat.completion.chunk',
          created: CREATED,
          model: TEXT_MODEL,
          choices: [],
          // 31 uncached + 2048 read + 1536 written; output is message_delta's cumulative 38
          usage: {
            prompt_tokens: 3615,
            completion_tokens: 38,
            total_tokens: 3653,
            prompt_tokens_details: { cached_tokens: 2048 },
          },
        }),
      },
      { data: '[DONE]' },
    ]);
  });

  it('gives the same events whatever byte boundary splits the upstream stream', () => {
    const bytes = anthropicSse('text.chunks.txt');
    const expected = translate([bytes], { includeUsage: true });
    expect(translate(splitEvery(bytes, 1), { includeUsage: true })).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = translate([bytes.subarray(0, cut), bytes.subarray(cut)], { includeUsage: true });
      expect(events).toEqual(expected);
    }
  });

  it('streams tool_use blocks as tool_calls indexed among tool calls only, with exact arguments', () => {
    const bytes = anthropicSse('tool-use.chunks.txt');
    const expected = translate([bytes]);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(translate([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    const result = collect(translate(splitEvery(bytes, 7)));
    expect(result.content).toBe("I'll look up both cities.");
    expect(result.toolCalls).toEqual([
      {
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        arguments: '{"city": "Paris", "unit": "celsius"}',
      },
      {
        id: 'toolu_01Q8aGXtK6c2jFdNn8yWz7Lr',
        name: 'get_weather',
        arguments: '{"city": "Tōkyō", "unit": "celsius"}',
      },
    ]);
    expect(result.finishReasons).toEqual(['tool_calls']);
    expect(result.done).toBe(true);
    // No include_usage: no usage chunk and no usage field.
    expect(result.usage).toBeUndefined();
    expect(
      result.chunks.every((chunk) => !('usage' in chunk) && chunk.id === 'msg_01Aq9w938a90dw8q2PXdjBmk'),
    ).toBe(true);
    const toolDeltas = result.chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(toolDeltas[1]).toEqual({ index: 0, function: { arguments: '{"city": "Pa' } });
  });

  it('streams the JSON tool as content and finishes with stop', () => {
    const result = collect(
      translate(splitEvery(anthropicSse('json-tool.chunks.txt'), 11), { jsonToolName: 'json' }),
    );
    expect(result.content).toBe(
      '{"name": "Science fair", "date": "Friday", "participants": ["Alice", "Bob"]}',
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReasons).toEqual(['stop']);
  });

  it('maps max_tokens to length', () => {
    const result = collect(
      translate(splitEvery(anthropicSse('max-tokens.chunks.txt'), 3), { includeUsage: true }),
    );
    expect(result.content).toBe('The first picture shows a single white pixel, while the second');
    expect(result.finishReasons).toEqual(['length']);
    expect(result.usage).toEqual({
      prompt_tokens: 1654,
      completion_tokens: 12,
      total_tokens: 1666,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('surfaces an in-stream error event as an error chunk, with no [DONE] and nothing after', () => {
    const events = translate(splitEvery(anthropicSse('mid-stream-error.chunks.txt'), 5), {
      includeUsage: true,
    });
    const result = collect(events);
    expect(result.content).toBe('Here is the start of a long answer');
    expect(result.done).toBe(false);
    expect(events.at(-1)).toEqual({
      data: '{"error":{"code":"service.upstream_error","message":"Overloaded","type":"overloaded_error"}}',
    });
  });

  it('ignores whatever follows the error event or message_stop', () => {
    const translator = createAnthropicStreamToChatTranslator({ created: CREATED });
    const lines = fixtures.lines('mid-stream-error.chunks.txt');
    const events = lines.flatMap((line) => translator.push({ data: line }));
    expect(events.at(-1)?.data).toContain('"error"');
    const late = {
      data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"late"}}',
    };
    expect(translator.push(late)).toEqual([]);
    expect(translator.push({ data: '{"type":"message_stop"}' })).toEqual([]);
    expect(translator.end()).toEqual([]);
  });

  it('reports a stream cut short before its stop reason as an error, and finishes one that only lost message_stop', () => {
    const lines = fixtures.lines('text.chunks.txt');
    const run = (count: number) => {
      const translator = createAnthropicStreamToChatTranslator({ created: CREATED });
      const events = lines.slice(0, count).flatMap((line) => translator.push({ data: line }));
      return [...events, ...translator.end()];
    };
    const cut = collect(run(5));
    expect(cut.error).toEqual({
      code: 'service.upstream_error',
      message: 'the upstream stream ended before the message was complete',
      type: 'api_error',
    });
    expect(cut.done).toBe(false);
    const noStop = collect(run(lines.length - 1));
    expect(noStop.finishReasons).toEqual(['stop']);
    expect(noStop.done).toBe(true);
  });

  it('is read correctly by the official openai client, tool calls included', async () => {
    const events = translate([anthropicSse('tool-use.chunks.txt')], { includeUsage: true });
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: 'http://gateway.test/v1',
      fetch: fetchServingSse(events),
    });
    const stream = client.chat.completions.stream({ model: 'anthropic/claude-opus-4-1', messages: [] });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe("I'll look up both cities.");
    expect(
      message?.tool_calls?.map((call) => call.type === 'function' && JSON.parse(call.function.arguments)),
    ).toEqual([
      { city: 'Paris', unit: 'celsius' },
      { city: 'Tōkyō', unit: 'celsius' },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage?.prompt_tokens).toBe(412);
  });

  it('makes the official openai client throw on the in-stream error', async () => {
    const events = translate([anthropicSse('mid-stream-error.chunks.txt')]);
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: 'http://gateway.test/v1',
      maxRetries: 0,
      fetch: fetchServingSse(events),
    });
    const stream = await client.chat.completions.create({ model: 'anthropic/x', messages: [], stream: true });
    await expect(async () => {
      for await (const _chunk of stream) {
        // drain
      }
    }).rejects.toThrow('Overloaded');
  });
});
