/**
 * The one renderer of the client's error envelope (DESIGN section 5), in the client's dialect:
 * as a response body before anything was sent, and as a stream event once a stream began.
 */
import { type AnthropicErrorType, anthropicErrorTypeOfStatus } from '../shapes/anthropic.ts';
import type { ClientDialect } from '../shapes/api.ts';
import { serializeSseEvent } from '../sse/sse-events.ts';
import { GatewayError, InternalError } from './gateway-error.ts';

/** Which envelope the client expects: OpenAI's on chat/embeddings, Anthropic's on /v1/messages. */
export type ErrorDialect = ClientDialect;

export interface RenderedError {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The inner `error` object of the envelope. */
export interface RenderedErrorInner {
  code: string;
  message: string;
  type: string;
}

/** Normalises anything thrown into a GatewayError (unknown errors become a 500 that hides internals). */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new InternalError({ cause: error });
}

/**
 * Anthropic's own error types (reference/providers.md section 2 "Errors", and the official SDK's
 * ErrorType): Anthropic SDKs and clients branch on these, so no other value goes on /v1/messages.
 */
const ANTHROPIC_TYPES: ReadonlySet<string> = new Set<AnthropicErrorType>([
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
]);

/**
 * The error type as the dialect knows it. On the Anthropic envelope a gateway type that is not
 * Anthropic's becomes the one its status means there (a 502 upstream_auth_error is the gateway's
 * upstream failing, so api_error); the gateway's `code` keeps the precise reason.
 */
export function mapErrorType(error: GatewayError, dialect: ErrorDialect): string {
  if (dialect === 'openai' || ANTHROPIC_TYPES.has(error.type)) return error.type;
  return anthropicErrorTypeOfStatus(error.statusCode);
}

/** The inner `error` object, for the envelope below and for error events written mid-stream. */
export function renderErrorInner(error: GatewayError, dialect: ErrorDialect): RenderedErrorInner {
  return { code: error.code, message: error.message, type: mapErrorType(error, dialect) };
}

/**
 * The envelope's object: `{"error": ...}`, on /v1/messages with `"type": "error"` first, and the
 * request's id as `request_id` beside the error, where Anthropic's own error bodies carry it.
 */
function envelope(inner: RenderedErrorInner, dialect: ErrorDialect, requestId: string | undefined): object {
  const body: Record<string, unknown> =
    dialect === 'anthropic' ? { type: 'error', error: inner } : { error: inner };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/**
 * Renders the one envelope of DESIGN section 5:
 * `{"error": {"code", "message", "type"}, "request_id"}`, and on /v1/messages also
 * `"type": "error"` at the top so that Anthropic SDKs parse it.
 */
export function renderError(error: GatewayError, dialect: ErrorDialect, requestId?: string): RenderedError {
  const body = envelope(renderErrorInner(error, dialect), dialect, requestId);
  return {
    statusCode: error.statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers },
    body: JSON.stringify(body),
  };
}

/**
 * The error as the last event of a stream that failed after it began: `data: {"error": ...}` on
 * OpenAI streams, an `event: error` on Anthropic ones (what their SDKs raise on), never `[DONE]`.
 */
export function renderStreamError(error: GatewayError, dialect: ErrorDialect, requestId?: string): string {
  const data = JSON.stringify(envelope(renderErrorInner(error, dialect), dialect, requestId));
  return dialect === 'anthropic' ? serializeSseEvent({ event: 'error', data }) : serializeSseEvent({ data });
}
