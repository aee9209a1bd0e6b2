/**
 * Wire types of the Amazon Bedrock Converse and ConverseStream APIs (reference/providers.md
 * section 4). Types only, no logic. Optional fields are those AWS or a client may omit.
 */

export type BedrockImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export type BedrockDocumentFormat = 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md';

/** Binary content travels as base64 in the JSON body. */
export interface BedrockBytesSource {
  bytes: string;
}

export interface BedrockImageBlock {
  format: BedrockImageFormat;
  source: BedrockBytesSource | { s3Location: { uri: string; bucketOwner?: string } };
}

export interface BedrockDocumentBlock {
  format: BedrockDocumentFormat;
  /** Letters, digits, single spaces, hyphens, parentheses and square brackets only. */
  name: string;
  source: BedrockBytesSource;
}

export interface BedrockToolUseBlock {
  toolUseId: string;
  name: string;
  /** An object (never a JSON string) in requests and non-stream responses. */
  input: unknown;
}

export type BedrockToolResultContent =
  | { text: string }
  | { json: unknown }
  | { image: BedrockImageBlock }
  | { document: BedrockDocumentBlock };

export interface BedrockToolResultBlock {
  toolUseId: string;
  content: BedrockToolResultContent[];
  status?: 'success' | 'error';
}

export interface BedrockReasoningContentBlock {
  reasoningText?: { text: string; signature?: string };
  redactedContent?: string;
}

export type BedrockCachePoint = { cachePoint: { type: 'default' } };

/** Exactly one member is set. */
export type BedrockContentBlock =
  | { text: string }
  | { image: BedrockImageBlock }
  | { document: BedrockDocumentBlock }
  | { toolUse: BedrockToolUseBlock }
  | { toolResult: BedrockToolResultBlock }
  | { reasoningContent: BedrockReasoningContentBlock }
  | BedrockCachePoint;

export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockContentBlock[];
}

export type BedrockSystemBlock = { text: string } | BedrockCachePoint;

export interface BedrockToolSpec {
  name: string;
  description?: string;
  inputSchema: { json: Record<string, unknown> };
  strict?: boolean;
}

export type BedrockTool = { toolSpec: BedrockToolSpec } | BedrockCachePoint;

export type BedrockToolChoice =
  | { auto: Record<string, never> }
  | { any: Record<string, never> }
  | { tool: { name: string } };

export interface BedrockToolConfig {
  tools: BedrockTool[];
  toolChoice?: BedrockToolChoice;
}

export interface BedrockInferenceConfig {
  maxTokens?: number;
  /** 0..1 for most models. */
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

/** `POST /model/{modelId}/converse` and `/converse-stream`: the model is in the path, not the body. */
export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: BedrockSystemBlock[];
  inferenceConfig?: BedrockInferenceConfig;
  toolConfig?: BedrockToolConfig;
  additionalModelRequestFields?: Record<string, unknown>;
  additionalModelResponseFieldPaths?: string[];
  requestMetadata?: Record<string, string>;
  performanceConfig?: { latency: 'standard' | 'optimized' };
}

export type BedrockStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'malformed_model_output'
  | 'malformed_tool_use'
  | 'model_context_window_exceeded';

/** Exclusive like Anthropic's: inputTokens leave out cache reads and writes. */
export interface BedrockUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** No id or model in the body: the gateway supplies them. */
export interface BedrockConverseResponse {
  output: { message?: BedrockMessage };
  stopReason: BedrockStopReason | string;
  usage: BedrockUsage;
  metrics?: { latencyMs: number };
  additionalModelResponseFields?: Record<string, unknown>;
  trace?: unknown;
  performanceConfig?: unknown;
}

// ConverseStream: the frame header `:event-type` names the event; the payload is its body. Every
// payload may carry a padding field `p` (ignored).

export interface BedrockMessageStartEvent {
  role: 'assistant';
}

export interface BedrockContentBlockStartEvent {
  contentBlockIndex: number;
  start: { toolUse?: { toolUseId: string; name: string } };
}

export interface BedrockContentBlockDeltaEvent {
  contentBlockIndex: number;
  delta: {
    text?: string;
    /** A piece of the tool input's JSON text. */
    toolUse?: { input: string };
    reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
  };
}

export interface BedrockContentBlockStopEvent {
  contentBlockIndex: number;
}

export interface BedrockMessageStopEvent {
  stopReason: BedrockStopReason | string;
  additionalModelResponseFields?: Record<string, unknown>;
}

/** Sent after messageStop. */
export interface BedrockMetadataEvent {
  usage: BedrockUsage;
  metrics?: { latencyMs: number };
  trace?: unknown;
}

/** The payload of an exception frame (`:message-type: exception`) and of an error response body. */
export interface BedrockErrorBody {
  message?: string;
  /** Some services spell it with a capital M. */
  Message?: string;
  /** The AWS JSON protocol's error type, e.g. `com.amazon.coral.service#UnrecognizedClientException`. */
  __type?: string;
}
