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

export type AccountFor = (reported: TokenUsage | undefined, outputChars: number) => Promise<Charge>;

/** The accounting of one request: call it once, with the usage reported (or not) and the output's length. */
export function createAccounting(
  deps: { accountant: Accountant; metrics: GatewayMetrics },
  context: AccountingContext,
): AccountFor {
  return async (reported, outputChars) => {
    let usage = reported;
    if (usage === undefined) {
      deps.metrics.estimatedUsage.inc({ route: context.routeLabel });
      usage = estimateUsage(context.requestChars, outputChars);
    }
    const { principal, route } = context;
    const charge = await deps.accountant.settle(
      principal,
      route.provider.name,
      route.upstreamModel,
      usage,
      route.byok,
      context.balance,
    );
    await context.reservation.settle(charge.costMicros, usage);
    return charge;
  };
}
