/**
 * What an upstream call sends and gets back (the request, the answer and its body), the bounds of
 * an answer read whole, and the call's failures as the gateway's typed errors (undici's error
 * classes, never message text). The transport is upstream-client.ts; one call's handler is
 * upstream-exchange.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { errors as undiciErrors } from 'undici';
import {
  GatewayError,
  UpstreamDisconnectedError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../errors/gateway-error.ts';
import type { SseEvent } from '../sse/sse-events.ts';
import type { StreamFraming } from '../sse/stream-framing.ts';

export interface UpstreamRequest {
  provider: string;
  url: string;
  method?: 'POST' | 'GET' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /**
   * How the answer is read. `'whole'`: before the call resolves (at most MAX_ANSWER_BYTES; larger
   * is a BodyTooLargeError), its text the response's `text`. `{stream}`: an answer in that framing
   * (its content type) is the caller's to relay as events (`body.relayEvents`); any other is read
   * whole. Absent: the body is the caller's to read as it likes. An error answer is read whole always.
   */
  read?: AnswerReading;
  /**
   * The first byte must come within this (a model route's `firstByteTimeoutMs`), else the call is
   * aborted as an UpstreamTimeoutError: the answer's head when it is read whole, the stream's first
   * chunk when a stream is relayed. Absent: only the client's timeouts apply.
   */
  firstByteTimeoutMs?: number;
}

export type AnswerReading = 'whole' | { stream: StreamFraming };

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /**
   * The body read whole: when the request asked for it (or for a stream and another answer came),
   * and for every error answer (status >= 400, its
   * first MAX_ERROR_BODY_BYTES: its message is all the gateway uses of it); else undefined and the
   * body is `body`'s to read.
   */
  text: string | undefined;
  body: UpstreamBody;
}

/** Error answers are read up to this much, the rest dropped. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A whole (not streamed) answer larger than this is refused (BodyTooLargeError). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** An answer's body as it arrives: read whole, iterated chunk by chunk, discarded or dropped. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  /** The whole body as UTF-8 text (unbounded: for tests and trusted peers). */
  text(): Promise<string>;
  /** Reads the rest and discards it (the connection is then reused). */
  dump(): Promise<void>;
  /** Stops reading: the upstream call is aborted and the connection dropped. */
  destroy(error?: Error): void;
  /**
   * Hands each chunk to `onChunk` as it arrives, in undici's own callback (no promise per chunk):
   * a returned promise (the consumer is behind) pauses the upstream until it settles. Resolves at
   * the end; rejects with the failure after the chunks before it, or with what `onChunk` threw
   * (the call then aborted).
   */
  relay(onChunk: (chunk: Buffer) => Promise<unknown> | undefined): Promise<void>;
  /**
   * A stream asked for (`read: {stream}`) relayed as the events of its framing: each chunk is
   * decoded as it arrives and its events and comments handed to `sink`, then `sink.flush()` (a
   * promise back pauses the upstream, as with `relay`); the framing's last events at the end.
   */
  relayEvents(sink: EventSink): Promise<void>;
}

/** Where `relayEvents` hands a stream's decoded events. */
export interface EventSink {
  event(event: SseEvent): void;
  /** An SSE comment line (a keep-alive), where the framing has them. */
  comment(comment: string): void;
  /** After each chunk's events: a promise while the consumer is behind. */
  flush(): Promise<unknown> | undefined;
}

/** An answer's headers with repeated ones joined, as a plan's error mapping reads them. */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/** How much of a body read whole is kept, and what happens past that. */
export interface BodyLimit {
  maxBytes: number;
  overflow: 'truncate' | 'fail';
}

export const ERROR_BODY_LIMIT: BodyLimit = { maxBytes: MAX_ERROR_BODY_BYTES, overflow: 'truncate' };
export const ANSWER_LIMIT: BodyLimit = { maxBytes: MAX_ANSWER_BYTES, overflow: 'fail' };

/** A body read whole was larger than its limit (`overflow: 'fail'`). */
export class BodyTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
    this.name = 'BodyTooLargeError';
  }
}

/** Thrown when the request was aborted on purpose (the client went away); never rendered. */
export class UpstreamAbortedError extends Error {
  constructor() {
    super('upstream request aborted');
    this.name = 'UpstreamAbortedError';
  }
}

/**
 * A failure while reading an answer that had begun (status and headers received): a stall is a
 * timeout, anything else the upstream dropping the connection midway, never "could not reach".
 */
export function classifyBodyReadError(provider: string, error: unknown, signal?: AbortSignal): Error {
  const failure = classifyTransportError(provider, error, signal);
  return failure instanceof UpstreamUnreachableError
    ? new UpstreamDisconnectedError(provider, { cause: error })
    : failure;
}

/** Maps undici's error codes (never message text) to the gateway's error tree. */
export function classifyTransportError(provider: string, error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError'))
    return new UpstreamAbortedError();
  // Already classified (a translator refusing what the upstream sent, say).
  if (error instanceof GatewayError) return error;
  if (
    error instanceof undiciErrors.ConnectTimeoutError ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError
  ) {
    return new UpstreamTimeoutError(provider, { cause: error });
  }
  return new UpstreamUnreachableError(provider, { cause: error });
}
