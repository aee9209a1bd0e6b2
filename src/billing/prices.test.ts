import { describe, expect, it } from 'vitest';
import { parseAnthropicUsage, parseOpenAiUsage } from '../shapes/usage.ts';
import { lookupPrice, PriceList, priceAlias } from './prices.ts';
import { computeCostMicros, estimateUsage } from './usage.ts';

describe('priceAlias', () => {
  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['gpt-4o', 'gpt-4o'],
    ['anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-sonnet'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
  ])('prices %s as %s', (model, alias) => {
    expect(priceAlias(model)).toBe(alias);
    expect(lookupPrice(model)).toEqual(lookupPrice(alias));
  });

  it('returns undefined for an unpriced model', () => {
    expect(lookupPrice('no-such-model')).toBeUndefined();
  });
});

describe('computeCostMicros', () => {
  it('charges gpt-4o at $2.50 in, $1.25 cached, $10 out per million', () => {
    const price = lookupPrice('gpt-4o')!;
    const usage = parseOpenAiUsage({
      prompt_tokens: 1000,
      completion_tokens: 500,
      prompt_tokens_details: { cached_tokens: 400 },
    })!;
    expect(usage).toEqual({
      inputTokens: 600,
      cachedInputTokens: 400,
      cacheWriteTokens: 0,
      outputTokens: 500,
    });
    // 600*2.5 + 400*1.25 + 500*10 = 1500 + 500 + 5000 = 7000 micros
    expect(computeCostMicros(price, usage)).toBe(7000);
  });

  it('rounds a tiny usage up to one micro', () => {
    const price = lookupPrice('gpt-4o-mini')!;
    expect(
      computeCostMicros(price, {
        inputTokens: 1,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
      }),
    ).toBe(1);
  });

  it('reads Anthropic usage with cache reads and writes, cumulatively in streams', () => {
    const usage = parseAnthropicUsage({
      input_tokens: 10,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
      output_tokens: 1,
    })!;
    parseAnthropicUsage({ output_tokens: 42 }, usage);
    expect(usage).toEqual({
      inputTokens: 10,
      cachedInputTokens: 100,
      cacheWriteTokens: 20,
      outputTokens: 42,
    });
    // claude-3-5-sonnet: 10*3 + 100*0.3 + 20*3.75 + 42*15 = 30 + 30 + 75 + 630 = 765
    expect(computeCostMicros(lookupPrice('claude-3-5-sonnet-20241022')!, usage)).toBe(765);
  });

  it('estimates about four characters per token', () => {
    expect(estimateUsage(40, 9)).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 3,
    });
  });
});

describe('PriceList', () => {
  const list = new PriceList(
    new Map([
      ['gpt-4o', { input: 1, output: 2 }],
      ['my-model', { input: 3, output: 4, cachedInput: 0.5, cacheWrite: 5 }],
    ]),
    { input: 15, output: 75 },
  );

  it("lets the deployment's prices override the table, for versioned ids too", () => {
    expect(list.priceOf('gpt-4o-2024-08-06')).toEqual({
      price: { input: 1_000_000, output: 2_000_000, cachedInput: 500_000 },
      listed: true,
    });
    expect(list.priceOf('my-model-latest').price).toEqual({
      input: 3_000_000,
      output: 4_000_000,
      cachedInput: 500_000,
      cacheWrite: 5_000_000,
    });
  });

  it('falls back to the table, then to the fallback price', () => {
    expect(list.priceOf('claude-3-5-sonnet-20241022')).toEqual({
      price: lookupPrice('claude-3-5-sonnet')!,
      listed: true,
    });
    expect(list.priceOf('no-such-model')).toEqual({
      price: { input: 15_000_000, output: 75_000_000, cachedInput: 7_500_000 },
      listed: false,
    });
  });
});
