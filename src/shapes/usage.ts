/**
 * Token usage in the gateway's one normalised form, shared by the translators and plans (which
 * read it off upstream bodies, with the parsers below) and billing (which prices it). Input tokens
 * here are the uncached ones (the exclusive convention); OpenAI's inclusive prompt_tokens are split
 * on the way in.
 */

export interface TokenUsage {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
}

/**
 * A token count from an upstream's usage: a non-negative whole number, 0 for anything else. Lives
 * with the wire types because every translator clamps upstream counts the same way.
 */
export const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

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

/**
 * Responses API `usage` (input_tokens includes cached tokens, and cache writes where an upstream
 * reports them, as `input_tokens_details.cache_write_tokens`).
 */
export function parseResponsesUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const details = record.input_tokens_details as Record<string, unknown> | undefined;
  const cached = count(details?.cached_tokens);
  const written = count(details?.cache_write_tokens);
  return {
    inputTokens: Math.max(0, count(record.input_tokens) - cached - written),
    cachedInputTokens: cached,
    cacheWriteTokens: written,
    outputTokens: count(record.output_tokens),
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
