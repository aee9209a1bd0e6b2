/**
 * The cost of a usage (shapes/usage.ts reads usage off the upstreams' answers), and an estimate
 * for when an upstream reports none.
 */
import type { TokenUsage } from '../shapes/usage.ts';
import type { ModelPrice } from './prices.ts';

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

/** Estimated cost of a request before it is sent, at the model's price. */
export function estimateRequestCostMicros(
  price: ModelPrice,
  requestChars: number,
  maxOutputTokens: number,
): number {
  return computeCostMicros(price, {
    inputTokens: Math.ceil(requestChars / 4),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: maxOutputTokens,
  });
}
