/**
 * Anthropic SSE events -> OpenAI `chat.completion.chunk`s, following "Anthropic stream → OpenAI
 * chunks" of reference/providers.md section 2: a role chunk on message_start, content and
 * tool-call fragments per block, then finish chunk -> usage chunk (when asked for) -> [DONE].
 */
import type { AnthropicUsage } from '../../shapes/anthropic.ts';
import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import type { StreamTranslator } from '../types.ts';
import { mapAnthropicErrorToChat, renderChatStreamError } from './errors.ts';
import { type ChatResponseContext, convertAnthropicUsage, mapAnthropicStopReason } from './response.ts';

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

const isNonEmptyObject = (value: unknown): boolean =>
  asRecord(value) !== undefined && Object.keys(value as Json).length > 0;

/** One per response. Unparseable events are skipped; `ping` is dropped. */
export function createAnthropicStreamToChatTranslator(context: ChatResponseContext = {}): StreamTranslator {
  const created = context.created ?? Math.floor(Date.now() / 1000);
  const includeUsage = context.includeUsage === true;
  let id = 'msg_unknown';
  let model = context.model ?? '';
  let started = false;
  let finished = false;
  let toolCount = 0;
  let stopReason: string | null = null;
  const blocks = new Map<number, BlockRoute>();
  const usage: Partial<AnthropicUsage> = {};

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

  // Usage values are cumulative: set, never add.
  const mergeUsage = (value: unknown): void => {
    const record = asRecord(value);
    if (record === undefined) return;
    for (const field of [
      'input_tokens',
      'output_tokens',
      'cache_read_input_tokens',
      'cache_creation_input_tokens',
    ] as const) {
      if (typeof record[field] === 'number') usage[field] = record[field] as number;
    }
  };

  const start = (message: Json | undefined): SseEvent[] => {
    if (started) return [];
    started = true;
    if (typeof message?.id === 'string') id = message.id;
    if (context.model === undefined && typeof message?.model === 'string') model = message.model;
    mergeUsage(message?.usage);
    return [chunk({ role: 'assistant', content: '' })];
  };

  const finish = (): SseEvent[] => {
    finished = true;
    const answeredWithJsonTool = context.jsonToolName !== undefined && toolCount === 0;
    const events = [chunk({}, mapAnthropicStopReason(stopReason, answeredWithJsonTool))];
    if (includeUsage) {
      const usageChunk: ChatCompletionChunk = {
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: convertAnthropicUsage(usage),
      };
      events.push({ data: JSON.stringify(usageChunk) });
    }
    events.push({ data: '[DONE]' });
    return events;
  };

  const fail = (body: unknown): SseEvent[] => {
    finished = true;
    return [renderChatStreamError(mapAnthropicErrorToChat(body))];
  };

  const startBlock = (index: number, block: Json | undefined): SseEvent[] => {
    if (block?.type === 'text') {
      blocks.set(index, { kind: 'text' });
      return typeof block.text === 'string' && block.text !== '' ? [chunk({ content: block.text })] : [];
    }
    if (block?.type !== 'tool_use') return []; // thinking and server-tool blocks are not forwarded
    const input = isNonEmptyObject(block.input) ? JSON.stringify(block.input) : '';
    if (context.jsonToolName !== undefined && block.name === context.jsonToolName) {
      blocks.set(index, { kind: 'json' });
      return input === '' ? [] : [chunk({ content: input })];
    }
    const toolIndex = toolCount++;
    blocks.set(index, { kind: 'tool', toolIndex });
    return [
      chunk({
        tool_calls: [
          {
            index: toolIndex,
            id: String(block.id),
            type: 'function',
            function: { name: String(block.name), arguments: input },
          },
        ],
      }),
    ];
  };

  const forwardDelta = (index: number, delta: Json | undefined): SseEvent[] => {
    const route = blocks.get(index);
    if (route === undefined) return [];
    if (delta?.type === 'text_delta' && route.kind === 'text' && typeof delta.text === 'string')
      return delta.text === '' ? [] : [chunk({ content: delta.text })];
    if (
      delta?.type !== 'input_json_delta' ||
      typeof delta.partial_json !== 'string' ||
      delta.partial_json === ''
    )
      return [];
    if (route.kind === 'json') return [chunk({ content: delta.partial_json })];
    if (route.kind === 'tool')
      return [
        chunk({ tool_calls: [{ index: route.toolIndex, function: { arguments: delta.partial_json } }] }),
      ];
    return [];
  };

  return {
    push(event) {
      if (finished) return [];
      const data = parseData(event.data);
      if (data === undefined) return [];
      const type = typeof data.type === 'string' ? data.type : event.event;
      switch (type) {
        case 'message_start':
          return start(asRecord(data.message));
        case 'content_block_start':
          return [...start(undefined), ...startBlock(Number(data.index), asRecord(data.content_block))];
        case 'content_block_delta':
          return [...start(undefined), ...forwardDelta(Number(data.index), asRecord(data.delta))];
        case 'message_delta': {
          const delta = asRecord(data.delta);
          if (typeof delta?.stop_reason === 'string') stopReason = delta.stop_reason;
          mergeUsage(data.usage);
          return start(undefined);
        }
        case 'message_stop':
          return [...start(undefined), ...finish()];
        case 'error':
          return fail(data);
        default:
          // ping, content_block_stop and event types added later carry nothing to forward.
          return [];
      }
    },
    end() {
      if (finished) return [];
      // A stream cut short after its stop reason only lost message_stop; otherwise the answer is incomplete.
      if (started && stopReason !== null) return finish();
      return fail({
        error: { type: 'api_error', message: 'the upstream stream ended before the message was complete' },
      });
    },
  };
}
