/**
 * Checks shared by the runtime stores for balances and counters, so that memory and Redis refuse
 * the same inputs.
 */
import type { SpendChange } from './types.ts';

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

/** Checks a journaled spend change and its operation id. */
export function assertSpendChange(change: SpendChange, operationId: string): void {
  if (typeof operationId !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(operationId))
    throw new TypeError('operationId must be 8 to 64 of [A-Za-z0-9_-]');
  if (change.kind === 'balance') {
    if (typeof change.tenantId !== 'string' || change.tenantId === '')
      throw new TypeError('tenantId must be a non-empty string');
    assertSafeInteger('deltaMicros', change.deltaMicros);
    return;
  }
  if (change.kind !== 'counter' || typeof change.name !== 'string' || change.name === '')
    throw new TypeError('a spend change is a balance or a named counter');
  assertSafeInteger('by', change.by);
  assertTtlSeconds(change.ttlSeconds);
}
