/**
 * OpenAI chat completion -> Anthropic Messages response (reference/providers.md section 2:
 * reverse stop-reason mapping and "Usage math"; "OpenAI-shaped stream → Anthropic events").
 */

import type {
  AnthropicMessagesResponse,
  AnthropicResponseBlock,
  AnthropicStopReason,
  AnthropicUsage,
} from '../../shapes/anthropic.ts';
import type { ChatCompletion, ChatUsage } from '../../shapes/openai.ts';
import { count } from '../../shapes/usage.ts';
import { parseToolArguments } from '../shared/tool-calls.ts';
import { sanitizeToolCallId } from './request.ts';

export interface AnthropicResponseContext {
  /** The model name shown to the client; defaults to the upstream's. */
  model?: string;
  /** The `msg_...` id to use; defaults to one derived from the upstream's id. */
  messageId?: string;
}

/** OpenAI `finish_reason` -> Anthropic `stop_reason`; anything else is `end_turn` (reference section 2). */
const STOP_REASONS: Readonly<Record<string, AnthropicStopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export function mapChatFinishReason(reason: string | null | undefined): AnthropicStopReason {
  return (reason == null ? undefined : STOP_REASONS[reason]) ?? 'end_turn';
}

/**
 * OpenAI's prompt_tokens include cached tokens; Anthropic's input_tokens do not:
 * input = prompt - cached, cache_read = cached, cache_creation = 0, output = completion.
 */
export function convertChatUsage(usage: ChatUsage | null | undefined): AnthropicUsage {
  const cached = count(usage?.prompt_tokens_details?.cached_tokens);
  return {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: count(usage?.completion_tokens),
  };
}

/** Anthropic clients expect `msg_` ids; the upstream's id is kept inside for tracing. */
export function toMessageId(upstreamId: unknown): string {
  const id = typeof upstreamId === 'string' && upstreamId !== '' ? upstreamId : 'unknown';
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

export function convertChatResponseToAnthropic(
  response: ChatCompletion,
  context: AnthropicResponseContext = {},
): AnthropicMessagesResponse {
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = choice?.message;
  const content: AnthropicResponseBlock[] = [];
  if (typeof message?.content === 'string' && message.content !== '')
    content.push({ type: 'text', text: message.content });
  const refused = typeof message?.refusal === 'string' && message.refusal !== '';
  if (refused) content.push({ type: 'text', text: message.refusal as string });
  for (const call of message?.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: sanitizeToolCallId(call.id),
      name: call.function?.name ?? '',
      input: parseToolArguments(call.function?.arguments),
    });
  }
  return {
    id: context.messageId ?? toMessageId(response.id),
    type: 'message',
    role: 'assistant',
    model: context.model ?? response.model,
    content,
    // OpenAI reports a refusal beside finish_reason "stop".
    stop_reason: refused ? 'refusal' : mapChatFinishReason(choice?.finish_reason),
    stop_sequence: null,
    usage: convertChatUsage(response.usage),
  };
}
