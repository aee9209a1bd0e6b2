/**
 * Forwarding (DESIGN section 5, steps 9 and 10): the planned request goes to the upstream
 * (upstream-call.ts), and its answer to the client: a JSON answer settled, cached when planned and
 * sent here; a stream relayed (relay-stream.ts), then settled and cached once it ends. What the
 * side concerns learn of it (the upstream span, timings, the usage) they hear as events.
 */
import type { FastifyReply } from 'fastify';
import type { Charge } from '../billing/accountant.ts';
import { attributeToConnection } from '../errors/upstream-errors.ts';
import type { PlannedAnswer } from '../translate/types.ts';
import { UpstreamAbortedError, type UpstreamResponse } from '../upstream/upstream-client.ts';
import { settle } from './accounting.ts';
import { storeAnswer } from './cache-step.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { type ExchangeStep, type ReadyExchange, renderAnswerHeaders } from './inference-exchange.ts';
import { relayStream, SSE_CONTENT_TYPE } from './relay-stream.ts';
import { recordAnswer, recordJsonAnswer } from './responses/responses-exchange.ts';
import { callUpstream, createCallSender } from './upstream-call.ts';

/** Sends the exchange's plan upstream and answers the client with what comes back. */
export async function forward(exchange: ReadyExchange, deps: InferenceDeps): Promise<unknown> {
  const { route, plan, signal, request } = exchange;
  if (signal.aborted) throw new UpstreamAbortedError();
  const headers: Record<string, string> = { ...route.headers };
  for (const name of plan.forwardedHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  for (const observer of exchange.observers) observer.upstreamStarted(exchange, headers);
  exchange.dispatchedAt = performance.now();
  try {
    if (plan.execute !== undefined) {
      const answer = await plan.execute(createCallSender(deps, route, headers, signal));
      answered(exchange, 200, false);
      return await replyWithJson(exchange, 200, 'application/json', answer, deps);
    }
    // A JSON answer (or a stream asked for and answered as JSON) comes read whole, bounded.
    const read = exchange.body.stream ? { stream: plan.framing } : 'whole';
    const response = await callUpstream(deps, route, plan, headers, signal, read);
    const contentType = String(response.headers['content-type'] ?? '');
    if (response.text === undefined) {
      answered(exchange, response.statusCode, true);
      const relayed = relay(exchange, response, deps);
      // A stream's answer is out before its usage is known: the span and the log line wait for it.
      for (const observer of exchange.observers) observer.streamStarted(exchange, relayed);
      return await relayed;
    }
    answered(exchange, response.statusCode, false);
    return await replyWithJson(exchange, response.statusCode, contentType, plan.answer(response.text), deps);
  } catch (caught) {
    // A Connection's key refused upstream is the tenant's to fix, not the gateway's failure.
    const error =
      route.credential === undefined
        ? caught
        : attributeToConnection(caught, route.provider.name, route.credential.slug);
    for (const observer of exchange.observers) observer.upstreamFailed(exchange, error);
    throw error;
  }
}

function answered(exchange: ReadyExchange, statusCode: number, streamed: boolean): void {
  exchange.upstreamDoneAt = performance.now();
  for (const observer of exchange.observers) observer.upstreamAnswered(exchange, statusCode, streamed);
}

/** Runs `work` as a named step the observers see begin and end (a span when traced). */
function step<T>(exchange: ReadyExchange, name: ExchangeStep, work: () => Promise<T>): Promise<T> {
  const { observers } = exchange;
  for (const observer of observers) observer.stepStarted(exchange, name);
  return work().then(
    (done) => {
      for (const observer of observers) observer.stepEnded(exchange, name, undefined);
      return done;
    },
    (error: unknown) => {
      for (const observer of observers) observer.stepEnded(exchange, name, error);
      throw error;
    },
  );
}

/** Settles a JSON answer (usage as reported, else estimated), caches it when planned, and sends it. */
function replyWithJson(
  exchange: ReadyExchange,
  statusCode: number,
  upstreamContentType: string,
  answer: PlannedAnswer,
  deps: InferenceDeps,
): Promise<unknown> {
  const write = exchange.decision.kind === 'forward' ? exchange.decision.write : undefined;
  const contentType = upstreamContentType || 'application/json';
  // One round trip after the upstream call: the debit, the settlements and the cache write together.
  const accounted = settle(exchange, answer.usage, answer.text.length, deps);
  // A stored response is written before its answer goes out: an immediate follow-up finds it.
  const recorded =
    exchange.responses === undefined || statusCode >= 300
      ? undefined
      : recordJsonAnswer(exchange.responses, responsesRequestOf(exchange), answer.text, deps);
  const charged =
    recorded === undefined
      ? accounted.charged
      : Promise.all([accounted.charged, recorded]).then(([charge]) => charge);
  const send = (charge: Charge) => {
    const headers = renderAnswerHeaders(
      exchange.route,
      charge.balance,
      charge.chargedMicros,
      write,
      contentType,
      exchange.routeHeaders,
    );
    for (const observer of exchange.observers) observer.replying(exchange, answer.text);
    return exchange.reply.code(statusCode).headers(headers).send(answer.text);
  };
  if (write?.write !== true) return charged.then(send);
  const stored = step(exchange, 'gateway.cache.write', () =>
    storeAnswer(
      write,
      { status: statusCode, contentType, body: answer.text, stream: false },
      accounted.costMicros,
      deps,
    ),
  );
  return Promise.all([charged, stored]).then(([charge]) => send(charge));
}

/** Relays a stream; once it ends, however it ends, settles it and caches it if it completed. */
async function relay(
  exchange: ReadyExchange,
  response: UpstreamResponse,
  deps: InferenceDeps,
): Promise<FastifyReply> {
  const { route, plan, reply } = exchange;
  const write = exchange.decision.kind === 'forward' ? exchange.decision.write : undefined;
  const pipeline = plan.stream();
  const outcome = await relayStream(reply, response, {
    pipeline,
    framing: plan.framing,
    dialect: exchange.request.clientDialect,
    provider: route.provider.name,
    routeLabel: exchange.routeLabel,
    // BYOK traffic is never charged: nothing to settle later.
    headers: renderAnswerHeaders(
      route,
      exchange.balance,
      route.byok ? 0 : 'deferred',
      write,
      undefined,
      exchange.routeHeaders,
    ),
    // A model route may try another target until the first byte went out.
    holdHead: exchange.routeSelection !== undefined,
    record: write?.write === true,
    // An answer past the cache's entry limit would be refused at the end: stop holding it early.
    recordLimitBytes: deps.cache.maxEntryBytes,
    signal: exchange.signal,
    metrics: deps.metrics,
    log: deps.log,
    // A stored response is written before its terminal event goes out.
    ...(exchange.responses === undefined
      ? {}
      : {
          beforeComplete: () =>
            recordAnswer(
              exchange.responses as NonNullable<typeof exchange.responses>,
              responsesRequestOf(exchange),
              pipeline.response?.(),
              deps,
            ),
        }),
  });
  for (const observer of exchange.observers) observer.streamEnded(exchange, outcome.firstWriteAt);
  // Awaited (the client has its whole answer already): a refresh holding the SWR lock gives it
  // back only once the fresh entry is stored, so no second caller refreshes in between.
  try {
    const accounted = settle(exchange, pipeline.usage(), pipeline.outputChars(), deps);
    let stored: Promise<unknown> | undefined;
    // Recording dropped past the entry limit: counted as the cache would count it.
    if (write?.write === true && outcome.recorded === undefined && outcome.complete)
      deps.cacheMetrics.skipped.inc({ reason: 'too_large' });
    if (write?.write === true && outcome.recorded !== undefined) {
      // Only a stream that completed, as the upstream marked it, is stored: never a partial one.
      if (!outcome.complete) deps.cacheMetrics.skipped.inc({ reason: 'failed_stream' });
      else {
        const answer = {
          status: response.statusCode,
          contentType: SSE_CONTENT_TYPE,
          body: outcome.recorded,
          stream: true,
        };
        stored = step(exchange, 'gateway.cache.write', () =>
          storeAnswer(write, answer, accounted.costMicros, deps),
        );
      }
    }
    await (stored === undefined ? accounted.charged : Promise.all([accounted.charged, stored]));
  } catch (error) {
    deps.log.error({ err: error }, 'settling a stream failed');
  }
  return reply;
}

/** What recording a Responses answer needs of the exchange. */
function responsesRequestOf(exchange: ReadyExchange): {
  body: Record<string, unknown>;
  model: string;
  passthrough: boolean;
} {
  const passthrough = exchange.plan.kind === 'passthrough';
  return {
    body: exchange.body.body,
    // A response OpenAI keeps is asked of where it was made: under a model route, its target.
    model: passthrough ? (exchange.routeTarget?.target.model ?? exchange.body.model) : exchange.body.model,
    passthrough,
  };
}
