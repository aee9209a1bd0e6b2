/**
 * How an upstream frames its stream, and the reader that turns its bytes into events for the
 * stream translators: SSE (most providers) or the binary AWS event-stream (Bedrock). A registry
 * (data), so a new framing is one entry.
 */
import { AwsEventStreamReader } from './aws-event-stream.ts';
import { type SseEvent, SseEventReader } from './sse-events.ts';

export type StreamFraming = 'sse' | 'aws-eventstream';

/** Raw upstream bytes in, one callback per complete event; `end` flushes or reports a cut-short stream. */
export interface UpstreamEventReader {
  feed(chunk: Uint8Array): void;
  end(): void;
}

interface FramingDefinition {
  /** The content type of a streamed answer (an error answer has another). */
  contentType: string;
  createReader(
    onEvent: (event: SseEvent) => void,
    onComment?: (comment: string) => void,
  ): UpstreamEventReader;
}

const FRAMINGS: ReadonlyMap<StreamFraming, FramingDefinition> = new Map<StreamFraming, FramingDefinition>([
  [
    'sse',
    {
      contentType: 'text/event-stream',
      createReader: (onEvent, onComment) => new SseEventReader(onEvent, onComment),
    },
  ],
  [
    'aws-eventstream',
    {
      contentType: 'application/vnd.amazon.eventstream',
      createReader: (onEvent) => new AwsEventStreamReader(onEvent),
    },
  ],
]);

function definitionOf(framing: StreamFraming): FramingDefinition {
  const definition = FRAMINGS.get(framing);
  if (definition === undefined) throw new Error(`unknown stream framing '${framing}'`);
  return definition;
}

/** `onComment`: SSE comment lines (keep-alives), where the framing has them. */
export function createUpstreamEventReader(
  framing: StreamFraming,
  onEvent: (event: SseEvent) => void,
  onComment?: (comment: string) => void,
): UpstreamEventReader {
  return definitionOf(framing).createReader(onEvent, onComment);
}

/** Whether an upstream answer with this content type is a stream in the given framing. */
export function isStreamContentType(framing: StreamFraming, contentType: string): boolean {
  return contentType.toLowerCase().startsWith(definitionOf(framing).contentType);
}
