/**
 * Which turns may enter the semantic cache (specification 4.3, semantic and agent-loop rules), and
 * what of them is compared: only the latest user message is embedded; everything else (prior
 * conversation, system prompt, model, temperature, tools, response format, streaming, every other
 * parameter) must match exactly, so a hash of it names the bucket of candidates.
 */
import type { ClientDialect, Operation } from '../../shapes/api.ts';
import { requestHash } from '../cache-key.ts';
import { everyCallSafe, type ToolDeclaration, type ToolUse } from '../tool-declarations.ts';

/** Messages longer than this use exact matching only (about 2,000 characters). */
export const MAX_SEMANTIC_QUESTION_CHARS = 2000;

export type IneligibleReason = 'operation' | 'no_user_message' | 'tool_use' | 'non_text' | 'too_long';

export type SemanticTurn =
  | { eligible: true; question: string; bucket: string }
  | { eligible: false; reason: IneligibleReason };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a message's content when it is text only (a string, or text parts/blocks); else undefined. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const pieces: string[] = [];
  for (const part of content) {
    if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') return undefined;
    pieces.push(part.text);
  }
  return pieces.join('\n');
}

/** Whether any message carries something other than text (images, audio, files, documents). */
function hasNonText(messages: unknown[]): boolean {
  return messages.some((message) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return false;
    return message.content.some(
      (part) =>
        isRecord(part) &&
        part.type !== 'text' &&
        part.type !== 'tool_use' &&
        part.type !== 'tool_result' &&
        part.type !== 'thinking',
    );
  });
}

/**
 * The latest user message that asks something: on OpenAI the last `role: user` message; on
 * Anthropic the last user turn that is not only tool results. -1 when there is none.
 */
function latestQuestionIndex(messages: unknown[], dialect: ClientDialect): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    const onlyToolResults =
      dialect === 'anthropic' &&
      Array.isArray(message.content) &&
      message.content.every((block) => isRecord(block) && block.type === 'tool_result');
    if (!onlyToolResults) return index;
  }
  return -1;
}

export function analyseTurn(
  operation: Operation,
  dialect: ClientDialect,
  routeLabel: string,
  body: Record<string, unknown>,
  toolUse: ToolUse,
  declarations: ReadonlyMap<string, ToolDeclaration>,
): SemanticTurn {
  if (operation === 'embeddings') return { eligible: false, reason: 'operation' };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  // The agent-loop rule: tool calls or results only when every tool called is declared safe.
  if ((toolUse.calls.length > 0 || toolUse.results > 0) && !everyCallSafe(toolUse, declarations)) {
    return { eligible: false, reason: 'tool_use' };
  }
  if (hasNonText(messages)) return { eligible: false, reason: 'non_text' };
  const index = latestQuestionIndex(messages, dialect);
  if (index < 0) return { eligible: false, reason: 'no_user_message' };
  const latest = messages[index] as Record<string, unknown>;
  const question = textOf(latest.content);
  if (question === undefined) return { eligible: false, reason: 'non_text' };
  if (question.length > MAX_SEMANTIC_QUESTION_CHARS) return { eligible: false, reason: 'too_long' };
  // Everything but the latest question's text names the bucket: the turns before it and, in an
  // agent loop, the tool calls and results after it, which must match exactly.
  const context = {
    ...body,
    messages: messages.map((message, at) => (at === index ? { ...latest, content: null } : message)),
  };
  return { eligible: true, question, bucket: requestHash(`${routeLabel}#semantic`, context) };
}
