/**
 * USD amounts and the control plane's USD micros (1 USD = 1,000,000 micros), converted exactly:
 * decimal strings are split into digits and combined with integer arithmetic, never through a
 * floating-point number (`0.1 + 0.2` must not become 300000.00000000006 micros).
 */

/** Micros in one US dollar. */
export const MICROS_PER_USD = 1_000_000;

/** A USD amount the SDK cannot convert: not a plain decimal, negative, too precise or too large. */
export class UsdAmountError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'UsdAmountError';
  }
}

/** Digits, optionally a point and 1-6 more (`5`, `2.5`, `0.000001`, `.5`). */
const USD_AMOUNT = /^(\d*)(?:\.(\d+))?$/;

/**
 * USD micros of a decimal string, exactly: `usdToMicros('2.5') === 2_500_000`,
 * `usdToMicros('0.000001') === 1`. Surrounding whitespace is ignored. Throws `UsdAmountError` for
 * anything else: negatives, signs, more than 6 decimals, exponents, thousands separators, currency
 * symbols, an empty string, or an amount above Number.MAX_SAFE_INTEGER micros.
 */
export function usdToMicros(amount: string): number {
  if (typeof amount !== 'string') throw new TypeError('usdToMicros takes the amount as a decimal string');
  const text = amount.trim();
  const match = USD_AMOUNT.exec(text);
  const whole = match?.[1] ?? '';
  const fraction = match?.[2];
  if (match === null || (whole === '' && fraction === undefined)) {
    if (text.startsWith('-')) throw new UsdAmountError('a USD amount cannot be negative');
    throw new UsdAmountError(`'${text.slice(0, 32)}' is not a USD amount (write it like 2.5 or 0.000001)`);
  }
  if (fraction !== undefined && fraction.length > 6) {
    throw new UsdAmountError('a USD amount has at most 6 decimals (1 micro is 0.000001)');
  }
  const micros =
    BigInt(whole === '' ? '0' : whole) * BigInt(MICROS_PER_USD) + BigInt((fraction ?? '').padEnd(6, '0'));
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsdAmountError('the USD amount is too large');
  return Number(micros);
}

/** How `microsToUsd` writes an amount. */
export interface MicrosToUsdOptions {
  /** Decimals always shown (trailing zeros beyond them are dropped); 0-6, default 2. */
  minimumFractionDigits?: number;
}

/**
 * The decimal USD string of an amount of micros, exactly, for display:
 * `microsToUsd(2_500_000) === '2.50'`, `microsToUsd(1) === '0.000001'`,
 * `microsToUsd(-500_000) === '-0.50'`. Its output is accepted by `usdToMicros` (when not negative).
 * Throws a RangeError for a value that is not a safe integer.
 */
export function microsToUsd(micros: number, options: MicrosToUsdOptions = {}): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError('micros must be a whole number (a safe integer)');
  const minimum = options.minimumFractionDigits ?? 2;
  if (!Number.isInteger(minimum) || minimum < 0 || minimum > 6) {
    throw new RangeError('minimumFractionDigits must be 0 to 6');
  }
  const sign = micros < 0 ? '-' : '';
  const absolute = Math.abs(micros);
  const whole = Math.floor(absolute / MICROS_PER_USD);
  let fraction = String(absolute % MICROS_PER_USD).padStart(6, '0');
  while (fraction.length > minimum && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}
