/**
 * Wire types of the Anthropic Messages API (reference/providers.md section 2), as served by
 * api.anthropic.com, Bedrock InvokeModel and Vertex rawPredict alike. Types only, no logic.
 */

export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl | null;
  citations?: unknown[] | null;
}

export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export type AnthropicImageSource =
  | { type: 'base64'; media_type: AnthropicImageMediaType; data: string }
  | { type: 'url'; url: string };

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl | null;
}

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: 'text/plain'; data: string };

export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicDocumentSource;
  title?: string | null;
  context?: string | null;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  /** Matches `^[a-zA-Z0-9_-]+$`. */
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AnthropicContentBlockParam =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessageParam {
  /** Newer API versions also accept `system` turns inside `messages`. */
  role: 'user' | 'assistant' | 'system';
  content: string | AnthropicContentBlockParam[];
}

export interface AnthropicCustomTool {
  type?: 'custom';
  name: string;
  description?: string;
  /** An object JSON Schema. */
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl | null;
  strict?: boolean;
}

/** Anthropic-executed tools (web search, code execution, ...), typed by a dated `type`. */
export interface AnthropicServerTool {
  type: string;
  name: string;
  [field: string]: unknown;
}

export type AnthropicTool = AnthropicCustomTool | AnthropicServerTool;

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicOutputConfig {
  format?: { type: 'json_schema'; schema: Record<string, unknown> } | null;
  effort?: string | null;
}

export interface AnthropicMessagesRequest {
  model: string;
  /** Required by Anthropic. */
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  stop_sequences?: string[];
  /** 0..1 */
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stream?: boolean;
  metadata?: { user_id?: string | null };
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive' };
  output_config?: AnthropicOutputConfig;
  service_tier?: string;
}

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** `input_tokens` excludes cache reads and writes (the exclusive convention). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  server_tool_use?: Record<string, number> | null;
  service_tier?: string | null;
}

/** Blocks of a response; server-tool blocks (`server_tool_use`, `web_search_tool_result`, ...) also occur. */
export type AnthropicResponseBlock =
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessagesResponse {
  /** `msg_...` */
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: AnthropicStopReason | null;
  /** The stop sequence that matched, if any. */
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

export interface AnthropicMessageStartEvent {
  type: 'message_start';
  message: AnthropicMessagesResponse;
}

export interface AnthropicContentBlockStartEvent {
  type: 'content_block_start';
  index: number;
  content_block: AnthropicResponseBlock;
}

export type AnthropicContentDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta'; citation: unknown };

export interface AnthropicContentBlockDeltaEvent {
  type: 'content_block_delta';
  index: number;
  delta: AnthropicContentDelta;
}

export interface AnthropicContentBlockStopEvent {
  type: 'content_block_stop';
  index: number;
}

/** Usage values here are cumulative: set, never add. Newer streams repeat input and cache counts. */
export interface AnthropicMessageDeltaEvent {
  type: 'message_delta';
  delta: { stop_reason: AnthropicStopReason | null; stop_sequence: string | null };
  usage: {
    output_tokens: number;
    input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
  };
}

export interface AnthropicMessageStopEvent {
  type: 'message_stop';
}

export interface AnthropicPingEvent {
  type: 'ping';
}

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error';

/** The error type Anthropic answers with at each HTTP status (reference/providers.md section 2, "Errors"). */
const ANTHROPIC_ERROR_TYPE_BY_STATUS: ReadonlyMap<number, AnthropicErrorType> = new Map([
  [400, 'invalid_request_error'],
  [401, 'authentication_error'],
  [402, 'billing_error'],
  [403, 'permission_error'],
  [404, 'not_found_error'],
  [413, 'request_too_large'],
  [429, 'rate_limit_error'],
  [503, 'overloaded_error'],
  [504, 'timeout_error'],
  [529, 'overloaded_error'],
]);

/** Anthropic's error type for an HTTP status: its own where it has one, else by class (4xx, 5xx). */
export function anthropicErrorTypeOfStatus(status: number): AnthropicErrorType {
  return (
    ANTHROPIC_ERROR_TYPE_BY_STATUS.get(status) ??
    (status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error')
  );
}

/** Error body of any status, and the in-stream `error` event (which can follow a 200). */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType | (string & {}); message: string };
  request_id?: string;
}

export type AnthropicStreamEvent =
  | AnthropicMessageStartEvent
  | AnthropicContentBlockStartEvent
  | AnthropicContentBlockDeltaEvent
  | AnthropicContentBlockStopEvent
  | AnthropicMessageDeltaEvent
  | AnthropicMessageStopEvent
  | AnthropicPingEvent
  | AnthropicErrorBody;
