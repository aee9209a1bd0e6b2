/**
 * The request path of DESIGN section 5 for the three inference routes: validate, authenticate,
 * authorise, route, check balance and token limits, forward (JSON or SSE), account.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import { renderBalanceHeaders } from '../billing/accountant.ts';
import { estimateRequestCostMicros } from '../billing/token-limits.ts';
import { parseAnthropicUsage, parseOpenAiUsage, type TokenUsage, ZERO_USAGE } from '../billing/usage.ts';
import { stripCacheDeclarations } from '../cache/cache-key.ts';
import type { CacheEntry, Lookup } from '../cache/response-cache.ts';
import { InvalidRequestError, UpstreamError, UpstreamTimeoutError } from '../errors/gateway-error.ts';
import type { ApiShape, Operation } from '../providers/registry.ts';
import { type ResolvedRoute, renderRoutingHeaders } from '../providers/resolve-route.ts';
import { isStreamContentType } from '../sse/stream-framing.ts';
import { convertGeminiError } from '../translate/openai-to-gemini/index.ts';
import { mapUpstreamError } from '../upstream/error-mapping.ts';
import {
  classifyTransportError,
  UpstreamAbortedError,
  type UpstreamResponse,
} from '../upstream/upstream-client.ts';
import { CACHE_HEADER, type CachePlan, newEntry, planCache, serveFromCache } from './cache-step.ts';
import { accountFor, type Exchange, type InferenceDeps, usageOrEstimate } from './exchange.ts';
import { relayStream } from './relay-stream.ts';
import { createAnthropicStreamObserver, createOpenAiStreamObserver } from './stream-usage.ts';
import { CLIENT_SHAPE, canTranslate, planTranslation, type TranslationPlan } from './translation.ts';
import { createCallSender } from './upstream-calls.ts';
import { upstreamUsageReader } from './upstream-usage.ts';
import { type JsonObject, validateInferenceBody } from './validate-body.ts';

export type { InferenceDeps } from './exchange.ts';

/**
 * Client headers forwarded as they are to an upstream of the client's own shape (everything else
 * is the gateway's to set): Anthropic's beta flags mean nothing to, or break, any other upstream.
 */
const FORWARDED_HEADERS: Readonly<Partial<Record<ApiShape, readonly string[]>>> = {
  anthropic: ['anthropic-beta'],
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The provider that served (or was meant to serve) the request, for metrics. */
    gatewayProvider?: string;
  }
}

function maxOutputTokens(body: JsonObject): number {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

export function createInferenceHandler(operation: Operation, deps: InferenceDeps) {
  const routeLabel = `/v1/${operation === 'chat' ? 'chat/completions' : operation}`;

  return async function handleInference(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const startedAt = performance.now();
    // Watched from the start: a client gone while the gateway authenticates or reads the cache must
    // not leave a request to go upstream (and be billed) for nobody.
    const abort = watchClientAbort(reply, routeLabel, deps);
    const parsed = validateInferenceBody(request.body, operation);
    const principal = await deps.authenticator.authenticate(extractCredential(request.headers));
    authorizeOperation(principal, operation, parsed.model);
    const route = deps.routes.resolve(
      parsed.model,
      operation,
      principal,
      String(request.headers['x-service-byok']).toLowerCase() === 'required',
    );
    request.gatewayProvider = route.provider.name;
    const balance = await deps.accountant.checkBalance(principal, route.byok);

    // Tools' cache declarations are the gateway's; the provider never sees them.
    const clientBody = stripCacheDeclarations(parsed.body);
    if (route.nativePath === undefined && !canTranslate(operation, route.provider.shape)) {
      throw new InvalidRequestError(`provider '${route.provider.name}' does not serve ${routeLabel}`);
    }
    const translation = planTranslation(operation, route.provider.shape, {
      body: clientBody,
      upstreamModel: route.upstreamModel,
      stream: parsed.stream,
      provider: route.provider.name,
      endpoint: route.endpoint, // hosting providers (Vertex): their paths and body
    });
    const streamOptions = parsed.body.stream_options as JsonObject | undefined | null;
    // The client's own choice; usage is always asked of the upstream (streams must be billed) and
    // the extra chunk dropped by the observer when the client did not ask for it.
    const clientWantsUsage = CLIENT_SHAPE[operation] !== 'openai' || streamOptions?.include_usage === true;
    let payload: string;
    if (translation !== undefined) {
      payload = JSON.stringify(translation.body);
    } else {
      const upstreamBody: JsonObject = { ...clientBody, model: route.upstreamModel };
      if (parsed.stream && route.provider.shape === 'openai' && !clientWantsUsage) {
        upstreamBody.stream_options = { ...streamOptions, include_usage: true };
      }
      payload = JSON.stringify(upstreamBody);
    }
    const estimatedMicros = estimateRequestCostMicros(
      deps.prices.priceOf(route.upstreamModel).price,
      payload.length,
      maxOutputTokens(parsed.body),
    );
    // Rate limits count every request; the budget is reserved only once it goes upstream (below).
    const hold = await deps.limiter.admit(principal);
    const exchange: Exchange = {
      operation,
      routeLabel,
      route,
      url: route.baseUrl + (translation?.path ?? route.nativePath ?? ''),
      translation,
      principal,
      balance,
      hold,
      capHold: undefined,
      cacheWrite: undefined,
      requestChars: payload.length,
      startedAt,
      dispatchedAt: 0,
    };
    let staleRefresh: { plan: CachePlan; entry: CacheEntry; lockToken: string } | undefined;
    try {
      const plan = planCache(
        request,
        parsed.body,
        principal,
        routeLabel,
        deps.view,
        deps.settings.cacheEnabled,
      );
      if (plan !== undefined) {
        const lookup: Lookup = plan.read
          ? await deps.cache.lookup(plan.location, plan.write)
          : { kind: 'miss' };
        if (lookup.kind === 'hit')
          return await serveFromCache(reply, lookup.entry, 'hit', lookup.ageSeconds, exchange, deps);
        if (lookup.kind === 'stale') {
          if (lookup.lockToken === undefined)
            return await serveFromCache(reply, lookup.entry, 'stale', undefined, exchange, deps);
          staleRefresh = { plan, entry: lookup.entry, lockToken: lookup.lockToken };
        }
        if (lookup.kind === 'bypass') {
          deps.cacheMetrics.results.inc({ route: routeLabel, result: 'bypass' });
        } else {
          const result =
            staleRefresh !== undefined || plan.directive.mode === 'force-refresh' ? 'refresh' : 'miss';
          exchange.cacheWrite = { plan, result, write: plan.write };
          deps.cacheMetrics.results.inc({ route: routeLabel, result });
        }
      }
      // A token's budget and a Connection's daily cap (billing/): reserved only now that the request
      // goes upstream (a cache hit costs nothing); settled in accountFor, given back in the catch.
      await deps.limiter.reserve(hold, estimatedMicros);
      exchange.capHold = await deps.connectionCaps.admit(principal, route, estimatedMicros);
      const served = await forward(
        request,
        reply,
        exchange,
        payload,
        parsed.stream,
        clientWantsUsage,
        abort.signal,
        deps,
      );
      if (staleRefresh !== undefined)
        void deps.cache.release(staleRefresh.plan.location, staleRefresh.lockToken);
      return served;
    } catch (error) {
      // Nothing answered (or settled already, then a no-op): the Connection's reservation goes back.
      deps.connectionCaps.release(exchange.capHold, (releaseError) =>
        deps.log.error({ err: releaseError }, 'releasing a connection cap reservation failed'),
      );
      if (staleRefresh !== undefined) {
        // A failed refresh keeps the stale entry, gives the lock back, and this caller gets the stale copy.
        void deps.cache.release(staleRefresh.plan.location, staleRefresh.lockToken);
        if (!reply.sent && !reply.raw.headersSent) {
          return serveFromCache(reply, staleRefresh.entry, 'stale', undefined, exchange, deps);
        }
      }
      // Nothing was served: give the token's reservation back.
      deps.limiter
        .settle(hold, 0, ZERO_USAGE)
        .catch((releaseError: unknown) =>
          deps.log.error({ err: releaseError }, 'releasing a token reservation failed'),
        );
      throw error;
    }
  };
}

async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  exchange: Exchange,
  payload: string,
  stream: boolean,
  clientWantsUsage: boolean,
  signal: AbortSignal,
  deps: InferenceDeps,
): Promise<unknown> {
  const { route } = exchange;
  if (signal.aborted) throw new UpstreamAbortedError();
  const headers: Record<string, string> = { ...route.headers };
  const forwarded =
    CLIENT_SHAPE[exchange.operation] === route.provider.shape
      ? FORWARDED_HEADERS[route.provider.shape]
      : undefined;
  for (const name of forwarded ?? []) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }

  // --- Translations served by several upstream calls (Gemini embeddings in batches) ---
  if (exchange.translation?.execute !== undefined) {
    exchange.dispatchedAt = performance.now();
    const answer = await exchange.translation.execute(createCallSender(exchange, headers, signal, deps));
    return replyWithJson(
      reply,
      exchange,
      deps,
      200,
      'application/json',
      JSON.stringify(answer),
      usageOf(answer, CLIENT_SHAPE[exchange.operation]),
    );
  }
  // --- end multi-call translations ---

  // Signed providers (SigV4, Google tokens) sign the exact URL, headers and body about to be sent.
  const send = async (): Promise<UpstreamResponse> => {
    const sentHeaders =
      route.sign === undefined
        ? headers
        : await route.sign({ method: 'POST', url: exchange.url, headers, body: payload });
    try {
      return await deps.upstream.send({
        provider: route.provider.name,
        url: exchange.url,
        headers: sentHeaders,
        body: payload,
        signal,
      });
    } catch (error) {
      countUpstreamFailure(deps, route, error);
      throw error;
    }
  };
  exchange.dispatchedAt = performance.now();
  let response = await send();
  // A refused short-lived credential (a Vertex access token revoked or expired early): drop it and
  // try once more with a fresh one.
  if (response.statusCode === 401 && route.onUnauthorized !== undefined) {
    await response.body.dump();
    route.onUnauthorized();
    deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: 'status_401_retried' });
    response = await send();
  }

  if (response.statusCode >= 400) {
    const text = await readText(response, signal, deps, route);
    deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: `status_${response.statusCode}` });
    const retryAfter = response.headers['retry-after'];
    // A translation with its own error table (Bedrock) maps the answer itself.
    if (exchange.translation?.error !== undefined)
      throw exchange.translation.error({
        provider: route.provider.name,
        status: response.statusCode,
        body: text,
        headers: flattenHeaders(response.headers),
      });
    if (route.provider.shape === 'gemini')
      throw convertGeminiError(response.statusCode, text, {
        'retry-after': typeof retryAfter === 'string' ? retryAfter : undefined,
      });
    throw mapUpstreamError(
      route.provider.name,
      response.statusCode,
      text,
      typeof retryAfter === 'string' ? retryAfter : undefined,
    );
  }

  const contentType = String(response.headers['content-type'] ?? '');
  if (stream && isStreamContentType(exchange.translation?.framing ?? 'sse', contentType)) {
    // The observer sees the events the client gets (after translation), in the client's shape.
    const observer =
      CLIENT_SHAPE[exchange.operation] === 'anthropic'
        ? createAnthropicStreamObserver()
        : createOpenAiStreamObserver(clientWantsUsage);
    await relayStream(reply, response, observer, exchange, deps, signal);
    return reply;
  }

  const upstreamText = await readText(response, signal, deps, route);
  const { text, usage } =
    exchange.translation === undefined
      ? { text: upstreamText, usage: readJsonUsage(upstreamText, CLIENT_SHAPE[exchange.operation]) }
      : translateJson(exchange, upstreamText);
  return replyWithJson(reply, exchange, deps, response.statusCode, contentType, text, usage);
}

/** Accounts for a JSON answer (usage as reported, else estimated), caches it when planned, and sends it. */
async function replyWithJson(
  reply: FastifyReply,
  exchange: Exchange,
  deps: InferenceDeps,
  statusCode: number,
  contentType: string,
  text: string,
  reportedUsage: TokenUsage | undefined,
): Promise<unknown> {
  const { route, routeLabel } = exchange;
  const upstreamDoneAt = performance.now();
  deps.metrics.upstreamSeconds.observe(
    { provider: route.provider.name, route: routeLabel },
    (upstreamDoneAt - exchange.dispatchedAt) / 1000,
  );
  const usage = usageOrEstimate(deps, exchange, reportedUsage, text.length);
  const charge = await accountFor(deps, exchange, usage);
  reply
    .code(statusCode)
    .headers(renderBalanceHeaders(charge.balance, charge.chargedMicros))
    .headers(renderRoutingHeaders(route))
    .header('content-type', contentType || 'application/json');
  const cacheWrite = exchange.cacheWrite;
  if (cacheWrite !== undefined) reply.header(CACHE_HEADER, cacheWrite.result);
  if (cacheWrite?.write) {
    await deps.cache.store(
      cacheWrite.plan.location,
      newEntry(
        cacheWrite.plan,
        statusCode,
        contentType || 'application/json',
        text,
        false,
        charge.costMicros,
      ),
    );
  }
  deps.metrics.overheadSeconds.observe(
    { route: routeLabel },
    (exchange.dispatchedAt - exchange.startedAt + (performance.now() - upstreamDoneAt)) / 1000,
  );
  return reply.send(text);
}

/** Aborts (and counts as a 499) when the client goes away before its answer is complete. */
function watchClientAbort(reply: FastifyReply, routeLabel: string, deps: InferenceDeps): AbortController {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) {
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

function flattenHeaders(headers: UpstreamResponse['headers']): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/** Reads the whole upstream body; a reset or a stall midway is the upstream's failure (502/504). */
async function readText(
  response: UpstreamResponse,
  signal: AbortSignal,
  deps: InferenceDeps,
  route: ResolvedRoute,
): Promise<string> {
  try {
    return await response.body.text();
  } catch (error) {
    const failure = classifyTransportError(route.provider.name, error, signal);
    countUpstreamFailure(deps, route, failure);
    throw failure;
  }
}

function countUpstreamFailure(deps: InferenceDeps, route: ResolvedRoute, error: unknown): void {
  if (error instanceof UpstreamAbortedError) return;
  const kind = error instanceof UpstreamTimeoutError ? 'timeout' : 'unreachable';
  deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind });
  deps.log.warn({ provider: route.provider.name, err: error }, 'upstream request failed');
}

/**
 * The upstream's JSON answer in the client's shape, and its usage: read off the upstream's own
 * answer where the client's shape would lose part of it (cache writes), else off the translated one.
 * An unreadable answer is a 502.
 */
function translateJson(
  exchange: Exchange,
  upstreamText: string,
): { text: string; usage: TokenUsage | undefined } {
  let upstream: unknown;
  try {
    upstream = JSON.parse(upstreamText);
  } catch {
    throw new UpstreamError(502, 200, 'the upstream answered with malformed JSON', 'api_error', true);
  }
  const translated = (exchange.translation as TranslationPlan).response(upstream);
  const reader = upstreamUsageReader(exchange.route.provider.shape);
  return {
    text: JSON.stringify(translated),
    usage: reader?.fromJson(upstream) ?? usageOf(translated, CLIENT_SHAPE[exchange.operation]),
  };
}

function readJsonUsage(text: string, shape: ApiShape): TokenUsage | undefined {
  try {
    return usageOf(JSON.parse(text), shape);
  } catch {
    return undefined;
  }
}

function usageOf(answer: unknown, shape: ApiShape): TokenUsage | undefined {
  const usage = (answer as { usage?: unknown } | null)?.usage;
  return shape === 'anthropic' ? parseAnthropicUsage(usage) : parseOpenAiUsage(usage);
}
