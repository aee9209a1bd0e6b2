/**
 * Charges platform-key traffic to the tenant and produces the `X-Service-Balance-*` headers.
 *
 * A tenant with a balance record is prepaid: platform-key requests are refused (402) once the
 * balance is at or below zero, and each response is debited. A tenant without one is postpaid:
 * nothing is refused. Either way the spend is counted (`spend:tenant:<id>`). BYOK traffic is not
 * charged to the balance: the tenant pays its own provider.
 */
import type { Principal } from '../auth/principal.ts';
import { InsufficientBalanceError } from '../errors/gateway-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import { isUnavailability } from '../stores/store-breaker.ts';
import type { RuntimeStore } from '../stores/types.ts';
import type { PriceList } from './prices.ts';
import type { SpendJournal } from './spend-journal.ts';
import { computeCostMicros } from './usage.ts';

export interface BalanceState {
  mode: 'prepaid' | 'postpaid';
  /** Prepaid balance in USD micros as last read or written. */
  remainingMicros: number | undefined;
  /** The store could not be read (it was down): the mode is not known, and the request was let through. */
  unread?: boolean;
}

export interface Charge {
  /** What the response cost at list prices (also on BYOK, where a token's own budget still counts it). */
  costMicros: number;
  /** What was charged to the platform balance (0 on BYOK). */
  chargedMicros: number;
  balance: BalanceState;
}

export const BALANCE_HEADERS = {
  mode: 'x-service-balance-mode',
  remaining: 'x-service-balance-remaining-micros',
  charged: 'x-service-balance-charged-micros',
  currency: 'x-service-balance-currency',
} as const;

export function spendCounterName(tenantId: string): string {
  return `spend:tenant:${tenantId}`;
}

export class Accountant {
  readonly #runtime: RuntimeStore;
  readonly #metrics: GatewayMetrics;
  readonly #log: Logger;
  readonly #prices: PriceList;
  readonly #journal: SpendJournal | undefined;

  /** With a journal, a debit the store cannot take is kept and applied later rather than lost. */
  constructor(
    runtime: RuntimeStore,
    metrics: GatewayMetrics,
    log: Logger,
    prices: PriceList,
    journal?: SpendJournal,
  ) {
    this.#runtime = runtime;
    this.#metrics = metrics;
    this.#log = log;
    this.#prices = prices;
    this.#journal = journal;
  }

  /** Reads the balance before forwarding; refuses a prepaid tenant with nothing left. */
  checkBalance(principal: Principal, byok: boolean): Promise<BalanceState> {
    const unreadable = (error: unknown): BalanceState => {
      // The runtime store is down: serve rather than refuse (fail open). Counted; an outage is
      // logged once by the store's breaker, not here on every request.
      this.#metrics.billingErrors.inc({ operation: 'read_balance' });
      if (!isUnavailability(error))
        this.#log.warn({ err: error }, 'balance unreadable: serving without the check');
      return { mode: 'postpaid', remainingMicros: undefined, unread: true };
    };
    let reading: Promise<number | undefined>;
    try {
      reading = this.#runtime.getBalance(principal.tenantId);
    } catch (error) {
      return Promise.resolve(unreadable(error));
    }
    // One promise, not an async function's two: a refusal is thrown from the callback.
    return reading.then((remaining) => {
      if (!byok && remaining !== undefined && remaining <= 0) throw new InsufficientBalanceError();
      return { mode: remaining === undefined ? 'postpaid' : 'prepaid', remainingMicros: remaining };
    }, unreadable);
  }

  /** What the usage of `model` (no provider prefix) costs at list prices; counted in the metrics. */
  price(provider: string, model: string, usage: TokenUsage, byok: boolean): number {
    const { price, listed } = this.#prices.priceOf(model);
    if (!listed) this.#metrics.unpricedResponses.inc({ provider });
    const costMicros = computeCostMicros(price, usage);
    this.#metrics.costMicros.inc({ provider, billing: byok ? 'byok' : 'platform' }, costMicros);
    return costMicros;
  }

  /**
   * Debits a platform-key cost (the balance and the spend counter, together); BYOK and zero touch
   * nothing. Not an async function: a request's charge makes one promise more than its store calls.
   */
  charge(principal: Principal, costMicros: number, byok: boolean, before: BalanceState): Promise<Charge> {
    // BYOK: the tenant pays its own provider; nothing is charged to the platform balance.
    if (byok || costMicros === 0) return Promise.resolve({ costMicros, chargedMicros: 0, balance: before });
    const charged = (remaining: number | undefined): Charge => ({
      costMicros,
      chargedMicros: costMicros,
      balance: remaining === undefined ? before : { mode: before.mode, remainingMicros: remaining },
    });
    const failed = (error: unknown): Charge => {
      // The response was served; a lost debit is counted and logged for reconciliation.
      this.#metrics.billingErrors.inc({ operation: 'debit' });
      this.#log.error(
        { err: error, tenantId: principal.tenantId, costMicros },
        'debit failed: runtime store unavailable',
      );
      return { costMicros, chargedMicros: costMicros, balance: before };
    };
    try {
      // A prepaid tenant's balance is debited even when the balance could not be read before (the
      // store was down: the check failed open); a tenant without a balance record stays postpaid.
      const journal = this.#journal;
      const debited =
        before.mode === 'prepaid' || (journal !== undefined && before.unread === true)
          ? this.#debit(principal.tenantId, costMicros, before)
          : undefined;
      const counted =
        journal === undefined
          ? this.#runtime.incrementCounter(spendCounterName(principal.tenantId), costMicros)
          : journal.apply({ kind: 'counter', name: spendCounterName(principal.tenantId), by: costMicros });
      if (debited === undefined) return counted.then(() => charged(undefined), failed);
      return Promise.all([debited, counted]).then(([remaining]) => charged(remaining), failed);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  }

  /**
   * Debits a prepaid balance; with a journal, a debit the store cannot take is kept for later. A
   * balance that could not be read (the store was down) is debited later, by the journal, and
   * only if the tenant has one: a postpaid tenant must not become prepaid by a replay.
   */
  async #debit(tenantId: string, costMicros: number, before: BalanceState): Promise<number | undefined> {
    const journal = this.#journal;
    if (journal === undefined) return this.#runtime.adjustBalance(tenantId, -costMicros);
    if (before.unread === true) {
      journal.record({ kind: 'balance', tenantId, deltaMicros: -costMicros });
      return undefined;
    }
    return journal.apply({ kind: 'balance', tenantId, deltaMicros: -costMicros });
  }
}
