/**
 * A model route's attempts (issue #25, DESIGN section 5): the route part of `plan` and `forward`
 * repeated per target until one serves or the route gives up. Each attempt:
 *
 * - goes to a target picked by target-selection.ts (tiers, weights or load, circuits), planned
 *   afresh from the client's request for that target (plan-target.ts);
 * - holds its own spend reservation (the token's budget, the target's Connection cap): a failed
 *   attempt's is given back whole, so only the attempt that served is charged, at its own price;
 * - must send its first byte within `firstByteTimeoutMs`; a stream is retried only until its first
 *   byte reached the client (relay-stream.ts holds the head until then);
 * - tells its target's circuit breaker (route-health.ts) how it went.
 *
 * A failure is retried as attempt-failure.ts classifies it, at most `maxAttempts` attempts in all;
 * a target not yet tried is tried at once, the same target again after a backoff (retry-backoff.ts).
 */
import { GatewayError, InsufficientBalanceError, NoHealthyTargetError } from '../../errors/gateway-error.ts';
import { ROUTING_HEADERS } from '../../providers/routing-headers.ts';
import type { ModelRouteRecord } from '../../stores/records.ts';
import { UpstreamAbortedError } from '../../upstream/upstream-client.ts';
import { estimateReservation } from '../accounting.ts';
import { forward } from '../forward-step.ts';
import type { InferenceDeps } from '../inference-deps.ts';
import type { InferenceExchange, ReadyExchange } from '../inference-exchange.ts';
import { planTarget } from '../plan-target.ts';
import { type AttemptFailure, classifyAttemptFailure, isRetried, verdictOf } from './attempt-failure.ts';
import { backoffMs, waitMs } from './retry-backoff.ts';
import type { TargetLease } from './route-health.ts';
import { type PickedTarget, RouteSelection } from './target-selection.ts';

/**
 * The route part of `plan` for a model route: the first attempt's target, picked and planned.
 * When every target's circuit is open the request is planned for the route's first target all
 * the same, with no attempt target: a cache hit still answers (a hit never touches the route), a
 * miss is answered 503 `service.no_healthy_target` by `forwardRouted`.
 */
export function planFirstAttempt(
  exchange: InferenceExchange,
  deps: InferenceDeps,
  route: ModelRouteRecord,
): void {
  const selection = new RouteSelection(route, deps.routeHealth, deps.routeRandom);
  exchange.routeSelection = selection;
  if (planNextTarget(exchange, deps, selection) !== undefined) return;
  exchange.routeTarget = undefined;
  const first = route.targets[0];
  if (first === undefined) throw noHealthyTarget(exchange, selection);
  try {
    planTarget(exchange, deps, first.model);
  } catch {
    throw noHealthyTarget(exchange, selection);
  }
}

/**
 * Picks the next target and plans the request for it. A target the gateway cannot send this
 * request to (its provider has no platform key, its Connection is gone, it does not serve the
 * operation) is ruled out for the request and the next one picked; when none is left, the first
 * such refusal is the answer, else undefined (every circuit open).
 */
function planNextTarget(
  exchange: InferenceExchange,
  deps: InferenceDeps,
  selection: RouteSelection,
): PickedTarget | undefined {
  let unroutable: unknown;
  for (;;) {
    const picked = selection.pick();
    if (picked === undefined) {
      if (unroutable !== undefined) throw unroutable;
      return undefined;
    }
    // Before planning: the observers told of the route learn its target with it.
    exchange.routeTarget = picked;
    try {
      planTarget(exchange, deps, picked.target.model, selection.route.firstByteTimeoutMs);
      // Counted in flight from now (leastBusy sees it at once), and a half-open probe claimed.
      exchange.routeLease = deps.routeHealth.begin(picked.key);
      return picked;
    } catch (error) {
      exchange.routeTarget = undefined;
      if (!(error instanceof GatewayError)) throw error;
      selection.failed(picked.target, { kind: 'rejected', retryAfterMs: undefined });
      unroutable ??= error;
    }
  }
}

function noHealthyTarget(exchange: InferenceExchange, selection: RouteSelection): NoHealthyTargetError {
  const error = new NoHealthyTargetError(selection.route.model, selection.millisUntilAvailable() / 1000);
  return withRouteHeaders(error, exchange) as NoHealthyTargetError;
}

/** An error answer of a routed request says which route, which target last, and how many attempts. */
function withRouteHeaders(error: unknown, exchange: InferenceExchange): unknown {
  if (!(error instanceof GatewayError) || exchange.routeSelection === undefined) return error;
  error.headers[ROUTING_HEADERS.route] = exchange.routeSelection.route.model;
  if (exchange.routeTarget !== undefined)
    error.headers[ROUTING_HEADERS.routeTarget] = exchange.routeTarget.target.model;
  error.headers[ROUTING_HEADERS.routeAttempts] = String(exchange.routeAttempts);
  return error;
}

/**
 * The request is over without its attempt having ended (a cache hit, a preflight refusal): the
 * target's lease is given back, the breaker told nothing.
 */
export function releaseAttempt(exchange: InferenceExchange, deps: Pick<InferenceDeps, 'routeHealth'>): void {
  const lease = exchange.routeLease;
  if (lease === undefined) return;
  exchange.routeLease = undefined;
  const route = exchange.routeSelection?.route;
  if (route !== undefined) deps.routeHealth.end(lease, 'unknown', route.circuitBreaker);
}

/** Forwards the exchange: through its model route's attempts when it has one, else once. */
export function forwardRouted(exchange: ReadyExchange, deps: InferenceDeps): Promise<unknown> {
  const selection = exchange.routeSelection;
  return selection === undefined ? forward(exchange, deps) : attempt(exchange, deps, selection);
}

async function attempt(
  exchange: ReadyExchange,
  deps: InferenceDeps,
  selection: RouteSelection,
): Promise<unknown> {
  const route = selection.route;
  if (exchange.routeTarget === undefined) throw noHealthyTarget(exchange, selection);
  for (;;) {
    const picked = exchange.routeTarget as PickedTarget;
    const provider = exchange.route.provider.name;
    exchange.routeAttempts += 1;
    const lease = exchange.routeLease as TargetLease;
    exchange.routeLease = undefined;
    let failed: unknown;
    try {
      const served = await forward(exchange, deps);
      deps.routeHealth.end(lease, 'healthy', route.circuitBreaker);
      for (const observer of exchange.observers) observer.attemptEnded(exchange, provider, 'ok', false);
      return served;
    } catch (error) {
      failed = error;
    }
    const failure = classifyAttemptFailure(failed);
    deps.routeHealth.end(lease, verdictOf(failure.kind), route.circuitBreaker);
    const { reply } = exchange;
    // Nothing is retried once a byte reached the client, nor for a client gone away.
    const again =
      isRetried(failure.kind, route.retry.on) &&
      exchange.routeAttempts < route.retry.maxAttempts &&
      !exchange.signal.aborted &&
      !reply.sent &&
      !reply.raw.headersSent;
    const next = again ? planRetry(exchange, deps, selection, picked, failure) : undefined;
    for (const observer of exchange.observers)
      observer.attemptEnded(exchange, provider, failure.kind, next !== undefined);
    if (next === undefined) throw withRouteHeaders(failed, exchange);
    await waitMs(backoffMs(route.retry, next.triedBefore, next.retryAfterMs), exchange.signal);
    if (exchange.signal.aborted) throw new UpstreamAbortedError();
    await reserveAgain(exchange, deps);
  }
}

/**
 * The target of the attempt after a failed one, planned; undefined when none is left (the failed
 * attempt's target, route and plan then stay the exchange's: its failure is the answer).
 */
function planRetry(
  exchange: ReadyExchange,
  deps: InferenceDeps,
  selection: RouteSelection,
  failed: PickedTarget,
  failure: AttemptFailure,
): PickedTarget | undefined {
  const { route, plan } = exchange;
  selection.failed(failed.target, failure);
  let next: PickedTarget | undefined;
  try {
    next = planNextTarget(exchange, deps, selection);
  } catch {
    // Only targets the request cannot go to are left: the attempt's own failure stands.
  }
  if (next !== undefined) return next;
  exchange.routeTarget = failed;
  if (exchange.route !== route) {
    exchange.route = route;
    exchange.plan = plan;
    for (const observer of exchange.observers) observer.routed(exchange);
  }
  return undefined;
}

/**
 * The next attempt's own hold: the failed attempt's is given back whole (it is never charged), and
 * the new target's estimate reserved against the token's budget and its Connection's cap. A
 * platform target needs a balance left when the request began on a BYOK one.
 */
function reserveAgain(exchange: ReadyExchange, deps: InferenceDeps): Promise<void> {
  exchange.reservation.release((error) =>
    deps.log.error({ err: error }, 'releasing a spend reservation failed'),
  );
  const { balance, route } = exchange;
  if (!route.byok && balance.remainingMicros !== undefined && balance.remainingMicros <= 0)
    return Promise.reject(new InsufficientBalanceError());
  exchange.reservation = deps.spending.open(exchange.principal);
  return exchange.reservation.reserve(route, estimateReservation(exchange, deps));
}
