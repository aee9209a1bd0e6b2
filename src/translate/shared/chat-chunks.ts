/**
 * Writing OpenAI `chat.completion.chunk` streams (reference/providers.md section 1, "Stream"), for
 * the translators whose client is a chat-completions one: the chunk envelope, the usage-only
 * chunk and `[DONE]`, and the routing of an upstream's tool-use blocks to tool-call deltas.
 */
import type {
  ChatChunkDelta,
  ChatCompletionChunk,
  ChatFinishReason,
  ChatUsage,
} from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';

/** What every chunk of one stream repeats. */
export interface ChatChunkHeader {
  /** The same in every chunk of a stream. */
  id: string;
  created: number;
  model: string;
  /** The client's `stream_options.include_usage`. */
  includeUsage: boolean;
}

/**
 * The chunk object behind each event rendered here, so that a translator chained after one (the
 * Responses API's, through the chat pivot) reads it without parsing the text it was just written
 * as. Weak: an event that goes out is forgotten with it.
 */
const CHUNK_VALUES = new WeakMap<SseEvent, ChatCompletionChunk>();

/** The chunk an event rendered by renderDeltaChunk or renderUsageChunk carries; undefined for any other event. */
export function chunkValueOf(event: SseEvent): ChatCompletionChunk | undefined {
  return CHUNK_VALUES.get(event);
}

function chunkEvent(body: ChatCompletionChunk): SseEvent {
  const event = { data: JSON.stringify(body) };
  CHUNK_VALUES.set(event, body);
  return event;
}

/** One choice's delta. With include_usage, OpenAI sends `usage: null` on every chunk but the last. */
export function renderDeltaChunk(
  header: ChatChunkHeader,
  delta: ChatChunkDelta,
  finishReason: ChatFinishReason | null = null,
  choiceIndex = 0,
): SseEvent {
  const body: ChatCompletionChunk = {
    id: header.id,
    object: 'chat.completion.chunk',
    created: header.created,
    model: header.model,
    choices: [{ index: choiceIndex, delta, logprobs: null, finish_reason: finishReason }],
    ...(header.includeUsage ? { usage: null } : {}),
  };
  return chunkEvent(body);
}

/** The usage-only chunk, sent after the finish chunk when the client asked for usage. */
export function renderUsageChunk(header: ChatChunkHeader, usage: ChatUsage): SseEvent {
  const body: ChatCompletionChunk = {
    id: header.id,
    object: 'chat.completion.chunk',
    created: header.created,
    model: header.model,
    choices: [],
    usage,
  };
  return chunkEvent(body);
}

/** The end of a chat stream that did not fail. */
export const renderDoneEvent = (): SseEvent => ({ data: '[DONE]' });

/** How an upstream content block's deltas reach the client. */
export type BlockRoute = { kind: 'text' } | { kind: 'json' } | { kind: 'tool'; toolIndex: number };

/**
 * Routes an upstream's content blocks (Anthropic content blocks, Converse contentBlockIndex) to
 * chat deltas. Block indexes count every block; tool calls get their own 0-based counter, as chat
 * clients expect. The gateway's JSON tool streams its input as content, not as a tool call.
 */
export interface ToolBlockRouter {
  routeOf(blockIndex: number): BlockRoute | undefined;
  startText(blockIndex: number): void;
  /**
   * A tool-use block starts; the delta that opens its tool call (or the JSON tool's first text),
   * undefined when there is nothing to send yet.
   */
  startToolUse(
    blockIndex: number,
    tool: { id: string; name: string; initialArguments: string },
  ): ChatChunkDelta | undefined;
  /** A piece of a tool-use block's input JSON; undefined for an empty piece or a block that is not a tool use. */
  forwardArguments(blockIndex: number, piece: string): ChatChunkDelta | undefined;
  /** The JSON tool was asked for and no other tool was called: the answer is content, the turn finished. */
  answeredWithJsonTool(): boolean;
}

export function createToolBlockRouter(jsonToolName: string | undefined): ToolBlockRouter {
  const routes = new Map<number, BlockRoute>();
  let toolCount = 0;
  return {
    routeOf: (blockIndex) => routes.get(blockIndex),
    startText(blockIndex) {
      routes.set(blockIndex, { kind: 'text' });
    },
    startToolUse(blockIndex, { id, name, initialArguments }) {
      if (jsonToolName !== undefined && name === jsonToolName) {
        routes.set(blockIndex, { kind: 'json' });
        return initialArguments === '' ? undefined : { content: initialArguments };
      }
      const toolIndex = toolCount++;
      routes.set(blockIndex, { kind: 'tool', toolIndex });
      return {
        tool_calls: [
          { index: toolIndex, id, type: 'function', function: { name, arguments: initialArguments } },
        ],
      };
    },
    forwardArguments(blockIndex, piece) {
      if (piece === '') return undefined;
      const route = routes.get(blockIndex);
      if (route?.kind === 'json') return { content: piece };
      if (route?.kind === 'tool')
        return { tool_calls: [{ index: route.toolIndex, function: { arguments: piece } }] };
      return undefined;
    },
    answeredWithJsonTool: () => jsonToolName !== undefined && toolCount === 0,
  };
}
