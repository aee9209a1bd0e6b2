import { describe, expect, it } from 'vitest';
import { convertExclusiveUsageToChat } from './usage.ts';

describe('convertExclusiveUsageToChat', () => {
  it('adds cache reads and writes to the uncached input for prompt_tokens; cached_tokens is the reads', () => {
    expect(convertExclusiveUsageToChat({ input: 31, cacheRead: 2048, cacheWrite: 1536, output: 24 })).toEqual(
      {
        prompt_tokens: 3615,
        completion_tokens: 24,
        total_tokens: 3639,
        prompt_tokens_details: { cached_tokens: 2048 },
      },
    );
  });

  it('counts missing, negative and non-numeric values as zero', () => {
    expect(
      convertExclusiveUsageToChat({ input: 10, cacheRead: undefined, cacheWrite: -3, output: '5' }),
    ).toEqual({
      prompt_tokens: 10,
      completion_tokens: 0,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });
});
