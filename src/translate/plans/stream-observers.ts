/**
 * Per-request observers of the events a client gets, in its own shape: they read usage and count
 * output off them, notice the client's end marker, and drop the usage-only chunk the gateway asked
 * for when the client did not. They see parsed events, never raw SSE text.
 */
import {
  parseAnthropicUsage,
  parseOpenAiUsage,
  parseResponsesUsage,
  type TokenUsage,
} from '../../shapes/usage.ts';
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

/** A `"content"`, `"arguments"` or `"usage"` key and its colon (JSON's whitespace allowed). */
const OUTPUT_KEY = /"(?:content|arguments|usage)"[ \t\n\r]*:[ \t\n\r]*/g;

/** What one scan of a chunk's text found. */
export interface ChunkScan {
  /** Characters of the string values of its `"content"` and `"arguments"` keys. */
  chars: number;
  /** Whether a `"usage"` key holds something other than null (then the chunk is worth a parse). */
  usage: boolean;
}

/**
 * One pass over an OpenAI chunk's text, without parsing it: the characters of the string values of
 * every `"content"` and `"arguments"` key, an escape counted as one character (the generated output,
 * for an estimate when no usage comes), and whether a `"usage"` key holds anything but null (the
 * gateway asks for usage, so every chunk says `"usage":null` and only the last one carries it). In
 * JSON such a key cannot occur inside a string value, where its quotes would be escaped; a false
 * positive for usage only costs a parse.
 */
export function scanOpenAiChunk(data: string, scan: ChunkScan): ChunkScan {
  return scanValues(data, OUTPUT_KEY, 0x65 /* e: usage */, scan);
}

/**
 * Counts the string values of the keys `keys` matches (the key and its colon), or, for the key
 * whose last letter is `flagLetter`, notes whether its value is anything but null. Keys are found
 * with one regular-expression scan, a value's end and its escapes with indexOf.
 */
function scanValues(data: string, keys: RegExp, flagLetter: number, scan: ChunkScan): ChunkScan {
  scan.chars = 0;
  scan.usage = false;
  keys.lastIndex = 0;
  while (keys.test(data)) {
    let next = keys.lastIndex;
    // The key's last letter, found back over the colon and the whitespace.
    let back = next - 1;
    while (data.charCodeAt(back) !== 0x22 /* " */) back--;
    if (data.charCodeAt(back - 1) === flagLetter) {
      if (!data.startsWith('null', next)) scan.usage = true;
      continue;
    }
    if (data.charCodeAt(next) !== 0x22) continue;
    next++;
    let slash = data.indexOf('\\', next);
    for (;;) {
      const quote = data.indexOf('"', next);
      const end = quote === -1 ? data.length : quote;
      if (slash === -1 || slash > end) {
        scan.chars += end - next;
        next = end + 1;
        break;
      }
      // An escape is one character: \n, \", or \uXXXX.
      scan.chars += slash - next + 1;
      next = slash + (data.charCodeAt(slash + 1) === 117 ? 6 : 2);
      slash = data.indexOf('\\', next);
    }
    if (next >= data.length) break;
    keys.lastIndex = next;
  }
  return scan;
}

/** A `"text"` or `"partial_json"` key and its colon: what an Anthropic content delta generates. */
const DELTA_KEY = /"(?:text|partial_json)"[ \t\n\r]*:[ \t\n\r]*/g;

/**
 * The characters an Anthropic `content_block_delta` event generates (its delta's `text` or
 * `partial_json`), read off its text: streams send one such event per few tokens, and parsing each
 * cost more than the rest of its relay.
 */
export function deltaCharsOf(data: string, scan: ChunkScan): number {
  return scanValues(data, DELTA_KEY, -1, scan).chars;
}

/** OpenAI chat-completion chunks; `clientWantsUsage` mirrors the client's `stream_options.include_usage`. */
export function createOpenAiStreamObserver(clientWantsUsage: boolean): StreamObserver {
  let usage: TokenUsage | undefined;
  let chars = 0;
  const scan: ChunkScan = { chars: 0, usage: false };
  let done = false;
  return {
    accept(event) {
      if (event.data === '[DONE]') {
        done = true;
        return true;
      }
      // Only a chunk with usage is parsed; the others are counted off their text.
      scanOpenAiChunk(event.data, scan);
      if (!scan.usage) {
        chars += scan.chars;
        return true;
      }
      const chunk = parseJson(event.data);
      if (chunk === undefined) return true;
      chars += scan.chars;
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
  const scan: ChunkScan = { chars: 0, usage: false };
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
        case 'content_block_delta':
          chars += deltaCharsOf(event.data, scan);
          break;
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

/** A Responses event's `"delta"` key (text, refusal and function-call argument pieces alike). */
const RESPONSES_DELTA_KEY = /"delta"[ \t\n\r]*:[ \t\n\r]*/g;

/** What the Responses observer tells beyond the others: the response its terminal event carried. */
export interface ResponsesStreamObserver extends StreamObserver {
  /** The `response` of `response.completed`, `.incomplete` or `.failed`; undefined before it. */
  response(): Record<string, unknown> | undefined;
}

/**
 * Responses API events (typed, with `sequence_number`): output counted off the `.delta` events
 * without a parse, usage and the whole response read off the terminal event. `response.completed`
 * and `response.incomplete` end a whole answer; `response.failed` does not.
 */
export function createResponsesStreamObserver(): ResponsesStreamObserver {
  let usage: TokenUsage | undefined;
  let chars = 0;
  const scan: ChunkScan = { chars: 0, usage: false };
  let done = false;
  let response: Record<string, unknown> | undefined;
  return {
    accept(event) {
      const type = event.event ?? parseJson(event.data)?.type;
      if (typeof type !== 'string') return true;
      if (type.endsWith('.delta')) {
        chars += scanValues(event.data, RESPONSES_DELTA_KEY, -1, scan).chars;
      } else if (
        type === 'response.completed' ||
        type === 'response.incomplete' ||
        type === 'response.failed'
      ) {
        const body = parseJson(event.data)?.response;
        if (typeof body === 'object' && body !== null) {
          response = body as Record<string, unknown>;
          usage = parseResponsesUsage(response.usage) ?? usage;
        }
        done = type !== 'response.failed';
      }
      return true;
    },
    usage: () => usage,
    outputChars: () => chars,
    completed: () => done,
    response: () => response,
  };
}
