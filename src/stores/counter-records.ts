/**
 * Checks shared by the runtime stores for balances and counters, so that memory and Redis refuse
 * the same inputs.
 */

export function assertSafeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be a safe integer, got ${value}`);
}

export function assertTtlSeconds(ttlSeconds: number | undefined): void {
  if (ttlSeconds !== undefined && (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0)) {
    throw new TypeError(`ttlSeconds must be a positive integer, got ${ttlSeconds}`);
  }
}

/** The arguments of reserveWithinCap and reserveUpToCap. */
export function assertReservation(amount: number, cap: number, ttlSeconds: number | undefined): void {
  assertSafeInteger('amount', amount);
  assertSafeInteger('cap', cap);
  assertTtlSeconds(ttlSeconds);
}
