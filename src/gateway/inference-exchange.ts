/**
 * One inference request as it goes through the steps of inference-handler.ts: what it has learned
 * (the principal, the route, the plans, the reservation, the balance, the cache's decision) and
 * the named events it tells its observers (metrics, the span and access-log facts, usage
 * analytics). Every field exists from creation, so that every exchange has one shape; the steps
 * narrow it (`PlannedExchange`, `ReadyExchange`) as they fill it in. The answer's headers are
 * rendered here and nowhere else.
 */
import type { Span } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { BALANCE_HEADERS, type BalanceState } from '../billing/accountant.ts';
import type { SpendReservation } from '../billing/spend-reservation.ts';
import {
  CACHE_AGE_HEADER,
  CACHE_HEADER,
  CACHE_SIMILARITY_HEADER,
  type CachePlan,
  type CacheWrite,
} from '../cache/cache-plan.ts';
import type { CacheEntry } from '../cache/response-cache.ts';
import type { InferenceFacts } from '../observability/request-observer.ts';
import type { RequestTrace } from '../observability/tracing.ts';
import { ROUTING_HEADERS } from '../providers/routing-headers.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import { OPERATION_ROUTE, type Operation } from '../shapes/api.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import type { UpstreamPlan } from '../translate/types.ts';
import type { ResponsesState } from './responses/responses-exchange.ts';
import type { AttemptFailureKind } from './routing/attempt-failure.ts';
import type { TargetLease } from './routing/route-health.ts';
import type { PickedTarget, RouteSelection } from './routing/target-selection.ts';
import type { InferenceBody } from './validate-body.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The inference request's exchange, once its handler runs. */
    exchange?: InferenceExchange;
  }
}

/** An entry to answer from: an exact hit, a semantic one (with its similarity), or a stale copy. */
export interface ServedEntry {
  entry: CacheEntry;
  result: 'hit' | 'semantic-hit' | 'stale';
  ageSeconds?: number;
  similarity?: number;
}

/** What the cache step decided: serve an entry, or forward (with a stale refresh's lock, and what to write). */
export type CacheDecision =
  | ({ kind: 'serve' } & ServedEntry)
  | {
      kind: 'forward';
      write: CacheWrite | undefined;
      /** A stale refresh: the entry to fall back on and the lock this request holds. */
      refresh: { entry: CacheEntry; lockToken: string } | undefined;
    };

/** The steps that get a child span of their own when the request is traced. */
export type ExchangeStep = 'gateway.auth' | 'gateway.cache.lookup' | 'gateway.cache.write';

/**
 * What an exchange tells the side concerns, in the order it happens. Calls are synchronous and
 * must not throw: an observer records, it never changes the answer.
 */
export interface ExchangeObserver {
  /** The body is valid: the model and whether it streams are known. */
  admitted(exchange: InferenceExchange): void;
  authenticated(exchange: InferenceExchange): void;
  routed(exchange: InferenceExchange): void;
  stepStarted(exchange: InferenceExchange, step: ExchangeStep): void;
  stepEnded(exchange: InferenceExchange, step: ExchangeStep, error: unknown): void;
  /** The preflight's cache decision is in `exchange.decision` (undefined when the lookup failed). */
  cacheDecided(exchange: InferenceExchange): void;
  servedFromCache(exchange: InferenceExchange, served: ServedEntry): void;
  /** The request leaves for the upstream with these headers (a trace context may be added). */
  upstreamStarted(exchange: InferenceExchange, headers: Record<string, string>): void;
  /** The upstream's answer is in: whole (JSON), or its head (a stream, `streamed`). */
  upstreamAnswered(exchange: InferenceExchange, statusCode: number, streamed: boolean): void;
  upstreamFailed(exchange: InferenceExchange, error: unknown): void;
  /** A relayed stream ended; `settled` settles once its accounting is done. */
  streamEnded(exchange: InferenceExchange, firstWriteAt: number | undefined): void;
  /** A stream is being relayed: the span and the access log wait for `done`. */
  streamStarted(exchange: InferenceExchange, done: Promise<unknown>): void;
  /** A JSON answer goes out with this text. */
  replying(exchange: InferenceExchange, text: string): void;
  /** The usage billed and its cost. */
  settled(exchange: InferenceExchange, usage: TokenUsage, costMicros: number): void;
  /** The client went away before its answer was complete. */
  aborted(exchange: InferenceExchange): void;
  /**
   * A model route's attempt at `provider` is over: `ok`, or why it failed; `fellBack` when another
   * attempt follows it.
   */
  attemptEnded(
    exchange: InferenceExchange,
    provider: string,
    outcome: AttemptFailureKind | 'ok',
    fellBack: boolean,
  ): void;
}

/** An observer that hears nothing: observers extend it and override the events they use. */
export class QuietObserver implements ExchangeObserver {
  admitted(_exchange: InferenceExchange): void {}
  authenticated(_exchange: InferenceExchange): void {}
  routed(_exchange: InferenceExchange): void {}
  stepStarted(_exchange: InferenceExchange, _step: ExchangeStep): void {}
  stepEnded(_exchange: InferenceExchange, _step: ExchangeStep, _error: unknown): void {}
  cacheDecided(_exchange: InferenceExchange): void {}
  servedFromCache(_exchange: InferenceExchange, _served: ServedEntry): void {}
  upstreamStarted(_exchange: InferenceExchange, _headers: Record<string, string>): void {}
  upstreamAnswered(_exchange: InferenceExchange, _statusCode: number, _streamed: boolean): void {}
  upstreamFailed(_exchange: InferenceExchange, _error: unknown): void {}
  streamEnded(_exchange: InferenceExchange, _firstWriteAt: number | undefined): void {}
  streamStarted(_exchange: InferenceExchange, _done: Promise<unknown>): void {}
  replying(_exchange: InferenceExchange, _text: string): void {}
  settled(_exchange: InferenceExchange, _usage: TokenUsage, _costMicros: number): void {}
  aborted(_exchange: InferenceExchange): void {}
  attemptEnded(
    _exchange: InferenceExchange,
    _provider: string,
    _outcome: AttemptFailureKind | 'ok',
    _fellBack: boolean,
  ): void {}
}

/** The GenAI conventions' operation names (gen_ai.operation.name). */
const GEN_AI_OPERATION: Readonly<Record<Operation, string>> = {
  chat: 'chat',
  messages: 'chat',
  // The GenAI conventions name the Responses API's operation `chat` too (openai.api.type tells them apart).
  responses: 'chat',
  embeddings: 'embeddings',
};

export class InferenceExchange {
  readonly operation: Operation;
  readonly routeLabel: string;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly startedAt: number;
  /** Aborted when the client goes away: nothing goes upstream (or is billed) for nobody. */
  readonly abort = new AbortController();
  /** Fixed when the handler is made; told every event of the exchange. */
  readonly observers: readonly ExchangeObserver[];
  /** What the span and the access log say of the request (written by an observer). */
  readonly facts: InferenceFacts;
  readonly trace: RequestTrace | undefined;
  body: InferenceBody | undefined = undefined;
  principal: Principal | undefined = undefined;
  route: ResolvedRoute | undefined = undefined;
  plan: UpstreamPlan | undefined = undefined;
  cachePlan: CachePlan | undefined = undefined;
  reservation: SpendReservation | undefined = undefined;
  balance: BalanceState | undefined = undefined;
  decision: CacheDecision | undefined = undefined;
  /**
   * The model route the request's model names (issue #25) and its walk through the targets;
   * undefined for a plain model string. `route` and `plan` are then those of `routeTarget`, the
   * attempt in progress (or the one that served).
   */
  routeSelection: RouteSelection | undefined = undefined;
  routeTarget: PickedTarget | undefined = undefined;
  /** The attempt target's hold in RouteHealth (in flight, a probe), from its pick to its end. */
  routeLease: TargetLease | undefined = undefined;
  /** Attempts the route made so far. */
  routeAttempts = 0;
  /** `/v1/responses` only: the response's id and the conversation it continues. */
  responses: ResponsesState | undefined = undefined;
  /** When (performance.now()) the upstream call left, and when its answer was in. */
  dispatchedAt = 0;
  upstreamDoneAt = 0;
  /** The observers' spans: the step in progress and the upstream call. */
  stepSpan: Span | undefined = undefined;
  upstreamSpan: Span | undefined = undefined;

  constructor(
    operation: Operation,
    request: FastifyRequest,
    reply: FastifyReply,
    observers: readonly ExchangeObserver[],
  ) {
    this.operation = operation;
    this.routeLabel = OPERATION_ROUTE[operation];
    this.request = request;
    this.reply = reply;
    this.startedAt = performance.now();
    this.observers = observers;
    this.facts = {
      operation: GEN_AI_OPERATION[operation],
      stream: false,
      ...(operation === 'responses' ? { apiType: 'responses' } : {}),
    };
    request.inference = this.facts;
    this.trace = request.trace;
    request.exchange = this;
  }

  /**
   * The client went away before its answer was complete (gateway-app.ts watches): nothing more
   * goes upstream, or is billed, for nobody.
   */
  clientGone(): void {
    this.abort.abort();
    for (const observer of this.observers) observer.aborted(this);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** The model route's part of the answer's headers; undefined without a route. */
  get routeHeaders(): RouteHeaderValues | undefined {
    const selection = this.routeSelection;
    const target = this.routeTarget;
    if (selection === undefined || target === undefined) return undefined;
    return { model: selection.route.model, target: target.target.model, attempts: this.routeAttempts };
  }
}

/** A model route's account of an answer: the route's model, the target that served, the attempts. */
export interface RouteHeaderValues {
  model: string;
  target: string;
  attempts: number;
}

/** An exchange once planned: who asks, where it goes, and what it may spend. */
export interface PlannedExchange extends InferenceExchange {
  body: InferenceBody;
  principal: Principal;
  route: ResolvedRoute;
  plan: UpstreamPlan;
  reservation: SpendReservation;
}

/** An exchange past its preflight: the balance and the cache's decision are known. */
export interface ReadyExchange extends PlannedExchange {
  balance: BalanceState;
  decision: CacheDecision;
}

/** The cache's part of an answer's headers. */
export interface CacheHeaderValues {
  result: string;
  ageSeconds?: number | undefined;
  similarity?: number | undefined;
}

/**
 * Every header the gateway adds to an answer (balance, routing, cache, content type), in one
 * object of one shape per kind of answer. The only place they are written.
 */
export function renderAnswerHeaders(
  route: ResolvedRoute,
  balance: BalanceState,
  charged: number | 'deferred',
  cache: CacheHeaderValues | undefined,
  contentType: string | undefined,
  routed?: RouteHeaderValues,
): Record<string, string> {
  const headers: Record<string, string> = {};
  headers[BALANCE_HEADERS.mode] = balance.mode;
  headers[BALANCE_HEADERS.charged] = String(charged);
  headers[BALANCE_HEADERS.currency] = 'USD';
  if (balance.remainingMicros !== undefined)
    headers[BALANCE_HEADERS.remaining] = String(balance.remainingMicros);
  const credential = route.credential;
  headers[ROUTING_HEADERS.byok] = credential === undefined ? 'false' : 'true';
  if (credential !== undefined) {
    headers[ROUTING_HEADERS.credentialId] = credential.id;
    headers[ROUTING_HEADERS.credentialSlug] = credential.slug;
    headers[ROUTING_HEADERS.credentialLabel] = credential.slug;
  }
  if (routed !== undefined) {
    headers[ROUTING_HEADERS.route] = routed.model;
    headers[ROUTING_HEADERS.routeTarget] = routed.target;
    headers[ROUTING_HEADERS.routeAttempts] = String(routed.attempts);
  }
  if (cache !== undefined) {
    headers[CACHE_HEADER] = cache.result;
    if (cache.result === 'hit' && cache.ageSeconds !== undefined)
      headers[CACHE_AGE_HEADER] = String(cache.ageSeconds);
    if (cache.result === 'semantic-hit' && cache.similarity !== undefined)
      headers[CACHE_SIMILARITY_HEADER] = cache.similarity.toFixed(3);
  }
  if (contentType !== undefined) headers['content-type'] = contentType;
  return headers;
}
