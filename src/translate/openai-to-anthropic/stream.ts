/**
 * Anthropic SSE events -> OpenAI `chat.completion.chunk`s, following "Anthropic stream → OpenAI
 * chunks" of reference/providers.md section 2: a role chunk on message_start, content and
 * tool-call fragments per block, then finish chunk -> usage chunk (when asked for) -> [DONE].
 */
import type { AnthropicUsage } from '../../shapes/anthropic.ts';
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
import { mapAnthropicErrorToChat, renderChatStreamError } from './errors.ts';
import { type ChatResponseContext, convertAnthropicUsage, mapAnthropicStopReason } from './response.ts';

const isNonEmptyObject = (value: unknown): boolean =>
  asRecord(value) !== undefined && Object.keys(value as JsonRecord).length > 0;

/** One per response. Unparseable events are skipped; `ping` is dropped. */
export function createAnthropicStreamToChatTranslator(context: ChatResponseContext = {}): StreamTranslator {
  const header: ChatChunkHeader = {
    id: 'msg_unknown',
    created: context.created ?? Math.floor(Date.now() / 1000),
    model: context.model ?? '',
    includeUsage: context.includeUsage === true,
  };
  let started = false;
  let finished = false;
  let stopReason: string | null = null;
  const blocks = createToolBlockRouter(context.jsonToolName);
  const usage: Partial<AnthropicUsage> = {};

  const chunk = (delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): SseEvent =>
    renderDeltaChunk(header, delta, finishReason);

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

  const start = (message: JsonRecord | undefined): SseEvent[] => {
    if (started) return [];
    started = true;
    if (typeof message?.id === 'string') header.id = message.id;
    if (context.model === undefined && typeof message?.model === 'string') header.model = message.model;
    mergeUsage(message?.usage);
    return [chunk({ role: 'assistant', content: '' })];
  };

  const finish = (): SseEvent[] => {
    finished = true;
    const events = [chunk({}, mapAnthropicStopReason(stopReason, blocks.answeredWithJsonTool()))];
    if (header.includeUsage) events.push(renderUsageChunk(header, convertAnthropicUsage(usage)));
    events.push(renderDoneEvent());
    return events;
  };

  const fail = (body: unknown): SseEvent[] => {
    finished = true;
    return [renderChatStreamError(mapAnthropicErrorToChat(body))];
  };

  const startBlock = (index: number, block: JsonRecord | undefined): SseEvent[] => {
    if (block?.type === 'text') {
      blocks.startText(index);
      return typeof block.text === 'string' && block.text !== '' ? [chunk({ content: block.text })] : [];
    }
    if (block?.type !== 'tool_use') return []; // thinking and server-tool blocks are not forwarded
    const delta = blocks.startToolUse(index, {
      id: String(block.id),
      name: String(block.name),
      initialArguments: isNonEmptyObject(block.input) ? JSON.stringify(block.input) : '',
    });
    return delta === undefined ? [] : [chunk(delta)];
  };

  const forwardDelta = (index: number, delta: JsonRecord | undefined): SseEvent[] => {
    const route = blocks.routeOf(index);
    if (route === undefined) return [];
    if (delta?.type === 'text_delta' && route.kind === 'text' && typeof delta.text === 'string')
      return delta.text === '' ? [] : [chunk({ content: delta.text })];
    if (delta?.type !== 'input_json_delta' || typeof delta.partial_json !== 'string') return [];
    const forwarded = blocks.forwardArguments(index, delta.partial_json);
    return forwarded === undefined ? [] : [chunk(forwarded)];
  };

  return {
    push(event) {
      if (finished) return [];
      const data = parseJsonRecord(event.data);
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
