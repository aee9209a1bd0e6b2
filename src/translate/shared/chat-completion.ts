/**
 * Upstream answers whose content is a list of text and tool-use blocks (Anthropic Messages,
 * Bedrock Converse) -> one OpenAI chat completion (reference/providers.md sections 2 and 4,
 * "Response"). The translators map their own blocks and stop reasons; the assembly is the same.
 */
import type {
  ChatCompletion,
  ChatFinishReason,
  ChatResponseMessage,
  ChatToolCall,
  ChatUsage,
} from '../../shapes/openai.ts';
import { stringifyToolInput } from './tool-calls.ts';

/**
 * One content block as the chat shape sees it; undefined for blocks with no chat-completions
 * equivalent (thinking, reasoning, server tools), which are dropped.
 */
export type AnswerBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | undefined;

export interface ChatAnswer {
  /** The blocks, in order. */
  blocks: Iterable<AnswerBlock>;
  /** The gateway's synthetic JSON tool (response_format): its input is the answer's content. */
  jsonToolName: string | undefined;
  /**
   * The upstream's stop reason in chat terms. `answeredWithJsonTool`: the only tool called was the
   * JSON tool, so the turn is finished (`stop`, not `tool_calls`).
   */
  mapFinishReason: (answeredWithJsonTool: boolean) => ChatFinishReason;
  id: string;
  model: string;
  /** `created` in unix seconds; defaults to now. */
  created: number | undefined;
  usage: ChatUsage;
}

/**
 * An upstream stop reason -> `finish_reason` by the upstream's table. Reasons the table lacks (or
 * none) are `stop`; `tool_use` is `stop` too when the only tool called was the gateway's JSON tool.
 */
export function mapStopReasonByTable(
  table: Readonly<Record<string, ChatFinishReason>>,
  reason: string | null | undefined,
  answeredWithJsonTool: boolean,
): ChatFinishReason {
  if (reason === 'tool_use' && answeredWithJsonTool) return 'stop';
  return (reason == null ? undefined : table[reason]) ?? 'stop';
}

export function convertAnswerToChatCompletion(answer: ChatAnswer): ChatCompletion {
  let text = '';
  let hasText = false;
  const toolCalls: ChatToolCall[] = [];
  for (const block of answer.blocks) {
    if (block?.type === 'text') {
      text += block.text;
      hasText = true;
    } else if (block?.type === 'tool_use' && block.name === answer.jsonToolName) {
      text += stringifyToolInput(block.input);
      hasText = true;
    } else if (block?.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: stringifyToolInput(block.input) },
      });
    }
  }
  const answeredWithJsonTool = answer.jsonToolName !== undefined && toolCalls.length === 0;
  const message: ChatResponseMessage = {
    role: 'assistant',
    // Only tool calls: content is null, as OpenAI sends it.
    content: hasText || toolCalls.length === 0 ? text : null,
    refusal: null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created ?? Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: answer.mapFinishReason(answeredWithJsonTool) },
    ],
    usage: answer.usage,
  };
}
