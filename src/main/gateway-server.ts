/**
 * Wires one gateway listener from a config view and a runtime store; shared by the gateway role
 * and standalone.
 */

import type { FastifyInstance } from 'fastify';
import { Authenticator, type EphemeralTokenVerifier } from '../auth/authenticate.ts';
import { createSecretSealer } from '../auth/secret-box.ts';
import { Accountant } from '../billing/accountant.ts';
import { ConnectionCaps } from '../billing/connection-caps.ts';
import { TokenLimiter } from '../billing/ephemeral-token-limits.ts';
import { PriceList } from '../billing/prices.ts';
import { SpendJournal } from '../billing/spend-journal.ts';
import { SpendLimits } from '../billing/spend-reservation.ts';
import { UsageRecorder } from '../billing/usage-analytics.ts';
import { createCacheMetrics } from '../cache/cache-metrics.ts';
import { ResponseCache } from '../cache/response-cache.ts';
import { CacheScopeMirror } from '../cache/scope-mirror.ts';
import type { Settings } from '../config/settings.ts';
import { buildGatewayApp } from '../gateway/gateway-app.ts';
import { RouteHealth } from '../gateway/routing/route-health.ts';
import { createSeededRandom } from '../gateway/routing/target-selection.ts';
import type { Logger } from '../observability/logger.ts';
import { createGatewayMetrics, type GatewayMetrics } from '../observability/metrics.ts';
import { registerRouteMetrics } from '../observability/route-metrics.ts';
import { registerStoreMetrics } from '../observability/store-metrics.ts';
import { TRACING_OFF, type Tracing } from '../observability/tracing.ts';
import { registerUpstreamMetrics } from '../observability/upstream-metrics.ts';
import { createPlatformEndpoints } from '../providers/platform-routes.ts';
import { RouteResolver } from '../providers/route-resolver.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { SemanticMirrorStats } from '../stores/redis-runtime/semantic-mirror.ts';
import type { StoreBreaker } from '../stores/store-breaker.ts';
import type { RuntimeStore } from '../stores/types.ts';
import { UpstreamClient } from '../upstream/upstream-client.ts';
import { redisConnectionOf } from './open-stores.ts';
import { startSemanticCache } from './semantic-cache.ts';

export interface GatewayServer {
  app: FastifyInstance;
  metrics: GatewayMetrics;
  upstream: UpstreamClient;
}

export async function createGatewayServer(options: {
  settings: Readonly<Settings>;
  view: ConfigView;
  runtime: RuntimeStore;
  log: Logger;
  ephemeral?: EphemeralTokenVerifier;
  /** The at-rest key that opens Connections' sealed secrets. */
  encryptionKey: Uint8Array;
  /** The runtime store's circuit breaker (Redis stores): spend journaled during an outage is replayed when it closes. */
  breaker?: StoreBreaker;
  /** The Redis store's copy of the semantic buckets: its work is exported with the semantic metrics. */
  semanticMirrorStats?: () => Readonly<SemanticMirrorStats>;
  /** OpenTelemetry traces (startTracing); off by default. Shut down (flushed) when the app closes. */
  tracing?: Tracing;
}): Promise<GatewayServer> {
  const { settings, view, runtime, log, breaker } = options;
  const sealer = createSecretSealer(options.encryptionKey);
  const metrics = createGatewayMetrics();
  // Spend the runtime store cannot take during an outage is kept here and applied once it is back.
  const journal = new SpendJournal({ runtime, log, maxEntries: settings.spendJournalMaxEntries });
  const replayJournal = () => (breaker?.open === true || journal.size === 0 ? undefined : journal.replay());
  breaker?.onRecovered(async () => {
    await journal.replay();
  });
  // Changes journaled by requests that were still failing when the breaker closed are picked up here.
  const replayTimer = setInterval(() => void replayJournal()?.catch(() => {}), 5000);
  replayTimer.unref();
  registerStoreMetrics(metrics.registry, { breaker, journal });
  const cacheMetrics = createCacheMetrics(metrics.registry);
  const upstream = new UpstreamClient(settings.upstreamTimeouts, {
    connectionsPerOrigin: settings.upstreamConnections,
    http2: settings.upstreamHttp2,
  });
  registerUpstreamMetrics(metrics.registry, () => upstream.stats());
  const routeHealth = new RouteHealth();
  registerRouteMetrics(metrics.registry, () => routeHealth.openCircuits());
  const mirror = new CacheScopeMirror(runtime);
  await mirror.start();
  const cache = new ResponseCache({
    runtime,
    mirror,
    metrics: cacheMetrics,
    log,
    maxEntryBytes: settings.cacheMaxEntryBytes,
    timeoutMs: redisConnectionOf(settings) === undefined ? 0 : settings.cacheTimeoutMs,
  });
  const usage = new UsageRecorder({
    runtime,
    log,
    retentionDays: settings.usageRetentionDays,
    flushIntervalMs: settings.usageFlushIntervalMs,
  });
  const prices = new PriceList(settings.billingPrices, settings.billingFallbackPrice);
  const semantic = await startSemanticCache({
    settings,
    runtime,
    cache,
    metrics,
    upstream: { upstream, metrics, log },
    log,
    ...(options.semanticMirrorStats === undefined ? {} : { mirrorStats: options.semanticMirrorStats }),
  });
  const app = await buildGatewayApp({
    settings,
    view,
    cache,
    cacheMetrics,
    semantic,
    semanticThreshold: settings.semanticCache.threshold,
    authenticator: new Authenticator(view, options.ephemeral),
    accountant: new Accountant(runtime, metrics, log, prices, journal),
    prices,
    spending: new SpendLimits(
      new TokenLimiter(runtime, journal),
      new ConnectionCaps(runtime, view, Date.now, journal),
    ),
    upstream,
    routes: new RouteResolver({
      endpoints: createPlatformEndpoints(settings),
      defaultProvider: settings.defaultProvider,
      view,
      unseal: (sealed) => sealer.unseal(sealed),
    }),
    routeHealth,
    routeRandom: settings.routeSeed === undefined ? Math.random : createSeededRandom(settings.routeSeed),
    metrics,
    log,
    tracing: options.tracing ?? TRACING_OFF,
    usage,
    responses: runtime,
    // Ready means able to serve: a built configuration. A Redis outage is served degraded (no
    // cache, limits open, spend journaled), so it does not take the pod out of its Service.
    isReady: async () => view.populated,
  });
  app.addHook('onClose', async () => {
    clearInterval(replayTimer);
    // A last try: spend still journaled when the process stops is lost unless the store is back.
    await replayJournal()?.catch(() => {});
    if (journal.size > 0) log.error({ entries: journal.size }, 'stopping with spend still journaled');
    await usage.close();
    await semantic?.close();
    await mirror.close();
    await upstream.close();
    await options.tracing?.shutdown();
  });
  return { app, metrics, upstream };
}
