/**
 * Usage read off the upstream's own answer, before translation, for billing. The client's shape
 * can lose part of it: Anthropic and Bedrock report prompt-cache writes, which OpenAI's usage (and
 * any chain through it) folds into plain input tokens, priced lower. Upstream shapes whose usage
 * survives translation whole (OpenAI, Gemini) have no reader: the client's copy is read instead.
 */
import type { ApiShape } from '../../shapes/api.ts';
import { parseAnthropicUsage, parseConverseUsage, type TokenUsage } from '../../shapes/usage.ts';
import type { SseEvent } from '../../sse/sse-events.ts';

/** Fed each upstream event of a stream (parsed, before translation). */
export interface UpstreamStreamUsage {
  accept(event: SseEvent): void;
  usage(): TokenUsage | undefined;
}

interface UpstreamUsageReader {
  fromJson(upstream: unknown): TokenUsage | undefined;
  stream(): UpstreamStreamUsage;
}

function usageField(upstream: unknown): unknown {
  return typeof upstream === 'object' && upstream !== null
    ? (upstream as { usage?: unknown }).usage
    : undefined;
}

/** Anthropic: message_start and the (cumulative) message_delta carry the usage; nothing else is parsed. */
function createAnthropicStreamUsage(): UpstreamStreamUsage {
  let usage: TokenUsage | undefined;
  return {
    accept(event) {
      if (event.event !== 'message_start' && event.event !== 'message_delta') return;
      try {
        const data = JSON.parse(event.data) as { message?: unknown; usage?: unknown };
        usage = parseAnthropicUsage(usageField(event.event === 'message_start' ? data.message : data), usage);
      } catch {
        // Not JSON: the translator reports the broken stream.
      }
    },
    usage: () => usage,
  };
}

/** ConverseStream: the closing `metadata` event carries the usage. */
function createConverseStreamUsage(): UpstreamStreamUsage {
  let usage: TokenUsage | undefined;
  return {
    accept(event) {
      if (event.event !== 'metadata') return;
      try {
        usage = parseConverseUsage(usageField(JSON.parse(event.data))) ?? usage;
      } catch {
        // Not JSON: the translator reports the broken stream.
      }
    },
    usage: () => usage,
  };
}

const READERS: ReadonlyMap<ApiShape, UpstreamUsageReader> = new Map<ApiShape, UpstreamUsageReader>([
  [
    'anthropic',
    {
      fromJson: (upstream) => parseAnthropicUsage(usageField(upstream)),
      stream: createAnthropicStreamUsage,
    },
  ],
  [
    'bedrock',
    { fromJson: (upstream) => parseConverseUsage(usageField(upstream)), stream: createConverseStreamUsage },
  ],
]);

/** The reader for a translated answer from an upstream of this shape, if its usage needs one. */
export function upstreamUsageReader(shape: ApiShape): UpstreamUsageReader | undefined {
  return READERS.get(shape);
}
