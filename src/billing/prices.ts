/**
 * Prices in USD micros per million tokens (1 USD = 1,000,000 micros), from the providers' public
 * price lists. Versioned model ids are priced as their alias (`gpt-4o-2024-08-06` as `gpt-4o`).
 * A deployment adds or overrides entries (BILLING_PRICES_FILE) and sets what a model in neither
 * costs (BILLING_FALLBACK_PRICE): a PriceList.
 */
import type { PriceSetting } from '../config/price-settings.ts';
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens (prompt-cache reads). */
  cachedInput: number;
  /** Prompt-cache writes (Anthropic); defaults to the input price. */
  cacheWrite?: number;
}

const usd = (dollarsPerMillion: number) => Math.round(dollarsPerMillion * 1_000_000);

function price(input: number, output: number, cachedInput = input / 2, cacheWrite?: number): ModelPrice {
  return {
    input: usd(input),
    output: usd(output),
    cachedInput: usd(cachedInput),
    ...(cacheWrite === undefined ? {} : { cacheWrite: usd(cacheWrite) }),
  };
}

/** Keyed by model id without provider prefix. */
const TABLE: ReadonlyMap<string, ModelPrice> = new Map([
  ['gpt-4o', price(2.5, 10, 1.25)],
  ['gpt-4o-mini', price(0.15, 0.6, 0.075)],
  ['gpt-4.1', price(2, 8, 0.5)],
  ['gpt-4.1-mini', price(0.4, 1.6, 0.1)],
  ['gpt-4.1-nano', price(0.1, 0.4, 0.025)],
  ['gpt-5', price(1.25, 10, 0.125)],
  ['gpt-5-mini', price(0.25, 2, 0.025)],
  ['gpt-5-nano', price(0.05, 0.4, 0.005)],
  ['o3', price(2, 8, 0.5)],
  ['o4-mini', price(1.1, 4.4, 0.275)],
  ['o3-mini', price(1.1, 4.4, 0.55)],
  ['o1', price(15, 60, 7.5)],
  ['o1-mini', price(1.1, 4.4, 0.55)],
  ['gpt-4-turbo', price(10, 30, 10)],
  ['gpt-4', price(30, 60, 30)],
  ['gpt-3.5-turbo', price(0.5, 1.5, 0.5)],
  ['text-embedding-3-small', price(0.02, 0, 0.02)],
  ['text-embedding-3-large', price(0.13, 0, 0.13)],
  ['text-embedding-ada-002', price(0.1, 0, 0.1)],
  ['claude-3-5-sonnet', price(3, 15, 0.3, 3.75)],
  ['claude-3-7-sonnet', price(3, 15, 0.3, 3.75)],
  ['claude-sonnet-4', price(3, 15, 0.3, 3.75)],
  ['claude-sonnet-4-5', price(3, 15, 0.3, 3.75)],
  ['claude-3-5-haiku', price(0.8, 4, 0.08, 1)],
  ['claude-haiku-4-5', price(1, 5, 0.1, 1.25)],
  ['claude-3-haiku', price(0.25, 1.25, 0.03, 0.3)],
  ['claude-3-sonnet', price(3, 15, 0.3, 3.75)],
  ['claude-3-opus', price(15, 75, 1.5, 18.75)],
  ['claude-opus-4', price(15, 75, 1.5, 18.75)],
  ['claude-opus-4-1', price(15, 75, 1.5, 18.75)],
  ['gemini-2.5-pro', price(1.25, 10, 0.31)],
  ['gemini-2.5-flash', price(0.3, 2.5, 0.075)],
  ['gemini-2.5-flash-lite', price(0.1, 0.4, 0.025)],
  ['gemini-2.0-flash', price(0.1, 0.4, 0.025)],
  ['gemini-2.0-flash-lite', price(0.075, 0.3, 0.075)],
  ['gemini-1.5-pro', price(1.25, 5, 0.3125)],
  ['gemini-1.5-flash', price(0.075, 0.3, 0.01875)],
  ['gemini-embedding-001', price(0.15, 0, 0.15)],
  ['text-embedding-004', price(0.025, 0, 0.025)],
  ['mistral-small-latest', price(0.1, 0.3, 0.1)],
  ['mistral-large-latest', price(2, 6, 2)],
  ['deepseek-chat', price(0.27, 1.1, 0.07)],
  ['llama-3.1-8b-instant', price(0.05, 0.08, 0.05)],
]);

/** Date and revision suffixes that name a snapshot of an alias. */
const VERSION_SUFFIXES = [
  /-\d{4}-\d{2}-\d{2}$/,
  /-\d{8}$/,
  /-\d{4}$/,
  /-latest$/,
  /-v\d+(:\d+)?$/,
  /@\d{8}$/,
];

/**
 * Bedrock ids: an optional cross-region inference-profile prefix, then the vendor
 * (`us.anthropic.claude-3-7-sonnet-20250219-v1:0`); the model is priced as the vendor's own.
 */
const BEDROCK_PREFIX =
  /^(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|writer)\./;

/** The alias a versioned model id is priced as (`claude-3-5-sonnet-20241022` -> `claude-3-5-sonnet`). */
export function priceAlias(model: string): string {
  let current = model.replace(BEDROCK_PREFIX, '');
  // Suffixes can stack (`-20240620-v1:0`): strip until none applies.
  for (let previous = ''; previous !== current; ) {
    previous = current;
    for (const suffix of VERSION_SUFFIXES) current = current.replace(suffix, '');
  }
  return current;
}

/** The price of a model id (no provider prefix), or undefined when the model is not priced. */
export function lookupPrice(model: string): ModelPrice | undefined {
  return TABLE.get(model) ?? TABLE.get(priceAlias(model));
}

/** Converts a price setting (USD per million tokens) to the table's micros. */
export function priceFromSetting(setting: PriceSetting): ModelPrice {
  return price(setting.input, setting.output, setting.cachedInput, setting.cacheWrite);
}

export interface PricedModel {
  price: ModelPrice;
  /** False when the model is in neither the table nor the overrides and the fallback price applies. */
  listed: boolean;
}

/**
 * The deployment's prices: its overrides first (exact id, then alias), then the built-in table,
 * then the fallback price, so that every model served has a price (and a token's budget binds on it).
 */
export class PriceList {
  readonly #overrides: ReadonlyMap<string, ModelPrice>;
  readonly #fallback: ModelPrice;

  constructor(overrides: ReadonlyMap<string, PriceSetting>, fallback: PriceSetting) {
    this.#overrides = new Map([...overrides].map(([model, setting]) => [model, priceFromSetting(setting)]));
    this.#fallback = priceFromSetting(fallback);
  }

  priceOf(model: string): PricedModel {
    const listed =
      this.#overrides.size === 0
        ? lookupPrice(model)
        : (this.#overrides.get(model) ?? this.#overrides.get(priceAlias(model)) ?? lookupPrice(model));
    return listed === undefined ? { price: this.#fallback, listed: false } : { price: listed, listed: true };
  }
}
