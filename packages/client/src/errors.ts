/**
 * The errors this package throws. The gateway answers every error with one envelope,
 * `{"error": {"code", "message", "type"}}` (on `/v1/messages` also `"type": "error"` at the top),
 * which becomes a {@link GatewayError}; options this package can check itself are refused with a
 * {@link GatewayValidationError} before any request is sent.
 */
import type { HeadersLike } from './http.ts';
import type { RoutingInfo } from './routing.ts';

/** An option refused before any request was sent (a bad tag, TTL, threshold, slug, ...). */
export class GatewayValidationError extends Error {
  /** The option at fault, as a path: `cache.tags[2]`, `cache.ttlSeconds`, `connection`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.name = 'GatewayValidationError';
    this.option = option;
  }
}

/** What a {@link GatewayError} is made of. */
export interface GatewayErrorInit {
  status: number;
  code: string;
  message: string;
  type?: string | undefined;
  headers?: HeadersLike | undefined;
  routing?: RoutingInfo | undefined;
  body?: unknown;
  cause?: unknown;
}

/**
 * An error answer of the gateway: its HTTP status, the gateway's stable error `code`
 * (`service.invalid_key`, `service.scope_denied`, `invalid_request`, `service.upstream_error`, ...;
 * the gateway's README lists them), its message and its type. A body that is not the gateway's
 * envelope (a proxy's error page) gives the code `http_<status>`.
 *
 * Network failures are not GatewayErrors: they are what the underlying fetch throws.
 */
export class GatewayError extends Error {
  /** The HTTP status of the response. */
  readonly status: number;
  /** The gateway's error code. */
  readonly code: string;
  /** The error type of the envelope (`authentication_error`, `invalid_request_error`, ...). */
  readonly type: string | undefined;
  /** The response's headers. */
  readonly headers: HeadersLike | undefined;
  /** Who was to serve, when the gateway had routed the request before it failed. */
  readonly routing: RoutingInfo | undefined;
  /** `Retry-After` in seconds, on 429 and 503 answers that carry it. */
  readonly retryAfterSeconds: number | undefined;
  /** The parsed error body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(init: GatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GatewayError';
    this.status = init.status;
    this.code = init.code;
    this.type = init.type;
    this.headers = init.headers;
    this.routing = init.routing;
    this.body = init.body;
    const retryAfter = init.headers?.get('retry-after')?.trim();
    this.retryAfterSeconds =
      retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  }
}

/**
 * An error event that ended a stream after it began (`data: {"error": ...}` on chat completions,
 * `event: error` on messages). `status` is the stream's HTTP status (200); `code` says what failed.
 */
export class GatewayStreamError extends GatewayError {
  constructor(init: GatewayErrorInit) {
    super(init);
    this.name = 'GatewayStreamError';
  }
}

/** The inner object of the gateway's error envelope. */
export interface ErrorEnvelopeInner {
  code?: string;
  message?: string;
  type?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `error` object of an envelope (`{error: {...}}` or `{type: 'error', error: {...}}`), if any. */
export function readErrorEnvelope(body: unknown): ErrorEnvelopeInner | undefined {
  if (!isRecord(body)) return undefined;
  const inner = body.error;
  if (typeof inner === 'string') return { message: inner };
  if (!isRecord(inner)) return undefined;
  const envelope: ErrorEnvelopeInner = {};
  if (typeof inner.code === 'string') envelope.code = inner.code;
  if (typeof inner.message === 'string') envelope.message = inner.message;
  if (typeof inner.type === 'string') envelope.type = inner.type;
  return envelope;
}

/** The error for an answer of `status` whose body is `body` (parsed JSON, or text). */
export function errorFromBody(
  status: number,
  body: unknown,
  context: { headers?: HeadersLike; routing?: RoutingInfo | undefined; stream?: boolean } = {},
): GatewayError {
  const envelope = readErrorEnvelope(body);
  const text = typeof body === 'string' ? body.trim().slice(0, 500) : '';
  const init: GatewayErrorInit = {
    status,
    code: envelope?.code ?? (context.stream === true ? 'stream_error' : `http_${status}`),
    message: envelope?.message ?? (text === '' ? `the gateway answered HTTP ${status}` : text),
    type: envelope?.type,
    headers: context.headers,
    routing: context.routing,
    body,
  };
  return context.stream === true ? new GatewayStreamError(init) : new GatewayError(init);
}
