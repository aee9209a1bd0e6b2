/**
 * What the request path is built from: one instance of each, shared by every request (made in
 * main/gateway-server.ts).
 */
import type { Authenticator } from '../auth/authenticate.ts';
import type { Accountant } from '../billing/accountant.ts';
import type { PriceList } from '../billing/prices.ts';
import type { SpendLimits } from '../billing/spend-reservation.ts';
import type { UsageRecorder } from '../billing/usage-analytics.ts';
import type { CacheMetrics } from '../cache/cache-metrics.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { SemanticCache } from '../cache/semantic/semantic-cache.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { RouteResolver } from '../providers/route-resolver.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { RuntimeStoredResponses } from '../stores/types.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import type { RouteHealth } from './routing/route-health.ts';
import type { RandomSource } from './routing/target-selection.ts';

export interface InferenceDeps {
  settings: Readonly<Settings>;
  view: ConfigView;
  cache: ResponseCache;
  cacheMetrics: CacheMetrics;
  /** Semantic matching; undefined when GATEWAY_SEMCACHE is off or no embedder could start. */
  semantic: SemanticCache | undefined;
  /** The semantic threshold a request that names none gets (0.8). */
  semanticThreshold: number;
  authenticator: Authenticator;
  accountant: Accountant;
  prices: PriceList;
  /** An ephemeral token's rate limits and budget, and a Connection's daily cap, per request. */
  spending: SpendLimits;
  upstream: UpstreamClient;
  routes: RouteResolver;
  /** Model routes: this pod's circuit breakers and requests in flight per target. */
  routeHealth: RouteHealth;
  /** Model routes: the random picks of weights (seeded by GATEWAY_ROUTE_SEED, else Math.random). */
  routeRandom: RandomSource;
  metrics: GatewayMetrics;
  log: Logger;
  /** OpenTelemetry traces; off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: Tracing;
  /** Usage analytics: each answered request's rolled-up cell. */
  usage: UsageRecorder;
  /** Stored responses of /v1/responses (the runtime store's). */
  responses: RuntimeStoredResponses;
}
