/**
 * Token usage in the gateway's one normalised form, shared by the translators (which read it off
 * upstream bodies) and billing (which prices it). Input tokens here are the uncached ones (the
 * exclusive convention); OpenAI's inclusive prompt_tokens are split on the way in.
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
