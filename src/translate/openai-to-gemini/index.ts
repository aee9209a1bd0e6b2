/**
 * OpenAI chat/embeddings shape ⇄ Gemini (Generative Language API) shape. The provider module
 * supplies the base URL and `x-goog-api-key`; Vertex Gemini can reuse these translators with its
 * own paths and token.
 */
export {
  convertGeminiEmbeddings,
  encodeFloat32Base64,
  type GeminiEmbeddingCall,
  type GeminiEmbeddingOptions,
  type GeminiEmbeddingPlan,
  MAX_EMBEDDINGS_PER_CALL,
  normalizeVector,
  type OpenAiEmbedding,
  type OpenAiEmbeddingsRequest,
  type OpenAiEmbeddingsResponse,
  planGeminiEmbeddings,
} from './embeddings.ts';
export {
  classifyGeminiError,
  convertGeminiClassification,
  convertGeminiError,
  type GeminiErrorClassification,
  type GeminiErrorKind,
  parseGoogleError,
  parseRetryDelay,
} from './errors.ts';
export {
  convertChatRequestToGemini,
  type GeminiRequestOptions,
  geminiModelPath,
  generateContentPath,
  SKIP_THOUGHT_SIGNATURE,
} from './request.ts';
export {
  convertGeminiResponseToChat,
  convertGeminiUsage,
  type GeminiResponseContext,
  mapGeminiFinishReason,
  parseGeminiUsage,
} from './response.ts';
export { convertJsonSchemaToGemini } from './schema.ts';
export {
  createGeminiStreamTranslator,
  type GeminiStreamOptions,
  type GeminiStreamTranslator,
} from './stream.ts';
