/**
 * Fixture lines back to an upstream's wire bytes, and bytes through the gateway's real parsers
 * and a stream translator, so stream tests replay what the gateway would read off the socket.
 */
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { AwsEventStreamReader } from '../../sse/aws-event-stream.ts';
import { type SseEvent, SseEventReader, serializeSseEvent } from '../../sse/sse-events.ts';
import type { StreamTranslator } from '../types.ts';

/** `data: <line>` events; Google separates them with CRLF, OpenAI-style servers with LF. */
export const encodeDataEvents = (lines: string[], newline = '\n'): Uint8Array =>
  new TextEncoder().encode(lines.map((line) => `data: ${line}${newline}${newline}`).join(''));

/** Anthropic's `event: <type>` + `data: <line>` events. */
export const encodeAnthropicEvents = (lines: string[]): Uint8Array =>
  new TextEncoder().encode(
    lines.map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`).join(''),
  );

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Decoded frames (`{headers, payload}` per line) as Bedrock's binary event stream, encoded by the reference codec. */
export function encodeAwsEventStream(lines: string[]): Uint8Array {
  const frames = lines.map((line) => {
    const { headers, payload } = JSON.parse(line) as { headers: Record<string, string>; payload: unknown };
    const tagged: MessageHeaders = {};
    for (const [header, value] of Object.entries(headers)) tagged[header] = { type: 'string', value };
    return codec.encode({ headers: tagged, body: fromUtf8(JSON.stringify(payload)) });
  });
  return Buffer.concat(frames);
}

/** The bytes in pieces of `size` bytes (the last may be shorter). */
export function splitEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    pieces.push(bytes.subarray(offset, offset + size));
  return pieces;
}

interface EventReader {
  feed(chunk: Uint8Array): void;
  end(): void;
}

/** Feeds the pieces through the reader and the translator, as the gateway does; then ends both. */
function replayThrough(
  createReader: (onEvent: (event: SseEvent) => void) => EventReader,
  translator: StreamTranslator,
  pieces: Iterable<Uint8Array>,
): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = createReader((event) => events.push(...translator.push(event)));
  for (const piece of pieces) reader.feed(piece);
  reader.end();
  events.push(...translator.end());
  return events;
}

/** Through SseEventReader, for SSE upstreams. */
export const replaySse = (translator: StreamTranslator, pieces: Iterable<Uint8Array>): SseEvent[] =>
  replayThrough((onEvent) => new SseEventReader(onEvent), translator, pieces);

/** Through AwsEventStreamReader, for Bedrock's binary frames. */
export const replayAwsEventStream = (
  translator: StreamTranslator,
  pieces: Iterable<Uint8Array>,
): SseEvent[] => replayThrough((onEvent) => new AwsEventStreamReader(onEvent), translator, pieces);

/** Each event's data as parsed JSON. */
export const eventBodies = (events: SseEvent[]): Array<Record<string, unknown>> =>
  events.map((event) => JSON.parse(event.data) as Record<string, unknown>);

/**
 * A fetch that answers every request with the events as an SSE body, so an official SDK client
 * (openai, @anthropic-ai/sdk) reads the translated stream as it would from the gateway.
 */
export const fetchServingSse = (events: SseEvent[]) => async (): Promise<Response> =>
  new Response(events.map(serializeSseEvent).join(''), { headers: { 'content-type': 'text/event-stream' } });
