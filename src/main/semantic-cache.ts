/**
 * Sets up the semantic cache's embedder at process start: an embeddings route when
 * GATEWAY_SEMCACHE_EMBEDDINGS names one, else the local model, loaded at its first use
 * (lazy-embedder.ts: about 200 MB that a gateway without semantic traffic never pays). Without
 * either (the model's files missing, a route that does not answer) semantic mode degrades to exact
 * matching, said once in a warning: never a crash.
 */

import { Gauge } from 'prom-client';
import type { ResponseCache } from '../cache/response-cache.ts';
import { DepthValve } from '../cache/semantic/depth-valve.ts';
import type { Embedder } from '../cache/semantic/embedder.ts';
import { LazyEmbedder } from '../cache/semantic/lazy-embedder.ts';
import { LocalEmbedder, localModelFile, missingModelFiles } from '../cache/semantic/local-embedder.ts';
import { LocalPairVerifier } from '../cache/semantic/pair-verifier.ts';
import { SemanticCache } from '../cache/semantic/semantic-cache.ts';
import { createSemanticMetrics, registerSemanticMirrorMetrics } from '../cache/semantic/semantic-metrics.ts';
import type { Settings } from '../config/settings.ts';
import { RouteEmbedder } from '../gateway/route-embedder.ts';
import type { UpstreamCallDeps } from '../gateway/upstream-call.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import { createPlatformEndpoints } from '../providers/platform-routes.ts';
import type { SemanticMirrorStats } from '../stores/redis-runtime/semantic-mirror.ts';
import type { RuntimeStore } from '../stores/types.ts';

/** all-MiniLM-L6-v2's vectors. */
const LOCAL_MODEL_DIMENSIONS = 384;

async function startEmbedder(
  settings: Readonly<Settings>,
  upstream: UpstreamCallDeps,
  log: Logger,
): Promise<Embedder> {
  const semantic = settings.semanticCache;
  if (semantic.embeddingsModel !== undefined) {
    return RouteEmbedder.start({
      model: semantic.embeddingsModel,
      endpoints: createPlatformEndpoints(settings),
      defaultProvider: settings.defaultProvider,
      deps: upstream,
      timeoutMs: semantic.embedTimeoutMs,
    });
  }
  const missing = missingModelFiles(semantic.modelDir);
  if (missing.length > 0) {
    throw new Error(
      `the model is not in ${semantic.modelDir} (missing ${missing.join(', ')}): run scripts/fetch-semcache-model.sh, or set GATEWAY_SEMCACHE_MODEL_DIR to a folder that holds it`,
    );
  }
  return new LazyEmbedder({
    name: 'all-MiniLM-L6-v2 (local)',
    dimensions: LOCAL_MODEL_DIMENSIONS,
    load: () =>
      LocalEmbedder.start({
        modelDir: semantic.modelDir,
        threads: semantic.threads,
        quantized: semantic.quantized,
      }),
    idleMs: semantic.modelIdleMs,
    onChange: (event, detail) => {
      if (event === 'failed')
        log.warn(
          { reason: detail instanceof Error ? detail.message : String(detail) },
          'the semantic cache model did not load: semantic mode matches exactly until it does',
        );
      else
        log.info(
          { modelFile: localModelFile(semantic.modelDir, semantic.quantized) },
          `semantic cache model ${event}`,
        );
    },
  });
}

export async function startSemanticCache(options: {
  settings: Readonly<Settings>;
  runtime: RuntimeStore;
  cache: ResponseCache;
  metrics: GatewayMetrics;
  upstream: UpstreamCallDeps;
  log: Logger;
  /** The Redis store's copy of the semantic buckets, counted in the semantic metrics. */
  mirrorStats?: () => Readonly<SemanticMirrorStats>;
}): Promise<SemanticCache | undefined> {
  const { settings, log } = options;
  const semantic = settings.semanticCache;
  if (!settings.cacheEnabled) return undefined;
  if (!semantic.enabled) {
    log.info('semantic caching is off (GATEWAY_SEMCACHE=off): semantic mode uses exact matching');
    return undefined;
  }
  let embedder: Embedder;
  try {
    embedder = await startEmbedder(settings, options.upstream, log);
  } catch (error) {
    log.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'semantic caching degraded to exact matching: no embedder could start',
    );
    return undefined;
  }
  log.info({ embedder: embedder.name, dimensions: embedder.dimensions }, 'semantic caching on');
  if (embedder instanceof LazyEmbedder) {
    const lazy = embedder;
    new Gauge({
      name: 'gateway_semantic_model_loaded',
      help: '1 while the local embedding model is in memory (loaded at its first use, let go after GATEWAY_SEMCACHE_MODEL_IDLE_MS unused)',
      registers: [options.metrics.registry],
      collect() {
        this.set(lazy.loaded ? 1 : 0);
      },
    });
  }
  if (options.mirrorStats !== undefined)
    registerSemanticMirrorMetrics(options.metrics.registry, options.mirrorStats);
  // The verifier's model is in the repository and the image: its absence is a broken install, and
  // then every candidate is a miss (verify_failed) rather than served unverified.
  const verifier = semantic.verifier
    ? new LocalPairVerifier({
        threads: semantic.threads,
        ...(semantic.verifierDir === undefined ? {} : { modelDir: semantic.verifierDir }),
      })
    : undefined;
  if (verifier !== undefined) {
    new Gauge({
      name: 'gateway_semantic_verifier_loaded',
      help: '1 once the pair verifier model is in memory (loaded with the first semantic lookup, then kept)',
      registers: [options.metrics.registry],
      collect() {
        this.set(verifier.loaded ? 1 : 0);
      },
    });
  }
  const missingVerifier = verifier?.missingFiles() ?? [];
  if (missingVerifier.length > 0)
    log.warn(
      { missing: missingVerifier },
      'the pair verifier model is missing: semantic mode serves no semantic hits (GATEWAY_SEMCACHE_VERIFIER=off serves them unverified)',
    );
  return new SemanticCache({
    runtime: options.runtime,
    cache: options.cache,
    embedder,
    valve: new DepthValve({
      maxDepth: semantic.maxDepth,
      minDepth: Math.min(50, semantic.maxDepth),
      budgetMs: semantic.scanBudgetMs,
      maxInFlight: 32,
    }),
    metrics: createSemanticMetrics(options.metrics.registry),
    log,
    guard: semantic.guard,
    maxBucket: semantic.maxBucket,
    embedTimeoutMs: semantic.embedTimeoutMs,
    ...(verifier === undefined ? {} : { verifier }),
    verifierRules: semantic.verifierRules,
    verifyTimeoutMs: semantic.verifyTimeoutMs,
    storeTimeoutMs: settings.cacheTimeoutMs,
  });
}
