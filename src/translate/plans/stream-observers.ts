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

/**
 * Whether a chunk's `usage` holds an object (not absent, not null): found in its text, which is
 * cheaper than parsing every chunk (the gateway asks for usage, so every chunk says `"usage":null`
 * and only the last one carries it). A key written `"usage"` cannot occur inside a string value,
 * where its quotes would be escaped; a false positive only costs a parse.
 */
function carriesUsage(data: string): boolean {
  let at = data.indexOf('"usage"');
  while (at !== -1) {
    let next = at + 7;
    while (data.charCodeAt(next) === 32) next += 1;
    if (data.charCodeAt(next) === 58 /* : */) {
      next += 1;
      while (data.charCodeAt(next) === 32) next += 1;
      if (!data.startsWith('null', next)) return true;
    }
    at = data.indexOf('"usage"', next);
  }
  return false;
}

/** The start of a `"content"` or `"arguments"` key's string value (JSON's whitespace allowed). */
const OUTPUT_VALUE = /"(?:content|arguments)"[ \t\n\r]*:[ \t\n\r]*"/g;

/**
 * Characters of the string values of every `"content"` and `"arguments"` key in a chunk's text,
 * an escape counted as one character: the generated output, for an estimate when no usage comes.
 * Read off the text rather than a parse (one regular-expression scan for the keys, then the
 * value's end and escapes found with indexOf); other keys and non-string values are not counted.
 */
export function outputCharsOf(data: string): number {
  let chars = 0;
  OUTPUT_VALUE.lastIndex = 0;
  while (OUTPUT_VALUE.test(data)) {
    let next = OUTPUT_VALUE.lastIndex;
    let slash = data.indexOf('\\', next);
    for (;;) {
      const quote = data.indexOf('"', next);
      const end = quote === -1 ? data.length : quote;
      if (slash === -1 || slash > end) {
        chars += end - next;
        next = end + 1;
        break;
      }
      // An escape is one character: \n, \", or \uXXXX.
      chars += slash - next + 1;
      next = slash + (data.charCodeAt(slash + 1) === 117 ? 6 : 2);
      slash = data.indexOf('\\', next);
    }
    if (next >= data.length) break;
    OUTPUT_VALUE.lastIndex = next;
  }
  return chars;
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
      // Only a chunk with usage is parsed; the others are counted off their text.
      if (!carriesUsage(event.data)) {
        chars += outputCharsOf(event.data);
        return true;
      }
      const chunk = parseJson(event.data);
      if (chunk === undefined) return true;
      chars += outputCharsOf(event.data);
      const choices = chunk.choices;
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
