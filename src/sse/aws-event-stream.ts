/**
 * The binary AWS event-stream (Bedrock ConverseStream, InvokeModelWithResponseStream) to and from
 * typed events. Framing and CRCs are @smithy/eventstream-codec's; this module only cuts the byte
 * stream into whole frames, which arrive split across and packed within network chunks
 * (reference/providers.md section 4, "AWS event-stream framing").
 */
import { createRequire } from 'node:module';
import type { Message, MessageHeaders } from '@smithy/eventstream-codec';
import type { SseEvent } from './sse-events.ts';

export type EventStreamMessageType = 'event' | 'exception' | 'error';

/**
 * One decoded frame, shaped like an SSE event so the same stream translators consume it:
 * `event` is `:event-type` (or `:exception-type` / `:error-code`), `data` the payload text (a
 * JSON document; for `error` frames `{"message": <:error-message>}`).
 */
export interface AwsEventStreamEvent extends SseEvent {
  event: string;
  data: string;
  messageType: EventStreamMessageType;
}

/** Prelude (total length, headers length, prelude CRC) plus the message CRC. */
const FRAME_OVERHEAD = 16;
/** Bedrock frames are small; a larger length means the stream is not what it claims to be. */
const MAX_FRAME_BYTES = 24 * 1024 * 1024;

interface Smithy {
  codec: import('@smithy/eventstream-codec').EventStreamCodec;
  toUtf8: typeof import('@smithy/util-utf8').toUtf8;
  fromUtf8: typeof import('@smithy/util-utf8').fromUtf8;
}
let smithy: Smithy | undefined;

/**
 * The codec, loaded by the first Bedrock stream (synchronously: a reader is fed bytes as they
 * come), so that a gateway with no Bedrock traffic never holds @smithy's modules.
 */
function aws(): Smithy {
  if (smithy === undefined) {
    const require = createRequire(import.meta.url);
    const { EventStreamCodec } =
      require('@smithy/eventstream-codec') as typeof import('@smithy/eventstream-codec');
    const { fromUtf8, toUtf8 } = require('@smithy/util-utf8') as typeof import('@smithy/util-utf8');
    smithy = { codec: new EventStreamCodec(toUtf8, fromUtf8), toUtf8, fromUtf8 };
  }
  return smithy;
}

function headerText(headers: MessageHeaders, name: string): string | undefined {
  const header = headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

/** A decoded message -> the event the translators see. */
export function toAwsEventStreamEvent(message: Message): AwsEventStreamEvent {
  const { headers } = message;
  const kind = headerText(headers, ':message-type');
  if (kind === 'exception')
    return {
      event: headerText(headers, ':exception-type') ?? 'unknownException',
      data: aws().toUtf8(message.body),
      messageType: 'exception',
    };
  if (kind === 'error')
    return {
      event: headerText(headers, ':error-code') ?? 'UnknownError',
      data: JSON.stringify({ message: headerText(headers, ':error-message') ?? '' }),
      messageType: 'error',
    };
  return {
    event: headerText(headers, ':event-type') ?? '',
    data: aws().toUtf8(message.body),
    messageType: 'event',
  };
}

/**
 * Feeds raw upstream bytes, calls back once per complete frame. A CRC or length error throws from
 * `feed`; a partial frame at the end throws from `end` (the stream was cut short).
 */
export class AwsEventStreamReader {
  readonly #onEvent: (event: AwsEventStreamEvent) => void;
  /** Bytes of an incomplete frame carried over from earlier chunks. */
  #pending: Uint8Array = new Uint8Array(0);

  constructor(onEvent: (event: AwsEventStreamEvent) => void) {
    this.#onEvent = onEvent;
  }

  feed(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.#pending.length > 0) {
      bytes = new Uint8Array(this.#pending.length + chunk.length);
      bytes.set(this.#pending);
      bytes.set(chunk, this.#pending.length);
    }
    let offset = 0;
    while (bytes.length - offset >= 4) {
      const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 4);
      const total = view.getUint32(0, false);
      if (total < FRAME_OVERHEAD || total > MAX_FRAME_BYTES)
        throw new Error(`event-stream frame length ${total} is out of range`);
      if (bytes.length - offset < total) break;
      this.#onEvent(toAwsEventStreamEvent(aws().codec.decode(bytes.subarray(offset, offset + total))));
      offset += total;
    }
    // Copied, so a small remainder does not pin a large network buffer.
    this.#pending = offset === bytes.length ? new Uint8Array(0) : bytes.slice(offset);
  }

  end(): void {
    if (this.#pending.length > 0) {
      const length = this.#pending.length;
      this.#pending = new Uint8Array(0);
      throw new Error(`the event stream ended inside a frame (${length} bytes left over)`);
    }
  }
}

/** One frame as AWS sends it; for fakes and tests (the gateway only reads event streams). */
export function encodeAwsEventStreamFrame(
  event: string,
  payload: unknown,
  messageType: 'event' | 'exception' = 'event',
): Uint8Array {
  const nameHeader = messageType === 'event' ? ':event-type' : ':exception-type';
  return aws().codec.encode({
    headers: {
      ':message-type': { type: 'string', value: messageType },
      [nameHeader]: { type: 'string', value: event },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: aws().fromUtf8(JSON.stringify(payload)),
  });
}
