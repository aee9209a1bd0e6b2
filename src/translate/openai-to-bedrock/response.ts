/**
 * Bedrock Converse response -> OpenAI chat completion (reference/providers.md section 4,
 * "Converse response"). The body carries no id or model: both come from the context.
 */

import type { BedrockContentBlock, BedrockConverseResponse, BedrockUsage } from '../../shapes/bedrock.ts';
import type { ChatCompletion, ChatFinishReason, ChatUsage } from '../../shapes/openai.ts';
import {
  type AnswerBlock,
  convertAnswerToChatCompletion,
  mapStopReasonByTable,
} from '../shared/chat-completion.ts';
import { convertExclusiveUsageToChat } from '../shared/usage.ts';

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
  return mapStopReasonByTable(FINISH_REASONS, reason, answeredWithJsonTool);
}

/** Converse's inputTokens exclude cache reads and writes, as Anthropic's do. */
export function convertConverseUsage(usage: Partial<BedrockUsage> | null | undefined): ChatUsage {
  return convertExclusiveUsageToChat({
    input: usage?.inputTokens,
    cacheRead: usage?.cacheReadInputTokens,
    cacheWrite: usage?.cacheWriteInputTokens,
    output: usage?.outputTokens,
  });
}

export const DEFAULT_COMPLETION_ID = 'chatcmpl-bedrock';

/** Converse content blocks in chat terms; reasoningContent and other blocks have none. */
function toAnswerBlock(block: BedrockContentBlock): AnswerBlock {
  if ('text' in block && typeof block.text === 'string') return { type: 'text', text: block.text };
  if ('toolUse' in block)
    return {
      type: 'tool_use',
      id: block.toolUse.toolUseId,
      name: block.toolUse.name,
      input: block.toolUse.input,
    };
  return undefined;
}

export function convertConverseResponseToChat(
  response: BedrockConverseResponse,
  context: ConverseResponseContext = {},
): ChatCompletion {
  const blocks = response.output?.message?.content;
  return convertAnswerToChatCompletion({
    blocks: (Array.isArray(blocks) ? blocks : []).map(toAnswerBlock),
    jsonToolName: context.jsonToolName,
    mapFinishReason: (answeredWithJsonTool) =>
      mapConverseStopReason(response.stopReason, answeredWithJsonTool),
    id: context.id ?? DEFAULT_COMPLETION_ID,
    model: context.model ?? '',
    created: context.created,
    usage: convertConverseUsage(response.usage),
  });
}
