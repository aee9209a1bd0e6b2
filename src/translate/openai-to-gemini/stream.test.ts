import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { encodeDataEvents, replaySse, splitEvery } from '../test-support/wire.ts';
import { createGeminiStreamTranslator, type GeminiStreamOptions } from './stream.ts';

const fixturesDirectory = new URL('./__fixtures__/', import.meta.url);

/** A `.chunks.txt` fixture: one upstream event payload per line. */
const fixtureLines = translatorFixtures('openai-to-gemini').lines;

/** The bytes Google sends for those events: `data: …` frames separated by CRLF blank lines. */
const wireBytes = (lines: string[], separator = '\r\n'): Uint8Array => encodeDataEvents(lines, separator);

const options = (fields: Partial<GeminiStreamOptions> = {}): GeminiStreamOptions => {
  let next = 0;
  return {
    model: 'gemini-fallback',
    created: 1_760_000_000,
    includeUsage: true,
    generateId: () => `id${++next}`,
    ...fields,
  };
};

/** Feeds the bytes in the given pieces through SseEventReader and a fresh translator. */
function replay(pieces: Iterable<Uint8Array>, streamOptions = options()) {
  const translator = createGeminiStreamTranslator(streamOptions);
  return { events: replaySse(translator, pieces), translator };
}

const everyByte = (bytes: Uint8Array): Uint8Array[] => splitEvery(bytes, 1);

/** Pieces of pseudo-random length (1–23 bytes) from a seeded generator, so failures reproduce. */
function* randomPieces(bytes: Uint8Array, seed: number): Iterable<Uint8Array> {
  let state = seed;
  let offset = 0;
  while (offset < bytes.length) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const size = 1 + (state % 23);
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

interface Collected {
  text: string[];
  toolCalls: { id?: string; name?: string; arguments: string }[][];
  finishReasons: (string | null)[];
  usageChunks: ChatCompletionChunk[];
  errors: unknown[];
  done: boolean;
  chunks: ChatCompletionChunk[];
}

/** What an OpenAI client assembles from the events: text and arguments concatenated per index. */
function collect(events: SseEvent[]): Collected {
  const collected: Collected = {
    text: [],
    toolCalls: [],
    finishReasons: [],
    usageChunks: [],
    errors: [],
    done: false,
    chunks: [],
  };
  for (const event of events) {
    expect(collected.done, 'nothing may follow [DONE]').toBe(false);
    if (event.data === '[DONE]') {
      collected.done = true;
      continue;
    }
    const parsed = JSON.parse(event.data) as ChatCompletionChunk & { error?: unknown };
    if (parsed.error !== undefined) {
      collected.errors.push(parsed.error);
      continue;
    }
    collected.chunks.push(parsed);
    if (parsed.choices.length === 0) collected.usageChunks.push(parsed);
    for (const choice of parsed.choices) {
      collected.text[choice.index] = (collected.text[choice.index] ?? '') + (choice.delta.content ?? '');
      for (const call of choice.delta.tool_calls ?? []) {
        const calls = collected.toolCalls[choice.index] ?? [];
        collected.toolCalls[choice.index] = calls;
        const entry = calls[call.index] ?? { arguments: '' };
        calls[call.index] = entry;
        if (call.id !== undefined) entry.id = call.id;
        if (call.function?.name !== undefined) entry.name = call.function.name;
        entry.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason !== null) collected.finishReasons[choice.index] = choice.finish_reason;
    }
  }
  return collected;
}

const TEXT =
  'Crème brûlée is a custard dessert topped with a layer of caramelised sugar — the crust cracks under a spoon. ' +
  '日本語では「クレーム・ブリュレ」と呼ばれます 🍮.';

describe('createGeminiStreamTranslator', () => {
  it('writes role, text deltas, finish, usage and [DONE] for a text stream', () => {
    const { events, translator } = replay([wireBytes(fixtureLines('text.chunks.txt'))]);
    const base = {
      id: 'chatcmpl-tIOOaJKHKbKfnsEPnPfg-Qs',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: 'gemini-2.5-flash',
    };
    const choice = (delta: object, finishReason: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      usage: null,
    });
    expect(events.map((event) => (event.data === '[DONE]' ? event.data : JSON.parse(event.data)))).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Crème brûlée' }),
      choice({
        content:
          ' is a custard dessert topped with a layer of caramelised sugar — the crust cracks under a spoon. ',
      }),
      choice({ content: '日本語では「クレーム・ブリュレ」と呼ばれます 🍮' }),
      choice({ content: '.' }),
      choice({}, 'stop'),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 41 + 235,
          total_tokens: 286,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 235 },
        },
      },
      '[DONE]',
    ]);
    expect(translator.completed()).toBe(true);
    expect(translator.usage()).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 276,
    });
  });

  it('gives the same events and exact text when the text stream is split at every byte', () => {
    const bytes = wireBytes(fixtureLines('text.chunks.txt'));
    const whole = replay([bytes]).events;
    const byteByByte = replay(everyByte(bytes)).events;
    expect(byteByByte).toEqual(whole);
    const collected = collect(byteByByte);
    expect(collected.text).toEqual([TEXT]);
    expect(collected.finishReasons).toEqual(['stop']);
    expect(collected.done).toBe(true);
  });

  it('streams a function call whole, and finishes with tool_calls when STOP arrives in a later chunk', () => {
    const lines = fixtureLines('tool-call.chunks.txt');
    const collected = collect(replay([wireBytes(lines)]).events);
    expect(collected.text).toEqual(["I'll check the weather in Paris."]);
    expect(collected.toolCalls).toEqual([
      [
        {
          id: 'call_id1',
          name: 'get_weather',
          arguments: '{"city":"Paris","unit":"celsius","days":[1,2],"note":"naïve \\"quote\\" \\\\ slash"}',
        },
      ],
    ]);
    expect(JSON.parse(collected.toolCalls[0]?.[0]?.arguments ?? '')).toEqual({
      city: 'Paris',
      unit: 'celsius',
      days: [1, 2],
      note: 'naïve "quote" \\ slash',
    });
    expect(collected.finishReasons).toEqual(['tool_calls']);
    expect(collected.usageChunks[0]?.usage?.completion_tokens).toBe(31 + 112);
  });

  it('gives identical events for the tool-call stream split in two at every byte boundary, and byte by byte', () => {
    const bytes = wireBytes(fixtureLines('tool-call.chunks.txt'));
    const whole = replay([bytes]).events;
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const split = replay([bytes.subarray(0, cut), bytes.subarray(cut)]).events;
      if (JSON.stringify(split) !== JSON.stringify(whole))
        expect.fail(`events differ when split at byte ${cut}`);
    }
    expect(replay(everyByte(bytes)).events).toEqual(whole);
  });

  it('numbers parallel function calls 0 and 1 with distinct ids', () => {
    const collected = collect(replay([wireBytes(fixtureLines('parallel-tool-calls.chunks.txt'))]).events);
    expect(collected.toolCalls).toEqual([
      [
        { id: 'call_id1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_id2', name: 'get_time', arguments: '{"timezone":"Asia/Tokyo"}' },
      ],
    ]);
    expect(collected.text).toEqual(['']);
    expect(collected.finishReasons).toEqual(['tool_calls']);
  });

  it('leaves thought summaries out and reports cached and reasoning tokens from the last usage', () => {
    const { events, translator } = replay([wireBytes(fixtureLines('thinking.chunks.txt'))]);
    const collected = collect(events);
    expect(collected.text).toEqual(['17 × 24 = 408.']);
    expect(collected.usageChunks.map((chunk) => chunk.usage)).toEqual([
      {
        prompt_tokens: 1030,
        completion_tokens: 129,
        total_tokens: 1159,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 120 },
      },
    ]);
    expect(translator.usage()).toEqual({
      inputTokens: 6,
      cachedInputTokens: 1024,
      cacheWriteTokens: 0,
      outputTokens: 129,
    });
  });

  it('finishes with length on MAX_TOKENS', () => {
    const collected = collect(replay([wireBytes(fixtureLines('max-tokens.chunks.txt'))]).events);
    expect(collected.text).toEqual([
      'Once upon a time, in a kingdom by the sea, there lived a lighthouse keeper who',
    ]);
    expect(collected.finishReasons).toEqual(['length']);
  });

  it('answers a blocked prompt with an empty choice finished by content_filter', () => {
    const { events, translator } = replay([wireBytes(fixtureLines('blocked-prompt.chunks.txt'))]);
    const collected = collect(events);
    expect(collected.text).toEqual(['']);
    expect(collected.finishReasons).toEqual(['content_filter']);
    expect(collected.done).toBe(true);
    expect(translator.completed()).toBe(true);
  });

  it('turns an in-stream error into an OpenAI error chunk and writes no [DONE] after it', () => {
    const { events, translator } = replay([wireBytes(fixtureLines('mid-stream-error.chunks.txt'))]);
    const collected = collect(events);
    expect(collected.text).toEqual(['The first three primes are 2, 3']);
    expect(collected.errors).toEqual([
      {
        code: 'service.upstream_error',
        message: 'The model is overloaded. Please try again later.',
        type: 'api_error',
      },
    ]);
    expect(collected.finishReasons).toEqual([]);
    expect(collected.done).toBe(false);
    expect(translator.failure()?.statusCode).toBe(503);
    expect(translator.completed()).toBe(false);
  });

  it('writes no usage fields and no usage chunk when the client did not ask for usage', () => {
    const { events } = replay([wireBytes(fixtureLines('text.chunks.txt'))], options({ includeUsage: false }));
    const collected = collect(events);
    expect(collected.usageChunks).toEqual([]);
    expect(collected.chunks.every((chunk) => !('usage' in chunk))).toBe(true);
    expect(collected.done).toBe(true);
  });

  it('accepts LF framing as well as CRLF', () => {
    const lines = fixtureLines('text.chunks.txt');
    expect(replay([wireBytes(lines, '\n')]).events).toEqual(replay([wireBytes(lines)]).events);
  });

  it('reports an unreadable event and an empty stream as errors', () => {
    const garbled = collect(replay([new TextEncoder().encode('data: {"candidates": [\r\n\r\n')]).events);
    expect(garbled.errors).toEqual([
      {
        code: 'service.upstream_error',
        message: 'Gemini sent an unreadable stream event',
        type: 'api_error',
      },
    ]);
    expect(garbled.done).toBe(false);
    const empty = replay([]);
    expect(collect(empty.events).errors).toHaveLength(1);
    expect(empty.translator.failure()?.statusCode).toBe(502);
  });

  it('ends a stream cut short before any finishReason with an error chunk instead of [DONE]', () => {
    const lines = fixtureLines('text.chunks.txt').slice(0, 2);
    const { events, translator } = replay([wireBytes(lines)]);
    const collected = collect(events);
    expect(collected.text).toEqual([
      'Crème brûlée is a custard dessert topped with a layer of caramelised sugar — the crust cracks under a spoon. ',
    ]);
    expect(collected.errors).toEqual([
      {
        code: 'service.upstream_error',
        message: 'Gemini closed the stream before the answer was complete',
        type: 'api_error',
      },
    ]);
    expect(collected.finishReasons).toEqual([]);
    expect(collected.done).toBe(false);
    expect(translator.completed()).toBe(false);
    expect(translator.usage()).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 235,
    });
  });

  it('keeps one id and model across all chunks, the fallback model only when Gemini names none', () => {
    const { events } = replay([
      new TextEncoder().encode(
        'data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\r\n\r\n' +
          'data: {"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}]}\r\n\r\n',
      ),
    ]);
    const chunks = collect(events).chunks;
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-id1']));
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['gemini-fallback']));
  });

  it.each(readdirSync(fixturesDirectory).filter((name) => name.endsWith('.chunks.txt')))(
    'gives the same events for %s however the bytes are cut',
    (name) => {
      const bytes = wireBytes(fixtureLines(name));
      const whole = replay([bytes]).events;
      for (const seed of [1, 7, 42, 1234]) expect(replay(randomPieces(bytes, seed)).events).toEqual(whole);
      expect(replay(everyByte(bytes)).events).toEqual(whole);
    },
  );
});
