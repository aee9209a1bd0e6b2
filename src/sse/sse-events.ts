/**
 * SSE parsing and writing, to and from typed events. Parsing is eventsource-parser's (it copes
 * with CRLF, comments, a leading BOM, and events split across network chunks); UTF-8 sequences
 * split across chunks are held back by a StringDecoder (about half the time of a streaming
 * TextDecoder's decode, once per relayed chunk).
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Serialises one event; multi-line data becomes several `data:` lines, as the format requires. */
export function serializeSseEvent(event: SseEvent): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.data.indexOf('\n') === -1) return `${text}data: ${event.data}\n\n`;
  for (const line of event.data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** Serialises a comment line; clients ignore it, proxies see traffic on an otherwise quiet stream. */
export function serializeSseComment(comment: string): string {
  return `: ${comment.replaceAll(/[\r\n]/g, ' ')}\n\n`;
}

/** Feeds raw upstream bytes, calls back once per complete event. */
export class SseEventReader {
  readonly #decoder = new StringDecoder('utf8');
  readonly #parser;

  /** `onComment` gets comment lines (`: keep-alive`) without their colon, for relaying as they are. */
  constructor(onEvent: (event: SseEvent) => void, onComment?: (comment: string) => void) {
    this.#parser = createParser({
      ...(onComment === undefined ? {} : { onComment }),
      onEvent: (message: EventSourceMessage) => {
        onEvent(
          message.event === undefined
            ? { data: message.data, ...(message.id === undefined ? {} : { id: message.id }) }
            : {
                event: message.event,
                data: message.data,
                ...(message.id === undefined ? {} : { id: message.id }),
              },
        );
      },
    });
  }

  feed(chunk: Uint8Array): void {
    this.#parser.feed(this.#decoder.write(chunk));
  }

  /** Flushes a final event that lacked its trailing blank line. */
  end(): void {
    const rest = this.#decoder.end();
    if (rest) this.#parser.feed(rest);
    this.#parser.feed('\n\n');
  }
}
