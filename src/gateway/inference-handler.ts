/**
 * The request path of /v1/chat/completions, /v1/embeddings, /v1/messages and /v1/responses (DESIGN
 * section 5).
 * One InferenceExchange (inference-exchange.ts) per request goes through these steps, each a plain
 * function of it:
 *
 *  1. admit ...... validate the body, authenticate, authorise the operation and model (here)
 *  2. plan ....... the route (a model route's first target), what goes upstream, the cache plan,
 *                  the spend reservation (here, plan-target.ts, routing/route-attempts.ts)
 *  3. preflight .. the one store round trip: balance, rate window, reservation, cache lookup
 *                  (here), one typed result
 *  4. answer ..... from the cache (cache-step.ts, which owns stale-while-revalidate), or forward
 *                  upstream and answer: JSON or a relayed stream (forward-step.ts); a model route
 *                  repeats the route part of plan and forward per attempt (routing/route-attempts.ts)
 *  5. settle ..... usage priced, charged, the reservation settled (accounting.ts); what was
 *                  reserved and not settled is released, whatever happened
 *
 * Metrics, the span and access-log facts and usage analytics are observers (exchange-observers.ts),
 * told named events by the exchange; no step writes to them. The client's `close` is watched once,
 * by gateway-app.ts, which tells the exchange. The answer's headers are rendered in one place
 * (`renderAnswerHeaders`). The exchange's state is all on it, so that a model route's attempts
 * repeat the route part of `plan` and `forward` per target, until a byte reached the client.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { BalanceState } from '../billing/accountant.ts';
import { NOTHING_TO_DO } from '../billing/spend-reservation.ts';
import type { Operation } from '../shapes/api.ts';
import { estimateReservation, releaseUnsettled } from './accounting.ts';
import {
  CachePlanner,
  decideFromCache,
  releaseRefreshLock,
  serveFromCache,
  serveStaleOrThrow,
} from './cache-step.ts';
import type { InferenceDeps } from './inference-deps.ts';
import {
  type CacheDecision,
  type ExchangeObserver,
  InferenceExchange,
  type PlannedExchange,
  type ReadyExchange,
} from './inference-exchange.ts';
import { planTarget } from './plan-target.ts';
import { prepareResponses, semanticTurnOf } from './responses/responses-exchange.ts';
import { forwardRouted, planFirstAttempt, releaseAttempt } from './routing/route-attempts.ts';
import { validateInferenceBody } from './validate-body.ts';

export type { InferenceDeps } from './inference-deps.ts';

export function createInferenceHandler(
  operation: Operation,
  deps: InferenceDeps,
  observers: readonly ExchangeObserver[],
) {
  const cachePlanner = new CachePlanner(operation, deps);
  return async function handleInference(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const exchange = new InferenceExchange(operation, request, reply, observers);
    const admitted = admit(exchange, deps);
    if (admitted !== undefined) await admitted;
    if (operation === 'responses') await continueConversation(exchange, deps);
    try {
      plan(exchange, deps, cachePlanner);
      const answered = await preflight(exchange, deps);
      acceptPreflight(exchange, answered, deps);
      const decision = exchange.decision;
      if (decision.kind === 'serve') return serveFromCache(exchange, decision, deps);
      try {
        if (answered.reserveFailed) throw answered.reserveFailure;
        const served = await forwardRouted(exchange, deps);
        releaseRefreshLock(exchange, deps);
        return served;
      } catch (error) {
        return serveStaleOrThrow(exchange, error, deps);
      }
    } finally {
      releaseUnsettled(exchange, deps);
      releaseAttempt(exchange, deps);
    }
  };
}

/**
 * Step 1: a valid body from a principal allowed this operation on this model. A promise only while
 * a token is verified; a workspace key is admitted (or refused, by a throw) at once.
 */
function admit(exchange: InferenceExchange, deps: InferenceDeps): Promise<void> | undefined {
  const { request, observers } = exchange;
  const body = validateInferenceBody(request.body, exchange.operation);
  exchange.body = body;
  for (const observer of observers) observer.admitted(exchange);
  for (const observer of observers) observer.stepStarted(exchange, 'gateway.auth');
  const authenticated = (principal: Principal) => {
    for (const observer of observers) observer.stepEnded(exchange, 'gateway.auth', undefined);
    exchange.principal = principal;
    for (const observer of observers) observer.authenticated(exchange);
    authorizeOperation(principal, exchange.operation, body.model);
  };
  const refused = (error: unknown): never => {
    for (const observer of observers) observer.stepEnded(exchange, 'gateway.auth', error);
    throw error;
  };
  let principal: Principal | Promise<Principal>;
  try {
    principal = deps.authenticator.authenticateNow(extractCredential(request.headers));
  } catch (error) {
    return refused(error);
  }
  if (principal instanceof Promise) return principal.then(authenticated, refused);
  authenticated(principal);
  return undefined;
}

/**
 * Step 1b, `/v1/responses` only: the conversation the request continues, read from the store, and
 * the response's id (responses/responses-exchange.ts).
 */
async function continueConversation(exchange: InferenceExchange, deps: InferenceDeps): Promise<void> {
  const { body, principal } = exchange;
  if (body === undefined || principal === undefined) throw new Error('continued before admitted');
  const prepared = await prepareResponses(body.body, principal, deps);
  exchange.responses = prepared.state;
  exchange.body = { ...body, body: prepared.body };
}

/** Step 2: where the request goes, what is sent, how it is cached, and what it may spend. */
function plan(
  exchange: InferenceExchange,
  deps: InferenceDeps,
  cachePlanner: CachePlanner,
): asserts exchange is PlannedExchange {
  const { request, body, principal } = exchange;
  if (body === undefined || principal === undefined) throw new Error('planned before admitted');
  // A model route (workspace, tenant-wide, shared) stands for its targets: the first attempt's is
  // planned here; a plain model string routes as it is.
  const modelRoute = deps.view.modelRoute(principal.tenantId, principal.workspaceId, body.model);
  if (modelRoute === undefined) planTarget(exchange, deps, body.model);
  else planFirstAttempt(exchange, deps, modelRoute);
  exchange.reservation = deps.spending.open(principal);
  exchange.cachePlan = cachePlanner.plan(
    request,
    body.body,
    principal,
    exchange.operation === 'responses' ? semanticTurnOf(body.body) : undefined,
  );
}

// Step 3, the preflight: the one round trip to the runtime store before the upstream call. The
// balance, the token's rate window, the spend reservation and the cache lookup leave together;
// the answer is one typed result, read by `acceptPreflight`. The reservation is made at once (a
// hit gives it back, and is served even when the budget is used up) rather than after the
// lookup, which would be a second round trip on every miss.

/** What the preflight's round trip answered. */
interface Preflight {
  balance: BalanceState | undefined;
  /** Undefined when the lookup failed. */
  decision: CacheDecision | undefined;
  /** The failure the request answers with: the balance's, else the rate window's, else the lookup's. */
  failure: unknown;
  /** 0 (balance), 1 (rates), 2 (lookup); 3 while nothing failed. */
  failedAt: number;
  /** The reservation's failure: it matters only to a request that is forwarded. */
  reserveFailure: unknown;
  reserveFailed: boolean;
}

const NOTHING_FAILED = 3;

function preflight(
  exchange: PlannedExchange,
  deps: Pick<InferenceDeps, 'accountant' | 'prices' | 'cache' | 'cacheMetrics' | 'semantic'>,
): Promise<Preflight> {
  const { principal, route, reservation, cachePlan, observers } = exchange;
  // What the reservation holds until the answer's cost is known.
  const estimatedMicros = estimateReservation(exchange, deps);
  const result: Preflight = {
    balance: undefined,
    decision: undefined,
    failure: undefined,
    failedAt: NOTHING_FAILED,
    reserveFailure: undefined,
    reserveFailed: false,
  };
  return new Promise((done) => {
    // One more than the calls out, so that none can finish the join before all have left.
    let outstanding = 1;
    const arrive = () => {
      outstanding -= 1;
      if (outstanding === 0) done(result);
    };
    const fail = (at: number, error: unknown) => {
      if (at < result.failedAt) {
        result.failedAt = at;
        result.failure = error;
      }
      arrive();
    };
    outstanding += 1;
    deps.accountant.checkBalance(principal, route.byok).then(
      (balance) => {
        result.balance = balance;
        arrive();
      },
      (error: unknown) => fail(0, error),
    );
    // A call with nothing to do (no token, nothing to hold) is not waited on.
    const rates = reservation.checkRates();
    if (rates !== NOTHING_TO_DO) {
      outstanding += 1;
      rates.then(arrive, (error: unknown) => fail(1, error));
    }
    const reserved = reservation.reserve(route, estimatedMicros);
    if (reserved !== NOTHING_TO_DO) {
      outstanding += 1;
      reserved.then(arrive, (error: unknown) => {
        result.reserveFailure = error;
        result.reserveFailed = true;
        arrive();
      });
    }
    const traced = cachePlan !== undefined;
    if (traced) for (const observer of observers) observer.stepStarted(exchange, 'gateway.cache.lookup');
    const decided = decideFromCache(cachePlan, exchange.routeLabel, deps, exchange.trace);
    if (!(decided instanceof Promise)) {
      result.decision = decided;
      if (traced)
        for (const observer of observers) observer.stepEnded(exchange, 'gateway.cache.lookup', undefined);
    } else {
      outstanding += 1;
      decided.then(
        (decision) => {
          result.decision = decision;
          for (const observer of observers) observer.stepEnded(exchange, 'gateway.cache.lookup', undefined);
          arrive();
        },
        (error: unknown) => {
          for (const observer of observers) observer.stepEnded(exchange, 'gateway.cache.lookup', error);
          fail(2, error);
        },
      );
    }
    arrive();
  });
}

/** Takes the preflight's answer into the exchange, or fails the request with its failure. */
function acceptPreflight(
  exchange: PlannedExchange,
  answered: Preflight,
  deps: Pick<InferenceDeps, 'cache'>,
): asserts exchange is ReadyExchange {
  exchange.decision = answered.decision;
  for (const observer of exchange.observers) observer.cacheDecided(exchange);
  if (answered.failedAt !== NOTHING_FAILED || answered.balance === undefined) {
    releaseRefreshLock(exchange, deps);
    throw answered.failure;
  }
  exchange.balance = answered.balance;
}
