/**
 * The API shapes the gateway speaks, the operations a client asks for, and the dialect each
 * operation's client speaks (whose request, answer, stream and error envelope it expects).
 */

/** The API shapes the gateway speaks upstream. */
export type ApiShape = 'openai' | 'anthropic' | 'gemini' | 'bedrock';

/** The inbound operations a client can ask for. */
export type Operation = 'chat' | 'embeddings' | 'messages' | 'responses';

/**
 * The shape a client speaks: OpenAI on chat completions, embeddings and the Responses API (whose
 * error envelope is OpenAI's), Anthropic on messages.
 */
export type ClientDialect = Extract<ApiShape, 'openai' | 'anthropic'>;

export const OPERATION_DIALECT: Readonly<Record<Operation, ClientDialect>> = {
  chat: 'openai',
  embeddings: 'openai',
  messages: 'anthropic',
  responses: 'openai',
};

/** The route of each operation, as clients call it and metrics label it. */
export const OPERATION_ROUTE: Readonly<Record<Operation, string>> = {
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
  messages: '/v1/messages',
  responses: '/v1/responses',
};
