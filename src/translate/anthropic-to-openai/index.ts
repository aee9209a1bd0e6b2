/**
 * Anthropic Messages clients (`/v1/messages`) served by chat-completions upstreams: OpenAI and
 * compatible servers, and any provider whose translator speaks the chat-completions shape.
 */
export { mapChatErrorToAnthropic, renderAnthropicStreamError } from './errors.ts';
export {
  type AnthropicToChatOptions,
  convertAnthropicRequestToChat,
  sanitizeToolCallId,
  TOOL_ERROR_PREFIX,
} from './request.ts';
export {
  type AnthropicResponseContext,
  convertChatResponseToAnthropic,
  convertChatUsage,
  mapChatFinishReason,
  toMessageId,
} from './response.ts';
export { createChatStreamToAnthropicTranslator } from './stream.ts';
