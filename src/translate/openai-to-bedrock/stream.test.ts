import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';
import { collectChatStream as collect } from '../test-support/chat-chunk-client.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { encodeAwsEventStream, replayAwsEventStream } from '../test-support/wire.ts';
import type { ConverseResponseContext } from './response.ts';
import { createConverseStreamTranslator } from './stream.ts';

const CONTEXT = {
  id: 'chatcmpl-test',
  model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  created: 1_761_000_000,
};
const fixtures = translatorFixtures('openai-to-bedrock');

/** A `.chunks.txt` fixture (one decoded frame per line) as the bytes Bedrock sends. */
const bedrockStream = (name: string): Uint8Array => encodeAwsEventStream(fixtures.lines(name));

/** Feeds byte chunks through the event-stream reader and the translator, as the gateway does. */
const translate = (chunks: Uint8Array[], context: ConverseResponseContext = CONTEXT): SseEvent[] =>
  replayAwsEventStream(createConverseStreamTranslator(context), chunks);

const STREAMS = [
  'text.chunks.txt',
  'tool-use.chunks.txt',
  'json-tool.chunks.txt',
  'max-tokens.chunks.txt',
  'mid-stream-error.chunks.txt',
];

describe('createConverseStreamTranslator', () => {
  it('streams text: role chunk, content, finish chunk, usage chunk with cache arithmetic, [DONE]', () => {
    const events = translate([bedrockStream('text.chunks.txt')], { ...CONTEXT, includeUsage: true });
    const collected = collect(events);
    expect(collected.content).toBe('Goûtez la tarte aux pralines 🍰.');
    expect(collected.finishReasons).toEqual(['stop']);
    expect(collected.done).toBe(true);
    expect(collected.chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(collected.chunks.every((chunk) => chunk.id === 'chatcmpl-test')).toBe(true);
    expect(collected.chunks.every((chunk) => chunk.model === CONTEXT.model)).toBe(true);
    const usageChunk = collected.chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 3615,
      completion_tokens: 24,
      total_tokens: 3639,
      prompt_tokens_details: { cached_tokens: 2048 },
    });
    // Every chunk but the usage chunk carries usage: null.
    expect(collected.chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('sends no usage chunk unless asked', () => {
    const collected = collect(translate([bedrockStream('text.chunks.txt')]));
    expect(collected.usage).toBeUndefined();
    expect(collected.chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage === undefined)).toBe(
      true,
    );
    expect(collected.done).toBe(true);
  });

  it('streams tool calls with their own 0-based index (block indexes count text and reasoning too)', () => {
    const collected = collect(translate([bedrockStream('tool-use.chunks.txt')]));
    expect(collected.content).toBe("I'll look up both cities.");
    expect(collected.toolCalls).toEqual([
      {
        id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
        name: 'get_weather',
        arguments: '{"city": "Paris", "unit": "celsius"}',
      },
      {
        id: 'tooluse_pGp3vEGtTjmqyhvbGlMhNg',
        name: 'get_weather',
        arguments: '{"city": "Tokyo", "unit": "celsius"}',
      },
    ]);
    expect(collected.finishReasons).toEqual(['tool_calls']);
    const firstCall = collected.chunks.find((chunk) => chunk.choices[0]?.delta.tool_calls !== undefined)!;
    expect(firstCall.choices[0]!.delta.tool_calls).toEqual([
      {
        index: 0,
        id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ]);
  });

  it("streams the json tool's input as content and finishes with stop", () => {
    const collected = collect(
      translate([bedrockStream('json-tool.chunks.txt')], { ...CONTEXT, jsonToolName: 'json' }),
    );
    expect(collected.content).toBe('{"name": "Science fair", "date": "Friday"}');
    expect(collected.toolCalls).toEqual([]);
    expect(collected.finishReasons).toEqual(['stop']);
  });

  it('maps max_tokens to length', () => {
    expect(collect(translate([bedrockStream('max-tokens.chunks.txt')])).finishReasons).toEqual(['length']);
  });

  it('turns an exception frame into the error chunk and ends without [DONE]', () => {
    const collected = collect(translate([bedrockStream('mid-stream-error.chunks.txt')]));
    expect(collected.content).toBe('Lyon is');
    expect(collected.done).toBe(false);
    expect(collected.error).toEqual({
      code: 'service.upstream_error',
      message: 'ThrottlingException: Too many tokens, please wait before trying again.',
      type: 'rate_limit_error',
    });
  });

  it('reports a stream cut short before messageStop as an error', () => {
    const bytes = bedrockStream('text.chunks.txt');
    const frames = [...bytesToFrames(bytes)];
    const collected = collect(translate(frames.slice(0, 3)));
    expect(collected.done).toBe(false);
    expect(collected.error?.type).toBe('api_error');
  });

  it('finishes a stream that lost only its metadata frame', () => {
    const frames = [...bytesToFrames(bedrockStream('text.chunks.txt'))];
    const collected = collect(translate(frames.slice(0, -1), { ...CONTEXT, includeUsage: true }));
    expect(collected.finishReasons).toEqual(['stop']);
    expect(collected.usage).toBeUndefined();
    expect(collected.done).toBe(true);
  });

  describe.each(STREAMS)('%s split at awkward byte boundaries', (name) => {
    const bytes = bedrockStream(name);
    const whole = translate([bytes], { ...CONTEXT, includeUsage: true });

    it('gives the same events when split in two at every byte', () => {
      for (let cut = 1; cut < bytes.length; cut++) {
        const split = translate([bytes.subarray(0, cut), bytes.subarray(cut)], {
          ...CONTEXT,
          includeUsage: true,
        });
        if (JSON.stringify(split) !== JSON.stringify(whole))
          expect.fail(`events differ when cut at byte ${cut}`);
      }
    });

    it('gives the same events when fed one byte at a time', () => {
      const bytewise = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
      expect(translate(bytewise, { ...CONTEXT, includeUsage: true })).toEqual(whole);
    });
  });
});

/** Cuts an encoded stream into its frames (each frame starts with its total length). */
function* bytesToFrames(bytes: Uint8Array): Generator<Uint8Array> {
  let offset = 0;
  while (offset < bytes.length) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
    yield bytes.subarray(offset, offset + total);
    offset += total;
  }
}
