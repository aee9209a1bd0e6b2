import { GatewayError, InternalError } from './gateway-error.ts';

/** Which envelope the client expects: OpenAI's on chat/embeddings, Anthropic's on /v1/messages. */
export type ErrorDialect = 'openai' | 'anthropic';

export interface RenderedError {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Normalises anything thrown into a GatewayError (unknown errors become a 500 that hides internals). */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new InternalError({ cause: error });
}

/**
 * Renders the one envelope of DESIGN section 5:
 * `{"error": {"code", "message", "type"}}`, and on /v1/messages also `"type": "error"` at the top
 * so that Anthropic SDKs parse it.
 */
export function renderError(error: GatewayError, dialect: ErrorDialect): RenderedError {
  const inner = { code: error.code, message: error.message, type: error.type };
  const body = dialect === 'anthropic' ? { type: 'error', error: inner } : { error: inner };
  return {
    statusCode: error.statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers },
    body: JSON.stringify(body),
  };
}
