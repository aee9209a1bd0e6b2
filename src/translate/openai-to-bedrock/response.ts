/**
 * Bedrock Converse response -> OpenAI chat completion (reference/providers.md section 4,
 * "Converse response"). The body carries no id or model: both come from the context.
 */

import type { BedrockConverseResponse, BedrockUsage } from '../../shapes/bedrock.ts';
import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from '../../shapes/openai.ts';
import { count } from '../../shapes/usage.ts';

/** What the response and stream translators need to know about the request. */
export interface ConverseResponseContext {
  /** The completion id shown to the client (Converse answers have none); defaults to a fixed one. */
  id?: string;
  /** The model name shown to the client. */
  model?: string;
  /** `created` in unix seconds; defaults to now. */
  created?: number;
  /** Send the usage-only chunk at the end of a stream. */
  includeUsage?: boolean;
  /** The gateway's synthetic JSON tool (response_format); its input is returned as the content. */
  jsonToolName?: string;
}

/** Converse `stopReason` -> OpenAI `finish_reason` (reference section 4, stop-reason table). */
const FINISH_REASONS: Readonly<Record<string, ChatFinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  malformed_model_output: 'stop',
  malformed_tool_use: 'stop',
};

/** `answeredWithJsonTool`: the only tool called was the gateway's JSON tool, so the turn is finished. */
export function mapConverseStopReason(
  reason: string | null | undefined,
  answeredWithJsonTool = false,
): ChatFinishReason {
  if (reason === 'tool_use' && answeredWithJsonTool) return 'stop';
  return (reason == null ? undefined : FINISH_REASONS[reason]) ?? 'stop';
}

/**
 * Converse's inputTokens exclude cache reads and writes; OpenAI's prompt_tokens include them:
 * prompt = input + cacheRead + cacheWrite, cached = cacheRead, completion = output.
 */
export function convertConverseUsage(usage: Partial<BedrockUsage> | null | undefined): ChatUsage {
  const cacheRead = count(usage?.cacheReadInputTokens);
  const promptTokens = count(usage?.inputTokens) + cacheRead + count(usage?.cacheWriteInputTokens);
  const completionTokens = count(usage?.outputTokens);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}

export const DEFAULT_COMPLETION_ID = 'chatcmpl-bedrock';

export function convertConverseResponseToChat(
  response: BedrockConverseResponse,
  context: ConverseResponseContext = {},
): ChatCompletion {
  let text = '';
  let hasText = false;
  const toolCalls: ChatToolCall[] = [];
  const blocks = response.output?.message?.content;
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if ('text' in block && typeof block.text === 'string') {
      text += block.text;
      hasText = true;
    } else if ('toolUse' in block && block.toolUse.name === context.jsonToolName) {
      text += JSON.stringify(block.toolUse.input ?? {});
      hasText = true;
    } else if ('toolUse' in block) {
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    }
    // reasoningContent and other blocks have no chat-completions equivalent.
  }
  const answeredWithJsonTool = context.jsonToolName !== undefined && toolCalls.length === 0;
  return {
    id: context.id ?? DEFAULT_COMPLETION_ID,
    object: 'chat.completion',
    created: context.created ?? Math.floor(Date.now() / 1000),
    model: context.model ?? '',
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
        finish_reason: mapConverseStopReason(response.stopReason, answeredWithJsonTool),
      },
    ],
    usage: convertConverseUsage(response.usage),
  };
}
