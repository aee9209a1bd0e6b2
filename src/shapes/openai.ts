/**
 * Wire types of the OpenAI Chat Completions API (reference/providers.md section 1). Types only, no
 * logic. Optional fields are those a client or upstream may omit; the gateway validates loosely at
 * its edge, so translators still treat values defensively.
 */

export interface ChatTextPart {
  type: 'text';
  text: string;
}

export interface ChatImagePart {
  type: 'image_url';
  /** `url` is https or a `data:<mime>;base64,...` URL. */
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export interface ChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: 'wav' | 'mp3' };
}

export interface ChatFilePart {
  type: 'file';
  /** `file_data` is a `data:<mime>;base64,...` URL; `file_id` names an uploaded file. */
  file: { file_data?: string; file_id?: string; filename?: string };
}

export interface ChatRefusalPart {
  type: 'refusal';
  refusal: string;
}

export type ChatUserContentPart = ChatTextPart | ChatImagePart | ChatAudioPart | ChatFilePart;

export interface ChatSystemMessage {
  /** `developer` is the newer spelling of `system`. */
  role: 'system' | 'developer';
  content: string | ChatTextPart[];
  name?: string;
}

export interface ChatUserMessage {
  role: 'user';
  content: string | ChatUserContentPart[];
  name?: string;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  /** `arguments` is a JSON string, possibly invalid. */
  function: { name: string; arguments: string };
}

export interface ChatAssistantMessage {
  role: 'assistant';
  content?: string | Array<ChatTextPart | ChatRefusalPart> | null;
  refusal?: string | null;
  tool_calls?: ChatToolCall[];
  name?: string;
}

export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | ChatTextPart[];
}

/** Legacy function-calling turn. */
export interface ChatFunctionMessage {
  role: 'function';
  name: string;
  content: string | null;
}

export type ChatMessage =
  | ChatSystemMessage
  | ChatUserMessage
  | ChatAssistantMessage
  | ChatToolMessage
  | ChatFunctionMessage;

export interface ChatFunctionDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments; may be absent. */
  parameters?: Record<string, unknown>;
  strict?: boolean | null;
}

export interface ChatTool {
  type: 'function';
  function: ChatFunctionDefinition;
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatJsonSchemaFormat {
  name: string;
  description?: string;
  schema?: Record<string, unknown>;
  strict?: boolean | null;
}

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: ChatJsonSchemaFormat };

export interface ChatStreamOptions {
  include_usage?: boolean;
}

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  /** Deprecated in favour of `max_completion_tokens` (o-series reject it). */
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  /** 0..2 */
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  /** A string or up to four strings. */
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: ChatStreamOptions | null;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  user?: string;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  reasoning_effort?: string | null;
  service_tier?: string | null;
  metadata?: Record<string, string> | null;
  store?: boolean | null;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatUsage {
  /** Includes cached prompt tokens. */
  prompt_tokens: number;
  /** Includes reasoning tokens. */
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number } | null;
  completion_tokens_details?: {
    reasoning_tokens?: number;
    audio_tokens?: number;
    accepted_prediction_tokens?: number;
    rejected_prediction_tokens?: number;
  } | null;
}

export interface ChatResponseMessage {
  role: 'assistant';
  /** `null` when the answer is only tool calls. */
  content: string | null;
  refusal: string | null;
  tool_calls?: ChatToolCall[];
}

export interface ChatChoice {
  index: number;
  message: ChatResponseMessage;
  logprobs: unknown;
  finish_reason: ChatFinishReason | null;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  /** Unix seconds. */
  created: number;
  model: string;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  choices: ChatChoice[];
  usage?: ChatUsage;
}

export interface ChatToolCallDelta {
  /** 0-based position among the choice's tool calls (not a content-block index). */
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCallDelta[];
}

export interface ChatChunkChoice {
  index: number;
  delta: ChatChunkDelta;
  logprobs?: unknown;
  finish_reason: ChatFinishReason | null;
}

export interface ChatCompletionChunk {
  /** The same in every chunk of a stream. */
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  /** Empty on the usage-only chunk sent when `stream_options.include_usage` is true. */
  choices: ChatChunkChoice[];
  usage?: ChatUsage | null;
}

export interface OpenAiErrorDetail {
  message: string;
  type: string;
  param?: string | null;
  code?: string | number | null;
}

/** Error body of any status, and the de-facto in-stream error chunk. */
export interface OpenAiErrorBody {
  error: OpenAiErrorDetail;
}
