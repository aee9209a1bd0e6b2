/**
 * Accounting for an answered request (DESIGN section 5, step 8): usage as the upstream reported it
 * (else estimated, and counted), priced and charged to the balance by the accountant, and the
 * request's spend reservation settled with the actual cost. JSON answers and streams both end here.
 */
import type { Principal } from '../auth/principal.ts';
import type { Accountant, BalanceState, Charge } from '../billing/accountant.ts';
import type { SpendReservation } from '../billing/spend-reservation.ts';
import { estimateUsage } from '../billing/usage.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import type { TokenUsage } from '../shapes/usage.ts';

/** What one request's accounting needs to know about it. */
export interface AccountingContext {
  principal: Principal;
  route: ResolvedRoute;
  routeLabel: string;
  balance: BalanceState;
  reservation: SpendReservation;
  /** Characters of the upstream request, for an estimate when no usage comes back. */
  requestChars: number;
}

/** A request's accounting: the cost (known at once) and the charge (the store's answer). */
export interface Accounted {
  costMicros: number;
  /** The usage billed: as the upstream reported it, else estimated. */
  usage: TokenUsage;
  charged: Promise<Charge>;
}

export type AccountFor = (reported: TokenUsage | undefined, outputChars: number) => Accounted;

/**
 * The accounting of one request: call it once, with the usage reported (or not) and the output's
 * length. The debit and the reservation's settlement leave together (one round trip), and the
 * cost is there at once, so the caller can write its cache entry in the same round trip.
 */
export function createAccounting(
  deps: { accountant: Accountant; metrics: GatewayMetrics },
  context: AccountingContext,
): AccountFor {
  return (reported, outputChars) => {
    let usage = reported;
    if (usage === undefined) {
      deps.metrics.estimatedUsage.inc({ route: context.routeLabel });
      usage = estimateUsage(context.requestChars, outputChars);
    }
    const { principal, route } = context;
    const costMicros = deps.accountant.price(route.provider.name, route.upstreamModel, usage, route.byok);
    const charge = deps.accountant.charge(principal, costMicros, route.byok, context.balance);
    const { reservation } = context;
    const charged = reservation.holding
      ? Promise.all([charge, reservation.settle(costMicros, usage)]).then(([done]) => done)
      : charge;
    return { costMicros, usage, charged };
  };
}
