/**
 * An embedder that asks an embeddings model the gateway itself routes to
 * (GATEWAY_SEMCACHE_EMBEDDINGS=openai/text-embedding-3-small): the platform's route and key, the
 * same upstream plan and call as a client's /v1/embeddings. What it costs is the platform's, not a
 * tenant's.
 */
import { type Embedder, normalise } from '../cache/semantic/embedder.ts';
import { UpstreamError } from '../errors/gateway-error.ts';
import { type PlatformEndpoints, resolvePlatformRoute } from '../providers/platform-routes.ts';
import { planUpstream } from '../translate/plans/registry.ts';
import { callUpstream, createCallSender, type UpstreamCallDeps } from './upstream-call.ts';

export interface RouteEmbedderOptions {
  model: string;
  endpoints: PlatformEndpoints;
  defaultProvider: string;
  deps: UpstreamCallDeps;
  /** Bound on one call. */
  timeoutMs: number;
}

export class RouteEmbedder implements Embedder {
  readonly name: string;
  #dimensions = 0;
  readonly #options: RouteEmbedderOptions;

  private constructor(options: RouteEmbedderOptions) {
    this.#options = options;
    this.name = `${options.model} (an embeddings route)`;
  }

  get dimensions(): number {
    return this.#dimensions;
  }

  /** Checks the route with one call (its answer gives the dimensions); rejects when it fails. */
  static async start(options: RouteEmbedderOptions): Promise<RouteEmbedder> {
    const embedder = new RouteEmbedder(options);
    embedder.#dimensions = (await embedder.embed('ready')).length;
    return embedder;
  }

  async embed(text: string): Promise<Float32Array> {
    const { model, endpoints, defaultProvider, deps } = this.#options;
    const route = resolvePlatformRoute(model, 'embeddings', endpoints, defaultProvider);
    const plan = planUpstream(
      { operation: 'embeddings', body: { model, input: [text] }, stream: false },
      {
        shape: route.provider.shape,
        provider: route.provider.name,
        model: route.upstreamModel,
        nativePath: route.nativePath,
        ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
      },
    );
    const signal = AbortSignal.timeout(this.#options.timeoutMs);
    let answerText: string;
    if (plan.execute !== undefined) {
      answerText = (await plan.execute(createCallSender(deps, route, route.headers, signal))).text;
    } else {
      const response = await callUpstream(deps, route, plan, route.headers, signal, 'whole');
      answerText = plan.answer(response.text ?? '').text;
    }
    const embedding = (JSON.parse(answerText) as { data?: { embedding?: unknown }[] }).data?.[0]?.embedding;
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      embedding.some((value) => typeof value !== 'number')
    ) {
      throw new UpstreamError(
        502,
        200,
        `the embeddings route '${model}' answered without a vector`,
        'api_error',
        true,
      );
    }
    return normalise(Float32Array.from(embedding as number[]));
  }

  async close(): Promise<void> {}
}
