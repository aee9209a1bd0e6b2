/**
 * Relays an upstream stream to the client event by event as it arrives (no buffering beyond one
 * event), honouring back-pressure, through the request's stream pipeline (translation, filtering,
 * usage); a failure after the response began becomes an error event in the client's dialect. It
 * reports how the stream ended and what the client got; accounting and the cache write are the
 * caller's (forward-step.ts), once this returns.
 */
import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import { CACHE_MAX_ENTRY_BYTES_CEILING } from '../config/settings.ts';
import { asGatewayError, renderStreamError } from '../errors/render-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { ClientDialect } from '../shapes/api.ts';
import { serializeSseComment, serializeSseEvent } from '../sse/sse-events.ts';
import type { StreamFraming } from '../sse/stream-framing.ts';
import type { StreamPipeline } from '../translate/types.ts';
import {
  classifyBodyReadError,
  UpstreamAbortedError,
  type UpstreamResponse,
} from '../upstream/upstream-client.ts';

export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

export interface StreamRelayOptions {
  pipeline: StreamPipeline;
  framing: StreamFraming;
  dialect: ClientDialect;
  provider: string;
  routeLabel: string;
  /** The answer's headers besides the stream's own (balance, routing, cache). */
  headers: Record<string, string>;
  /** Keep what the client received, for the cache. */
  record: boolean;
  /**
   * The cache's GATEWAY_CACHE_MAX_ENTRY_BYTES: past it the recording is dropped as the stream goes
   * (the entry would be refused), so a long answer is never held whole. Its ceiling when not given.
   */
  recordLimitBytes?: number;
  /**
   * A model route's attempt: the answer's head waits for its first bytes, and a failure before
   * them is thrown (nothing reached the client, so another target may serve) rather than ending
   * the stream with an error event.
   */
  holdHead?: boolean;
  signal: AbortSignal;
  metrics: GatewayMetrics;
  log: Logger;
  /**
   * Awaited once the client's end marker is ready, before it is written (the Responses API
   * stores its response before the terminal event goes out). Must not reject.
   */
  beforeComplete?: () => Promise<void>;
}

/** How a relayed stream ended. */
export interface StreamOutcome {
  /** The client's end marker went out and nothing failed or was aborted: the answer is whole. */
  complete: boolean;
  /**
   * Everything the client received, when recorded (a cache hit replays exactly these bytes);
   * undefined when it grew past `recordLimitBytes`.
   */
  recorded: string | undefined;
  /** When (performance.now()) the first bytes of the answer went to the client: time to first token. */
  firstWriteAt: number | undefined;
}

export async function relayStream(
  reply: FastifyReply,
  response: UpstreamResponse,
  options: StreamRelayOptions,
): Promise<StreamOutcome> {
  const { pipeline, signal, metrics, routeLabel, provider } = options;
  const raw = reply.raw;
  let started = false;
  /** The answer's head goes out: from here on the stream is the client's. */
  const start = () => {
    started = true;
    // Headers the hooks set on the reply (CORS: a page reads a stream only with them; the request
    // id) are fastify's to send, and it sends none once hijacked: they go out here with the stream's own.
    const hooked: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) hooked[name] = value;
    reply.hijack();
    raw.writeHead(response.statusCode, {
      ...hooked,
      'content-type': SSE_CONTENT_TYPE,
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      ...options.headers,
    });
    metrics.inflightStreams.inc({ route: routeLabel });
  };
  if (options.holdHead !== true) start();
  const pending: string[] = [];
  let recorded: string[] | undefined = options.record ? [] : undefined;
  // UTF-16 units: never more than the UTF-8 bytes, so past the limit the entry is surely too large.
  let recordedUnits = 0;
  const recordLimit = options.recordLimitBytes ?? CACHE_MAX_ENTRY_BYTES_CEILING;
  let failed = false;
  let firstWriteAt: number | undefined;
  const emit = (events: ReturnType<StreamPipeline['push']>) => {
    for (const event of events) pending.push(serializeSseEvent(event));
  };
  let beforeComplete = options.beforeComplete;
  /** Writes what is pending; a promise only when the client's socket is full (then wait for it). */
  const flush = (): Promise<unknown> | undefined => {
    if (pending.length === 0 || raw.writableEnded) return undefined;
    if (beforeComplete !== undefined && pipeline.completed()) {
      const hook = beforeComplete;
      beforeComplete = undefined;
      // The upstream waits meanwhile, as it waits for a full socket's drain.
      return hook().then(flush);
    }
    if (!started) start();
    const text = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending.length = 0;
    firstWriteAt ??= performance.now();
    if (recorded !== undefined) {
      recordedUnits += text.length;
      if (recordedUnits > recordLimit) recorded = undefined;
      else recorded.push(text);
    }
    // The client's end marker is out ([DONE], message_stop): the answer ends with this write, one
    // syscall less than a write and a later end. The upstream body is still read to its end.
    if (pipeline.completed()) raw.end(text);
    else if (!raw.write(text)) return once(raw, 'drain', { signal });
    return undefined;
  };
  try {
    // Each chunk is decoded and relayed in the upstream client's own callback: no promise or await
    // per chunk unless the client's socket is full (then the upstream waits for its drain).
    // Upstream keep-alive comments go on to the client (whatever its shape), so that proxies
    // between it and the gateway see a long wait for the first token as a live stream.
    await response.body.relayEvents({
      event: (event) => emit(pipeline.push(event)),
      comment: (comment) => pending.push(serializeSseComment(comment)),
      flush,
    });
    emit(pipeline.end());
    // An upstream stream that said nothing still answers: its head, then its end.
    if (!started) start();
    const drained = flush();
    if (drained !== undefined) await drained;
  } catch (error) {
    failed = true;
    if (!started) {
      // Nothing reached the client: the caller answers (or tries another target) instead.
      if (signal.aborted) throw new UpstreamAbortedError();
      metrics.upstreamErrors.inc({ provider, kind: 'stream' });
      options.log.warn({ provider, err: error }, 'upstream stream failed before its first byte');
      throw classifyBodyReadError(provider, error, signal);
    }
    if (!signal.aborted) {
      metrics.upstreamErrors.inc({ provider, kind: 'stream' });
      options.log.warn({ provider, err: error }, 'upstream stream failed after the response began');
      const failure = asGatewayError(classifyBodyReadError(provider, error, signal));
      // A stream the gateway numbers (Responses) fails in its own events; others in the dialect's error.
      const events = pipeline.fail?.({ code: failure.code, message: failure.message });
      if (!raw.writableEnded)
        raw.write(
          events === undefined
            ? renderStreamError(failure, options.dialect, reply.request.id)
            : events.map(serializeSseEvent).join(''),
        );
    }
  } finally {
    if (started) {
      if (!raw.destroyed && !raw.writableEnded) raw.end();
      metrics.inflightStreams.dec({ route: routeLabel });
    }
  }
  return {
    complete: !failed && !signal.aborted && pipeline.completed(),
    recorded: recorded?.join(''),
    firstWriteAt,
  };
}
