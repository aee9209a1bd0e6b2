/**
 * The cache step of the request path (DESIGN section 5, step 6): looks the request's cache plan
 * (cache/cache-plan.ts) up, serves entries (JSON, or the recorded SSE bytes), and says what the
 * forwarded answer is to be written as. A hit costs nothing and never reaches the provider. It
 * owns stale-while-revalidate: the refresh's lock, its release, and the stale copy served when the
 * refresh fails.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type CachePlan,
  type CachePlanContext,
  type CacheScope,
  type CacheWrite,
  newEntry,
  planCache,
} from '../cache/cache-plan.ts';
import type { CacheEntry } from '../cache/response-cache.ts';
import type { RequestTrace } from '../observability/tracing.ts';
import { type ClientDialect, OPERATION_ROUTE, type Operation } from '../shapes/api.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { InferenceDeps } from './inference-deps.ts';
import {
  type CacheDecision,
  type InferenceExchange,
  type ReadyExchange,
  renderAnswerHeaders,
  type ServedEntry,
} from './inference-exchange.ts';
import type { JsonObject } from './validate-body.ts';

/**
 * Plans each request's caching for one operation: what is fixed for the app (the config view, the
 * kill switch, semantic matching's availability and default threshold) is bound once, here.
 */
export class CachePlanner {
  readonly #view: ConfigView;
  /** The plan's context for each client dialect, made once. */
  readonly #contexts: Readonly<Record<ClientDialect, CachePlanContext>>;

  constructor(
    operation: Operation,
    deps: Pick<InferenceDeps, 'view' | 'settings' | 'semantic' | 'semanticThreshold'>,
  ) {
    this.#view = deps.view;
    const contextFor = (dialect: ClientDialect): CachePlanContext => ({
      operation,
      dialect,
      routeLabel: OPERATION_ROUTE[operation],
      enabled: deps.settings.cacheEnabled,
      semanticAvailable: deps.semantic !== undefined,
      defaultThreshold: deps.semanticThreshold,
    });
    this.#contexts = { openai: contextFor('openai'), anthropic: contextFor('anthropic') };
  }

  /** The request's cache plan; undefined when it is not cached. `conversation`: see planCache. */
  plan(
    request: FastifyRequest,
    body: JsonObject,
    scope: CacheScope,
    conversation?: JsonObject,
  ): CachePlan | undefined {
    return planCache(
      request.headers,
      body,
      scope,
      this.#view,
      this.#contexts[request.clientDialect],
      conversation,
    );
  }
}

/** No cache plan: forward, and write nothing. */
const UNCACHED: CacheDecision = Object.freeze({ kind: 'forward', write: undefined, refresh: undefined });

/**
 * Looks the plan up; the decision comes at once when nothing is to be read (no promise), else
 * once the store answered.
 */
export function decideFromCache(
  plan: CachePlan | undefined,
  routeLabel: string,
  deps: Pick<InferenceDeps, 'cache' | 'cacheMetrics' | 'semantic'>,
  requestTrace?: RequestTrace,
): CacheDecision | Promise<CacheDecision> {
  if (plan === undefined) return UNCACHED;
  if (plan.semanticSkipped !== undefined && deps.semantic !== undefined) {
    deps.semantic.countSkipped(plan.semanticSkipped);
  }
  if (!plan.read) return decideMiss(plan, undefined, routeLabel, deps);
  return deps.cache.lookup(plan.location, plan.write).then((lookup) => {
    if (lookup.kind === 'hit') {
      return { kind: 'serve', entry: lookup.entry, result: 'hit', ageSeconds: lookup.ageSeconds };
    }
    // On an exact miss, a semantic match: another question of the same context that means the same.
    if (lookup.kind === 'miss' && plan.semantic !== undefined && deps.semantic !== undefined) {
      return deps.semantic
        .lookup(plan.location, plan.semantic, routeLabel, requestTrace)
        .then((found): CacheDecision => {
          if (found === undefined) return decideMiss(plan, undefined, routeLabel, deps);
          return { kind: 'serve', entry: found.entry, result: 'semantic-hit', similarity: found.similarity };
        });
    }
    if (lookup.kind === 'stale' && lookup.lockToken === undefined) {
      return { kind: 'serve', entry: lookup.entry, result: 'stale' };
    }
    if (lookup.kind === 'bypass') {
      deps.cacheMetrics.results.inc({ route: routeLabel, result: 'bypass' });
      return UNCACHED;
    }
    const refresh =
      lookup.kind === 'stale' ? { entry: lookup.entry, lockToken: lookup.lockToken as string } : undefined;
    return decideMiss(plan, refresh, routeLabel, deps);
  });
}

/** Forward, and write the answer as the plan says (a stale refresh holds the lock). */
function decideMiss(
  plan: CachePlan,
  refresh: { entry: CacheEntry; lockToken: string } | undefined,
  routeLabel: string,
  deps: Pick<InferenceDeps, 'cacheMetrics'>,
): CacheDecision {
  const result = refresh !== undefined || plan.directive.mode === 'force-refresh' ? 'refresh' : 'miss';
  deps.cacheMetrics.results.inc({ route: routeLabel, result });
  const write = { plan, result, write: plan.write } as const;
  return { kind: 'forward', write, refresh };
}

/** Answers from an entry with the request's balance and routing headers; costs nothing. */
export function serveFromCache(
  exchange: ReadyExchange,
  served: ServedEntry,
  deps: Pick<InferenceDeps, 'cacheMetrics'>,
): FastifyReply {
  const { entry, result } = served;
  deps.cacheMetrics.results.inc({ route: exchange.routeLabel, result });
  deps.cacheMetrics.savedMicros.inc(entry.costMicros);
  for (const observer of exchange.observers) observer.servedFromCache(exchange, served);
  // A cached answer costs nothing: the balance headers say so.
  const headers = renderAnswerHeaders(exchange.route, exchange.balance, 0, served, entry.contentType);
  return exchange.reply.code(entry.status).headers(headers).send(entry.body);
}

/** Gives a stale refresh's lock back (after its fresh entry is stored, or when it failed). */
export function releaseRefreshLock(exchange: InferenceExchange, deps: Pick<InferenceDeps, 'cache'>): void {
  const decision = exchange.decision;
  if (decision?.kind === 'forward' && decision.refresh !== undefined && exchange.cachePlan !== undefined)
    void deps.cache.release(exchange.cachePlan.location, decision.refresh.lockToken);
}

/**
 * A forwarded request failed: a failed stale refresh keeps the stale entry, gives the lock back,
 * and this caller gets the stale copy (when nothing of the answer went out yet); else the failure
 * stands.
 */
export function serveStaleOrThrow(
  exchange: ReadyExchange,
  error: unknown,
  deps: Pick<InferenceDeps, 'cache' | 'cacheMetrics'>,
): FastifyReply {
  const decision = exchange.decision;
  if (decision.kind !== 'forward' || decision.refresh === undefined) throw error;
  releaseRefreshLock(exchange, deps);
  const { reply } = exchange;
  if (reply.sent || reply.raw.headersSent) throw error;
  return serveFromCache(exchange, { entry: decision.refresh.entry, result: 'stale' }, deps);
}

/**
 * Writes a forwarded answer as its plan says: the exact entry, and on a semantic plan the
 * question's vector next to it (for as long as the answer is fresh).
 */
export function storeAnswer(
  write: CacheWrite,
  answer: { status: number; contentType: string; body: string; stream: boolean },
  costMicros: number,
  deps: Pick<InferenceDeps, 'cache' | 'semantic'>,
): Promise<unknown> {
  const { plan } = write;
  const stored = deps.cache.store(plan.location, newEntry(plan, answer, costMicros));
  const semantic = deps.semantic;
  if (plan.semantic === undefined || semantic === undefined) return stored;
  const question = plan.semantic;
  return stored.then((written) =>
    written ? semantic.remember(plan.location, question, plan.policy.ttlMs) : undefined,
  );
}
