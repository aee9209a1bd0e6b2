/**
 * Chat-completions clients served by Anthropic Messages upstreams (`anthropic/*`, and Claude on
 * Bedrock InvokeModel or Vertex rawPredict, whose bodies are the same shape).
 */
export { mapAnthropicErrorToChat, renderChatStreamError } from './errors.ts';
export {
  type AnthropicRequestPlan,
  type ChatToAnthropicOptions,
  convertChatRequestToAnthropic,
  defaultMaxTokensFor,
  JSON_TOOL_NAME,
} from './request.ts';
export {
  type ChatResponseContext,
  convertAnthropicResponseToChat,
  convertAnthropicUsage,
  mapAnthropicStopReason,
} from './response.ts';
export { createAnthropicStreamToChatTranslator } from './stream.ts';
