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
import { SpendLimits } from '../billing/spend-reservation.ts';
import { createCacheMetrics } from '../cache/cache-metrics.ts';
import { ResponseCache } from '../cache/response-cache.ts';
import { CacheScopeMirror } from '../cache/scope-mirror.ts';
import type { Settings } from '../config/settings.ts';
import { buildGatewayApp } from '../gateway/gateway-app.ts';
import type { Logger } from '../observability/logger.ts';
import { createGatewayMetrics, type GatewayMetrics } from '../observability/metrics.ts';
import { createPlatformEndpoints } from '../providers/platform-routes.ts';
import { RouteResolver } from '../providers/route-resolver.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { RuntimeStore } from '../stores/types.ts';
import { UpstreamClient } from '../upstream/upstream-client.ts';
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
}): Promise<GatewayServer> {
  const { settings, view, runtime, log } = options;
  const sealer = createSecretSealer(options.encryptionKey);
  const metrics = createGatewayMetrics();
  const cacheMetrics = createCacheMetrics(metrics.registry);
  const upstream = new UpstreamClient(settings.upstreamTimeouts);
  const mirror = new CacheScopeMirror(runtime);
  await mirror.start();
  const cache = new ResponseCache({
    runtime,
    mirror,
    metrics: cacheMetrics,
    log,
    maxEntryBytes: settings.cacheMaxEntryBytes,
    timeoutMs: settings.cacheTimeoutMs,
  });
  const prices = new PriceList(settings.billingPrices, settings.billingFallbackPrice);
  const semantic = await startSemanticCache({
    settings,
    runtime,
    cache,
    metrics,
    upstream: { upstream, metrics, log },
    log,
  });
  const app = await buildGatewayApp({
    settings,
    view,
    cache,
    cacheMetrics,
    semantic,
    semanticThreshold: settings.semanticCache.threshold,
    authenticator: new Authenticator(view, options.ephemeral),
    accountant: new Accountant(runtime, metrics, log, prices),
    prices,
    spending: new SpendLimits(new TokenLimiter(runtime), new ConnectionCaps(runtime, view)),
    upstream,
    routes: new RouteResolver({
      endpoints: createPlatformEndpoints(settings),
      defaultProvider: settings.defaultProvider,
      view,
      unseal: (sealed) => sealer.unseal(sealed),
    }),
    metrics,
    log,
    isReady: () => runtime.ping(),
  });
  app.addHook('onClose', async () => {
    await semantic?.close();
    await mirror.close();
    await upstream.close();
  });
  return { app, metrics, upstream };
}
