/**
 * Bedrock errors -> gateway errors. An error answer is an HTTP status, a JSON `{message}` body and
 * the header `x-amzn-ErrorType: ThrottlingException:http://internal.amazon.com/...`; in a stream it
 * is an exception frame whose `:exception-type` is the same name in camelCase. Classification is
 * by that error type, then by status; never by message text (STYLE rule 5).
 *
 * Status mapping (reference/providers.md section 4 "Errors" and section 7):
 *
 * | Bedrock error type                                          | upstream | gateway | type                  | retry |
 * |-------------------------------------------------------------|----------|---------|-----------------------|-------|
 * | ValidationException                                         | 400      | 400     | invalid_request_error | no    |
 * | ServiceQuotaExceededException (a quota)                     | 400      | 429     | rate_limit_error      | yes   |
 * | AccessDeniedException (no rights to the model)              | 403      | 403     | permission_error      | no    |
 * | UnrecognizedClientException, InvalidSignatureException,     | 400/403  | 502     | upstream_auth_error   | no    |
 * |   ExpiredTokenException, IncompleteSignatureException,      |          |         |                       |       |
 * |   MissingAuthenticationTokenException (the key is bad)      |          |         |                       |       |
 * | ResourceNotFoundException                                   | 404      | 404     | not_found_error       | no    |
 * | ModelTimeoutException                                       | 408      | 504     | timeout_error         | yes   |
 * | ModelErrorException, ModelStreamErrorException              | 424      | 502     | api_error             | yes   |
 * | ThrottlingException, ModelNotReadyException                 | 429      | 429     | rate_limit_error      | yes   |
 * | InternalServerException                                     | 500      | 502     | api_error             | yes   |
 * | ServiceUnavailableException                                 | 503      | 503     | overloaded_error      | yes   |
 * | no or unknown type: by status (401 -> 502 auth, 5xx -> 502) |          |         |                       |       |
 *
 * The credential errors become 502, not the upstream's 403: the platform's (or the Connection's)
 * AWS keys were refused, not the caller's gateway key.
 */
import { UpstreamError } from '../../errors/gateway-error.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { renderChatStreamError } from '../openai-to-anthropic/errors.ts';
import { MAX_ERROR_MESSAGE_LENGTH } from '../shared/error-bodies.ts';

export interface BedrockErrorMapping {
  status: number;
  type: string;
  retryable: boolean;
}

const invalid: BedrockErrorMapping = { status: 400, type: 'invalid_request_error', retryable: false };
const badCredential: BedrockErrorMapping = { status: 502, type: 'upstream_auth_error', retryable: false };
const rateLimited: BedrockErrorMapping = { status: 429, type: 'rate_limit_error', retryable: true };
const upstreamFailure: BedrockErrorMapping = { status: 502, type: 'api_error', retryable: true };

/** Keyed by the error type in PascalCase (the HTTP spelling; stream exceptions are camelCase). */
const ERROR_TYPES: ReadonlyMap<string, BedrockErrorMapping> = new Map([
  ['ValidationException', invalid],
  ['ServiceQuotaExceededException', rateLimited],
  ['AccessDeniedException', { status: 403, type: 'permission_error', retryable: false }],
  ['UnrecognizedClientException', badCredential],
  ['InvalidSignatureException', badCredential],
  ['SignatureDoesNotMatch', badCredential],
  ['ExpiredTokenException', badCredential],
  ['IncompleteSignatureException', badCredential],
  ['MissingAuthenticationTokenException', badCredential],
  ['ResourceNotFoundException', { status: 404, type: 'not_found_error', retryable: false }],
  ['ModelTimeoutException', { status: 504, type: 'timeout_error', retryable: true }],
  ['ModelErrorException', upstreamFailure],
  ['ModelStreamErrorException', upstreamFailure],
  ['ThrottlingException', rateLimited],
  ['ModelNotReadyException', rateLimited],
  ['InternalServerException', upstreamFailure],
  ['ServiceUnavailableException', { status: 503, type: 'overloaded_error', retryable: true }],
]);

/** When the error type is missing or unknown. */
const STATUSES: ReadonlyMap<number, BedrockErrorMapping> = new Map([
  [400, invalid],
  [401, badCredential],
  [403, { status: 403, type: 'permission_error', retryable: false }],
  [404, { status: 404, type: 'not_found_error', retryable: false }],
  [408, { status: 504, type: 'timeout_error', retryable: true }],
  [413, { status: 413, type: 'invalid_request_error', retryable: false }],
  [429, rateLimited],
  [503, { status: 503, type: 'overloaded_error', retryable: true }],
]);

/**
 * `ThrottlingException:http://internal.amazon.com/coral/...` (header), `throttlingException`
 * (stream) or `com.amazon.coral.service#UnrecognizedClientException` (body `__type`) ->
 * `ThrottlingException`.
 */
export function normalizeBedrockErrorType(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let name = raw.trim();
  const colon = name.indexOf(':');
  if (colon >= 0) name = name.slice(0, colon);
  const hash = name.lastIndexOf('#');
  if (hash >= 0) name = name.slice(hash + 1);
  if (name === '') return undefined;
  return name[0]!.toUpperCase() + name.slice(1);
}

export function mapBedrockError(errorType: string | undefined, status: number): BedrockErrorMapping {
  const byType = errorType === undefined ? undefined : ERROR_TYPES.get(errorType);
  if (byType !== undefined) return byType;
  const byStatus = STATUSES.get(status);
  if (byStatus !== undefined) return byStatus;
  return status >= 500 ? upstreamFailure : invalid;
}

function parseBody(body: string): { message?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const record = parsed as Record<string, unknown>;
    const message = [record.message, record.Message].find((value) => typeof value === 'string') as
      | string
      | undefined;
    return {
      ...(message === undefined ? {} : { message }),
      ...(typeof record.__type === 'string' ? { type: record.__type } : {}),
    };
  } catch {
    const text = body.trim();
    return text === '' ? {} : { message: text };
  }
}

export interface BedrockErrorAnswer {
  /** The provider name as the client knows it (for the message). */
  provider: string;
  status: number;
  body: string;
  /** `x-amzn-ErrorType`, when the answer had one. */
  errorType?: string | undefined;
  retryAfter?: string | undefined;
}

/** A Bedrock error answer -> the gateway error the client sees. */
export function convertBedrockError(answer: BedrockErrorAnswer): UpstreamError {
  const parsed = parseBody(answer.body);
  const errorType = normalizeBedrockErrorType(answer.errorType ?? parsed.type);
  const mapping = mapBedrockError(errorType, answer.status);
  const message = (parsed.message ?? 'no message').slice(0, MAX_ERROR_MESSAGE_LENGTH);
  const error = new UpstreamError(
    mapping.status,
    answer.status,
    `provider '${answer.provider}' answered ${answer.status}${errorType === undefined ? '' : ` (${errorType})`}: ${message}`,
    mapping.type,
    mapping.retryable,
  );
  const retryAfter = answer.retryAfter?.trim();
  if (retryAfter !== undefined && /^\d{1,6}$/.test(retryAfter)) error.headers['retry-after'] = retryAfter;
  return error;
}

/** An exception frame in a stream -> the OpenAI in-stream error chunk (the stream then closes without [DONE]). */
export function renderConverseStreamException(exceptionType: string, payload: string): SseEvent {
  const errorType = normalizeBedrockErrorType(exceptionType);
  const { message } = parseBody(payload);
  return renderChatStreamError({
    message: `${errorType ?? 'exception'}: ${(message ?? 'no message').slice(0, MAX_ERROR_MESSAGE_LENGTH)}`,
    type: mapBedrockError(errorType, 500).type,
  });
}
