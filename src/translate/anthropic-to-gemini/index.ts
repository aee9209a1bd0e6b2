/**
 * Anthropic Messages clients (`/v1/messages`) served by Gemini generate-content upstreams
 * (`gemini/*`, and Gemini on Vertex). No translator of its own: the two existing pairs composed
 * through the chat-completions shape, so every mapping rule lives in one place.
 *
 * request:  Anthropic -> chat (anthropic-to-openai) -> Gemini (openai-to-gemini)
 * response: Gemini -> chat (openai-to-gemini) -> Anthropic (anthropic-to-openai)
 * stream:   Gemini events -> chat chunks -> Anthropic events (the two stream translators chained)
 */
import type { AnthropicMessagesRequest, AnthropicMessagesResponse } from '../../shapes/anthropic.ts';
import type { GeminiGenerateContentRequest, GeminiGenerateContentResponse } from '../../shapes/gemini.ts';
import {
  type AnthropicResponseContext,
  convertAnthropicRequestToChat,
  convertChatResponseToAnthropic,
  createChatStreamToAnthropicTranslator,
} from '../anthropic-to-openai/index.ts';
import { chainStreamTranslators } from '../chain-stream.ts';
import {
  convertChatRequestToGemini,
  convertGeminiResponseToChat,
  createGeminiStreamTranslator,
  type GeminiRequestOptions,
  type GeminiResponseContext,
} from '../openai-to-gemini/index.ts';
import type { StreamTranslator } from '../types.ts';

export interface AnthropicGeminiContext {
  /** The upstream model id (routing prefix stripped). */
  model: string;
  /** Unix seconds and id source of the intermediate chat shape (tests pin them). */
  created?: number;
  generateId?: () => string;
  /** The `msg_...` id to report; defaults to one derived from Gemini's responseId. */
  messageId?: string;
}

function chatContext(context: AnthropicGeminiContext): GeminiResponseContext {
  return {
    model: context.model,
    ...(context.created === undefined ? {} : { created: context.created }),
    ...(context.generateId === undefined ? {} : { generateId: context.generateId }),
  };
}

function anthropicContext(context: AnthropicGeminiContext): AnthropicResponseContext {
  return {
    model: context.model,
    ...(context.messageId === undefined ? {} : { messageId: context.messageId }),
  };
}

/** Anthropic Messages request -> Gemini generateContent body. Throws InvalidRequestError. */
export function convertAnthropicRequestToGemini(
  request: AnthropicMessagesRequest,
  context: Pick<AnthropicGeminiContext, 'model'>,
  options: GeminiRequestOptions = {},
): GeminiGenerateContentRequest {
  return convertChatRequestToGemini(
    convertAnthropicRequestToChat(request, { model: context.model }),
    options,
  );
}

/** Gemini generateContent answer -> Anthropic Messages response. */
export function convertGeminiResponseToAnthropic(
  response: GeminiGenerateContentResponse,
  context: AnthropicGeminiContext,
): AnthropicMessagesResponse {
  return convertChatResponseToAnthropic(
    convertGeminiResponseToChat(response, chatContext(context)),
    anthropicContext(context),
  );
}

/**
 * Gemini `streamGenerateContent?alt=sse` events -> Anthropic Messages events. The intermediate chat
 * stream always carries usage (the Anthropic side needs it for message_delta).
 */
export function createGeminiStreamToAnthropicTranslator(context: AnthropicGeminiContext): StreamTranslator {
  return chainStreamTranslators(
    createGeminiStreamTranslator({ ...chatContext(context), includeUsage: true }),
    createChatStreamToAnthropicTranslator(anthropicContext(context)),
  );
}
