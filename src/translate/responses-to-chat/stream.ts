/**
 * OpenAI `chat.completion.chunk`s -> the Responses API's typed stream events, following
 * reference/responses-api.md sections 4 and 7.3: `response.created` and `response.in_progress` on
 * the first chunk; a message item (`output_item.added`, `content_part.added`, `output_text.delta`
 * ... and their `.done` events) per run of text or refusal; one function_call item per tool call,
 * each at its own `output_index`, its argument pieces as `function_call_arguments.delta`; then,
 * once the finish reason and the usage are known, the `.done` events of whatever is open and
 * `response.completed` (or `response.incomplete`) with the whole output and usage. Every event
 * carries `sequence_number`, counting from 0; nothing follows the terminal event, no `[DONE]`.
 *
 * Function calls stay open until the finish: compatible servers interleave tool-call fragments
 * (vLLM sends call 1's arguments between call 2's), and the Responses consumers key argument
 * deltas by item id and output index, so late fragments still land on their call. Text that comes
 * after a tool call opens a new message item.
 */
import type { ChatUsage } from '../../shapes/openai.ts';
import type {
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesOutputTextPart,
  ResponsesRefusalPart,
  ResponsesResponse,
  ResponsesTerminalEventType,
} from '../../shapes/responses.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { chunkValueOf } from '../shared/chat-chunks.ts';
import { asRecord, type JsonRecord, parseJsonRecord } from '../shared/json-record.ts';
import type { StreamTranslator } from '../types.ts';
import { type ResponsesFailure, readChatStreamError } from './errors.ts';
import { createItemIdMinter } from './ids.ts';
import {
  convertChatUsageToResponses,
  mapFinishReason,
  nowSeconds,
  type ResponsesContext,
  renderResponseShell,
} from './response.ts';

/** A Responses stream translator; `fail` ends the stream for a failure the upstream did not report itself. */
export interface ResponsesStreamTranslator extends StreamTranslator {
  /** `error` then `response.failed` (after the opening events, if none went out yet); nothing once ended. */
  fail(failure: ResponsesFailure): SseEvent[];
}

interface OpenMessage {
  item: ResponsesOutputMessage;
  outputIndex: number;
  part:
    | { kind: 'text'; value: ResponsesOutputTextPart; index: number }
    | { kind: 'refusal'; value: ResponsesRefusalPart; index: number }
    | undefined;
}

interface OpenCall {
  item: ResponsesOutputFunctionCall;
  outputIndex: number;
}

export function createChatStreamToResponsesTranslator(context: ResponsesContext): ResponsesStreamTranslator {
  const generateId = context.generateId ?? createItemIdMinter(context.id);
  let sequence = 0;
  let shell: ResponsesResponse | undefined;
  let finished = false;
  const output: ResponsesOutputItem[] = [];
  let message: OpenMessage | undefined;
  /** Chat tool-call index -> its function_call item. */
  const calls = new Map<number, OpenCall>();
  let finishReason: string | null = null;
  let usage: ChatUsage | undefined;

  const event = (type: string, body: JsonRecord): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...body, sequence_number: sequence++ }),
  });

  const start = (chunk: JsonRecord): SseEvent[] => {
    if (shell !== undefined) return [];
    shell = renderResponseShell(context, typeof chunk.model === 'string' ? chunk.model : '');
    return [
      event('response.created', { response: shell }),
      event('response.in_progress', { response: shell }),
    ];
  };

  const closePart = (open: OpenMessage): SseEvent[] => {
    const { part } = open;
    if (part === undefined) return [];
    open.part = undefined;
    const where = { item_id: open.item.id, output_index: open.outputIndex, content_index: part.index };
    return [
      part.kind === 'text'
        ? event('response.output_text.done', { ...where, text: part.value.text, logprobs: [] })
        : event('response.refusal.done', { ...where, refusal: part.value.refusal }),
      event('response.content_part.done', { ...where, part: part.value }),
    ];
  };

  const closeMessage = (status: 'completed' | 'incomplete'): SseEvent[] => {
    const open = message;
    if (open === undefined) return [];
    message = undefined;
    const events = closePart(open);
    open.item.status = status;
    events.push(event('response.output_item.done', { output_index: open.outputIndex, item: open.item }));
    return events;
  };

  /** The open message with a part of `kind` open at its end: events that opened what was missing. */
  const openPart = (kind: 'text' | 'refusal'): { open: OpenMessage; events: SseEvent[] } => {
    const events: SseEvent[] = [];
    if (message === undefined) {
      const item: ResponsesOutputMessage = {
        type: 'message',
        id: generateId('msg'),
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      message = { item, outputIndex: output.length, part: undefined };
      output.push(item);
      events.push(event('response.output_item.added', { output_index: message.outputIndex, item }));
    }
    const open = message;
    if (open.part?.kind !== kind) {
      events.push(...closePart(open));
      const index = open.item.content.length;
      open.part =
        kind === 'text'
          ? { kind, index, value: { type: 'output_text', text: '', annotations: [], logprobs: [] } }
          : { kind, index, value: { type: 'refusal', refusal: '' } };
      open.item.content.push(open.part.value);
      events.push(
        event('response.content_part.added', {
          item_id: open.item.id,
          output_index: open.outputIndex,
          content_index: index,
          part: open.part.value,
        }),
      );
    }
    return { open, events };
  };

  const appendText = (kind: 'text' | 'refusal', delta: string): SseEvent[] => {
    const { open, events } = openPart(kind);
    const part = open.part!;
    const where = { item_id: open.item.id, output_index: open.outputIndex, content_index: part.index };
    if (part.kind === 'text') {
      part.value.text += delta;
      events.push(event('response.output_text.delta', { ...where, delta, logprobs: [] }));
    } else {
      part.value.refusal += delta;
      events.push(event('response.refusal.delta', { ...where, delta }));
    }
    return events;
  };

  const appendToolCall = (delta: JsonRecord, position: number): SseEvent[] => {
    const chatIndex = typeof delta.index === 'number' ? delta.index : position;
    const fn = asRecord(delta.function);
    const events: SseEvent[] = [];
    let call = calls.get(chatIndex);
    if (call === undefined) {
      // The message before a tool call is whole.
      events.push(...closeMessage('completed'));
      const item: ResponsesOutputFunctionCall = {
        type: 'function_call',
        id: generateId('fc'),
        call_id: typeof delta.id === 'string' && delta.id !== '' ? delta.id : generateId('call'),
        name: typeof fn?.name === 'string' ? fn.name : '',
        arguments: '',
        status: 'in_progress',
      };
      call = { item, outputIndex: output.length };
      calls.set(chatIndex, call);
      output.push(item);
      events.push(event('response.output_item.added', { output_index: call.outputIndex, item }));
    } else if (call.item.name === '' && typeof fn?.name === 'string') {
      call.item.name = fn.name;
    }
    const piece = typeof fn?.arguments === 'string' ? fn.arguments : '';
    if (piece !== '') {
      call.item.arguments += piece;
      events.push(
        event('response.function_call_arguments.delta', {
          item_id: call.item.id,
          output_index: call.outputIndex,
          delta: piece,
        }),
      );
    }
    return events;
  };

  const finish = (): SseEvent[] => {
    finished = true;
    const { status, incomplete } = mapFinishReason(finishReason);
    const events = closeMessage(status === 'incomplete' ? 'incomplete' : 'completed');
    for (const call of [...calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      call.item.status = 'completed';
      events.push(
        event('response.function_call_arguments.done', {
          item_id: call.item.id,
          output_index: call.outputIndex,
          arguments: call.item.arguments,
        }),
        event('response.output_item.done', { output_index: call.outputIndex, item: call.item }),
      );
    }
    const type: ResponsesTerminalEventType =
      status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    const response: ResponsesResponse = {
      ...(shell as ResponsesResponse),
      status,
      completed_at: (context.now ?? nowSeconds)(),
      incomplete_details: incomplete,
      output,
      usage: convertChatUsageToResponses(usage),
    };
    events.push(event(type, { response }));
    return events;
  };

  const fail = (failure: ResponsesFailure): SseEvent[] => {
    if (finished) return [];
    finished = true;
    const events = start({});
    for (const item of output) if (item.status === 'in_progress') item.status = 'incomplete';
    const response: ResponsesResponse = {
      ...(shell as ResponsesResponse),
      status: 'failed',
      error: { code: failure.code, message: failure.message },
      output,
      usage: usage === undefined ? null : convertChatUsageToResponses(usage),
    };
    events.push(
      event('error', { code: failure.code, message: failure.message, param: null }),
      event('response.failed', { response }),
    );
    return events;
  };

  const translateChunk = (chunk: JsonRecord): SseEvent[] => {
    const events = start(chunk);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices.map(asRecord)) {
      if (choice === undefined || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      const delta = asRecord(choice.delta);
      if (typeof delta?.content === 'string' && delta.content !== '')
        events.push(...appendText('text', delta.content));
      if (typeof delta?.refusal === 'string' && delta.refusal !== '')
        events.push(...appendText('refusal', delta.refusal));
      if (Array.isArray(delta?.tool_calls))
        delta.tool_calls.forEach((call, position) => {
          const record = asRecord(call);
          if (record !== undefined) events.push(...appendToolCall(record, position));
        });
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    }
    if (asRecord(chunk.usage) !== undefined) usage = chunk.usage as ChatUsage;
    // The usage chunk follows the finish chunk; an upstream that sends none ends at [DONE].
    if (finishReason !== null && usage !== undefined) events.push(...finish());
    return events;
  };

  return {
    push(incoming) {
      if (finished) return [];
      if (incoming.data === '[DONE]') return [...start({}), ...finish()];
      // A chained chat translator's chunk comes as its object too: no parse of what it just wrote.
      const chunk = (chunkValueOf(incoming) as JsonRecord | undefined) ?? parseJsonRecord(incoming.data);
      if (chunk === undefined) return [];
      if (chunk.error !== undefined && chunk.error !== null) return fail(readChatStreamError(chunk));
      return translateChunk(chunk);
    },
    end() {
      if (finished) return [];
      if (shell !== undefined && finishReason !== null) return finish();
      return fail({
        code: 'server_error',
        message: 'the upstream stream ended before the response was complete',
      });
    },
    fail,
  };
}
