/**
 * The SDK's exceptions. Every failure of a call is an `AdminError`:
 *
 * - `AdminApiError`: the control plane answered and refused. GraphQL errors carry their
 *   `extensions.code` as `code` (and the `path` of the field); the REST endpoints'
 *   `{"error": {"code", "message", "fields"}}` envelope gives `code` and `fields`.
 * - `AdminTransportError`: no usable answer: the network failed, the call timed out or was aborted,
 *   or something that is not the control plane answered (an HTML error page of a proxy).
 *
 * Messages are the server's (which never repeat a secret) or the SDK's own; neither carries a
 * token, a key or a request body.
 */

/** Codes the control plane sends (GraphQL `extensions.code` and the REST envelope's `code`). */
export const ADMIN_ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'TENANT_SUSPENDED',
  'CONFLICT',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
  'BAD_REQUEST',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'INTERNAL_SERVER_ERROR',
] as const;

/** A code the control plane is known to send. */
export type KnownAdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/** `extensions.code` or the REST `code`: a known one, or any other string a newer server sends. */
export type AdminErrorCode = KnownAdminErrorCode | (string & {});

/** Codes of transport failures (no answer from the control plane that the SDK could read). */
export type TransportErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'ABORTED' | 'UNEXPECTED_RESPONSE';

/** The code the SDK uses when an error entry carries no `extensions.code`. */
export const UNKNOWN_ERROR_CODE = 'UNKNOWN';

/** One entry of a GraphQL answer's `errors`. */
export interface GraphQLErrorEntry {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

/** Base class of every error the SDK throws. */
export class AdminError extends Error {
  /** A stable, machine-readable code (see `AdminApiError` and `AdminTransportError`). */
  readonly code: string;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The operation that failed: a GraphQL operation name, or `POST /provision/tenant`. */
  readonly operation: string;

  constructor(
    message: string,
    details: { code: string; status?: number | undefined; operation: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AdminError';
    this.code = details.code;
    this.status = details.status;
    this.operation = details.operation;
  }

  /**
   * Whether trying again later may succeed (rate limits, server faults, network failures). A hint
   * only: a mutation that failed in transit may have been applied.
   */
  get retryable(): boolean {
    return false;
  }
}

/** The control plane refused the call: GraphQL `errors`, or a REST error envelope. */
export class AdminApiError extends AdminError {
  declare readonly code: AdminErrorCode;
  declare readonly status: number;
  /** Where the first GraphQL error occurred (`['mintEphemeralToken']`); absent for request-level and REST errors. */
  readonly path: readonly (string | number)[] | undefined;
  /** REST validation failures: the body fields at fault (`['name', 'email']`). */
  readonly fields: readonly string[] | undefined;
  /** Seconds the server asked to wait (`Retry-After`, on 429). */
  readonly retryAfterSeconds: number | undefined;
  /** Every GraphQL error of the answer, in order (a REST error gives one entry). */
  readonly errors: readonly GraphQLErrorEntry[];

  constructor(details: {
    operation: string;
    status: number;
    errors: readonly GraphQLErrorEntry[];
    fields?: readonly string[] | undefined;
    retryAfterSeconds?: number | undefined;
  }) {
    const first = details.errors[0] ?? { message: 'the control plane reported an error' };
    const more = details.errors.length > 1 ? ` (and ${details.errors.length - 1} more)` : '';
    super(`${details.operation}: ${first.message}${more}`, {
      code: first.extensions?.code ?? UNKNOWN_ERROR_CODE,
      status: details.status,
      operation: details.operation,
    });
    this.name = 'AdminApiError';
    this.path = first.path;
    this.fields = details.fields;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.errors = details.errors;
  }

  override get retryable(): boolean {
    return this.code === 'RATE_LIMITED' || this.code === 'INTERNAL_SERVER_ERROR' || this.status >= 500;
  }
}

/** No usable answer: network failure, timeout, abort, or an answer that is not the control plane's. */
export class AdminTransportError extends AdminError {
  declare readonly code: TransportErrorCode;

  constructor(
    message: string,
    details: { code: TransportErrorCode; status?: number | undefined; operation: string },
    options?: ErrorOptions,
  ) {
    super(message, details, options);
    this.name = 'AdminTransportError';
  }

  override get retryable(): boolean {
    if (this.code === 'NETWORK_ERROR' || this.code === 'TIMEOUT') return true;
    return this.code === 'UNEXPECTED_RESPONSE' && this.status !== undefined && this.status >= 500;
  }
}

/** Whether a value is an `AdminApiError` with this code (`isAdminApiError(error, 'NOT_FOUND')`). */
export function isAdminApiError(error: unknown, code?: AdminErrorCode): error is AdminApiError {
  return error instanceof AdminApiError && (code === undefined || error.code === code);
}
