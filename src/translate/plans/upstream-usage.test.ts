import { describe, expect, it } from 'vitest';
import { upstreamUsageReader } from './upstream-usage.ts';

const CACHED = { inputTokens: 10, cachedInputTokens: 2000, cacheWriteTokens: 1000, outputTokens: 4 };

describe('upstreamUsageReader', () => {
  it("reads Anthropic's usage, cache writes included", () => {
    const reader = upstreamUsageReader('anthropic')!;
    expect(
      reader.fromJson({
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 2000,
          cache_creation_input_tokens: 1000,
          output_tokens: 4,
        },
      }),
    ).toEqual(CACHED);
    const stream = reader.stream();
    stream.accept({
      event: 'message_start',
      data: JSON.stringify({
        message: {
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 2000,
            cache_creation_input_tokens: 1000,
            output_tokens: 1,
          },
        },
      }),
    });
    stream.accept({ event: 'message_delta', data: JSON.stringify({ usage: { output_tokens: 4 } }) });
    expect(stream.usage()).toEqual(CACHED);
  });

  it("reads Bedrock Converse's usage from the answer and from the stream's metadata event", () => {
    const reader = upstreamUsageReader('bedrock')!;
    const usage = {
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 3014,
      cacheReadInputTokens: 2000,
      cacheWriteInputTokens: 1000,
    };
    expect(reader.fromJson({ output: {}, stopReason: 'end_turn', usage })).toEqual(CACHED);
    const stream = reader.stream();
    stream.accept({ event: 'messageStop', data: '{"stopReason":"end_turn"}' });
    expect(stream.usage()).toBeUndefined();
    stream.accept({ event: 'metadata', data: JSON.stringify({ usage, metrics: { latencyMs: 5 } }) });
    expect(stream.usage()).toEqual(CACHED);
  });

  it('has no reader for shapes whose usage survives translation whole', () => {
    expect(upstreamUsageReader('openai')).toBeUndefined();
    expect(upstreamUsageReader('gemini')).toBeUndefined();
  });
});
