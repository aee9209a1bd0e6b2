/**
 * The request path of /v1/chat/completions, /v1/embeddings and /v1/messages (DESIGN section 5),
 * top-down. Each step, and the module that owns it:
 *
 *  1. The client's dialect (OpenAI or Anthropic) ........ client-dialect.ts, decided on arrival
 *  2. Validate the body .................................. validate-body.ts
 *  3. Authenticate, authorise the route and model ......... auth/authenticate.ts
 *  4. Route from the model name ........................... providers/route-resolver.ts
 *  5. Balance; a token's rate limits ...................... billing/accountant.ts, billing/spend-reservation.ts
 *  6. Plan what goes upstream and how it comes back ....... translate/plans/registry.ts
 *  7. Cache: plan, lookup, stale-while-revalidate ......... cache/cache-plan.ts, cache-step.ts
 *  8. Reserve spend (token budget, Connection cap) ........ billing/spend-reservation.ts
 *  9. Call the upstream (sign, retry, map error answers) .. upstream-call.ts
 * 10. Answer: JSON here, streams in relay-stream.ts; account for it (accounting.ts) and write the
 *     cache entry when planned
 * 11. Release what was reserved and not settled ........... here, whatever happened
 */
import { type Span, SpanKind } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import { type BalanceState, renderBalanceHeaders } from '../billing/accountant.ts';
import type { SpendReservation } from '../billing/spend-reservation.ts';
import { estimateRequestCostMicros } from '../billing/usage.ts';
import { stripCacheDeclarations } from '../cache/cache-key.ts';
import { CACHE_HEADER, type CacheWrite, planCache } from '../cache/cache-plan.ts';
import { attributeToConnection } from '../errors/upstream-errors.ts';
import { genAiProvider, type InferenceFacts } from '../observability/request-observer.ts';
import { injectContext, type RequestTrace, recordFailure, traced } from '../observability/tracing.ts';
import { renderRoutingHeaders } from '../providers/routing-headers.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import { OPERATION_ROUTE, type Operation } from '../shapes/api.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import { isStreamContentType } from '../sse/stream-framing.ts';
import { planUpstream } from '../translate/plans/registry.ts';
import type { PlannedAnswer, UpstreamPlan } from '../translate/types.ts';
import { UpstreamAbortedError, type UpstreamResponse } from '../upstream/upstream-client.ts';
import { type AccountFor, createAccounting } from './accounting.ts';
import { decideFromCache, serveFromCache, storeAnswer } from './cache-step.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { relayStream, SSE_CONTENT_TYPE } from './relay-stream.ts';
import { callUpstream, createCallSender, readAnswerText } from './upstream-call.ts';
import { type JsonObject, validateInferenceBody } from './validate-body.ts';

export type { InferenceDeps } from './inference-deps.ts';

function maxOutputTokens(body: JsonObject): number {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

/** The GenAI conventions' operation names (gen_ai.operation.name). */
const GEN_AI_OPERATION: Readonly<Record<Operation, string>> = {
  chat: 'chat',
  messages: 'chat',
  embeddings: 'embeddings',
};

/** Prompts and completions on spans (GATEWAY_TRACE_CONTENT=on) are cut to this many characters. */
const TRACE_CONTENT_CHARS = 64 * 1024;

/** The total input tokens of a usage, as the GenAI conventions count them (cached ones included). */
const inputTokensOf = (usage: TokenUsage) =>
  usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens;

/** The `model` an answer names, read from its beginning (only when the request is traced). */
function answerModel(text: string): string | undefined {
  return /"model"\s*:\s*"([^"\\]{1,200})"/.exec(text.slice(0, 4096))?.[1];
}

/** What the answering steps share about one forwarded request. */
interface Forwarding {
  route: ResolvedRoute;
  plan: UpstreamPlan;
  routeLabel: string;
  balance: BalanceState;
  cacheWrite: CacheWrite | undefined;
  account: AccountFor;
  signal: AbortSignal;
  startedAt: number;
  facts: InferenceFacts;
  trace: RequestTrace | undefined;
  principal: Principal;
}

export function createInferenceHandler(operation: Operation, deps: InferenceDeps) {
  const routeLabel = OPERATION_ROUTE[operation];

  return async function handleInference(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const startedAt = performance.now();
    // Watched from the start: a client gone while the gateway authenticates or reads the cache must
    // not leave a request to go upstream (and be billed) for nobody.
    const abort = watchClientAbort(reply, routeLabel, deps);
    // What the span and the access log say of this request, filled in as the steps learn it.
    const facts: InferenceFacts = { operation: GEN_AI_OPERATION[operation], stream: false };
    request.inference = facts;
    const requestTrace = request.trace;
    const parsed = validateInferenceBody(request.body, operation);
    facts.requestModel = parsed.model;
    facts.stream = parsed.stream;
    if (requestTrace?.recording === true) {
      requestTrace.span.updateName(`${facts.operation} ${parsed.model}`);
      if (deps.settings.traceContent) {
        const input = JSON.stringify(parsed.body.messages ?? parsed.body.input ?? null);
        requestTrace.set({ 'gen_ai.input.messages': input.slice(0, TRACE_CONTENT_CHARS) });
      }
    }
    const principal = await traced(requestTrace, 'gateway.auth', () =>
      deps.authenticator.authenticate(extractCredential(request.headers)),
    );
    facts.tenantId = principal.tenantId;
    facts.workspaceId = principal.workspaceId;
    facts.credentialKind = principal.kind;
    authorizeOperation(principal, operation, parsed.model);
    const byokRequired = String(request.headers['x-service-byok']).toLowerCase() === 'required';
    const route = deps.routes.resolve(parsed.model, operation, principal, byokRequired);
    request.gatewayProvider = route.provider.name;
    facts.provider = genAiProvider(route.provider.name);
    facts.upstreamModel = route.upstreamModel;
    facts.byok = route.byok;
    if (route.credential !== undefined) facts.connectionSlug = route.credential.slug;
    const plan = planUpstream(
      // Tools' cache declarations are the gateway's; the provider never sees them.
      { operation, body: stripCacheDeclarations(parsed.body), stream: parsed.stream },
      {
        shape: route.provider.shape,
        provider: route.provider.name,
        model: route.upstreamModel,
        nativePath: route.nativePath,
        ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
      },
    );
    const reservation = deps.spending.open(principal);
    const cachePlan = planCache(request.headers, parsed.body, principal, deps.view, {
      operation,
      dialect: request.clientDialect,
      routeLabel,
      enabled: deps.settings.cacheEnabled,
      semanticAvailable: deps.semantic !== undefined,
      defaultThreshold: deps.semanticThreshold,
    });
    const estimatedMicros = estimateRequestCostMicros(
      deps.prices.priceOf(route.upstreamModel).price,
      plan.payload.length,
      maxOutputTokens(parsed.body),
    );
    // One round trip to the runtime store before the upstream call: the balance, the token's rate
    // window, the spend reservation and the cache lookup leave together. The reservation is made
    // at once (a hit gives it back, and is served even when the budget is used up) rather than
    // after the lookup, which would be a second round trip on every miss.
    const [balanceRead, ratesChecked, reserved, looked] = await Promise.allSettled([
      deps.accountant.checkBalance(principal, route.byok),
      reservation.checkRates(),
      reservation.reserve(route, estimatedMicros),
      cachePlan === undefined
        ? decideFromCache(cachePlan, routeLabel, deps)
        : traced(requestTrace, 'gateway.cache.lookup', () =>
            decideFromCache(cachePlan, routeLabel, deps, requestTrace),
          ),
    ]);
    const decision = looked.status === 'fulfilled' ? looked.value : undefined;
    if (cachePlan !== undefined) {
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
    const staleRefresh = decision?.kind === 'forward' ? decision.refresh : undefined;
    const releaseRefreshLock = () => {
      if (staleRefresh !== undefined && cachePlan !== undefined)
        void deps.cache.release(cachePlan.location, staleRefresh.lockToken);
    };
    try {
      for (const step of [balanceRead, ratesChecked, looked])
        if (step.status === 'rejected') throw step.reason;
    } catch (error) {
      releaseRefreshLock();
      releaseUnsettled(reservation, deps);
      throw error;
    }
    const balance = (balanceRead as PromiseFulfilledResult<BalanceState>).value;
    // A cached answer costs nothing: the balance headers say so.
    const cachedAnswerHeaders = () => ({
      ...renderBalanceHeaders(balance, 0),
      ...renderRoutingHeaders(route),
    });
    try {
      if (decision?.kind === 'serve') {
        recordServed(deps, principal, facts, decision.entry.costMicros);
        return serveFromCache(reply, decision, cachedAnswerHeaders(), routeLabel, deps);
      }
      if (reserved.status === 'rejected') throw reserved.reason;
      const forwarding: Forwarding = {
        route,
        plan,
        routeLabel,
        balance,
        cacheWrite: decision?.kind === 'forward' ? decision.write : undefined,
        account: createAccounting(deps, {
          principal,
          route,
          routeLabel,
          balance,
          reservation,
          requestChars: plan.payload.length,
        }),
        signal: abort.signal,
        startedAt,
        facts,
        trace: requestTrace,
        principal,
      };
      const forwarded = forward(request, reply, forwarding, parsed.stream, deps);
      // A stream's answer is out before its usage is known: the span and the log line wait for it.
      if (parsed.stream) facts.pending = forwarded;
      const served = await forwarded;
      releaseRefreshLock();
      return served;
    } catch (error) {
      if (staleRefresh !== undefined) {
        // A failed refresh keeps the stale entry, gives the lock back, and this caller gets the stale copy.
        releaseRefreshLock();
        if (!reply.sent && !reply.raw.headersSent) {
          const stale = { entry: staleRefresh.entry, result: 'stale' as const };
          facts.cache = 'stale';
          recordServed(deps, principal, facts, staleRefresh.entry.costMicros);
          return serveFromCache(reply, stale, cachedAnswerHeaders(), routeLabel, deps);
        }
      }
      throw error;
    } finally {
      releaseUnsettled(reservation, deps);
    }
  };
}

/** Nothing settled it (a hit, an error, an abort): what was reserved goes back. */
function releaseUnsettled(reservation: SpendReservation, deps: InferenceDeps): void {
  reservation.release((error) => deps.log.error({ err: error }, 'releasing a spend reservation failed'));
}

async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  forwarding: Forwarding,
  stream: boolean,
  deps: InferenceDeps,
): Promise<unknown> {
  const { route, plan, signal } = forwarding;
  if (signal.aborted) throw new UpstreamAbortedError();
  const headers: Record<string, string> = { ...route.headers };
  for (const name of plan.forwardedHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The upstream call's span; its context goes upstream as `traceparent`. A request sampled out
  // passes its (unsampled) context on without a span of its own.
  const requestTrace = forwarding.trace;
  if (requestTrace !== undefined && !requestTrace.recording) injectContext(requestTrace.span, headers);
  const upstreamSpan = (requestTrace?.recording === true ? requestTrace : undefined)?.startChild(
    `${forwarding.facts.operation} ${route.upstreamModel}`,
    {
      'gen_ai.operation.name': forwarding.facts.operation,
      'gen_ai.provider.name': forwarding.facts.provider ?? route.provider.name,
      'gen_ai.request.model': route.upstreamModel,
      'server.address': hostOf(route.baseUrl),
    },
    SpanKind.CLIENT,
  );
  if (upstreamSpan !== undefined) injectContext(upstreamSpan, headers);
  try {
    const dispatchedAt = performance.now();
    if (plan.execute !== undefined) {
      const answer = await plan.execute(createCallSender(deps, route, headers, signal));
      upstreamSpan?.end();
      return await replyWithJson(reply, forwarding, dispatchedAt, 200, 'application/json', answer, deps);
    }
    const response = await callUpstream(deps, route, plan, headers, signal);
    upstreamSpan?.setAttribute('http.response.status_code', response.statusCode);
    const contentType = String(response.headers['content-type'] ?? '');
    if (stream && isStreamContentType(plan.framing, contentType))
      return await relay(request, reply, forwarding, response, dispatchedAt, deps, upstreamSpan);
    const text = await readAnswerText(deps, route.provider.name, response, signal);
    upstreamSpan?.end();
    return await replyWithJson(
      reply,
      forwarding,
      dispatchedAt,
      response.statusCode,
      contentType,
      plan.answer(text),
      deps,
    );
  } catch (caught) {
    // A Connection's key refused upstream is the tenant's to fix, not the gateway's failure.
    const error =
      route.credential === undefined
        ? caught
        : attributeToConnection(caught, route.provider.name, route.credential.slug);
    if (upstreamSpan?.isRecording()) {
      recordFailure(upstreamSpan, error);
      upstreamSpan.end();
    }
    throw error;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Accounts for a JSON answer (usage as reported, else estimated), caches it when planned, and sends it. */
async function replyWithJson(
  reply: FastifyReply,
  forwarding: Forwarding,
  dispatchedAt: number,
  statusCode: number,
  upstreamContentType: string,
  answer: PlannedAnswer,
  deps: InferenceDeps,
): Promise<unknown> {
  const { route, routeLabel, cacheWrite } = forwarding;
  const upstreamDoneAt = performance.now();
  deps.metrics.upstreamSeconds.observe(
    { provider: route.provider.name, route: routeLabel },
    (upstreamDoneAt - dispatchedAt) / 1000,
  );
  const contentType = upstreamContentType || 'application/json';
  // One round trip after the upstream call: the debit, the settlements and the cache write together.
  const accounted = forwarding.account(answer.usage, answer.text.length);
  recordUsage(forwarding, accounted.usage, accounted.costMicros, deps);
  if (forwarding.trace?.recording === true) {
    const model = answerModel(answer.text);
    if (model !== undefined) forwarding.facts.responseModel = model;
    if (deps.settings.traceContent)
      forwarding.trace.set({ 'gen_ai.output.messages': answer.text.slice(0, TRACE_CONTENT_CHARS) });
  }
  const [charge] = await Promise.all([
    accounted.charged,
    cacheWrite?.write
      ? traced(forwarding.trace, 'gateway.cache.write', () =>
          storeAnswer(
            cacheWrite,
            { status: statusCode, contentType, body: answer.text, stream: false },
            accounted.costMicros,
            deps,
          ),
        )
      : undefined,
  ]);
  reply
    .code(statusCode)
    .headers(renderBalanceHeaders(charge.balance, charge.chargedMicros))
    .headers(renderRoutingHeaders(route))
    .header('content-type', contentType);
  if (cacheWrite !== undefined) reply.header(CACHE_HEADER, cacheWrite.result);
  deps.metrics.overheadSeconds.observe(
    { route: routeLabel },
    (dispatchedAt - forwarding.startedAt + (performance.now() - upstreamDoneAt)) / 1000,
  );
  return reply.send(answer.text);
}

/** What the span, the access log and the usage analytics say of the usage billed. */
function recordUsage(
  forwarding: Forwarding,
  usage: TokenUsage,
  costMicros: number,
  deps: InferenceDeps,
): void {
  const { facts } = forwarding;
  facts.inputTokens = inputTokensOf(usage);
  facts.outputTokens = usage.outputTokens;
  facts.costMicros = costMicros;
  deps.usage.record({
    principal: forwarding.principal,
    model: facts.requestModel ?? '',
    connectionSlug: facts.connectionSlug,
    inputTokens: facts.inputTokens,
    outputTokens: facts.outputTokens,
    costMicros,
  });
}

/** A cached answer served: a request that cost nothing and saved what the answer cost when made. */
function recordServed(
  deps: InferenceDeps,
  principal: Principal,
  facts: InferenceFacts,
  savedMicros: number,
): void {
  facts.costMicros = 0;
  deps.usage.record({
    principal,
    model: facts.requestModel ?? '',
    connectionSlug: facts.connectionSlug,
    inputTokens: 0,
    outputTokens: 0,
    costMicros: 0,
    savedMicros,
  });
}

/** Relays a stream; once it ends, however it ends, accounts for it and caches it if it completed. */
async function relay(
  request: FastifyRequest,
  reply: FastifyReply,
  forwarding: Forwarding,
  response: UpstreamResponse,
  dispatchedAt: number,
  deps: InferenceDeps,
  upstreamSpan: Span | undefined,
): Promise<FastifyReply> {
  const { route, plan, routeLabel, cacheWrite, signal } = forwarding;
  deps.metrics.upstreamSeconds.observe(
    { provider: route.provider.name, route: routeLabel },
    (performance.now() - dispatchedAt) / 1000,
  );
  deps.metrics.overheadSeconds.observe({ route: routeLabel }, (dispatchedAt - forwarding.startedAt) / 1000);
  const pipeline = plan.stream();
  const outcome = await relayStream(reply, response, {
    pipeline,
    framing: plan.framing,
    dialect: request.clientDialect,
    provider: route.provider.name,
    routeLabel,
    headers: {
      // BYOK traffic is never charged: nothing to settle later.
      ...renderBalanceHeaders(forwarding.balance, route.byok ? 0 : 'deferred'),
      ...renderRoutingHeaders(route),
      ...(cacheWrite === undefined ? {} : { [CACHE_HEADER]: cacheWrite.result }),
    },
    record: cacheWrite?.write === true,
    signal,
    metrics: deps.metrics,
    log: deps.log,
  });
  upstreamSpan?.end();
  if (outcome.firstWriteAt !== undefined) {
    const firstMs = outcome.firstWriteAt - forwarding.startedAt;
    forwarding.facts.timeToFirstTokenMs = Math.round(firstMs * 1000) / 1000;
    deps.metrics.timeToFirstToken.observe(
      { provider: route.provider.name, route: routeLabel },
      firstMs / 1000,
    );
  }
  // Awaited (the client has its whole answer already): a refresh holding the SWR lock gives it
  // back only once the fresh entry is stored, so no second caller refreshes in between.
  try {
    const accounted = forwarding.account(pipeline.usage(), pipeline.outputChars());
    recordUsage(forwarding, accounted.usage, accounted.costMicros, deps);
    let stored: Promise<void> | undefined;
    if (cacheWrite?.write && outcome.recorded !== undefined) {
      // Only a stream that completed, as the upstream marked it, is stored: never a partial one.
      if (!outcome.complete) deps.cacheMetrics.skipped.inc({ reason: 'failed_stream' });
      else {
        const answer = {
          status: response.statusCode,
          contentType: SSE_CONTENT_TYPE,
          body: outcome.recorded,
          stream: true,
        };
        stored = traced(forwarding.trace, 'gateway.cache.write', () =>
          storeAnswer(cacheWrite, answer, accounted.costMicros, deps),
        );
      }
    }
    await Promise.all([accounted.charged, stored]);
  } catch (error) {
    deps.log.error({ err: error }, 'settling a stream failed');
  }
  return reply;
}

/** Aborts (and counts as a 499) when the client goes away before its answer is complete. */
function watchClientAbort(reply: FastifyReply, routeLabel: string, deps: InferenceDeps): AbortController {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    // Ended by the gateway (the whole answer written) is not an abort, whether or not the last
    // bytes were flushed when the connection closed.
    if (!reply.raw.writableEnded) {
      abort.abort();
      deps.metrics.clientAborts.inc({ route: routeLabel });
      // No 'finish' follows, so the onResponse hook will not count this one.
      deps.metrics.requests.inc({
        route: routeLabel,
        status: '499',
        provider: reply.request.gatewayProvider ?? 'none',
      });
    }
  });
  return abort;
}
