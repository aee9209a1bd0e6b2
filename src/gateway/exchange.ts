/**
 * What one forwarded request carries from the request path to the response path.
 */

import type { Authenticator } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { Accountant, BalanceState } from '../billing/accountant.ts';
import type { ConnectionCapHold, ConnectionCaps } from '../billing/connection-caps.ts';
import type { PriceList } from '../billing/prices.ts';
import type { TokenHold, TokenLimiter } from '../billing/token-limits.ts';
import { estimateUsage, type TokenUsage } from '../billing/usage.ts';
import type { CacheMetrics } from '../cache/cache-metrics.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Operation } from '../providers/registry.ts';
import type { ResolvedRoute } from '../providers/resolve-route.ts';
import type { RouteResolver } from '../providers/route-resolver.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import type { CacheWrite } from './cache-step.ts';
import type { TranslationPlan } from './translation.ts';

export interface InferenceDeps {
  settings: Readonly<Settings>;
  view: ConfigView;
  cache: ResponseCache;
  cacheMetrics: CacheMetrics;
  authenticator: Authenticator;
  accountant: Accountant;
  prices: PriceList;
  limiter: TokenLimiter;
  /** BYOK: each Connection's daily spend cap. */
  connectionCaps: ConnectionCaps;
  upstream: UpstreamClient;
  routes: RouteResolver;
  metrics: GatewayMetrics;
  log: Logger;
}

export interface Exchange {
  operation: Operation;
  routeLabel: string;
  route: ResolvedRoute;
  /** Absolute upstream URL of this request. */
  url: string;
  /** Set when the client's and the upstream's shapes differ. */
  translation: TranslationPlan | undefined;
  principal: Principal;
  balance: BalanceState;
  hold: TokenHold | undefined;
  /** BYOK with a daily cap: the reservation against the Connection's cap, taken just before forwarding. */
  capHold: ConnectionCapHold | undefined;
  /** Set when the answer is to be cached. */
  cacheWrite: CacheWrite | undefined;
  requestChars: number;
  startedAt: number;
  dispatchedAt: number;
}

/** Usage as reported, or estimated (and counted) when the upstream reported none. */
export function usageOrEstimate(
  deps: InferenceDeps,
  exchange: Exchange,
  reported: TokenUsage | undefined,
  outputChars: number,
): TokenUsage {
  if (reported !== undefined) return reported;
  deps.metrics.estimatedUsage.inc({ route: exchange.routeLabel });
  return estimateUsage(exchange.requestChars, outputChars);
}

/**
 * Prices and charges the usage, then settles the token's and the Connection's reservations with the
 * actual cost (every answered request, JSON or stream, comes through here).
 */
export async function accountFor(deps: InferenceDeps, exchange: Exchange, usage: TokenUsage) {
  const { principal, route } = exchange;
  const charge = await deps.accountant.settle(
    principal,
    route.provider.name,
    route.upstreamModel,
    usage,
    route.byok,
    exchange.balance,
  );
  await Promise.all([
    deps.limiter.settle(exchange.hold, charge.costMicros, usage),
    deps.connectionCaps.settle(exchange.capHold, charge.costMicros),
  ]);
  return charge;
}
