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
import type { RuntimeStore } from '../stores/types.ts';
import type { PriceList } from './prices.ts';
import { computeCostMicros } from './usage.ts';

export interface BalanceState {
  mode: 'prepaid' | 'postpaid';
  /** Prepaid balance in USD micros as last read or written. */
  remainingMicros: number | undefined;
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

  constructor(runtime: RuntimeStore, metrics: GatewayMetrics, log: Logger, prices: PriceList) {
    this.#runtime = runtime;
    this.#metrics = metrics;
    this.#log = log;
    this.#prices = prices;
  }

  /** Reads the balance before forwarding; refuses a prepaid tenant with nothing left. */
  async checkBalance(principal: Principal, byok: boolean): Promise<BalanceState> {
    let remaining: number | undefined;
    try {
      remaining = await this.#runtime.getBalance(principal.tenantId);
    } catch (error) {
      // The runtime store is down: serve rather than refuse (fail open), and say so.
      this.#metrics.billingErrors.inc({ operation: 'read_balance' });
      this.#log.warn({ err: error }, 'balance unavailable: serving without the balance check');
      return { mode: 'postpaid', remainingMicros: undefined };
    }
    const state: BalanceState = {
      mode: remaining === undefined ? 'postpaid' : 'prepaid',
      remainingMicros: remaining,
    };
    if (!byok && remaining !== undefined && remaining <= 0) throw new InsufficientBalanceError();
    return state;
  }

  /** What the usage of `model` (no provider prefix) costs at list prices; counted in the metrics. */
  price(provider: string, model: string, usage: TokenUsage, byok: boolean): number {
    const { price, listed } = this.#prices.priceOf(model);
    if (!listed) this.#metrics.unpricedResponses.inc({ provider });
    const costMicros = computeCostMicros(price, usage);
    this.#metrics.costMicros.inc({ provider, billing: byok ? 'byok' : 'platform' }, costMicros);
    return costMicros;
  }

  /** Debits a platform-key cost (the balance and the spend counter, together); BYOK and zero touch nothing. */
  async charge(
    principal: Principal,
    costMicros: number,
    byok: boolean,
    before: BalanceState,
  ): Promise<Charge> {
    // BYOK: the tenant pays its own provider; nothing is charged to the platform balance.
    if (byok || costMicros === 0) return { costMicros, chargedMicros: 0, balance: before };
    try {
      const [remaining] = await Promise.all([
        before.mode === 'prepaid' ? this.#runtime.adjustBalance(principal.tenantId, -costMicros) : undefined,
        this.#runtime.incrementCounter(spendCounterName(principal.tenantId), costMicros),
      ]);
      return {
        costMicros,
        chargedMicros: costMicros,
        balance: { mode: before.mode, remainingMicros: remaining },
      };
    } catch (error) {
      // The response was served; a lost debit is counted and logged for reconciliation.
      this.#metrics.billingErrors.inc({ operation: 'debit' });
      this.#log.error(
        { err: error, tenantId: principal.tenantId, costMicros },
        'debit failed: runtime store unavailable',
      );
      return { costMicros, chargedMicros: costMicros, balance: before };
    }
  }
}

/** The balance headers of a successful response; `charged` is `deferred` when a stream settles later. */
export function renderBalanceHeaders(
  balance: BalanceState,
  charged: number | 'deferred',
): Record<string, string> {
  const headers: Record<string, string> = {
    [BALANCE_HEADERS.mode]: balance.mode,
    [BALANCE_HEADERS.charged]: String(charged),
    [BALANCE_HEADERS.currency]: 'USD',
  };
  if (balance.remainingMicros !== undefined)
    headers[BALANCE_HEADERS.remaining] = String(balance.remainingMicros);
  return headers;
}
