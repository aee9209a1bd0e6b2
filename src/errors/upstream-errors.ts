/**
 * Upstream error responses -> the gateway's errors. Classification is by HTTP status and
 * structured fields, never by searching message text (STYLE rule 5). Follows the mapping table of
 * reference/providers.md section 7.
 */
import { ConnectionRejectedError, UpstreamError } from './gateway-error.ts';

interface StatusMapping {
  status: number;
  type: string;
  retryable: boolean;
}

/**
 * Upstream status -> gateway status. Upstream 401 is the platform's key, not the caller's; on a
 * Connection, 401 and 403 are the tenant's own key (attributeToConnection below).
 */
const STATUS_TABLE: ReadonlyMap<number, StatusMapping> = new Map([
  [400, { status: 400, type: 'invalid_request_error', retryable: false }],
  [401, { status: 502, type: 'upstream_auth_error', retryable: false }],
  [403, { status: 403, type: 'permission_error', retryable: false }],
  [404, { status: 404, type: 'not_found_error', retryable: false }],
  [408, { status: 504, type: 'timeout_error', retryable: true }],
  [413, { status: 413, type: 'invalid_request_error', retryable: false }],
  [422, { status: 400, type: 'invalid_request_error', retryable: false }],
  [429, { status: 429, type: 'rate_limit_error', retryable: true }],
  [500, { status: 502, type: 'api_error', retryable: true }],
  [502, { status: 502, type: 'api_error', retryable: true }],
  [503, { status: 503, type: 'overloaded_error', retryable: true }],
  [504, { status: 504, type: 'timeout_error', retryable: true }],
  // Anthropic's "overloaded": clients do not know 529.
  [529, { status: 503, type: 'overloaded_error', retryable: true }],
]);

function mappingFor(status: number): StatusMapping {
  const exact = STATUS_TABLE.get(status);
  if (exact) return exact;
  if (status >= 500) return { status: 502, type: 'api_error', retryable: true };
  return { status: 400, type: 'invalid_request_error', retryable: false };
}

const MAX_MESSAGE_LENGTH = 1000;

/** Pulls the upstream's own message out of OpenAI, Anthropic, Google and plain bodies. */
export function extractUpstreamMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text ? text.slice(0, MAX_MESSAGE_LENGTH) : undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === 'string') return message.slice(0, MAX_MESSAGE_LENGTH);
  }
  if (typeof error === 'string') return error.slice(0, MAX_MESSAGE_LENGTH);
  for (const field of ['message', 'detail']) {
    if (typeof record[field] === 'string') return (record[field] as string).slice(0, MAX_MESSAGE_LENGTH);
  }
  return undefined;
}

export function mapUpstreamError(
  provider: string,
  upstreamStatus: number,
  body: string,
  retryAfter: string | undefined,
): UpstreamError {
  const mapping = mappingFor(upstreamStatus);
  const upstreamMessage = extractUpstreamMessage(body) ?? 'no message';
  const error = new UpstreamError(
    mapping.status,
    upstreamStatus,
    `provider '${provider}' answered ${upstreamStatus}: ${upstreamMessage}`,
    mapping.type,
    mapping.retryable,
  );
  if (retryAfter !== undefined && /^\d{1,6}$/.test(retryAfter.trim()))
    error.headers['retry-after'] = retryAfter.trim();
  return error;
}

/**
 * An upstream error as the caller of a Connection sees it: a refusal of the credential (upstream
 * 401 or 403, or what a provider's own table classifies as one, type `upstream_auth_error`) is the
 * Connection's key at fault, ConnectionRejectedError; anything else is returned as it is.
 */
export function attributeToConnection(error: unknown, provider: string, slug: string): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const status = error.upstreamStatus;
  const badCredential = error.type === 'upstream_auth_error' || status === 401;
  if (!badCredential && status !== 403) return error;
  return new ConnectionRejectedError(slug, provider, status, !badCredential, { cause: error });
}
