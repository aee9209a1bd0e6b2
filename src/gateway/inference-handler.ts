/**
 * The request path of DESIGN section 5 for the three inference routes: validate, authenticate,
 * authorise, route, check the balance, forward (JSON or SSE, chunk by chunk), account.
 */
import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Authenticator, authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { Accountant, BalanceState } from '../billing/accountant.ts';
import { renderBalanceHeaders } from '../billing/accountant.ts';
import { estimateUsage, parseAnthropicUsage, parseOpenAiUsage, type TokenUsage } from '../billing/usage.ts';
import type { Settings } from '../config/settings.ts';
import { toGatewayError } from '../errors/render-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Operation } from '../providers/registry.ts';
import { type ResolvedRoute, renderRoutingHeaders } from '../providers/resolve-route.ts';
import type { RouteResolver } from '../providers/route-resolver.ts';
import { SseEventReader, serializeSseEvent } from '../sse/sse-events.ts';
import { mapUpstreamError } from '../upstream/error-mapping.ts';
import {
  UpstreamAbortedError,
  type UpstreamClient,
  type UpstreamResponse,
} from '../upstream/upstream-client.ts';
import {
  createAnthropicStreamObserver,
  createOpenAiStreamObserver,
  type StreamObserver,
} from './stream-usage.ts';
import { type JsonObject, validateInferenceBody } from './validate-body.ts';

export interface InferenceDeps {
  settings: Readonly<Settings>;
  authenticator: Authenticator;
  accountant: Accountant;
  upstream: UpstreamClient;
  routes: RouteResolver;
  metrics: GatewayMetrics;
  log: Logger;
}

/** Client headers forwarded upstream as they are (everything else is the gateway's to set). */
const FORWARDED_HEADERS: Readonly<Record<Operation, readonly string[]>> = {
  chat: [],
  embeddings: [],
  messages: ['anthropic-beta'],
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The provider that served (or was meant to serve) the request, for metrics. */
    gatewayProvider?: string;
  }
}

interface Exchange {
  operation: Operation;
  route: ResolvedRoute;
  principal: Principal;
  balance: BalanceState;
  requestChars: number;
  startedAt: number;
  dispatchedAt: number;
}

export function createInferenceHandler(operation: Operation, deps: InferenceDeps) {
  const routeLabel = `/v1/${operation === 'chat' ? 'chat/completions' : operation}`;

  return async function handleInference(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const startedAt = performance.now();
    const parsed = validateInferenceBody(request.body, operation);
    const principal = await deps.authenticator.authenticate(extractCredential(request.headers));
    authorizeOperation(principal, operation);
    const route = deps.routes.resolve(
      parsed.model,
      operation,
      principal,
      request.headers['x-service-byok'] === 'required',
    );
    request.gatewayProvider = route.provider.name;
    const balance = await deps.accountant.checkBalance(principal, route.byok);

    const upstreamBody: JsonObject = { ...parsed.body, model: route.upstreamModel };
    let clientWantsUsage = true;
    if (parsed.stream && route.provider.shape === 'openai') {
      // Ask for usage so streams can be billed; the extra chunk is dropped if the client did not ask.
      const streamOptions = parsed.body.stream_options as JsonObject | undefined | null;
      clientWantsUsage = streamOptions?.include_usage === true;
      if (!clientWantsUsage) upstreamBody.stream_options = { ...streamOptions, include_usage: true };
    }
    const payload = JSON.stringify(upstreamBody);

    const headers: Record<string, string> = { ...route.headers };
    for (const name of FORWARDED_HEADERS[operation]) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }

    const abort = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) {
        abort.abort();
        deps.metrics.clientAborts.inc({ route: routeLabel });
        // No 'finish' follows, so the onResponse hook will not count this one.
        deps.metrics.requests.inc({ route: routeLabel, status: '499', provider: route.provider.name });
      }
    };
    reply.raw.once('close', onClose);

    const exchange: Exchange = {
      operation,
      route,
      principal,
      balance,
      requestChars: payload.length,
      startedAt,
      dispatchedAt: performance.now(),
    };
    let response: UpstreamResponse;
    try {
      response = await deps.upstream.send({
        provider: route.provider.name,
        url: route.url,
        headers,
        body: payload,
        signal: abort.signal,
      });
    } catch (error) {
      countUpstreamFailure(deps, route, error);
      throw error;
    }

    if (response.statusCode >= 400) {
      const text = await readText(response, route.provider.name, abort.signal);
      deps.metrics.upstreamErrors.inc({
        provider: route.provider.name,
        kind: `status_${response.statusCode}`,
      });
      const retryAfter = response.headers['retry-after'];
      throw mapUpstreamError(
        route.provider.name,
        response.statusCode,
        text,
        typeof retryAfter === 'string' ? retryAfter : undefined,
      );
    }

    const contentType = String(response.headers['content-type'] ?? '');
    if (parsed.stream && contentType.startsWith('text/event-stream')) {
      const observer =
        route.provider.shape === 'anthropic'
          ? createAnthropicStreamObserver()
          : createOpenAiStreamObserver(clientWantsUsage);
      await relayStream(request, reply, response, observer, exchange, deps, routeLabel, abort.signal);
      return reply;
    }

    const text = await readText(response, route.provider.name, abort.signal);
    const upstreamDoneAt = performance.now();
    deps.metrics.upstreamSeconds.observe(
      { provider: route.provider.name, route: routeLabel },
      (upstreamDoneAt - exchange.dispatchedAt) / 1000,
    );
    const usage =
      readJsonUsage(text, route) ?? estimated(deps, routeLabel, exchange.requestChars, text.length);
    const charge = await deps.accountant.settle(
      principal,
      route.provider.name,
      route.upstreamModel,
      usage,
      route.byok,
      balance,
    );
    reply
      .code(response.statusCode)
      .headers(renderBalanceHeaders(charge.balance, charge.costMicros))
      .headers(renderRoutingHeaders(route))
      .header('content-type', contentType || 'application/json');
    deps.metrics.overheadSeconds.observe(
      { route: routeLabel },
      (exchange.dispatchedAt - startedAt + (performance.now() - upstreamDoneAt)) / 1000,
    );
    return reply.send(text);
  };
}

async function readText(response: UpstreamResponse, provider: string, signal: AbortSignal): Promise<string> {
  try {
    return await response.body.text();
  } catch (error) {
    if (signal.aborted) throw new UpstreamAbortedError();
    throw toGatewayError(error instanceof Error ? error : new Error(String(error), { cause: provider }));
  }
}

function countUpstreamFailure(deps: InferenceDeps, route: ResolvedRoute, error: unknown): void {
  if (error instanceof UpstreamAbortedError) return;
  const kind = error instanceof Error && error.name === 'UpstreamTimeoutError' ? 'timeout' : 'unreachable';
  deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind });
  deps.log.warn({ provider: route.provider.name, err: error }, 'upstream request failed');
}

function readJsonUsage(text: string, route: ResolvedRoute): TokenUsage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const usage = (json as { usage?: unknown } | null)?.usage;
  return route.provider.shape === 'anthropic' ? parseAnthropicUsage(usage) : parseOpenAiUsage(usage);
}

function estimated(
  deps: InferenceDeps,
  routeLabel: string,
  requestChars: number,
  outputChars: number,
): TokenUsage {
  deps.metrics.estimatedUsage.inc({ route: routeLabel });
  return estimateUsage(requestChars, outputChars);
}

/**
 * Relays an SSE body event by event as it arrives (no buffering beyond one event), honouring
 * back-pressure, and settles the charge when the stream ends, however it ends.
 */
async function relayStream(
  request: FastifyRequest,
  reply: FastifyReply,
  response: UpstreamResponse,
  observer: StreamObserver,
  exchange: Exchange,
  deps: InferenceDeps,
  routeLabel: string,
  signal: AbortSignal,
): Promise<void> {
  const { route } = exchange;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(response.statusCode, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...renderBalanceHeaders(exchange.balance, 'deferred'),
    ...renderRoutingHeaders(route),
  });
  deps.metrics.upstreamSeconds.observe(
    { provider: route.provider.name, route: routeLabel },
    (performance.now() - exchange.dispatchedAt) / 1000,
  );
  deps.metrics.overheadSeconds.observe(
    { route: routeLabel },
    (exchange.dispatchedAt - exchange.startedAt) / 1000,
  );
  deps.metrics.inflightStreams.inc({ route: routeLabel });
  const pending: string[] = [];
  const reader = new SseEventReader((event) => {
    if (observer.accept(event)) pending.push(serializeSseEvent(event));
  });
  const flush = async () => {
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending.length = 0;
    if (!raw.write(text)) await once(raw, 'drain', { signal });
  };
  try {
    for await (const chunk of response.body) {
      reader.feed(chunk as Uint8Array);
      await flush();
    }
    reader.end();
    await flush();
  } catch (error) {
    if (!signal.aborted) {
      deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: 'stream' });
      deps.log.warn(
        { provider: route.provider.name, err: error },
        'upstream stream failed after the response began',
      );
      const failure = toGatewayError(error);
      const inner = { code: failure.code, message: failure.message, type: failure.type };
      raw.write(
        exchange.operation === 'messages'
          ? serializeSseEvent({ event: 'error', data: JSON.stringify({ type: 'error', error: inner }) })
          : serializeSseEvent({ data: JSON.stringify({ error: inner }) }),
      );
    }
  } finally {
    if (!raw.destroyed) raw.end();
    deps.metrics.inflightStreams.dec({ route: routeLabel });
    const usage =
      observer.usage() ?? estimated(deps, routeLabel, exchange.requestChars, observer.outputChars());
    deps.accountant
      .settle(
        exchange.principal,
        route.provider.name,
        route.upstreamModel,
        usage,
        route.byok,
        exchange.balance,
      )
      .catch((error: unknown) => request.log.error({ err: error }, 'settling a stream charge failed'));
  }
}
