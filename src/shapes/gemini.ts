/**
 * Wire types of Google's Generative Language API (Gemini), v1beta: generateContent,
 * streamGenerateContent, embedContent, batchEmbedContents and the error body. Only the fields the
 * gateway reads or writes are spelled out; every object may carry more.
 *
 * Source: ai.google.dev/api/{generate-content, caching, embeddings}; google/rpc/error_details.proto.
 */

// Content

export type GeminiRole = 'user' | 'model';

export interface GeminiFunctionCall {
  name: string;
  /** An object; Gemini never sends arguments as a string. */
  args?: Record<string, unknown>;
  /** Set by some models (and Vertex); absent on most Gemini API answers. */
  id?: string;
}

export interface GeminiFunctionResponse {
  name: string;
  /** Must be an object; Gemini refuses strings and arrays here. */
  response: Record<string, unknown>;
  id?: string;
}

/**
 * One part. Exactly one of the data fields is set; `thought` marks a thought summary, and any part
 * may carry an opaque `thoughtSignature` that Gemini 3 wants replayed with it.
 */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  executableCode?: { language: string; code: string };
  codeExecutionResult?: { outcome: string; output?: string };
}

export interface GeminiContent {
  /** Optional on answers (a blocked candidate's content may be `{}`) and on systemInstruction. */
  role?: GeminiRole;
  parts?: GeminiPart[];
}

// Schema dialect (OpenAPI 3.0 subset)

export type GeminiSchemaType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';

/**
 * The schema dialect of `parameters` and `responseSchema`. Any key outside this list makes Gemini
 * refuse the whole request. Type names are accepted in either case; the converter writes lower case
 * as JSON Schema does.
 */
export interface GeminiSchema {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: unknown[];
  items?: GeminiSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  minProperties?: number;
  maxProperties?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  example?: unknown;
  anyOf?: GeminiSchema[];
  propertyOrdering?: string[];
}

// generateContent request

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: GeminiSchema;
  /** Newer models: raw JSON Schema instead of `parameters`. */
  parametersJsonSchema?: unknown;
}

export interface GeminiTool {
  functionDeclarations?: GeminiFunctionDeclaration[];
  googleSearch?: Record<string, never>;
  codeExecution?: Record<string, never>;
}

export type GeminiFunctionCallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export interface GeminiToolConfig {
  functionCallingConfig?: {
    mode?: GeminiFunctionCallingMode;
    allowedFunctionNames?: string[];
  };
}

export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: string;
  includeThoughts?: boolean;
}

export interface GeminiGenerationConfig {
  stopSequences?: string[];
  responseMimeType?: string;
  responseSchema?: GeminiSchema;
  responseJsonSchema?: unknown;
  candidateCount?: number;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseLogprobs?: boolean;
  logprobs?: number;
  thinkingConfig?: GeminiThinkingConfig;
}

export interface GeminiSafetySetting {
  category: string;
  threshold: string;
}

export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: GeminiContent;
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
  safetySettings?: GeminiSafetySetting[];
  cachedContent?: string;
}

// generateContent response (also each streamed chunk)

/**
 * `STOP`, `MAX_TOKENS`, `SAFETY`, `RECITATION`, `LANGUAGE`, `OTHER`, `BLOCKLIST`,
 * `PROHIBITED_CONTENT`, `SPII`, `MALFORMED_FUNCTION_CALL`, `IMAGE_SAFETY`, … (open set).
 */
export type GeminiFinishReason = string;

export interface GeminiSafetyRating {
  category: string;
  probability: string;
  blocked?: boolean;
}

export interface GeminiCandidate {
  content?: GeminiContent;
  finishReason?: GeminiFinishReason;
  index?: number;
  safetyRatings?: GeminiSafetyRating[];
  citationMetadata?: unknown;
  groundingMetadata?: unknown;
  avgLogprobs?: number;
  logprobsResult?: unknown;
  tokenCount?: number;
}

export interface GeminiModalityTokenCount {
  modality: string;
  tokenCount: number;
}

/** All counts are inclusive: `promptTokenCount` includes `cachedContentTokenCount`. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  promptTokensDetails?: GeminiModalityTokenCount[];
  cacheTokensDetails?: GeminiModalityTokenCount[];
  candidatesTokensDetails?: GeminiModalityTokenCount[];
}

export interface GeminiPromptFeedback {
  /** `SAFETY`, `OTHER`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `IMAGE_SAFETY`, … */
  blockReason?: string;
  safetyRatings?: GeminiSafetyRating[];
}

export interface GeminiGenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: GeminiPromptFeedback;
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

// Embeddings

export type GeminiEmbeddingTaskType =
  | 'TASK_TYPE_UNSPECIFIED'
  | 'RETRIEVAL_QUERY'
  | 'RETRIEVAL_DOCUMENT'
  | 'SEMANTIC_SIMILARITY'
  | 'CLASSIFICATION'
  | 'CLUSTERING'
  | 'QUESTION_ANSWERING'
  | 'FACT_VERIFICATION'
  | 'CODE_RETRIEVAL_QUERY';

export interface GeminiEmbedContentRequest {
  /** `models/{model}`; required inside batchEmbedContents, optional on embedContent. */
  model?: string;
  content: GeminiContent;
  taskType?: GeminiEmbeddingTaskType;
  /** Only with `RETRIEVAL_DOCUMENT`. */
  title?: string;
  outputDimensionality?: number;
}

export interface GeminiBatchEmbedContentsRequest {
  requests: GeminiEmbedContentRequest[];
}

export interface GeminiContentEmbedding {
  values: number[];
}

export interface GeminiEmbedContentResponse {
  embedding: GeminiContentEmbedding;
  /** Not sent by the Gemini API today; Vertex-style answers may carry it. */
  usageMetadata?: GeminiUsageMetadata;
}

export interface GeminiBatchEmbedContentsResponse {
  embeddings: GeminiContentEmbedding[];
  usageMetadata?: GeminiUsageMetadata;
}

// Errors (google.rpc.Status)

/** One entry of `error.details`; `@type` says which google.rpc message it is. */
export interface GoogleErrorDetail {
  '@type': string;
  /** ErrorInfo */
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
  /** RetryInfo: a protobuf Duration in JSON form, e.g. `"23s"` or `"1.500s"`. */
  retryDelay?: string;
  /** QuotaFailure */
  violations?: unknown[];
  [key: string]: unknown;
}

export interface GoogleErrorBody {
  error: {
    /** The HTTP status. */
    code: number;
    message: string;
    /** The canonical code: `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, … */
    status?: string;
    details?: GoogleErrorDetail[];
  };
}
