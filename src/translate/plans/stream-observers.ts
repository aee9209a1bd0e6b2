/**
 * Per-request observers of the events a client gets, in its own shape: they read usage and count
 * output off them, notice the client's end marker, and drop the usage-only chunk the gateway asked
 * for when the client did not. They see parsed events, never raw SSE text.
 */
import { parseAnthropicUsage, parseOpenAiUsage, type TokenUsage } from '../../shapes/usage.ts';
import type { SseEvent } from '../../sse/sse-events.ts';

export interface StreamObserver {
  /** Returns false when the event must not reach the client. */
  accept(event: SseEvent): boolean;
  /** Usage reported by the upstream, if any. */
  usage(): TokenUsage | undefined;
  /** Characters of generated output seen, for an estimate when no usage came. */
  outputChars(): number;
  /** Whether the upstream's own end marker was seen. */
  completed(): boolean;
}

function parseJson(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** OpenAI chat-completion chunks; `clientWantsUsage` mirrors the client's `stream_options.include_usage`. */
export function createOpenAiStreamObserver(clientWantsUsage: boolean): StreamObserver {
  let usage: TokenUsage | undefined;
  let chars = 0;
  let done = false;
  return {
    accept(event) {
      if (event.data === '[DONE]') {
        done = true;
        return true;
      }
      const chunk = parseJson(event.data);
      if (chunk === undefined) return true;
      const choices = chunk.choices;
      if (Array.isArray(choices)) {
        for (const choice of choices) {
          const delta = (choice as Record<string, unknown> | null)?.delta as
            | Record<string, unknown>
            | undefined;
          if (typeof delta?.content === 'string') chars += delta.content.length;
          const toolCalls = delta?.tool_calls;
          if (Array.isArray(toolCalls)) {
            for (const call of toolCalls) {
              const args = (call as { function?: { arguments?: unknown } })?.function?.arguments;
              if (typeof args === 'string') chars += args.length;
            }
          }
        }
      }
      if (chunk.usage !== undefined && chunk.usage !== null) {
        usage = parseOpenAiUsage(chunk.usage) ?? usage;
        if (!clientWantsUsage && Array.isArray(choices) && choices.length === 0) return false;
      }
      return true;
    },
    usage: () => usage,
    outputChars: () => chars,
    completed: () => done,
  };
}

/** Anthropic Messages events: usage from message_start and (cumulative) message_delta. */
export function createAnthropicStreamObserver(): StreamObserver {
  let usage: TokenUsage | undefined;
  let chars = 0;
  let done = false;
  return {
    accept(event) {
      switch (event.event) {
        case 'message_start': {
          const message = parseJson(event.data)?.message as Record<string, unknown> | undefined;
          usage = parseAnthropicUsage(message?.usage, usage);
          break;
        }
        case 'message_delta':
          usage = parseAnthropicUsage(parseJson(event.data)?.usage, usage);
          break;
        case 'content_block_delta': {
          const delta = parseJson(event.data)?.delta as Record<string, unknown> | undefined;
          if (typeof delta?.text === 'string') chars += delta.text.length;
          if (typeof delta?.partial_json === 'string') chars += delta.partial_json.length;
          break;
        }
        case 'message_stop':
          done = true;
          break;
      }
      return true;
    },
    usage: () => usage,
    outputChars: () => chars,
    completed: () => done,
  };
}
