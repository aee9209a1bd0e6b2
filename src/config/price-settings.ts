/**
 * Model prices from the environment: BILLING_PRICES_FILE (a table) and BILLING_FALLBACK_PRICE.
 * Part of Settings (settings.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SettingsError } from './settings-error.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A model's price in USD per million tokens (BILLING_PRICES_FILE entries, BILLING_FALLBACK_PRICE). */
export interface PriceSetting {
  input: number;
  output: number;
  /** Prompt-cache reads; half the input price when absent. */
  cachedInput?: number;
  /** Prompt-cache writes; the input price when absent. */
  cacheWrite?: number;
}

const PRICE_FIELDS = ['input', 'output', 'cachedInput', 'cacheWrite'] as const;

function readPriceSetting(value: unknown, where: string): PriceSetting {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SettingsError(`${where} must be an object with input and output prices`);
  const record = value as Record<string, unknown>;
  const setting: Record<string, number> = {};
  for (const field of Object.keys(record)) {
    if (!(PRICE_FIELDS as readonly string[]).includes(field))
      throw new SettingsError(`${where} has an unknown field '${field}' (known: ${PRICE_FIELDS.join(', ')})`);
    const amount = record[field];
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > 1_000_000)
      throw new SettingsError(
        `${where}.${field} must be a number of USD per million tokens from 0 to 1000000`,
      );
    setting[field] = amount;
  }
  if (setting.input === undefined || setting.output === undefined)
    throw new SettingsError(`${where} needs both input and output`);
  return setting as unknown as PriceSetting;
}

/** BILLING_PRICES_FILE: a YAML or JSON map of model id to prices in USD per million tokens. */
export function readBillingPrices(env: Env, cwd: string): ReadonlyMap<string, PriceSetting> {
  const file = env.BILLING_PRICES_FILE?.trim();
  if (!file) return new Map();
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(resolve(cwd, file), 'utf8'));
  } catch (error) {
    throw new SettingsError(`BILLING_PRICES_FILE cannot be read: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new SettingsError('BILLING_PRICES_FILE must map model ids to prices');
  const prices = new Map<string, PriceSetting>();
  for (const [model, value] of Object.entries(parsed))
    prices.set(model, readPriceSetting(value, `BILLING_PRICES_FILE '${model}'`));
  return prices;
}

/**
 * BILLING_FALLBACK_PRICE: `input,output` USD per million tokens for models nobody priced. The default
 * is the table's top (Claude Opus), so that an unknown model never costs the platform more than it
 * charges; `0,0` serves such models free.
 */
export function readFallbackPrice(env: Env): PriceSetting {
  const raw = env.BILLING_FALLBACK_PRICE?.trim() || '15,75';
  const parts = raw.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 2 || parts.some((part) => !Number.isFinite(part) || part < 0 || part > 1_000_000))
    throw new SettingsError(
      `BILLING_FALLBACK_PRICE must be 'input,output' in USD per million tokens, got '${raw}'`,
    );
  return { input: parts[0]!, output: parts[1]! };
}
