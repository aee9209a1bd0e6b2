/**
 * Usage maths for upstreams that count cache tokens apart from the input ("Usage math" of
 * reference/providers.md section 2; the same convention on Bedrock, section 4).
 */
import type { ChatUsage } from '../../shapes/openai.ts';
import { count } from '../../shapes/usage.ts';

/** One answer's counts in the exclusive convention, under the upstream's own field names. */
export interface ExclusiveTokenCounts {
  /** Uncached input: cache reads and writes are not in it. */
  input: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  output: unknown;
}

/**
 * Exclusive counts -> OpenAI usage, whose prompt_tokens include the cached tokens:
 * prompt = input + cache read + cache write, cached = cache read, completion = output.
 */
export function convertExclusiveUsageToChat(counts: ExclusiveTokenCounts): ChatUsage {
  const cacheRead = count(counts.cacheRead);
  const promptTokens = count(counts.input) + cacheRead + count(counts.cacheWrite);
  const completionTokens = count(counts.output);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}
