/**
 * Chat-completions clients served by Bedrock's Converse / ConverseStream APIs (`bedrock/*`). The
 * provider module supplies the regional base URL and SigV4 (or Bedrock API key) auth; the
 * stream arrives as AWS event-stream frames decoded by sse/aws-event-stream.ts.
 */
export {
  type BedrockErrorAnswer,
  type BedrockErrorMapping,
  convertBedrockError,
  mapBedrockError,
  normalizeBedrockErrorType,
  renderConverseStreamException,
} from './errors.ts';
export {
  type ConverseRequestPlan,
  converseModelPath,
  convertChatRequestToConverse,
  JSON_TOOL_NAME,
} from './request.ts';
export {
  type ConverseResponseContext,
  convertConverseResponseToChat,
  convertConverseUsage,
  DEFAULT_COMPLETION_ID,
  mapConverseStopReason,
} from './response.ts';
export { createConverseStreamTranslator } from './stream.ts';
