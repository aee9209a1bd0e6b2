/**
 * Anthropic Messages clients (`/v1/messages`) served by Bedrock's Converse / ConverseStream
 * (`bedrock/*`). No translator of its own, like anthropic-to-gemini: the two existing pairs
 * composed through the chat-completions shape, so every mapping rule lives in one place.
 *
 * request:  Anthropic -> chat (anthropic-to-openai) -> Converse (openai-to-bedrock)
 * response: Converse -> chat (openai-to-bedrock) -> Anthropic (anthropic-to-openai)
 * stream:   ConverseStream frames -> chat chunks -> Anthropic events (the two translators chained)
 *
 * Upstream error answers are mapped by openai-to-bedrock's convertBedrockError (to a gateway
 * error the client's envelope renders); a mid-stream exception becomes a chat error chunk, which
 * the second translator turns into an Anthropic `error` event.
 */
import type { AnthropicMessagesRequest, AnthropicMessagesResponse } from '../../shapes/anthropic.ts';
import type { BedrockConverseResponse } from '../../shapes/bedrock.ts';
import {
  type AnthropicResponseContext,
  convertAnthropicRequestToChat,
  convertChatResponseToAnthropic,
  createChatStreamToAnthropicTranslator,
} from '../anthropic-to-openai/index.ts';
import { chainStreamTranslators } from '../chain-stream.ts';
import {
  type ConverseRequestPlan,
  type ConverseResponseContext,
  convertChatRequestToConverse,
  convertConverseResponseToChat,
  createConverseStreamTranslator,
} from '../openai-to-bedrock/index.ts';
import type { StreamTranslator } from '../types.ts';

export interface AnthropicConverseContext {
  /** The upstream model id (routing prefix stripped), shown to the client. */
  model: string;
  /** Converse answers carry no id: the `msg_...` id to report (else one derived from `chatId`). */
  messageId?: string;
  /** Id of the intermediate chat shape; also the source of the default message id. */
  chatId?: string;
  /** Unix seconds of the intermediate chat shape (tests pin it). */
  created?: number;
  /** From the request plan: the gateway's synthetic JSON tool (output_config.format). */
  jsonToolName?: string;
}

export interface AnthropicConverseRequestPlan {
  body: ConverseRequestPlan['body'];
  /** What the response and stream translators must know about this request. */
  context: AnthropicConverseContext;
}

function chatContext(context: AnthropicConverseContext): ConverseResponseContext {
  return {
    model: context.model,
    ...(context.chatId === undefined ? {} : { id: context.chatId }),
    ...(context.created === undefined ? {} : { created: context.created }),
    ...(context.jsonToolName === undefined ? {} : { jsonToolName: context.jsonToolName }),
  };
}

function anthropicContext(context: AnthropicConverseContext): AnthropicResponseContext {
  return {
    model: context.model,
    ...(context.messageId === undefined ? {} : { messageId: context.messageId }),
  };
}

/** Anthropic Messages request -> Converse body and the context its answers need. Throws InvalidRequestError. */
export function convertAnthropicRequestToConverse(
  request: AnthropicMessagesRequest,
  context: AnthropicConverseContext,
): AnthropicConverseRequestPlan {
  const plan = convertChatRequestToConverse(convertAnthropicRequestToChat(request, { model: context.model }));
  return {
    body: plan.body,
    context: {
      ...context,
      ...(plan.context.jsonToolName === undefined ? {} : { jsonToolName: plan.context.jsonToolName }),
    },
  };
}

/** Converse answer -> Anthropic Messages response. */
export function convertConverseResponseToAnthropic(
  response: BedrockConverseResponse,
  context: AnthropicConverseContext,
): AnthropicMessagesResponse {
  return convertChatResponseToAnthropic(
    convertConverseResponseToChat(response, chatContext(context)),
    anthropicContext(context),
  );
}

/**
 * ConverseStream events -> Anthropic Messages events. The intermediate chat stream always carries
 * usage (the Anthropic side needs it for message_delta).
 */
export function createConverseStreamToAnthropicTranslator(
  context: AnthropicConverseContext,
): StreamTranslator {
  return chainStreamTranslators(
    createConverseStreamTranslator({ ...chatContext(context), includeUsage: true }),
    createChatStreamToAnthropicTranslator(anthropicContext(context)),
  );
}
