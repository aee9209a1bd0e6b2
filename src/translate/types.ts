import type { SseEvent } from '../sse/sse-events.ts';

/**
 * A per-request stream translator: fed the upstream's parsed events one by one (SSE events, or AWS
 * event-stream frames decoded to the same shape by sse/aws-event-stream.ts), it returns the
 * events to send to the client in its own shape. It keeps only the state one response needs, never
 * blocks and never sees raw SSE text.
 */
export interface StreamTranslator {
  /** One upstream event in; zero or more client events out, in order. */
  push(event: SseEvent): SseEvent[];
  /** The upstream body ended; returns what must still be sent (an error event if the stream was cut short). */
  end(): SseEvent[];
}

/** An upstream error body reduced to what the client's envelope carries; the status is the gateway's to map. */
export interface UpstreamErrorDetail {
  message: string;
  /** The error type in the client's vocabulary. */
  type: string;
}
