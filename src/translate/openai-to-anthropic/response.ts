/**
 * Anthropic Messages response -> OpenAI chat completion (reference/providers.md section 2,
 * "Response" and "Usage math").
 */

import type { AnthropicMessagesResponse, AnthropicUsage } from '../../shapes/anthropic.ts';
import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from '../../shapes/openai.ts';
import { count } from '../../shapes/usage.ts';

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
  if (reason === 'tool_use' && answeredWithJsonTool) return 'stop';
  return (reason == null ? undefined : FINISH_REASONS[reason]) ?? 'stop';
}

/**
 * Anthropic's input_tokens exclude cache reads and writes; OpenAI's prompt_tokens include them:
 * prompt = input + cache_read + cache_creation, cached = cache_read, completion = output.
 */
export function convertAnthropicUsage(usage: Partial<AnthropicUsage> | null | undefined): ChatUsage {
  const cacheRead = count(usage?.cache_read_input_tokens);
  const promptTokens = count(usage?.input_tokens) + cacheRead + count(usage?.cache_creation_input_tokens);
  const completionTokens = count(usage?.output_tokens);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}

export function convertAnthropicResponseToChat(
  response: AnthropicMessagesResponse,
  context: ChatResponseContext = {},
): ChatCompletion {
  let text = '';
  let hasText = false;
  const toolCalls: ChatToolCall[] = [];
  for (const block of Array.isArray(response.content) ? response.content : []) {
    if (block.type === 'text') {
      text += block.text;
      hasText = true;
    } else if (block.type === 'tool_use' && block.name === context.jsonToolName) {
      text += JSON.stringify(block.input ?? {});
      hasText = true;
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
    // thinking, redacted_thinking and server-tool blocks have no chat-completions equivalent.
  }
  const answeredWithJsonTool = context.jsonToolName !== undefined && toolCalls.length === 0;
  return {
    id: response.id,
    object: 'chat.completion',
    created: context.created ?? Math.floor(Date.now() / 1000),
    model: context.model ?? response.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // Only tool calls: content is null, as OpenAI sends it.
          content: hasText || toolCalls.length === 0 ? text : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: mapAnthropicStopReason(response.stop_reason, answeredWithJsonTool),
      },
    ],
    usage: convertAnthropicUsage(response.usage),
  };
}
