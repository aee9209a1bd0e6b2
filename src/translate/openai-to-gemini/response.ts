/**
 * Gemini generateContent response → OpenAI chat completion. Pure: the clock and the id source
 * are inputs.
 *
 * Mapping follows providers.md §3 "Response": non-thought text parts → `content`, functionCall parts
 * → `tool_calls` (arguments a JSON string), finishReason by the table below, a blocked prompt (200,
 * no candidates, promptFeedback.blockReason) → `content: null, finish_reason: "content_filter"`,
 * usageMetadata (inclusive counts) → usage.
 */

import type {
  GeminiCandidate,
  GeminiGenerateContentResponse,
  GeminiPart,
  GeminiUsageMetadata,
} from '../../shapes/gemini.ts';
import type {
  ChatChoice,
  ChatCompletion,
  ChatFinishReason,
  ChatToolCall,
  ChatUsage,
} from '../../shapes/openai.ts';
import { count, type TokenUsage } from '../../shapes/usage.ts';
import { stringifyToolInput } from '../shared/tool-calls.ts';

export interface GeminiResponseContext {
  /** Reported as `model` when Gemini sends no `modelVersion`. */
  model: string;
  /** Unix seconds for `created`; defaults to now. */
  created?: number;
  /** The random suffix of synthesized ids (`chatcmpl-…`, `call_…`); defaults to a UUID. */
  generateId?: () => string;
}

export const defaultGenerateId = (): string => crypto.randomUUID().replaceAll('-', '');

/**
 * `finishReason` → OpenAI `finish_reason` (providers.md §3 table). `STOP` with a function call
 * (anywhere in the answer, or the stream so far) is `tool_calls`; reasons with no OpenAI
 * equivalent (MALFORMED_FUNCTION_CALL, OTHER, LANGUAGE, unknown) are `stop`.
 */
export function mapGeminiFinishReason(
  reason: string | undefined,
  sawFunctionCall: boolean,
): ChatFinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
      return 'content_filter';
    default:
      return sawFunctionCall ? 'tool_calls' : 'stop';
  }
}

/**
 * Gemini's counts are inclusive: `promptTokenCount` contains `cachedContentTokenCount`, as
 * OpenAI's `prompt_tokens` contains `cached_tokens`; thoughts are billed as output.
 */
export function convertGeminiUsage(metadata: GeminiUsageMetadata): ChatUsage {
  const prompt = count(metadata.promptTokenCount) + count(metadata.toolUsePromptTokenCount);
  const thoughts = count(metadata.thoughtsTokenCount);
  const completion = count(metadata.candidatesTokenCount) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(metadata.totalTokenCount) || prompt + completion,
    prompt_tokens_details: { cached_tokens: count(metadata.cachedContentTokenCount) },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/** The gateway's billing form (exclusive input tokens), or undefined when Gemini sent no usage. */
export function parseGeminiUsage(metadata: GeminiUsageMetadata | undefined): TokenUsage | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  const usage = convertGeminiUsage(metadata);
  const cached = Math.min(count(metadata.cachedContentTokenCount), usage.prompt_tokens);
  return {
    inputTokens: usage.prompt_tokens - cached,
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: usage.completion_tokens,
  };
}

/** One functionCall part as an OpenAI tool call; Gemini rarely sends an id, so one is made. */
export function convertFunctionCall(
  call: NonNullable<GeminiPart['functionCall']>,
  generateId: () => string,
): ChatToolCall {
  return {
    id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${generateId()}`,
    type: 'function',
    function: { name: call.name, arguments: stringifyToolInput(call.args) },
  };
}

/** Text a client should see: thought summaries are not part of the answer. */
export const isAnswerText = (part: GeminiPart): part is GeminiPart & { text: string } =>
  typeof part.text === 'string' && part.thought !== true;

function convertCandidate(
  candidate: GeminiCandidate,
  position: number,
  generateId: () => string,
): ChatChoice {
  const parts = candidate.content?.parts ?? [];
  const text = parts.filter(isAnswerText).map((part) => part.text);
  const toolCalls = parts
    .filter((part) => part.functionCall !== undefined)
    .map((part) => convertFunctionCall(part.functionCall!, generateId));
  const message: ChatChoice['message'] = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : null,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    index: candidate.index ?? position,
    message,
    logprobs: null,
    finish_reason: mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
  };
}

/** Converts a (non-stream) generateContent answer; a blocked prompt is a normal, filtered answer. */
export function convertGeminiResponseToChat(
  response: GeminiGenerateContentResponse,
  context: GeminiResponseContext,
): ChatCompletion {
  const generateId = context.generateId ?? defaultGenerateId;
  const candidates = response.candidates ?? [];
  const choices: ChatChoice[] =
    candidates.length > 0
      ? candidates.map((candidate, position) => convertCandidate(candidate, position, generateId))
      : [
          {
            index: 0,
            message: { role: 'assistant', content: null, refusal: null },
            logprobs: null,
            // No candidates is a blocked prompt when blockReason says so; with neither, nothing came.
            finish_reason: response.promptFeedback?.blockReason !== undefined ? 'content_filter' : 'stop',
          },
        ];
  const completion: ChatCompletion = {
    id: `chatcmpl-${response.responseId ?? generateId()}`,
    object: 'chat.completion',
    created: context.created ?? Math.floor(Date.now() / 1000),
    model: response.modelVersion ?? context.model,
    choices,
  };
  if (response.usageMetadata !== undefined) completion.usage = convertGeminiUsage(response.usageMetadata);
  return completion;
}
