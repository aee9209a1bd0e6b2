/**
 * Google error bodies (`{error: {code, message, status, details[]}}`) → a classification and the
 * gateway error the client sees. Classification reads the HTTP status, the canonical `status` and
 * the structured `details` (ErrorInfo.reason, RetryInfo.retryDelay), never the message text.
 *
 * Status mapping (providers.md §3 "Errors" and §7):
 *
 * | Upstream                                               | kind              | gateway | retry |
 * |--------------------------------------------------------|-------------------|---------|-------|
 * | ErrorInfo.reason a credential failure (any status,     | upstream_auth     | 502     | no    |
 * |   notably 400 INVALID_ARGUMENT + API_KEY_INVALID), 401 |                   |         |       |
 * | 400 INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE| invalid_request   | 400     | no    |
 * | 403 PERMISSION_DENIED                                  | permission_denied | 403     | no    |
 * | 404 NOT_FOUND                                          | not_found         | 404     | no    |
 * | 413                                                    | payload_too_large | 413     | no    |
 * | 429 RESOURCE_EXHAUSTED                                 | rate_limited      | 429 + Retry-After from RetryInfo | yes |
 * | 503 UNAVAILABLE                                        | unavailable       | 503     | yes   |
 * | 408, 504 DEADLINE_EXCEEDED                             | timeout           | 504     | yes   |
 * | other 5xx (500 INTERNAL, …), unreadable body on a 5xx  | upstream_failure  | 502     | yes   |
 * | other 4xx                                              | invalid_request   | same    | no    |
 */
import { type GatewayError, UpstreamError } from '../../errors/gateway-error.ts';
import type { GoogleErrorBody, GoogleErrorDetail } from '../../shapes/gemini.ts';
import type { UpstreamErrorDetail } from '../types.ts';

export type GeminiErrorKind =
  | 'upstream_auth'
  | 'invalid_request'
  | 'permission_denied'
  | 'not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'upstream_failure';

/** `message` and `type` (OpenAI vocabulary) are what the client's envelope carries. */
export interface GeminiErrorClassification extends UpstreamErrorDetail {
  kind: GeminiErrorKind;
  /** The status the gateway answers with. */
  statusCode: number;
  retryable: boolean;
  upstreamStatus: number;
  /** The canonical code, e.g. `INVALID_ARGUMENT`. */
  googleStatus?: string;
  /** `ErrorInfo.reason`, e.g. `API_KEY_INVALID`. */
  reason?: string;
  /** From `RetryInfo.retryDelay`, else the upstream `Retry-After` header. */
  retryAfterSeconds?: number;
}

/**
 * ErrorInfo reasons (google/api/error_reason.proto) that mean the credential itself was refused:
 * the tenant's or the platform's key is at fault, not the client's request.
 */
const CREDENTIAL_REASONS = new Set([
  'API_KEY_INVALID',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED',
  'API_KEY_ANDROID_APP_BLOCKED',
  'API_KEY_IOS_APP_BLOCKED',
  'SERVICE_DISABLED',
  'CONSUMER_INVALID',
  'CONSUMER_SUSPENDED',
  'ACCESS_TOKEN_EXPIRED',
  'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
  'ACCESS_TOKEN_TYPE_UNSUPPORTED',
]);

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

interface StatusRule {
  kind: GeminiErrorKind;
  statusCode: number;
  type: string;
  retryable: boolean;
}

/** By upstream HTTP status; the rows of the table above other than credential failures. */
const RULES_BY_STATUS: ReadonlyMap<number, StatusRule> = new Map([
  [400, { kind: 'invalid_request', statusCode: 400, type: 'invalid_request_error', retryable: false }],
  [401, { kind: 'upstream_auth', statusCode: 502, type: 'upstream_auth_error', retryable: false }],
  [403, { kind: 'permission_denied', statusCode: 403, type: 'permission_error', retryable: false }],
  [404, { kind: 'not_found', statusCode: 404, type: 'not_found_error', retryable: false }],
  [408, { kind: 'timeout', statusCode: 504, type: 'api_error', retryable: true }],
  [413, { kind: 'payload_too_large', statusCode: 413, type: 'invalid_request_error', retryable: false }],
  [429, { kind: 'rate_limited', statusCode: 429, type: 'rate_limit_error', retryable: true }],
  [503, { kind: 'unavailable', statusCode: 503, type: 'api_error', retryable: true }],
  [504, { kind: 'timeout', statusCode: 504, type: 'api_error', retryable: true }],
]);

/** When a body carries no usable HTTP code (some in-stream errors), its canonical status decides. */
const HTTP_STATUS_BY_GOOGLE_STATUS: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNKNOWN: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/**
 * The `error` object of a Google error body, from parsed JSON or its text. Also accepts the
 * one-element array that non-SSE streamGenerateContent wraps errors in. Undefined if it is none.
 */
export function parseGoogleError(body: unknown): GoogleErrorBody['error'] | undefined {
  let value = body;
  if (typeof value === 'string' || value instanceof Uint8Array) {
    try {
      value = JSON.parse(typeof value === 'string' ? value : new TextDecoder().decode(value));
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) value = value[0];
  const error = (value as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as Record<string, unknown>;
  return {
    code: typeof record.code === 'number' ? record.code : 0,
    message: typeof record.message === 'string' ? record.message : '',
    ...(typeof record.status === 'string' ? { status: record.status } : {}),
    ...(Array.isArray(record.details) ? { details: record.details as GoogleErrorDetail[] } : {}),
  };
}

/** A protobuf Duration in JSON form (`"23s"`, `"34.4s"`) in seconds. */
export function parseRetryDelay(delay: unknown): number | undefined {
  if (typeof delay !== 'string' || !delay.endsWith('s')) return undefined;
  const seconds = Number(delay.slice(0, -1));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

function parseRetryAfterHeader(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * Classifies an upstream Gemini error. `httpStatus` is the response status (for an in-stream error,
 * pass the body's `error.code`); `headers` may hold the upstream `retry-after`.
 */
export function classifyGeminiError(
  httpStatus: number,
  body: unknown,
  headers: Readonly<Record<string, string | undefined>> = {},
): GeminiErrorClassification {
  const error = parseGoogleError(body);
  const details = error?.details ?? [];
  const reason = details.find((detail) => detail?.['@type'] === ERROR_INFO)?.reason;
  const retryDelay = parseRetryDelay(details.find((detail) => detail?.['@type'] === RETRY_INFO)?.retryDelay);
  const retryAfterSeconds = retryDelay ?? parseRetryAfterHeader(headers['retry-after']);

  let upstreamStatus = httpStatus;
  if (!(upstreamStatus >= 400)) {
    upstreamStatus = error?.code || HTTP_STATUS_BY_GOOGLE_STATUS[error?.status ?? ''] || 500;
  }

  const credentialRefused = reason !== undefined && CREDENTIAL_REASONS.has(reason);
  const rule: StatusRule = credentialRefused
    ? { kind: 'upstream_auth', statusCode: 502, type: 'upstream_auth_error', retryable: false }
    : (RULES_BY_STATUS.get(upstreamStatus) ??
      (upstreamStatus >= 500
        ? { kind: 'upstream_failure', statusCode: 502, type: 'api_error', retryable: true }
        : {
            kind: 'invalid_request',
            statusCode: upstreamStatus,
            type: 'invalid_request_error',
            retryable: false,
          }));

  const upstreamMessage = error?.message || `Gemini answered with HTTP ${upstreamStatus}`;
  const message =
    rule.kind === 'upstream_auth'
      ? `the upstream provider (gemini) refused the credential the gateway used: ${upstreamMessage}`
      : upstreamMessage;

  const classification: GeminiErrorClassification = { ...rule, message, upstreamStatus };
  if (error?.status !== undefined) classification.googleStatus = error.status;
  if (reason !== undefined) classification.reason = reason;
  if (retryAfterSeconds !== undefined && rule.retryable) classification.retryAfterSeconds = retryAfterSeconds;
  return classification;
}

/** The gateway error for a classification (Retry-After carried when known). */
export function convertGeminiClassification(classification: GeminiErrorClassification): GatewayError {
  const error = new UpstreamError(
    classification.statusCode,
    classification.upstreamStatus,
    classification.message,
    classification.type,
    classification.retryable,
  );
  if (classification.retryAfterSeconds !== undefined) {
    // UpstreamError takes no header options; its own header record is filled before anyone sees it.
    error.headers['retry-after'] = String(Math.max(1, Math.ceil(classification.retryAfterSeconds)));
  }
  return error;
}

/** Shorthand: the gateway error for an upstream Gemini error response. */
export function convertGeminiError(
  httpStatus: number,
  body: unknown,
  headers?: Readonly<Record<string, string | undefined>>,
): GatewayError {
  return convertGeminiClassification(classifyGeminiError(httpStatus, body, headers));
}
