/**
 * The side concerns of an inference exchange, each an observer of its events: the request
 * metrics, usage analytics, and the facts of its span and access-log line (with the step and
 * upstream spans when the request is traced). The list is made once per app (gateway-app.ts).
 */
import { SpanKind } from '@opentelemetry/api';
import type { UsageRecorder } from '../billing/usage-analytics.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import { genAiProvider } from '../observability/request-observer.ts';
import { injectContext, recordFailure } from '../observability/tracing.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import {
  type ExchangeStep,
  type InferenceExchange,
  QuietObserver,
  type ServedEntry,
} from './inference-exchange.ts';
import { type AttemptFailureKind, classifyAttemptFailure, OUTCOME_LABEL } from './routing/attempt-failure.ts';

/** Latencies, time to first token and client aborts. */
export class MetricsObserver extends QuietObserver {
  readonly #metrics: GatewayMetrics;

  constructor(metrics: GatewayMetrics) {
    super();
    this.#metrics = metrics;
  }

  override routed(exchange: InferenceExchange): void {
    // The provider label of the request's metrics (gateway-app.ts counts at onResponse).
    exchange.request.gatewayProvider = exchange.route?.provider.name;
  }

  override upstreamAnswered(exchange: InferenceExchange, _statusCode: number, streamed: boolean): void {
    const provider = exchange.route?.provider.name ?? 'none';
    const route = exchange.routeLabel;
    this.#metrics.upstreamSeconds.observe(
      { provider, route },
      (exchange.upstreamDoneAt - exchange.dispatchedAt) / 1000,
    );
    if (streamed)
      this.#metrics.overheadSeconds.observe({ route }, (exchange.dispatchedAt - exchange.startedAt) / 1000);
  }

  override replying(exchange: InferenceExchange): void {
    const overheadMs =
      exchange.dispatchedAt - exchange.startedAt + (performance.now() - exchange.upstreamDoneAt);
    this.#metrics.overheadSeconds.observe({ route: exchange.routeLabel }, overheadMs / 1000);
  }

  override streamEnded(exchange: InferenceExchange, firstWriteAt: number | undefined): void {
    if (firstWriteAt === undefined) return;
    this.#metrics.timeToFirstToken.observe(
      { provider: exchange.route?.provider.name ?? 'none', route: exchange.routeLabel },
      (firstWriteAt - exchange.startedAt) / 1000,
    );
  }

  override attemptEnded(
    _exchange: InferenceExchange,
    provider: string,
    outcome: AttemptFailureKind | 'ok',
    fellBack: boolean,
  ): void {
    const label = OUTCOME_LABEL[outcome];
    this.#metrics.routeAttempts.inc({ provider, outcome: label });
    if (fellBack) this.#metrics.routeFallbacks.inc({ reason: label });
  }

  override aborted(exchange: InferenceExchange): void {
    const route = exchange.routeLabel;
    this.#metrics.clientAborts.inc({ route });
    // No 'finish' follows, so the onResponse hook will not count this one.
    this.#metrics.requests.inc({
      route,
      status: '499',
      provider: exchange.request.gatewayProvider ?? 'none',
    });
  }
}

/** Usage analytics: each answered request's rolled-up cell. */
export class UsageObserver extends QuietObserver {
  readonly #usage: UsageRecorder;

  constructor(usage: UsageRecorder) {
    super();
    this.#usage = usage;
  }

  override settled(exchange: InferenceExchange, usage: TokenUsage, costMicros: number): void {
    if (exchange.principal === undefined) return;
    this.#usage.record({
      principal: exchange.principal,
      // Through a model route: the target that served, the route on its own dimension.
      model: exchange.routeTarget?.target.model ?? exchange.body?.model ?? '',
      route: exchange.routeSelection?.route.model,
      connectionSlug: exchange.route?.credential?.slug,
      inputTokens: inputTokensOf(usage),
      outputTokens: usage.outputTokens,
      costMicros,
    });
  }

  /** A cached answer: a request that cost nothing and saved what the answer cost when made. */
  override servedFromCache(exchange: InferenceExchange, served: ServedEntry): void {
    if (exchange.principal === undefined) return;
    // A hit never went through the route: no target served it.
    this.#usage.record({
      principal: exchange.principal,
      model: exchange.body?.model ?? '',
      route: exchange.routeSelection?.route.model,
      connectionSlug: exchange.route?.credential?.slug,
      inputTokens: 0,
      outputTokens: 0,
      costMicros: 0,
      savedMicros: served.entry.costMicros,
    });
  }
}

/** The total input tokens of a usage, as the GenAI conventions count them (cached ones included). */
const inputTokensOf = (usage: TokenUsage) =>
  usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens;

/** Prompts and completions on spans (GATEWAY_TRACE_CONTENT=on) are cut to this many characters. */
const TRACE_CONTENT_CHARS = 64 * 1024;

/** The `model` an answer names, read from its beginning (only when the request is traced). */
function answerModel(text: string): string | undefined {
  return /"model"\s*:\s*"([^"\\]{1,200})"/.exec(text.slice(0, 4096))?.[1];
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * The facts the span and the access log are written from (request-observer.ts), and, when the
 * request is traced, the steps' and the upstream call's child spans.
 */
export class TraceObserver extends QuietObserver {
  readonly #traceContent: boolean;

  constructor(traceContent: boolean) {
    super();
    this.#traceContent = traceContent;
  }

  override admitted(exchange: InferenceExchange): void {
    const { facts, body, trace } = exchange;
    if (body === undefined) return;
    facts.requestModel = body.model;
    facts.stream = body.stream;
    if (trace?.recording !== true) return;
    trace.span.updateName(`${facts.operation} ${body.model}`);
    if (this.#traceContent) {
      const input = JSON.stringify(body.body.messages ?? body.body.input ?? null);
      trace.set({ 'gen_ai.input.messages': input.slice(0, TRACE_CONTENT_CHARS) });
    }
  }

  override authenticated(exchange: InferenceExchange): void {
    const { facts, principal } = exchange;
    if (principal === undefined) return;
    facts.tenantId = principal.tenantId;
    facts.workspaceId = principal.workspaceId;
    facts.credentialKind = principal.kind;
  }

  override routed(exchange: InferenceExchange): void {
    const { facts, route } = exchange;
    if (route === undefined) return;
    facts.provider = genAiProvider(route.provider.name);
    facts.upstreamModel = route.upstreamModel;
    facts.byok = route.byok;
    // A model route's next attempt may go to a target without a Connection.
    if (route.credential !== undefined || facts.connectionSlug !== undefined)
      facts.connectionSlug = route.credential?.slug;
    const target = exchange.routeTarget;
    if (target === undefined || exchange.routeSelection === undefined) return;
    facts.modelRoute = exchange.routeSelection.route.model;
    facts.routeTarget = target.target.model;
  }

  override attemptEnded(exchange: InferenceExchange): void {
    exchange.facts.routeAttempts = exchange.routeAttempts;
  }

  override stepStarted(exchange: InferenceExchange, step: ExchangeStep): void {
    if (exchange.trace?.recording === true) exchange.stepSpan = exchange.trace.startChild(step);
  }

  override stepEnded(exchange: InferenceExchange, _step: ExchangeStep, error: unknown): void {
    const span = exchange.stepSpan;
    if (span === undefined) return;
    exchange.stepSpan = undefined;
    if (error !== undefined) recordFailure(span, error);
    span.end();
  }

  override cacheDecided(exchange: InferenceExchange): void {
    const { facts, cachePlan, decision } = exchange;
    if (cachePlan === undefined) return;
    facts.policy = cachePlan.policy.name;
    facts.cache =
      decision === undefined
        ? undefined
        : decision.kind === 'serve'
          ? decision.result
          : (decision.write?.result ?? 'bypass');
    if (decision?.kind === 'serve' && decision.similarity !== undefined)
      facts.similarity = decision.similarity;
  }

  override servedFromCache(exchange: InferenceExchange, served: ServedEntry): void {
    exchange.facts.cache = served.result;
    exchange.facts.costMicros = 0;
  }

  // The upstream call's span; its context goes upstream as `traceparent`. A request sampled out
  // passes its (unsampled) context on without a span of its own.
  override upstreamStarted(exchange: InferenceExchange, headers: Record<string, string>): void {
    const { trace, route, facts } = exchange;
    if (trace === undefined || route === undefined) return;
    if (!trace.recording) {
      injectContext(trace.span, headers);
      return;
    }
    const span = trace.startChild(
      `${facts.operation} ${route.upstreamModel}`,
      {
        'gen_ai.operation.name': facts.operation,
        'gen_ai.provider.name': facts.provider ?? route.provider.name,
        'gen_ai.request.model': route.upstreamModel,
        'server.address': hostOf(route.baseUrl),
      },
      SpanKind.CLIENT,
    );
    // A model route's attempt: one such span each, with its number, target and outcome.
    const target = exchange.routeTarget;
    if (target !== undefined) {
      span.setAttribute('gateway.route.attempt', exchange.routeAttempts);
      span.setAttribute('gateway.route.target', target.target.model);
    }
    exchange.upstreamSpan = span;
    injectContext(span, headers);
  }

  override upstreamAnswered(exchange: InferenceExchange, statusCode: number, streamed: boolean): void {
    const span = exchange.upstreamSpan;
    if (span === undefined) return;
    span.setAttribute('http.response.status_code', statusCode);
    if (exchange.routeTarget !== undefined) span.setAttribute('gateway.route.outcome', 'ok');
    if (streamed) return;
    exchange.upstreamSpan = undefined;
    span.end();
  }

  override upstreamFailed(exchange: InferenceExchange, error: unknown): void {
    const span = exchange.upstreamSpan;
    if (span === undefined) return;
    exchange.upstreamSpan = undefined;
    if (exchange.routeTarget !== undefined)
      span.setAttribute('gateway.route.outcome', OUTCOME_LABEL[classifyAttemptFailure(error).kind]);
    recordFailure(span, error);
    span.end();
  }

  override streamStarted(exchange: InferenceExchange, done: Promise<unknown>): void {
    // A stream's answer is out before its usage is known: the span and the log line wait for it.
    exchange.facts.pending = done;
  }

  override streamEnded(exchange: InferenceExchange, firstWriteAt: number | undefined): void {
    const span = exchange.upstreamSpan;
    exchange.upstreamSpan = undefined;
    span?.end();
    if (firstWriteAt !== undefined) {
      const firstMs = firstWriteAt - exchange.startedAt;
      exchange.facts.timeToFirstTokenMs = Math.round(firstMs * 1000) / 1000;
    }
  }

  override replying(exchange: InferenceExchange, text: string): void {
    const { trace, facts } = exchange;
    if (trace?.recording !== true) return;
    const model = answerModel(text);
    if (model !== undefined) facts.responseModel = model;
    if (this.#traceContent) trace.set({ 'gen_ai.output.messages': text.slice(0, TRACE_CONTENT_CHARS) });
  }

  override settled(exchange: InferenceExchange, usage: TokenUsage, costMicros: number): void {
    const { facts } = exchange;
    facts.inputTokens = inputTokensOf(usage);
    facts.outputTokens = usage.outputTokens;
    facts.costMicros = costMicros;
  }
}
