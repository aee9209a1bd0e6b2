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
import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import type { StreamTranslator } from '../types.ts';
import { renderConverseStreamException } from './errors.ts';
import {
  type ConverseResponseContext,
  convertConverseUsage,
  DEFAULT_COMPLETION_ID,
  mapConverseStopReason,
} from './response.ts';

/** How a content block's deltas are forwarded. */
type BlockRoute = { kind: 'text' } | { kind: 'json' } | { kind: 'tool'; toolIndex: number };

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null ? (value as Json) : undefined;
}

function parseData(data: string): Json | undefined {
  try {
    return asRecord(JSON.parse(data));
  } catch {
    return undefined;
  }
}

/** Frames of `:message-type` exception or error; SSE-shaped events without the field are events. */
function isException(event: SseEvent): boolean {
  const messageType = (event as { messageType?: unknown }).messageType;
  return messageType === 'exception' || messageType === 'error';
}

/** One per response. Unparseable and unknown events are skipped. */
export function createConverseStreamTranslator(context: ConverseResponseContext = {}): StreamTranslator {
  const id = context.id ?? DEFAULT_COMPLETION_ID;
  const model = context.model ?? '';
  const created = context.created ?? Math.floor(Date.now() / 1000);
  const includeUsage = context.includeUsage === true;
  let started = false;
  let stopped = false;
  let finished = false;
  let toolCount = 0;
  let usage: Partial<BedrockUsage> | undefined;
  const blocks = new Map<number, BlockRoute>();

  const chunk = (delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): SseEvent => {
    const body: ChatCompletionChunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
      ...(includeUsage ? { usage: null } : {}),
    };
    return { data: JSON.stringify(body) };
  };

  const start = (): SseEvent[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: 'assistant', content: '' })];
  };

  const stop = (stopReason: unknown): SseEvent[] => {
    if (stopped) return [];
    stopped = true;
    const answeredWithJsonTool = context.jsonToolName !== undefined && toolCount === 0;
    const reason = typeof stopReason === 'string' ? stopReason : undefined;
    return [...start(), chunk({}, mapConverseStopReason(reason, answeredWithJsonTool))];
  };

  /** Usage chunk (when usage came and is wanted), then [DONE]. */
  const finish = (): SseEvent[] => {
    finished = true;
    const events: SseEvent[] = [];
    if (includeUsage && usage !== undefined) {
      const usageChunk: ChatCompletionChunk = {
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: convertConverseUsage(usage),
      };
      events.push({ data: JSON.stringify(usageChunk) });
    }
    events.push({ data: '[DONE]' });
    return events;
  };

  const routeOf = (index: number): BlockRoute => {
    let route = blocks.get(index);
    if (route === undefined) {
      // Text blocks usually start with their first delta, without a contentBlockStart.
      route = { kind: 'text' };
      blocks.set(index, route);
    }
    return route;
  };

  const startBlock = (index: number, start: Json | undefined): SseEvent[] => {
    const toolUse = asRecord(start?.toolUse);
    if (toolUse === undefined) return [];
    if (context.jsonToolName !== undefined && toolUse.name === context.jsonToolName) {
      blocks.set(index, { kind: 'json' });
      return [];
    }
    const toolIndex = toolCount++;
    blocks.set(index, { kind: 'tool', toolIndex });
    return [
      chunk({
        tool_calls: [
          {
            index: toolIndex,
            id: String(toolUse.toolUseId),
            type: 'function',
            function: { name: String(toolUse.name), arguments: '' },
          },
        ],
      }),
    ];
  };

  const forwardDelta = (index: number, delta: Json | undefined): SseEvent[] => {
    if (typeof delta?.text === 'string') {
      const route = routeOf(index);
      return route.kind === 'text' && delta.text !== '' ? [chunk({ content: delta.text })] : [];
    }
    const input = asRecord(delta?.toolUse)?.input;
    if (typeof input !== 'string' || input === '') return []; // reasoningContent is not forwarded
    const route = blocks.get(index);
    if (route?.kind === 'json') return [chunk({ content: input })];
    if (route?.kind === 'tool')
      return [chunk({ tool_calls: [{ index: route.toolIndex, function: { arguments: input } }] })];
    return [];
  };

  return {
    push(event) {
      if (finished) return [];
      if (isException(event)) {
        finished = true;
        return [renderConverseStreamException(event.event ?? '', event.data)];
      }
      const data = parseData(event.data);
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
