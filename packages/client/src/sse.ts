/**
 * Server-sent events of a response body, parsed with eventsource-parser (no Node APIs: a
 * `ReadableStream` reader and `TextDecoder`, as browsers have them).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ByteStreamLike } from './http.ts';

export type { EventSourceMessage };

/**
 * The events of an SSE body, in order, as they arrive. Ending the iteration early (a `break`, an
 * exception in the loop) cancels the body, which closes the connection.
 */
export async function* readServerSentEvents(body: ByteStreamLike): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value !== undefined)
        parser.feed(typeof value === 'string' ? value : decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift() as EventSourceMessage;
    }
    parser.feed(decoder.decode());
    // A last event without its blank line still counts.
    parser.reset({ consume: true });
    while (pending.length > 0) yield pending.shift() as EventSourceMessage;
    finished = true;
  } finally {
    if (finished) reader.releaseLock();
    else await reader.cancel().catch(() => {});
  }
}
