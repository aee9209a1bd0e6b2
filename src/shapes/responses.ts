/**
 * Wire types of the OpenAI Responses API (`POST /v1/responses` and its siblings), after
 * reference/responses-api.md (sections 2 to 6), itself after the OpenAI OpenAPI spec and the
 * openai-node types. Types only, no logic. The API keeps adding item, tool and event types: what
 * the gateway does not map is typed loosely (`type: string` plus unknown fields) and passed on to
 * OpenAI untouched; translated routes refuse it where they must.
 */

// Content parts (section 2.1).

export interface ResponsesInputTextPart {
  type: 'input_text';
  text: string;
}

export interface ResponsesInputImagePart {
  type: 'input_image';
  /** An https or `data:` URL; `file_id` names an uploaded file (OpenAI only). */
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'low' | 'high' | 'auto' | 'original';
}

export interface ResponsesInputFilePart {
  type: 'input_file';
  /** A base64 `data:` URL. */
  file_data?: string | null;
  file_id?: string | null;
  file_url?: string | null;
  filename?: string | null;
}

export interface ResponsesOutputTextPart {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs?: unknown[];
}

export interface ResponsesRefusalPart {
  type: 'refusal';
  refusal: string;
}

export type ResponsesInputContentPart =
  | ResponsesInputTextPart
  | ResponsesInputImagePart
  | ResponsesInputFilePart;

/** A message's parts: input parts from the user side, output parts when assistant output is replayed. */
export type ResponsesContentPart = ResponsesInputContentPart | ResponsesOutputTextPart | ResponsesRefusalPart;

// Items (sections 2.1 and 3).

/** A message item; a bare `{role, content}` without `type` is one too ("easy" input message). */
export interface ResponsesMessageItem {
  type?: 'message';
  id?: string;
  role: 'user' | 'system' | 'developer' | 'assistant';
  content: string | ResponsesContentPart[];
  status?: ResponsesItemStatus;
}

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  /** `fc_...`; optional on input. */
  id?: string;
  /** `call_...`: what the matching function_call_output names. */
  call_id: string;
  name: string;
  /** A JSON string, possibly invalid. */
  arguments: string;
  status?: ResponsesItemStatus;
}

export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  id?: string;
  call_id: string;
  output: string | ResponsesInputContentPart[];
  status?: ResponsesItemStatus;
}

export interface ResponsesReasoningItem {
  type: 'reasoning';
  /** `rs_...`. */
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content?: Array<{ type: 'reasoning_text'; text: string }>;
  /** Opaque; carried back verbatim. */
  encrypted_content?: string | null;
  status?: ResponsesItemStatus;
}

/** Points at an item of a stored response. */
export interface ResponsesItemReference {
  type: 'item_reference';
  id: string;
}

/** Any item type the gateway does not map (hosted-tool calls, `compaction`, ...). */
export interface ResponsesOtherItem {
  type: string;
  id?: string;
  [field: string]: unknown;
}

export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | ResponsesItemReference;

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** An assistant output message (section 3): always with an id and a status. */
export interface ResponsesOutputMessage {
  type: 'message';
  /** `msg_...`. */
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: Array<ResponsesOutputTextPart | ResponsesRefusalPart>;
}

export interface ResponsesOutputFunctionCall extends ResponsesFunctionCallItem {
  id: string;
  status: ResponsesItemStatus;
}

export type ResponsesOutputItem =
  | ResponsesOutputMessage
  | ResponsesOutputFunctionCall
  | ResponsesReasoningItem;

// Tools and formats (section 2.2).

/** A function tool: flat, no `function` wrapper as on chat completions. */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  /** Omitted: OpenAI normalises the schema to strict mode on this API. */
  strict?: boolean | null;
}

/** A tool OpenAI runs itself (web_search, file_search, code_interpreter, mcp, ...) or with its own item shapes. */
export interface ResponsesOtherTool {
  type: string;
  [field: string]: unknown;
}

export type ResponsesTool = ResponsesFunctionTool | ResponsesOtherTool;

export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: unknown[] }
  | { type: string; [field: string]: unknown };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      strict?: boolean | null;
      description?: string;
    };

export interface ResponsesTextConfig {
  format?: ResponsesTextFormat;
  verbosity?: 'low' | 'medium' | 'high' | null;
}

// Request (section 2).

export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesInputItem[];
  /** System text for this request only; not carried over by previous_response_id. */
  instructions?: string | null;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  temperature?: number | null;
  top_p?: number | null;
  /** Includes reasoning tokens; at least 16 on OpenAI. */
  max_output_tokens?: number | null;
  stream?: boolean | null;
  /** Default true. */
  store?: boolean | null;
  previous_response_id?: string | null;
  conversation?: string | { id: string } | null;
  text?: ResponsesTextConfig | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  include?: string[] | null;
  metadata?: Record<string, string> | null;
  user?: string | null;
  safety_identifier?: string | null;
  prompt_cache_key?: string | null;
  truncation?: 'auto' | 'disabled' | null;
  background?: boolean | null;
  service_tier?: string | null;
  top_logprobs?: number | null;
  [field: string]: unknown;
}

// Response (section 3).

export type ResponsesStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress' | 'cancelled' | 'queued';

/** `input_tokens` includes cached ones; `output_tokens` includes reasoning ones. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsesError {
  code: string;
  message: string;
}

export interface ResponsesResponse {
  /** `resp_...`. */
  id: string;
  object: 'response';
  /** Unix seconds. */
  created_at: number;
  completed_at?: number | null;
  status: ResponsesStatus;
  model: string;
  error: ResponsesError | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  previous_response_id: string | null;
  instructions: string | null;
  output: ResponsesOutputItem[];
  usage: ResponsesUsage | null;
  tools: ResponsesTool[];
  tool_choice: ResponsesToolChoice;
  parallel_tool_calls: boolean;
  temperature: number;
  top_p: number;
  max_output_tokens: number | null;
  text: ResponsesTextConfig;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  background: boolean;
  truncation: string;
  service_tier: string;
  metadata: Record<string, string>;
  user: string | null;
  [field: string]: unknown;
}

// Siblings (section 5).

export interface ResponsesDeleted {
  id: string;
  object: 'response';
  deleted: true;
}

export interface ResponsesItemList {
  object: 'list';
  data: Array<Record<string, unknown>>;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

// Streams (section 4): every event is `event: <type>` + `data: <json>` with the same `type` and a
// `sequence_number` counting from 0 across the stream; no `[DONE]` follows the terminal event.

/** The terminal events: the response with its whole output and usage. */
export type ResponsesTerminalEventType = 'response.completed' | 'response.incomplete' | 'response.failed';

export interface ResponsesStreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

/** The in-stream error event (top-level fields, as the spec has it). */
export interface ResponsesErrorEvent {
  type: 'error';
  sequence_number: number;
  code: string | null;
  message: string;
  param: string | null;
}
