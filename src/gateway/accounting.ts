/**
 * Settling an answered request (DESIGN section 5, step 8): usage as the upstream reported it
 * (else estimated, and counted), priced and charged to the balance by the accountant, and the
 * request's spend reservation settled with the actual cost. JSON answers and streams both end
 * here; what was reserved and not settled (a hit, an error, an abort) goes back in `releaseUnsettled`.
 */
import type { Accountant, Charge } from '../billing/accountant.ts';
import type { PriceList } from '../billing/prices.ts';
import { estimateRequestCostMicros, estimateUsage } from '../billing/usage.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import type { InferenceExchange, PlannedExchange, ReadyExchange } from './inference-exchange.ts';
import type { JsonObject } from './validate-body.ts';

/** A request's accounting: the cost (known at once) and the charge (the store's answer). */
export interface Accounted {
  costMicros: number;
  /** The usage billed: as the upstream reported it, else estimated. */
  usage: TokenUsage;
  charged: Promise<Charge>;
}

/**
 * Settles the exchange once, with the usage reported (or not) and the output's length. The debit
 * and the reservation's settlement leave together (one round trip), and the cost is there at
 * once, so the caller can write its cache entry in the same round trip.
 */
export function settle(
  exchange: ReadyExchange,
  reported: TokenUsage | undefined,
  outputChars: number,
  deps: { accountant: Accountant; metrics: GatewayMetrics },
): Accounted {
  let usage = reported;
  if (usage === undefined) {
    deps.metrics.estimatedUsage.inc({ route: exchange.routeLabel });
    usage = estimateUsage(exchange.plan.payload.length, outputChars);
  }
  const { principal, route, reservation } = exchange;
  const costMicros = deps.accountant.price(route.provider.name, route.upstreamModel, usage, route.byok);
  const charge = deps.accountant.charge(principal, costMicros, route.byok, exchange.balance);
  const charged = reservation.holding
    ? Promise.all([charge, reservation.settle(costMicros, usage)]).then(([done]) => done)
    : charge;
  for (const observer of exchange.observers) observer.settled(exchange, usage, costMicros);
  return { costMicros, usage, charged };
}

/** Nothing settled it (a hit, an error, an abort): what was reserved goes back. */
export function releaseUnsettled(exchange: InferenceExchange, deps: { log: Logger }): void {
  exchange.reservation?.release((error) =>
    deps.log.error({ err: error }, 'releasing a spend reservation failed'),
  );
}

function maxOutputTokens(body: JsonObject): number {
  // Chat completions, Anthropic Messages, and the Responses API's own name for it.
  const limit = body.max_completion_tokens ?? body.max_tokens ?? body.max_output_tokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

/** What the reservation holds until the answer's cost is known: the planned request, at its model's price. */
export function estimateReservation(exchange: PlannedExchange, deps: { prices: PriceList }): number {
  return estimateRequestCostMicros(
    deps.prices.priceOf(exchange.route.upstreamModel).price,
    exchange.plan.payload.length,
    maxOutputTokens(exchange.body.body),
  );
}
