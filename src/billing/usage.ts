/**
 * Token usage in one normalised form, and the cost of it. Input tokens here are the uncached
 * ones (the exclusive convention); OpenAI's inclusive prompt_tokens are split on the way in.
 */
import { count, type TokenUsage } from '../shapes/usage.ts';
import type { ModelPrice } from './prices.ts';

export { count, type TokenUsage };

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
});

/** OpenAI chat/embeddings `usage` (prompt_tokens includes cached tokens). */
export function parseOpenAiUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const details = record.prompt_tokens_details as Record<string, unknown> | undefined;
  const cached = count(details?.cached_tokens);
  return {
    inputTokens: Math.max(0, count(record.prompt_tokens) - cached),
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: count(record.completion_tokens),
  };
}

/** Anthropic `usage` (input_tokens excludes cache reads and writes). Merges into `into` when given (streams). */
export function parseAnthropicUsage(usage: unknown, into?: TokenUsage): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return into;
  const record = usage as Record<string, unknown>;
  const result = into ?? { ...ZERO_USAGE };
  // Stream usage values are cumulative: set, never add.
  if ('input_tokens' in record) result.inputTokens = count(record.input_tokens);
  if ('cache_read_input_tokens' in record) result.cachedInputTokens = count(record.cache_read_input_tokens);
  if ('cache_creation_input_tokens' in record)
    result.cacheWriteTokens = count(record.cache_creation_input_tokens);
  if ('output_tokens' in record) result.outputTokens = count(record.output_tokens);
  return result;
}

/** Bedrock Converse `usage` (exclusive like Anthropic's: inputTokens leave out cache reads and writes). */
export function parseConverseUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  return {
    inputTokens: count(record.inputTokens),
    cachedInputTokens: count(record.cacheReadInputTokens),
    cacheWriteTokens: count(record.cacheWriteInputTokens),
    outputTokens: count(record.outputTokens),
  };
}

/** Cost in whole USD micros, rounded up so that a non-zero usage never costs nothing. */
export function computeCostMicros(price: ModelPrice, usage: TokenUsage): number {
  const microsTimesMillion =
    usage.inputTokens * price.input +
    usage.cachedInputTokens * price.cachedInput +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return Math.ceil(microsTimesMillion / 1_000_000);
}

/**
 * A fallback when an upstream reports no usage (a stream cut short, a compatible upstream that
 * ignores stream_options): about four characters per token.
 */
export function estimateUsage(requestChars: number, outputChars: number): TokenUsage {
  return {
    inputTokens: Math.ceil(requestChars / 4),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: Math.ceil(outputChars / 4),
  };
}
