/**
 * Usage as the client's own shape reports it, and whether the client asked for it on a stream.
 */
import type { ClientDialect } from '../../shapes/api.ts';
import { parseAnthropicUsage, parseOpenAiUsage, type TokenUsage } from '../../shapes/usage.ts';

/** The usage of an answer object in the client's shape. */
export function usageOfAnswer(answer: unknown, dialect: ClientDialect): TokenUsage | undefined {
  const usage = (answer as { usage?: unknown } | null)?.usage;
  return dialect === 'anthropic' ? parseAnthropicUsage(usage) : parseOpenAiUsage(usage);
}

/** The usage of an answer's text in the client's shape (undefined when it is not JSON). */
export function readClientUsage(text: string, dialect: ClientDialect): TokenUsage | undefined {
  try {
    return usageOfAnswer(JSON.parse(text), dialect);
  } catch {
    return undefined;
  }
}

/**
 * Whether the client wants a stream's usage: Anthropic streams always carry it; an OpenAI client
 * asks with `stream_options.include_usage`.
 */
export function wantsStreamUsage(dialect: ClientDialect, body: Record<string, unknown>): boolean {
  if (dialect === 'anthropic') return true;
  const options = body.stream_options as { include_usage?: unknown } | undefined | null;
  return options?.include_usage === true;
}
