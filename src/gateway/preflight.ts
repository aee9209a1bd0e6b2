/**
 * The preflight (DESIGN section 5): the one round trip to the runtime store before the upstream
 * call. The balance, the token's rate window, the spend reservation and the cache lookup leave
 * together; the answer is one typed result, read by `acceptPreflight`. The reservation is made at
 * once (a hit gives it back, and is served even when the budget is used up) rather than after the
 * lookup, which would be a second round trip on every miss.
 */
import type { BalanceState } from '../billing/accountant.ts';
import { NOTHING_TO_DO } from '../billing/spend-reservation.ts';
import { decideFromCache, releaseRefreshLock } from './cache-step.ts';
import type { InferenceDeps } from './inference-deps.ts';
import type { CacheDecision, PlannedExchange, ReadyExchange } from './inference-exchange.ts';

/** What the preflight's round trip answered. */
export interface Preflight {
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

export function preflight(
  exchange: PlannedExchange,
  deps: Pick<InferenceDeps, 'accountant' | 'cache' | 'cacheMetrics' | 'semantic'>,
): Promise<Preflight> {
  const { principal, route, reservation, cachePlan, observers } = exchange;
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
    const reserved = reservation.reserve(route, exchange.estimatedMicros);
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
export function acceptPreflight(
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
