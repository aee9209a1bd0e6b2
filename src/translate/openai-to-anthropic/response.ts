/**
 * Anthropic Messages response -> OpenAI chat completion (reference/providers.md section 2,
 * "Response" and "Usage math").
 */

import type {
  AnthropicMessagesResponse,
  AnthropicResponseBlock,
  AnthropicUsage,
} from '../../shapes/anthropic.ts';
import type { ChatCompletion, ChatFinishReason, ChatUsage } from '../../shapes/openai.ts';
import {
  type AnswerBlock,
  convertAnswerToChatCompletion,
  mapStopReasonByTable,
} from '../shared/chat-completion.ts';
import { convertExclusiveUsageToChat } from '../shared/usage.ts';

/** What the response and stream translators need to know about the request; see convertChatRequestToAnthropic. */
export interface ChatResponseContext {
  /** `stream_options.include_usage` of the client's request: send the usage-only chunk. */
  includeUsage?: boolean;
  /** The gateway's synthetic JSON tool (response_format); its input is returned as the content. */
  jsonToolName?: string;
  /** The model name shown to the client; defaults to the upstream's. */
  model?: string;
  /** `created` in unix seconds; defaults to now. */
  created?: number;
}

/** Anthropic `stop_reason` -> OpenAI `finish_reason` (reference section 2, stop-reason table). */
const FINISH_REASONS: Readonly<Record<string, ChatFinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/**
 * `answeredWithJsonTool`: the only tool called was the gateway's JSON tool, so the answer is
 * content and the turn is finished (`stop`, not `tool_calls`).
 */
export function mapAnthropicStopReason(
  reason: string | null | undefined,
  answeredWithJsonTool = false,
): ChatFinishReason {
  return mapStopReasonByTable(FINISH_REASONS, reason, answeredWithJsonTool);
}

/** Anthropic's input_tokens exclude cache reads (cache_read) and writes (cache_creation). */
export function convertAnthropicUsage(usage: Partial<AnthropicUsage> | null | undefined): ChatUsage {
  return convertExclusiveUsageToChat({
    input: usage?.input_tokens,
    cacheRead: usage?.cache_read_input_tokens,
    cacheWrite: usage?.cache_creation_input_tokens,
    output: usage?.output_tokens,
  });
}

/** Anthropic content blocks in chat terms; thinking, redacted_thinking and server-tool blocks have none. */
function toAnswerBlock(block: AnthropicResponseBlock): AnswerBlock {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'tool_use')
    return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  return undefined;
}

export function convertAnthropicResponseToChat(
  response: AnthropicMessagesResponse,
  context: ChatResponseContext = {},
): ChatCompletion {
  return convertAnswerToChatCompletion({
    blocks: (Array.isArray(response.content) ? response.content : []).map(toAnswerBlock),
    jsonToolName: context.jsonToolName,
    mapFinishReason: (answeredWithJsonTool) =>
      mapAnthropicStopReason(response.stop_reason, answeredWithJsonTool),
    id: response.id,
    model: context.model ?? response.model,
    created: context.created,
    usage: convertAnthropicUsage(response.usage),
  });
}
