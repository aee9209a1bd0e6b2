/**
 * ConverseStream events -> OpenAI `chat.completion.chunk`s, following "ConverseStream events" of
 * reference/providers.md section 4: messageStart -> role chunk; text deltas -> content;
 * contentBlockStart.toolUse -> a new tool call (its own 0-based counter: block indexes count
 * text blocks too); toolUse.input pieces -> arguments; messageStop -> finish chunk; metadata (which
 * follows messageStop) -> usage chunk; then [DONE]. Exception frames become the error chunk.
 *
 * Fed decoded event-stream frames (see sse/aws-event-stream.ts): `event` is the frame's
 * `:event-type` (or `:exception-type`), `data` its JSON payload.
 */
import type { BedrockUsage } from '../../shapes/bedrock.ts';
import type { ChatChunkDelta, ChatFinishReason } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import {
  type ChatChunkHeader,
  createToolBlockRouter,
  renderDeltaChunk,
  renderDoneEvent,
  renderUsageChunk,
} from '../shared/chat-chunks.ts';
import { asRecord, type JsonRecord, parseJsonRecord } from '../shared/json-record.ts';
import type { StreamTranslator } from '../types.ts';
import { renderConverseStreamException } from './errors.ts';
import {
  type ConverseResponseContext,
  convertConverseUsage,
  DEFAULT_COMPLETION_ID,
  mapConverseStopReason,
} from './response.ts';

/** Frames of `:message-type` exception or error; SSE-shaped events without the field are events. */
function isException(event: SseEvent): boolean {
  const messageType = (event as { messageType?: unknown }).messageType;
  return messageType === 'exception' || messageType === 'error';
}

/** One per response. Unparseable and unknown events are skipped. */
export function createConverseStreamTranslator(context: ConverseResponseContext = {}): StreamTranslator {
  const header: ChatChunkHeader = {
    id: context.id ?? DEFAULT_COMPLETION_ID,
    created: context.created ?? Math.floor(Date.now() / 1000),
    model: context.model ?? '',
    includeUsage: context.includeUsage === true,
  };
  let started = false;
  let stopped = false;
  let finished = false;
  let usage: Partial<BedrockUsage> | undefined;
  const blocks = createToolBlockRouter(context.jsonToolName);

  const chunk = (delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): SseEvent =>
    renderDeltaChunk(header, delta, finishReason);

  const start = (): SseEvent[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: 'assistant', content: '' })];
  };

  const stop = (stopReason: unknown): SseEvent[] => {
    if (stopped) return [];
    stopped = true;
    const reason = typeof stopReason === 'string' ? stopReason : undefined;
    return [...start(), chunk({}, mapConverseStopReason(reason, blocks.answeredWithJsonTool()))];
  };

  /** Usage chunk (when usage came and is wanted), then [DONE]. */
  const finish = (): SseEvent[] => {
    finished = true;
    const events: SseEvent[] = [];
    if (header.includeUsage && usage !== undefined)
      events.push(renderUsageChunk(header, convertConverseUsage(usage)));
    events.push(renderDoneEvent());
    return events;
  };

  const startBlock = (index: number, start: JsonRecord | undefined): SseEvent[] => {
    const toolUse = asRecord(start?.toolUse);
    if (toolUse === undefined) return [];
    const delta = blocks.startToolUse(index, {
      id: String(toolUse.toolUseId),
      name: String(toolUse.name),
      initialArguments: '',
    });
    return delta === undefined ? [] : [chunk(delta)];
  };

  const forwardDelta = (index: number, delta: JsonRecord | undefined): SseEvent[] => {
    if (typeof delta?.text === 'string') {
      // Text blocks usually start with their first delta, without a contentBlockStart.
      if (blocks.routeOf(index) === undefined) blocks.startText(index);
      return blocks.routeOf(index)?.kind === 'text' && delta.text !== ''
        ? [chunk({ content: delta.text })]
        : [];
    }
    const input = asRecord(delta?.toolUse)?.input;
    if (typeof input !== 'string') return []; // reasoningContent is not forwarded
    const forwarded = blocks.forwardArguments(index, input);
    return forwarded === undefined ? [] : [chunk(forwarded)];
  };

  return {
    push(event) {
      if (finished) return [];
      if (isException(event)) {
        finished = true;
        return [renderConverseStreamException(event.event ?? '', event.data)];
      }
      const data = parseJsonRecord(event.data);
      if (data === undefined) return [];
      switch (event.event) {
        case 'messageStart':
          return start();
        case 'contentBlockStart':
          return [...start(), ...startBlock(Number(data.contentBlockIndex), asRecord(data.start))];
        case 'contentBlockDelta':
          return [...start(), ...forwardDelta(Number(data.contentBlockIndex), asRecord(data.delta))];
        case 'messageStop':
          return stop(data.stopReason);
        case 'metadata': {
          const reported = asRecord(data.usage);
          if (reported !== undefined) usage = reported as Partial<BedrockUsage>;
          // Metadata closes the stream; without a stop reason the answer is incomplete.
          return stopped ? finish() : [];
        }
        default:
          // contentBlockStop and event types added later carry nothing to forward.
          return [];
      }
    },
    end() {
      if (finished) return [];
      // A stream cut short after messageStop only lost its metadata (usage).
      if (stopped) return finish();
      finished = true;
      return [
        renderConverseStreamException(
          'modelStreamErrorException',
          JSON.stringify({ message: 'the upstream stream ended before the message was complete' }),
        ),
      ];
    },
  };
}
