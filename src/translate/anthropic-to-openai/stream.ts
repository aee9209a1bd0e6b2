/**
 * OpenAI `chat.completion.chunk`s -> Anthropic Messages events, following "OpenAI-shaped stream →
 * Anthropic events" of reference/providers.md section 2: message_start on the first chunk, one
 * content block per run of text and per tool call, and message_delta + message_stop once both the
 * finish reason and the usage are known (or at [DONE]). Blocks after the first tool call are held
 * and emitted whole at the finish, since tool-call fragments may interleave (see `held`).
 */
import type { ChatUsage } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { asRecord, type JsonRecord, parseJsonRecord } from '../shared/json-record.ts';
import type { StreamTranslator } from '../types.ts';
import { mapChatErrorToAnthropic, renderAnthropicStreamError } from './errors.ts';
import { sanitizeToolCallId } from './request.ts';
import {
  type AnthropicResponseContext,
  convertChatUsage,
  mapChatFinishReason,
  toMessageId,
} from './response.ts';

type HeldBlock = { kind: 'text'; text: string } | { kind: 'tool'; id: string; name: string; json: string };

const anthropicEvent = (body: JsonRecord & { type: string }): SseEvent => ({
  event: body.type,
  data: JSON.stringify(body),
});

/** One per response. Unparseable events are skipped. Only choice 0 is read (the request never sets `n`). */
export function createChatStreamToAnthropicTranslator(
  context: AnthropicResponseContext = {},
): StreamTranslator {
  let started = false;
  let finished = false;
  let messageId = context.messageId ?? '';
  let nextBlock = 0;
  /** The block deltas currently go to; Anthropic blocks are sequential, so a new one closes it. */
  let open: { kind: 'text' | 'tool'; index: number } | undefined;
  /** OpenAI tool-call index -> the block streaming it live (only the first tool call streams live). */
  const toolBlocks = new Map<number, number>();
  /**
   * Blocks that begin after the first tool call, held whole until the finish. Upstreams may
   * interleave tool-call fragments (vLLM and other compatible servers send call 1's arguments
   * between call 2's), and an Anthropic block cannot take deltas after its content_block_stop.
   * Closing the live tool block at the next call's start would strand any late fragment, so
   * the live block stays open and everything after it is emitted, in order, once nothing more
   * can arrive. Clients act on tool calls only at message_stop, so this costs no latency.
   */
  const held: HeldBlock[] = [];
  const heldTools = new Map<number, HeldBlock & { kind: 'tool' }>();
  let finishReason: string | null = null;
  let refused = false;
  let usage: ChatUsage | undefined;

  const start = (chunk: JsonRecord): SseEvent[] => {
    if (started) return [];
    started = true;
    if (messageId === '') messageId = toMessageId(chunk.id);
    const model = context.model ?? (typeof chunk.model === 'string' ? chunk.model : '');
    return [
      anthropicEvent({
        type: 'message_start',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // Counts are not known until the usage chunk; message_delta carries them.
          usage: {
            input_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 0,
          },
        },
      }),
    ];
  };

  const closeOpen = (): SseEvent[] => {
    if (open === undefined) return [];
    const index = open.index;
    open = undefined;
    return [anthropicEvent({ type: 'content_block_stop', index })];
  };

  const appendText = (text: string): SseEvent[] => {
    if (toolBlocks.size > 0) {
      const last = held.at(-1);
      if (last?.kind === 'text') last.text += text;
      else held.push({ kind: 'text', text });
      return [];
    }
    const events: SseEvent[] = [];
    if (open?.kind !== 'text') {
      events.push(...closeOpen());
      open = { kind: 'text', index: nextBlock++ };
      events.push(
        anthropicEvent({
          type: 'content_block_start',
          index: open.index,
          content_block: { type: 'text', text: '' },
        }),
      );
    }
    events.push(
      anthropicEvent({ type: 'content_block_delta', index: open.index, delta: { type: 'text_delta', text } }),
    );
    return events;
  };

  const appendToolCall = (call: JsonRecord, position: number): SseEvent[] => {
    const toolIndex = typeof call.index === 'number' ? call.index : position;
    const fn = asRecord(call.function);
    const name = typeof fn?.name === 'string' ? fn.name : '';
    const json = typeof fn?.arguments === 'string' ? fn.arguments : '';
    const heldTool = heldTools.get(toolIndex);
    if (heldTool !== undefined) {
      heldTool.json += json;
      if (heldTool.name === '') heldTool.name = name;
      return [];
    }
    const events: SseEvent[] = [];
    let blockIndex = toolBlocks.get(toolIndex);
    if (blockIndex === undefined) {
      const id = sanitizeToolCallId(
        typeof call.id === 'string' && call.id !== '' ? call.id : `${messageId}_tool_${toolIndex}`,
      );
      if (toolBlocks.size > 0) {
        const entry = { kind: 'tool' as const, id, name, json };
        heldTools.set(toolIndex, entry);
        held.push(entry);
        return [];
      }
      events.push(...closeOpen());
      blockIndex = nextBlock++;
      toolBlocks.set(toolIndex, blockIndex);
      open = { kind: 'tool', index: blockIndex };
      events.push(
        anthropicEvent({
          type: 'content_block_start',
          index: blockIndex,
          content_block: { type: 'tool_use', id, name, input: {} },
        }),
      );
    }
    // The live block is never closed before the finish, so late fragments still belong to it.
    if (json !== '')
      events.push(
        anthropicEvent({
          type: 'content_block_delta',
          index: blockIndex,
          delta: { type: 'input_json_delta', partial_json: json },
        }),
      );
    return events;
  };

  /** The held blocks, each whole: start, one delta, stop. */
  const flushHeld = (): SseEvent[] =>
    held.flatMap((block) => {
      const index = nextBlock++;
      const [contentBlock, delta] =
        block.kind === 'text'
          ? [
              { type: 'text', text: '' },
              { type: 'text_delta', text: block.text },
            ]
          : [
              { type: 'tool_use', id: block.id, name: block.name, input: {} },
              { type: 'input_json_delta', partial_json: block.json },
            ];
      return [
        anthropicEvent({ type: 'content_block_start', index, content_block: contentBlock }),
        ...(block.kind === 'tool' && block.json === ''
          ? []
          : [anthropicEvent({ type: 'content_block_delta', index, delta })]),
        anthropicEvent({ type: 'content_block_stop', index }),
      ];
    });

  const finish = (): SseEvent[] => {
    finished = true;
    const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } =
      convertChatUsage(usage);
    return [
      ...closeOpen(),
      ...flushHeld(),
      anthropicEvent({
        type: 'message_delta',
        delta: { stop_reason: refused ? 'refusal' : mapChatFinishReason(finishReason), stop_sequence: null },
        usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens },
      }),
      anthropicEvent({ type: 'message_stop' }),
    ];
  };

  const fail = (body: unknown): SseEvent[] => {
    finished = true;
    return [renderAnthropicStreamError(mapChatErrorToAnthropic(body))];
  };

  const translateChunk = (chunk: JsonRecord): SseEvent[] => {
    const events = start(chunk);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices.map(asRecord)) {
      if (choice === undefined || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      const delta = asRecord(choice.delta);
      if (typeof delta?.content === 'string' && delta.content !== '')
        events.push(...appendText(delta.content));
      if (typeof delta?.refusal === 'string' && delta.refusal !== '') {
        refused = true;
        events.push(...appendText(delta.refusal));
      }
      if (Array.isArray(delta?.tool_calls))
        delta.tool_calls.forEach((call, position) => {
          const record = asRecord(call);
          if (record !== undefined) events.push(...appendToolCall(record, position));
        });
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    }
    if (asRecord(chunk.usage) !== undefined) usage = chunk.usage as ChatUsage;
    // The usage chunk follows the finish chunk; an upstream without one ends at [DONE].
    if (finishReason !== null && usage !== undefined) events.push(...finish());
    return events;
  };

  return {
    push(event) {
      if (finished) return [];
      if (event.data === '[DONE]') return [...start({}), ...finish()];
      const chunk = parseJsonRecord(event.data);
      if (chunk === undefined) return [];
      if (chunk.error !== undefined && chunk.error !== null) return fail(chunk);
      return translateChunk(chunk);
    },
    end() {
      if (finished) return [];
      if (started && finishReason !== null) return finish();
      return fail({
        error: { type: 'api_error', message: 'the upstream stream ended before the message was complete' },
      });
    },
  };
}
