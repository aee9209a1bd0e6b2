/**
 * OpenAI Responses clients (`/v1/responses`) served through the chat-completions shape: by
 * OpenAI-compatible servers without a Responses API directly, and by Anthropic, Gemini, Bedrock
 * and Vertex through their existing chat translators (plans/responses.ts composes the pairs).
 */
export { type ResponsesFailure, readChatStreamError, responsesCodeOf } from './errors.ts';
export { createItemIdMinter, mintResponseId, responseIdOfItem } from './ids.ts';
export { convertResponsesRequestToChat, type ResponsesToChatOptions } from './request.ts';
export {
  convertChatResponseToResponses,
  convertChatUsageToResponses,
  mapFinishReason,
  nowSeconds,
  type ResponsesContext,
  renderResponseShell,
} from './response.ts';
export { createChatStreamToResponsesTranslator, type ResponsesStreamTranslator } from './stream.ts';
