/**
 * One upstream call's dispatch handler (undici's DispatchHandler) and the body it hands out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { UpstreamTimeoutError } from '../errors/gateway-error.ts';
import {
  createUpstreamEventReader,
  isStreamContentType,
  type UpstreamEventReader,
} from '../sse/stream-framing.ts';
import {
  ANSWER_LIMIT,
  type BodyLimit,
  BodyTooLargeError,
  classifyBodyReadError,
  classifyTransportError,
  ERROR_BODY_LIMIT,
  type EventSink,
  UpstreamAbortedError,
  type UpstreamBody,
  type UpstreamRequest,
  type UpstreamResponse,
} from './upstream-answer.ts';

/** Chunks held before the upstream is paused (the reader is behind). */
const HIGH_WATER_CHUNKS = 16;

/**
 * One upstream call's dispatch handler and the body it hands out: chunks are queued as they come
 * and handed to the reader (paused past a few, resumed once read), the end and a failure reach the
 * reader in order after the chunks before them. The caller's abort signal aborts the call.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamBody {
  readonly #request: UpstreamRequest;
  #resolve: ((response: UpstreamResponse) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  readonly #chunks: Buffer[] = [];
  #ended = false;
  #failure: unknown;
  /** The reader waiting for the next chunk, the end or a failure. */
  #wake: (() => void) | undefined;
  #consumed = false;
  /** Read whole (`text()`, or before resolving): chunks are only collected until the end. */
  #whole = false;
  /** Read whole before resolving: the answer's status and headers wait here for its end. */
  #held: Omit<UpstreamResponse, 'text' | 'body'> | undefined;
  /** A stream asked for and answered: its decoder, and the sink its events go to. */
  #events: UpstreamEventReader | undefined;
  #eventSink: EventSink | undefined;
  /** The limit of a body read before resolving: bytes still allowed, and what happens past them. */
  #room = Number.POSITIVE_INFINITY;
  #limit: BodyLimit = ANSWER_LIMIT;
  /** The body was cut at its limit: the call's abort that follows is not a failure. */
  #cut = false;
  /** Relayed (`relay()`): chunks go to this consumer as they come. */
  #sink: ((chunk: Buffer) => Promise<unknown> | undefined) | undefined;
  /** The sink is behind (its promise pending): chunks queue meanwhile. */
  #sinkBusy = false;
  #relayDone: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  readonly #onAbort = () => this.#abort(new UpstreamAbortedError());
  /** Set until the first byte came (UpstreamRequest.firstByteTimeoutMs): then the call is aborted. */
  #firstByteTimer: NodeJS.Timeout | undefined;

  constructor(
    request: UpstreamRequest,
    resolve: (response: UpstreamResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#request = request;
    this.#resolve = resolve;
    this.#reject = reject;
    request.signal?.addEventListener('abort', this.#onAbort, { once: true });
    const firstByteMs = request.firstByteTimeoutMs;
    if (firstByteMs !== undefined)
      this.#firstByteTimer = setTimeout(() => {
        this.#firstByteTimer = undefined;
        const cause = new Error(`no first byte within ${firstByteMs} ms`);
        this.#abort(new UpstreamTimeoutError(request.provider, { cause }));
      }, firstByteMs);
  }

  /** The first byte came (or the call is over): its deadline no longer applies. */
  #firstByteCame(): void {
    clearTimeout(this.#firstByteTimer);
    this.#firstByteTimer = undefined;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#request.signal?.aborted) controller.abort(new UpstreamAbortedError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    const read = this.#request.read;
    const contentType = String(headers['content-type'] ?? '');
    if (statusCode < 400 && typeof read === 'object' && isStreamContentType(read.stream, contentType)) {
      // The stream asked for: its decoder is ready for the sink the caller attaches.
      this.#events = createUpstreamEventReader(
        read.stream,
        (event) => this.#eventSink?.event(event),
        (comment) => this.#eventSink?.comment(comment),
      );
      // Its first byte is its first chunk: the head alone may come long before any token.
      this.#resolveStream(statusCode, headers);
      return;
    }
    this.#firstByteCame();
    if (statusCode >= 400 || read !== undefined) {
      this.#whole = true;
      this.#consumed = true;
      this.#held = { statusCode, headers };
      this.#limit = statusCode >= 400 ? ERROR_BODY_LIMIT : ANSWER_LIMIT;
      this.#room = this.#limit.maxBytes;
      return;
    }
    this.#resolveStream(statusCode, headers);
  }

  /** The answer's head is in and its body is the caller's to read (relayed, or iterated). */
  #resolveStream(statusCode: number, headers: IncomingHttpHeaders): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve?.({ statusCode, headers, text: undefined, body: this });
  }

  /** A body read before resolving is in (whole, or cut at its limit): the answer goes out with it. */
  #resolveHeld(): void {
    const resolve = this.#resolve;
    const held = this.#held;
    if (resolve === undefined || held === undefined) return;
    this.#resolve = undefined;
    this.#reject = undefined;
    const chunks = this.#chunks.splice(0);
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    resolve({ statusCode: held.statusCode, headers: held.headers, text, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#firstByteTimer !== undefined) this.#firstByteCame();
    if (this.#sink !== undefined && !this.#sinkBusy) {
      this.#deliver(chunk);
      return;
    }
    if (this.#whole) {
      // Read whole: the reader wants only the end, so neither a pause nor a wake per chunk.
      if (this.#held === undefined) this.#chunks.push(chunk);
      else this.#collect(controller, chunk);
      return;
    }
    this.#chunks.push(chunk);
    if (this.#chunks.length >= HIGH_WATER_CHUNKS) controller.pause();
    this.#notify();
  }

  onResponseEnd(): void {
    this.#ended = true;
    this.#resolveHeld();
    this.#settle();
    if (!this.#sinkBusy) this.#finishRelay();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (!this.#cut) this.#failure ??= error;
    this.#settle();
    if (!this.#sinkBusy) this.#finishRelay();
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    // A body read before resolving that failed midway: the upstream dropped it, not unreachable.
    const classify = this.#held === undefined ? classifyTransportError : classifyBodyReadError;
    reject?.(classify(this.#request.provider, error, this.#request.signal));
  }

  /** A chunk of a body read whole, within the limit; past it the call ends (cut, or failed). */
  #collect(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#cut) return;
    if (chunk.length <= this.#room) {
      this.#room -= chunk.length;
      this.#chunks.push(chunk);
      return;
    }
    this.#cut = true;
    if (this.#limit.overflow === 'truncate') {
      this.#chunks.push(chunk.subarray(0, this.#room));
      this.#ended = true;
      this.#resolveHeld();
    } else {
      this.#failure = new BodyTooLargeError(this.#limit.maxBytes);
      const reject = this.#reject;
      this.#resolve = undefined;
      this.#reject = undefined;
      reject?.(this.#failure);
    }
    this.#settle();
    controller.abort(new UpstreamAbortedError());
  }

  /** Waits for the end with the chunks left queued (no pause: the whole body is wanted), then joins them. */
  async text(): Promise<string> {
    if (this.#consumed) throw new Error('an upstream body can be read once');
    this.#consumed = true;
    this.#whole = true;
    if (this.#controller?.paused === true) this.#controller.resume();
    while (!this.#ended && this.#failure === undefined) {
      await new Promise<void>((wake) => {
        this.#wake = wake;
      });
    }
    if (this.#failure !== undefined) throw this.#failure;
    const chunks = this.#chunks.splice(0);
    return chunks.length === 1
      ? (chunks[0] as Buffer).toString('utf8')
      : Buffer.concat(chunks).toString('utf8');
  }

  relay(onChunk: (chunk: Buffer) => Promise<unknown> | undefined): Promise<void> {
    if (this.#consumed) return Promise.reject(new Error('an upstream body can be read once'));
    this.#consumed = true;
    return new Promise<void>((resolve, reject) => {
      this.#relayDone = { resolve, reject };
      this.#sink = onChunk;
      // Chunks that came before the relay began (queued), then the end or failure if already in.
      this.#drainToSink();
    });
  }

  relayEvents(sink: EventSink): Promise<void> {
    const events = this.#events;
    if (events === undefined) return Promise.reject(new Error('the answer is not the stream asked for'));
    this.#eventSink = sink;
    return this.relay((chunk) => {
      events.feed(chunk);
      return sink.flush();
    }).then(() => events.end());
  }

  /** One chunk to the sink; a promise back pauses the upstream until it settles. */
  #deliver(chunk: Buffer): void {
    let behind: Promise<unknown> | undefined;
    try {
      behind = (this.#sink as (chunk: Buffer) => Promise<unknown> | undefined)(chunk);
    } catch (error) {
      this.#failRelay(error);
      return;
    }
    if (behind === undefined) return;
    this.#sinkBusy = true;
    if (this.#controller !== undefined && !this.#controller.paused) this.#controller.pause();
    behind.then(
      () => {
        this.#sinkBusy = false;
        this.#drainToSink();
      },
      (error: unknown) => {
        this.#sinkBusy = false;
        this.#failRelay(error);
      },
    );
  }

  /** Hands the queued chunks over until the sink is behind again; then the end, or a resume. */
  #drainToSink(): void {
    while (!this.#sinkBusy && this.#relayDone !== undefined) {
      const chunk = this.#chunks.shift();
      if (chunk === undefined) break;
      this.#deliver(chunk);
    }
    if (this.#sinkBusy || this.#relayDone === undefined) return;
    if (this.#ended || this.#failure !== undefined) this.#finishRelay();
    else if (this.#controller?.paused === true) this.#controller.resume();
  }

  /** The end (or the failure) reaches the relay once every chunk before it went to the sink. */
  #finishRelay(): void {
    const done = this.#relayDone;
    if (done === undefined || this.#chunks.length > 0) return;
    this.#relayDone = undefined;
    this.#sink = undefined;
    if (this.#failure !== undefined) done.reject(this.#failure);
    else done.resolve();
  }

  /** The sink threw: the rest is not wanted (the call aborted), and the relay fails with its error. */
  #failRelay(error: unknown): void {
    const done = this.#relayDone;
    this.#relayDone = undefined;
    this.#sink = undefined;
    this.#chunks.length = 0;
    if (this.#failure === undefined) this.#abort(new UpstreamAbortedError());
    done?.reject(error);
  }

  async dump(): Promise<void> {
    for await (const _chunk of this) {
      // discarded
    }
  }

  destroy(error?: Error): void {
    this.#abort(error ?? new UpstreamAbortedError());
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    if (this.#consumed) throw new Error('an upstream body can be read once');
    this.#consumed = true;
    let finished = false;
    try {
      for (;;) {
        const chunk = this.#chunks.shift();
        if (chunk !== undefined) {
          if (this.#chunks.length === 0 && this.#controller?.paused === true) this.#controller.resume();
          yield chunk;
          continue;
        }
        if (this.#failure !== undefined) throw this.#failure;
        if (this.#ended) {
          finished = true;
          return;
        }
        await new Promise<void>((wake) => {
          this.#wake = wake;
        });
      }
    } finally {
      // The reader stopped early (a break, a throw in its loop): the rest is not wanted.
      if (!finished && this.#failure === undefined) this.#abort(new UpstreamAbortedError());
    }
  }

  #abort(error: Error): void {
    if (this.#controller !== undefined && !this.#controller.aborted && !this.#ended)
      this.#controller.abort(error);
    else if (this.#controller === undefined) {
      // Not started yet: fail the call now; the dispatch is aborted when it starts.
      this.onResponseError(undefined, error);
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The call is over (ended or failed): no abort to listen for, and a waiting reader is told. */
  #settle(): void {
    if (this.#firstByteTimer !== undefined) this.#firstByteCame();
    this.#request.signal?.removeEventListener('abort', this.#onAbort);
    this.#notify();
  }
}
