/**
 * Option value parsers for commander. A value they refuse becomes commander's usage error (exit 2)
 * naming the option; amounts go through the SDK's exact `usdToMicros` (`2.5` is 2500000 micros,
 * `0.3` is 300000, never 299999.99999999997).
 */
import { UsdAmountError, usdToMicros } from '@inference-gateway/admin';
import { InvalidArgumentError } from 'commander';

/** USD micros of a decimal USD amount (`2.5`, `0.000001`); at most 6 decimals. */
export function parseUsdMicros(value: string): number {
  try {
    return usdToMicros(value);
  } catch (error) {
    if (error instanceof UsdAmountError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

/** A whole number of 1 or more (`600`); no sign, no exponent, no decimals. */
export function parsePositiveInteger(value: string): number {
  const text = value.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1) {
    throw new InvalidArgumentError('expected a whole number of 1 or more');
  }
  return Number(text);
}

/** Collects a repeatable option (`--tag a --tag b`) into a list. */
export function collect(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
