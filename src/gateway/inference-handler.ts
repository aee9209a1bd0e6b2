/**
 * The request path of /v1/chat/completions, /v1/embeddings and /v1/messages (DESIGN section 5).
 * One InferenceExchange (inference-exchange.ts) per request goes through these steps, each a plain
 * function of it:
 *
 *  1. admit ...... validate the body, authenticate, authorise the operation and model (here)
 *  2. plan ....... the route, what goes upstream, the cache plan, the spend reservation (here)
 *  3. preflight .. the one store round trip: balance, rate window, reservation, cache lookup
 *                  (preflight.ts), one typed result
 *  4. answer ..... from the cache (cache-step.ts, which owns stale-while-revalidate), or forward
 *                  upstream and answer: JSON or a relayed stream (forward-step.ts)
 *  5. settle ..... usage priced, charged, the reservation settled (accounting.ts); what was
 *                  reserved and not settled is released, whatever happened
 *
 * Metrics, the span and access-log facts and usage analytics are observers (exchange-observers.ts),
 * told named events by the exchange; no step writes to them. The client's `close` is watched once,
 * by gateway-app.ts, which tells the exchange. The answer's headers are rendered in one place (`renderAnswerHeaders`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import { estimateRequestCostMicros } from '../billing/usage.ts';
import { stripCacheDeclarations } from '../cache/cache-key.ts';
import { planCache } from '../cache/cache-plan.ts';
import type { Operation } from '../shapes/api.ts';
import { planUpstream } from '../translate/plans/registry.ts';
import { releaseUnsettled } from './accounting.ts';
import { releaseRefreshLock, serveFromCache, serveStaleOrThrow } from './cache-step.ts';
import { forward } from './forward-step.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { type ExchangeObserver, InferenceExchange, type PlannedExchange } from './inference-exchange.ts';
import { acceptPreflight, preflight } from './preflight.ts';
import { type JsonObject, validateInferenceBody } from './validate-body.ts';

export type { InferenceDeps } from './inference-deps.ts';

export function createInferenceHandler(
  operation: Operation,
  deps: InferenceDeps,
  observers: readonly ExchangeObserver[],
) {
  return async function handleInference(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const exchange = new InferenceExchange(operation, request, reply, observers);
    exchange.principal = await admit(exchange, deps);
    try {
      plan(exchange, deps);
      const answered = await preflight(exchange, deps);
      acceptPreflight(exchange, answered, deps);
      const decision = exchange.decision;
      if (decision.kind === 'serve') return serveFromCache(exchange, decision, deps);
      try {
        if (answered.reserveFailed) throw answered.reserveFailure;
        const served = await forward(exchange, deps);
        releaseRefreshLock(exchange, deps);
        return served;
      } catch (error) {
        return serveStaleOrThrow(exchange, error, deps);
      }
    } finally {
      releaseUnsettled(exchange, deps);
    }
  };
}

/** Step 1: a valid body from a principal allowed this operation on this model. */
function admit(exchange: InferenceExchange, deps: InferenceDeps): Promise<Principal> {
  const { request, observers } = exchange;
  const body = validateInferenceBody(request.body, exchange.operation);
  exchange.body = body;
  for (const observer of observers) observer.admitted(exchange);
  for (const observer of observers) observer.stepStarted(exchange, 'gateway.auth');
  return deps.authenticator.authenticate(extractCredential(request.headers)).then(
    (principal) => {
      for (const observer of observers) observer.stepEnded(exchange, 'gateway.auth', undefined);
      exchange.principal = principal;
      for (const observer of observers) observer.authenticated(exchange);
      authorizeOperation(principal, exchange.operation, body.model);
      return principal;
    },
    (error: unknown) => {
      for (const observer of observers) observer.stepEnded(exchange, 'gateway.auth', error);
      throw error;
    },
  );
}

function maxOutputTokens(body: JsonObject): number {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

/** Step 2: where the request goes, what is sent, how it is cached, and what it may spend. */
function plan(exchange: InferenceExchange, deps: InferenceDeps): asserts exchange is PlannedExchange {
  const { request, body, principal, operation } = exchange;
  if (body === undefined || principal === undefined) throw new Error('planned before admitted');
  const byokRequired = String(request.headers['x-service-byok']).toLowerCase() === 'required';
  const route = deps.routes.resolve(body.model, operation, principal, byokRequired);
  exchange.route = route;
  for (const observer of exchange.observers) observer.routed(exchange);
  const upstreamPlan = planUpstream(
    // Tools' cache declarations are the gateway's; the provider never sees them.
    { operation, body: stripCacheDeclarations(body.body), stream: body.stream },
    {
      shape: route.provider.shape,
      provider: route.provider.name,
      model: route.upstreamModel,
      nativePath: route.nativePath,
      ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
    },
  );
  exchange.plan = upstreamPlan;
  exchange.reservation = deps.spending.open(principal);
  exchange.cachePlan = planCache(request.headers, body.body, principal, deps.view, {
    operation,
    dialect: request.clientDialect,
    routeLabel: exchange.routeLabel,
    enabled: deps.settings.cacheEnabled,
    semanticAvailable: deps.semantic !== undefined,
    defaultThreshold: deps.semanticThreshold,
  });
  exchange.estimatedMicros = estimateRequestCostMicros(
    deps.prices.priceOf(route.upstreamModel).price,
    upstreamPlan.payload.length,
    maxOutputTokens(body.body),
  );
}
