/**
 * The request and response bodies of the gateway's routes, as far as this package names them: the
 * OpenAI chat-completions, embeddings and models shapes, and the Anthropic messages shape. Fields
 * not named here pass through (every type is open), as the gateway passes them through.
 */

/** A chat message (OpenAI shape). */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {});
  content: string | readonly unknown[] | null;
  [field: string]: unknown;
}

/** `POST /v1/chat/completions` (OpenAI shape). `model` routes: `openai/gpt-4o`, `@slug/model`, `gpt-4o`. */
export interface ChatCompletionRequest {
  model: string;
  messages: readonly ChatMessage[];
  temperature?: number;
  tools?: readonly unknown[];
  stream?: boolean;
  [field: string]: unknown;
}

/** A chat completion (OpenAI shape). */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion' | (string & {});
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: string; content: string | null; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** One event of a streamed chat completion (OpenAI shape). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk' | (string & {});
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string | null; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    [field: string]: unknown;
  } | null;
  [field: string]: unknown;
}

/** `POST /v1/embeddings` (OpenAI shape). */
export interface EmbeddingRequest {
  model: string;
  input: string | readonly string[] | readonly number[] | readonly (readonly number[])[];
  [field: string]: unknown;
}

/** Embeddings (OpenAI shape). */
export interface EmbeddingResponse {
  object: 'list' | (string & {});
  data: { object: 'embedding' | (string & {}); index: number; embedding: number[] | string }[];
  model: string;
  usage?: { prompt_tokens: number; total_tokens: number };
  [field: string]: unknown;
}

/** A message of the Anthropic messages shape. */
export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | readonly unknown[];
  [field: string]: unknown;
}

/** `POST /v1/messages` (Anthropic shape). */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: readonly AnthropicMessageParam[];
  system?: string | readonly unknown[];
  temperature?: number;
  tools?: readonly unknown[];
  stream?: boolean;
  [field: string]: unknown;
}

/** A message (Anthropic shape). */
export interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: { type: string; text?: string; [field: string]: unknown }[];
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number; [field: string]: unknown };
  [field: string]: unknown;
}

/** One event of a streamed message (Anthropic shape): `message_start`, `content_block_delta`, ... */
export interface MessageStreamEvent {
  type: string;
  [field: string]: unknown;
}

/** `POST /v1/messages/count_tokens` (Anthropic shape): a messages request without `max_tokens`. */
export interface CountTokensRequest {
  model: string;
  messages: readonly AnthropicMessageParam[];
  system?: string | readonly unknown[];
  tools?: readonly unknown[];
  [field: string]: unknown;
}

/** The tokens a request would use as input. */
export interface CountTokensResponse {
  input_tokens: number;
  [field: string]: unknown;
}

/** A model the gateway serves (OpenAI shape). */
export interface Model {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  [field: string]: unknown;
}

/** `GET /v1/models` (OpenAI list shape). */
export interface ModelList {
  object: 'list';
  data: Model[];
  [field: string]: unknown;
}
