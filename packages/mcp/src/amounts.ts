/**
 * USD amounts as tools take them: a decimal string (`"2.5"`, converted exactly with the admin SDK's
 * `usdToMicros`) or whole USD micros, never both; and USD micros written for a summary.
 */
import { microsToUsd, UsdAmountError, usdToMicros } from '@inference-gateway/admin';
import { z } from 'zod';
import { ToolInputError } from './tool.ts';

const usdDescription = (what: string) =>
  `${what}, in US dollars as a decimal string ("5", "2.50", "0.000001"); converted exactly to micros.`;
const microsDescription = (what: string) =>
  `${what}, in USD micros (1 USD = 1000000), instead of the USD string.`;

/** An optional USD amount as a decimal string. */
export const usdAmount = (what: string) => z.string().optional().describe(usdDescription(what));

/** An optional USD amount in whole micros. */
export const microsAmount = (what: string) =>
  z.number().int().nonnegative().optional().describe(microsDescription(what));

/** An optional USD amount as a decimal string that null clears. */
export const clearableUsdAmount = (what: string) =>
  z.string().nullable().optional().describe(usdDescription(what));

/** An optional USD amount in whole micros that null clears. */
export const clearableMicrosAmount = (what: string) =>
  z.number().int().nonnegative().nullable().optional().describe(microsDescription(what));

/**
 * The micros of a `{usd, micros}` pair of arguments: undefined when neither is given, null when the
 * given one is null (a cleared value). `names` are the two arguments' names, for the error.
 */
export function microsOf(
  usd: string | null | undefined,
  micros: number | null | undefined,
  names: readonly [usdName: string, microsName: string],
): number | null | undefined {
  if (usd !== undefined && micros !== undefined) {
    throw new ToolInputError(`give ${names[0]} or ${names[1]}, not both`, names);
  }
  if (usd === null) return null;
  if (usd === undefined) return micros;
  try {
    return usdToMicros(usd);
  } catch (error) {
    if (error instanceof UsdAmountError)
      throw new ToolInputError(`${names[0]}: ${error.message}`, [names[0]]);
    throw error;
  }
}

/** `$2.50` for a summary; `no cap` style wording is the caller's. */
export function formatUsd(micros: number): string {
  return `$${microsToUsd(micros)}`;
}
