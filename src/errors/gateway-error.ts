/**
 * One error tree for the whole service. Every error a client can see is a GatewayError with a
 * stable `code`, the HTTP `statusCode` it renders with, an OpenAI-style `type`, and whether a retry
 * could succeed. A single renderer (render-error.ts) turns it into the client's envelope.
 */
export interface GatewayErrorOptions {
  cause?: unknown;
  headers?: Record<string, string>;
}

export class GatewayError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly type: string;
  readonly retryable: boolean;
  /** Extra response headers the error must carry (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: string,
    statusCode: number,
    type: string,
    message: string,
    retryable = false,
    options: GatewayErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.statusCode = statusCode;
    this.type = type;
    this.retryable = retryable;
    this.headers = options.headers ?? {};
  }
}

/** 400: malformed JSON, a wrong shape, a bad header value. */
export class InvalidRequestError extends GatewayError {
  constructor(message: string, options?: GatewayErrorOptions) {
    super('invalid_request', 400, 'invalid_request_error', message, false, options);
  }
}

/** 413: a body over the configured limit. */
export class PayloadTooLargeError extends GatewayError {
  constructor(limitBytes: number) {
    super(
      'payload_too_large',
      413,
      'invalid_request_error',
      `request body is larger than the limit of ${limitBytes} bytes`,
    );
  }
}

/** 401: missing, malformed, unknown or expired credential (also: ephemeral tokens disabled). */
export class InvalidKeyError extends GatewayError {
  constructor(message = 'invalid API key or token') {
    super('service.invalid_key', 401, 'authentication_error', message);
  }
}

/** 401: credential revoked, directly or through a revoke-all on its parent key. */
export class RevokedKeyError extends GatewayError {
  constructor(message = 'this credential has been revoked') {
    super('service.revoked_key', 401, 'authentication_error', message);
  }
}

/** 403: the credential is valid but its scopes do not permit the route or the model. */
export class ScopeDeniedError extends GatewayError {
  constructor(message: string) {
    super('service.scope_denied', 403, 'permission_error', message);
  }
}

/** 403: the tenant (or its liable parent) is suspended by the platform. */
export class TenantSuspendedError extends GatewayError {
  constructor(message = 'this tenant is suspended; contact the platform to resume it') {
    super('service.tenant_suspended', 403, 'permission_error', message);
  }
}

/** 402: a spend cap (token budget, connection daily cap) is used up. */
export class CreditCapExceededError extends GatewayError {
  constructor(message: string) {
    super('service.credential_cap_exceeded', 402, 'insufficient_quota', message);
  }
}

/** 402: the tenant's prepaid platform balance is used up. */
export class InsufficientBalanceError extends GatewayError {
  constructor(message = 'the tenant balance is used up; top up to continue') {
    super('service.insufficient_balance', 402, 'insufficient_quota', message);
  }
}

/** 429: a rate limit; carries Retry-After in seconds. */
export class RateLimitedError extends GatewayError {
  constructor(message: string, retryAfterSeconds: number) {
    super('service.rate_limited', 429, 'rate_limit_error', message, true, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/** 400: the model name's provider prefix names no known provider. */
export class UnknownProviderError extends GatewayError {
  constructor(prefix: string) {
    super(
      'service.unknown_provider',
      400,
      'invalid_request_error',
      `unknown provider prefix '${prefix}' in the model name`,
    );
  }
}

/** 404: a Connection was required (strict BYOK) but none matches the slug. */
export class ConnectionNotFoundError extends GatewayError {
  constructor(slug: string) {
    super('service.connection_not_found', 404, 'not_found_error', `no connection with slug '${slug}'`);
  }
}

/**
 * 400: `previous_response_id` names no response this workspace keeps (unknown, deleted, expired,
 * stored with `store: false`, or another workspace's). OpenAI's own code, which SDK users branch on;
 * never an empty history in its place (reference/responses-api.md section 8).
 */
export class PreviousResponseNotFoundError extends GatewayError {
  constructor(id: string, message = `Previous response with id '${id}' not found.`) {
    super('previous_response_not_found', 400, 'invalid_request_error', message);
  }
}

/** 404: a stored response (GET, DELETE, input_items) this workspace does not keep. */
export class ResponseNotFoundError extends GatewayError {
  constructor(id: string) {
    super('service.response_not_found', 404, 'invalid_request_error', `Response with id '${id}' not found.`);
  }
}

/**
 * 503: the runtime store that keeps stored responses does not answer (a Redis outage): a request
 * that continues one cannot be served, rather than served without its history.
 */
export class StoredResponsesUnavailableError extends GatewayError {
  constructor(options?: GatewayErrorOptions) {
    super(
      'service.responses_unavailable',
      503,
      'api_error',
      'stored responses cannot be read right now: retry, or send the whole conversation as input with "store": false',
      true,
      options,
    );
  }
}

/** 502: the platform has no credential configured for this provider. */
export class ProviderUnavailableError extends GatewayError {
  constructor(provider: string) {
    super(
      'service.provider_unavailable',
      502,
      'api_error',
      `no platform credential is configured for provider '${provider}'`,
    );
  }
}

/** An upstream answered with an error status; the status is mapped by the caller. */
export class UpstreamError extends GatewayError {
  readonly upstreamStatus: number;
  constructor(statusCode: number, upstreamStatus: number, message: string, type: string, retryable: boolean) {
    super('service.upstream_error', statusCode, type, message, retryable);
    this.upstreamStatus = upstreamStatus;
  }
}

/**
 * 424: the upstream refused a Connection's own credential (its 401 or 403, or a refusal the
 * provider marks as the credential's: Gemini's API_KEY_INVALID, Bedrock's signature errors, a
 * service-account grant refused). The tenant's key is at fault, not the gateway: a 4xx, which SDKs
 * do not retry (a 502 made them send the bad key three times), naming the Connection by its slug.
 * The upstream's own message is left out: OpenAI's repeats part of the key.
 */
export class ConnectionRejectedError extends GatewayError {
  readonly upstreamStatus: number;
  /**
   * `denied`: the upstream took the credential but refused it this model or operation (a 403 that
   * is not a bad key); otherwise the credential itself was refused.
   */
  constructor(
    slug: string,
    provider: string,
    upstreamStatus: number,
    denied: boolean,
    options?: GatewayErrorOptions,
  ) {
    super(
      'service.connection_rejected',
      424,
      denied ? 'permission_error' : 'authentication_error',
      denied
        ? `provider '${provider}' denied connection '${slug}' this request (upstream status ${upstreamStatus}): its credential has no access to the model or operation`
        : `provider '${provider}' refused the credential of connection '${slug}' (upstream status ${upstreamStatus}): fix the credential in the Connection's Secret`,
      false,
      options,
    );
    this.upstreamStatus = upstreamStatus;
  }
}

/** 502: the upstream could not be reached (refused, reset, DNS). */
export class UpstreamUnreachableError extends GatewayError {
  constructor(provider: string, options?: GatewayErrorOptions) {
    super(
      'service.upstream_unreachable',
      502,
      'api_error',
      `could not reach provider '${provider}'`,
      true,
      options,
    );
  }
}

/**
 * 502: the upstream answered, then dropped the connection (or stalled the read) before its answer
 * was complete. Not "could not reach": the request got there, and may have been billed upstream.
 */
export class UpstreamDisconnectedError extends GatewayError {
  constructor(provider: string, options?: GatewayErrorOptions) {
    super(
      'service.upstream_disconnected',
      502,
      'api_error',
      `provider '${provider}' closed the connection before its answer was complete`,
      true,
      options,
    );
  }
}

/** 504: the upstream did not answer in time. */
export class UpstreamTimeoutError extends GatewayError {
  constructor(provider: string, options?: GatewayErrorOptions) {
    super(
      'service.upstream_timeout',
      504,
      'api_error',
      `provider '${provider}' did not answer in time`,
      true,
      options,
    );
  }
}

/**
 * 503: every target of the model route the request names has its circuit open on this pod (or
 * refused the request); `Retry-After` says when the soonest one is tried again.
 */
export class NoHealthyTargetError extends GatewayError {
  constructor(model: string, retryAfterSeconds: number) {
    super(
      'service.no_healthy_target',
      503,
      'overloaded_error',
      `no target of model route '${model}' is healthy right now; retry later`,
      true,
      { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } },
    );
  }
}

/** 500: a bug. The message shown to clients never includes internals. */
export class InternalError extends GatewayError {
  constructor(options?: GatewayErrorOptions) {
    super('internal_error', 500, 'api_error', 'internal error', true, options);
  }
}
