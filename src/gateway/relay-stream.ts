/**
 * Relays an upstream SSE body to the client event by event as it arrives (no buffering beyond one
 * event), honouring back-pressure; a failure after the response began becomes an error event; the
 * charge is settled (and a completed stream cached) when the stream ends, however it ends, before
 * relayStream returns.
 */
import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import { renderBalanceHeaders } from '../billing/accountant.ts';
import { renderErrorInner, toGatewayError } from '../errors/render-error.ts';
import { renderRoutingHeaders } from '../providers/resolve-route.ts';
import { type SseEvent, serializeSseComment, serializeSseEvent } from '../sse/sse-events.ts';
import { createUpstreamEventReader } from '../sse/stream-framing.ts';
import { classifyTransportError, type UpstreamResponse } from '../upstream/upstream-client.ts';
import { CACHE_HEADER, newEntry } from './cache-step.ts';
import { accountFor, type Exchange, type InferenceDeps, usageOrEstimate } from './exchange.ts';
import type { StreamObserver } from './stream-usage.ts';
import { upstreamUsageReader } from './upstream-usage.ts';

export async function relayStream(
  reply: FastifyReply,
  response: UpstreamResponse,
  observer: StreamObserver,
  exchange: Exchange,
  deps: InferenceDeps,
  signal: AbortSignal,
): Promise<void> {
  const { route, routeLabel } = exchange;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(response.statusCode, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...renderBalanceHeaders(exchange.balance, 'deferred'),
    ...renderRoutingHeaders(route),
    ...(exchange.cacheWrite === undefined ? {} : { [CACHE_HEADER]: exchange.cacheWrite.result }),
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
  // Everything the client receives, for the cache: a hit replays exactly these bytes.
  const recorded: string[] | undefined = exchange.cacheWrite?.write ? [] : undefined;
  let failed = false;
  const translator = exchange.translation?.stream();
  // Billing reads the upstream's own events where the client's shape would lose part of the usage.
  const upstreamUsage =
    translator === undefined ? undefined : upstreamUsageReader(route.provider.shape)?.stream();
  const emit = (event: SseEvent) => {
    if (observer.accept(event)) pending.push(serializeSseEvent(event));
  };
  // SSE, or the framing the translation declares (Bedrock: AWS event-stream).
  // Upstream keep-alive comments go on to the client (whatever its shape), so that proxies between
  // it and the gateway see a long wait for the first token as a live stream.
  const reader = createUpstreamEventReader(
    exchange.translation?.framing ?? 'sse',
    (event) => {
      if (translator === undefined) emit(event);
      else {
        upstreamUsage?.accept(event);
        for (const translated of translator.push(event)) emit(translated);
      }
    },
    (comment) => pending.push(serializeSseComment(comment)),
  );
  const flush = async () => {
    if (pending.length === 0 || raw.writableEnded) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending.length = 0;
    recorded?.push(text);
    // The client's end marker is out ([DONE], message_stop): the answer ends with this write, one
    // syscall less than a write and a later end. The upstream body is still read to its end.
    if (observer.completed()) raw.end(text);
    else if (!raw.write(text)) await once(raw, 'drain', { signal });
  };
  try {
    for await (const chunk of response.body) {
      reader.feed(chunk as Uint8Array);
      await flush();
    }
    reader.end();
    if (translator !== undefined) for (const translated of translator.end()) emit(translated);
    await flush();
  } catch (error) {
    failed = true;
    if (!signal.aborted) {
      deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: 'stream' });
      deps.log.warn(
        { provider: route.provider.name, err: error },
        'upstream stream failed after the response began',
      );
      const failure = toGatewayError(classifyTransportError(route.provider.name, error, signal));
      const inner = renderErrorInner(failure, exchange.operation === 'messages' ? 'anthropic' : 'openai');
      if (!raw.writableEnded)
        raw.write(
          exchange.operation === 'messages'
            ? serializeSseEvent({ event: 'error', data: JSON.stringify({ type: 'error', error: inner }) })
            : serializeSseEvent({ data: JSON.stringify({ error: inner }) }),
        );
    }
  } finally {
    if (!raw.destroyed && !raw.writableEnded) raw.end();
    deps.metrics.inflightStreams.dec({ route: routeLabel });
    const usage = usageOrEstimate(
      deps,
      exchange,
      upstreamUsage?.usage() ?? observer.usage(),
      observer.outputChars(),
    );
    const cacheWrite = exchange.cacheWrite;
    // Awaited (the client has its whole answer already): a refresh holding the SWR lock gives it
    // back only once the fresh entry is stored, so no second caller refreshes in between.
    await accountFor(deps, exchange, usage)
      .then(async (charge) => {
        if (cacheWrite === undefined || recorded === undefined) return;
        // Only a stream that completed, as the upstream marked it, is stored: never a partial one.
        if (failed || signal.aborted || !observer.completed()) {
          deps.cacheMetrics.skipped.inc({ reason: 'failed_stream' });
          return;
        }
        await deps.cache.store(
          cacheWrite.plan.location,
          newEntry(
            cacheWrite.plan,
            response.statusCode,
            'text/event-stream; charset=utf-8',
            recorded.join(''),
            true,
            charge.costMicros,
          ),
        );
      })
      .catch((error: unknown) => deps.log.error({ err: error }, 'settling a stream failed'));
  }
}
