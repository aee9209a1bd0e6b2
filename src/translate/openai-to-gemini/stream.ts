/**
 * Gemini `streamGenerateContent?alt=sse` → OpenAI `chat.completion.chunk` events. One translator
 * per request, fed parsed SSE events (from SseEventReader), returning the events to send.
 *
 * Behaviour follows providers.md §1 "Stream" and §3 "Streaming": each upstream event is a whole
 * GenerateContentResponse whose text parts are deltas and whose functionCall parts arrive whole
 * (one tool_calls delta with id, name and all arguments; `index` counts that choice's calls);
 * usageMetadata rides on many chunks (the last one wins); finishReason may come in a chunk after the
 * functionCall; there is no end marker, so finish chunks, the usage chunk (only when the client
 * asked with include_usage) and `[DONE]` are written at upstream close, provided every candidate had
 * its finishReason (else the stream was cut short: an error chunk). An `{"error": …}` event
 * becomes an OpenAI error chunk, after which nothing more (not even `[DONE]`) is written.
 */

import type { GatewayError } from '../../errors/gateway-error.ts';
import type { GeminiGenerateContentResponse, GeminiPart, GeminiUsageMetadata } from '../../shapes/gemini.ts';
import type { ChatChunkDelta, ChatFinishReason } from '../../shapes/openai.ts';
import type { TokenUsage } from '../../shapes/usage.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import {
  type ChatChunkHeader,
  renderDeltaChunk,
  renderDoneEvent,
  renderUsageChunk,
} from '../shared/chat-chunks.ts';
import type { StreamTranslator } from '../types.ts';
import { convertGeminiError } from './errors.ts';
import {
  convertFunctionCall,
  convertGeminiUsage,
  defaultGenerateId,
  type GeminiResponseContext,
  isAnswerText,
  mapGeminiFinishReason,
  parseGeminiUsage,
} from './response.ts';

export interface GeminiStreamOptions extends GeminiResponseContext {
  /** The client's `stream_options.include_usage`. */
  includeUsage: boolean;
}

export interface GeminiStreamTranslator extends StreamTranslator {
  /**
   * At upstream close: the finish chunk of each choice, the usage chunk, `[DONE]`; or, when Gemini
   * had not finished every choice (the stream was cut short), an error chunk instead.
   */
  end(): SseEvent[];
  /** Usage as last reported by Gemini, in the gateway's billing form. */
  usage(): TokenUsage | undefined;
  /** Whether Gemini ended every choice (a finishReason, or a blocked prompt). */
  completed(): boolean;
  /** The upstream failure turned into an error chunk, if any. */
  failure(): GatewayError | undefined;
}

interface ChoiceState {
  toolCalls: number;
  finishReason?: string;
}

export function createGeminiStreamTranslator(options: GeminiStreamOptions): GeminiStreamTranslator {
  const generateId = options.generateId ?? defaultGenerateId;
  const created = options.created ?? Math.floor(Date.now() / 1000);
  let id: string | undefined;
  let model = options.model;
  const choices = new Map<number, ChoiceState>();
  let blockReason: string | undefined;
  let lastUsage: GeminiUsageMetadata | undefined;
  let failure: GatewayError | undefined;
  let ended = false;

  /** The chunk header of this stream; `id` is known from the first upstream event on. */
  const header = (): ChatChunkHeader => ({
    id: id as string,
    created,
    model,
    includeUsage: options.includeUsage,
  });
  const chunk = (index: number, delta: ChatChunkDelta, finishReason: ChatFinishReason | null): SseEvent =>
    renderDeltaChunk(header(), delta, finishReason, index);

  const fail = (error: GatewayError): SseEvent[] => {
    failure = error;
    return [
      { data: JSON.stringify({ error: { code: error.code, message: error.message, type: error.type } }) },
    ];
  };

  /** Gemini ends each candidate with a finishReason, or the whole answer with a blocked prompt. */
  const finishedEveryChoice = (): boolean =>
    choices.size > 0 &&
    [...choices.entries()].every(
      ([index, state]) => state.finishReason !== undefined || (index === 0 && blockReason !== undefined),
    );

  /** The choice's state; its first sight also writes the opening `role` delta. */
  const openChoice = (index: number, out: SseEvent[]): ChoiceState => {
    let state = choices.get(index);
    if (state === undefined) {
      state = { toolCalls: 0 };
      choices.set(index, state);
      out.push(chunk(index, { role: 'assistant', content: '' }, null));
    }
    return state;
  };

  const translateParts = (index: number, state: ChoiceState, parts: GeminiPart[], out: SseEvent[]): void => {
    let text = '';
    const flushText = (): void => {
      if (text !== '') out.push(chunk(index, { content: text }, null));
      text = '';
    };
    for (const part of parts) {
      if (isAnswerText(part)) {
        text += part.text;
      } else if (part.functionCall !== undefined) {
        flushText();
        const call = convertFunctionCall(part.functionCall, generateId);
        out.push(chunk(index, { tool_calls: [{ index: state.toolCalls, ...call }] }, null));
        state.toolCalls += 1;
      }
    }
    flushText();
  };

  return {
    push(event) {
      if (failure !== undefined || ended || event.data.trim() === '') return [];
      let response: (GeminiGenerateContentResponse & { error?: unknown }) | undefined;
      try {
        const value: unknown = JSON.parse(event.data);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) response = value;
      } catch {
        // handled below
      }
      if (response === undefined) {
        return fail(
          convertGeminiError(502, { error: { message: 'Gemini sent an unreadable stream event' } }),
        );
      }
      if (response.error !== undefined) return fail(convertGeminiError(0, response));

      id ??= `chatcmpl-${response.responseId ?? generateId()}`;
      if (response.modelVersion !== undefined) model = response.modelVersion;
      if (response.usageMetadata !== undefined) lastUsage = response.usageMetadata;

      const out: SseEvent[] = [];
      if (response.promptFeedback?.blockReason !== undefined) {
        blockReason = response.promptFeedback.blockReason;
        openChoice(0, out);
      }
      for (const [position, candidate] of (response.candidates ?? []).entries()) {
        const index = candidate.index ?? position;
        const state = openChoice(index, out);
        translateParts(index, state, candidate.content?.parts ?? [], out);
        if (candidate.finishReason !== undefined) state.finishReason = candidate.finishReason;
      }
      return out;
    },

    end() {
      if (failure !== undefined || ended) return [];
      ended = true;
      if (id === undefined) {
        return fail(
          convertGeminiError(502, { error: { message: 'Gemini closed the stream without a response' } }),
        );
      }
      if (!finishedEveryChoice()) {
        return fail(
          convertGeminiError(502, {
            error: { message: 'Gemini closed the stream before the answer was complete' },
          }),
        );
      }
      const out: SseEvent[] = [];
      for (const index of [...choices.keys()].sort((a, b) => a - b)) {
        const state = choices.get(index) as ChoiceState;
        const reason =
          blockReason !== undefined && index === 0
            ? 'content_filter'
            : mapGeminiFinishReason(state.finishReason, state.toolCalls > 0);
        out.push(chunk(index, {}, reason));
      }
      if (options.includeUsage && lastUsage !== undefined)
        out.push(renderUsageChunk(header(), convertGeminiUsage(lastUsage)));
      out.push(renderDoneEvent());
      return out;
    },

    usage: () => parseGeminiUsage(lastUsage),

    completed: () => failure === undefined && finishedEveryChoice(),

    failure: () => failure,
  };
}
