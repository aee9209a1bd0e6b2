/**
 * OpenAI-shaped error bodies (of any status, and the in-stream `{"error":{...}}` chunk) -> message
 * and type for the Anthropic envelope on `/v1/messages`. Classified by the structured `code` and
 * `type` fields, never the message text; the status mapping (reference/providers.md section 7) is
 * the gateway's, in upstream/error-mapping.ts.
 */
import { type AnthropicErrorType, anthropicErrorTypeOfStatus } from '../../shapes/anthropic.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { MAX_ERROR_MESSAGE_LENGTH, readErrorBody } from '../shared/error-bodies.ts';
import { asRecord } from '../shared/json-record.ts';
import type { UpstreamErrorDetail } from '../types.ts';

/** OpenAI `error.code` values that decide the type on their own (reference section 1, "Errors"). */
const CODE_TYPES: ReadonlyMap<string, AnthropicErrorType> = new Map([
  ['invalid_api_key', 'authentication_error'],
  ['model_not_found', 'not_found_error'],
  ['rate_limit_exceeded', 'rate_limit_error'],
  ['insufficient_quota', 'billing_error'],
  ['context_length_exceeded', 'invalid_request_error'],
]);

/** OpenAI (and compatible upstreams') `error.type` -> Anthropic error type (reference section 2, "Errors"). */
const TYPE_TYPES: ReadonlyMap<string, AnthropicErrorType> = new Map([
  ['invalid_request_error', 'invalid_request_error'],
  ['authentication_error', 'authentication_error'],
  ['permission_error', 'permission_error'],
  ['not_found_error', 'not_found_error'],
  ['rate_limit_error', 'rate_limit_error'],
  ['insufficient_quota', 'billing_error'],
  ['server_error', 'api_error'],
  ['api_error', 'api_error'],
  ['timeout_error', 'timeout_error'],
  ['overloaded_error', 'overloaded_error'],
]);

function classify(code: unknown, type: unknown): AnthropicErrorType {
  if (typeof code === 'string' && CODE_TYPES.has(code)) return CODE_TYPES.get(code)!;
  if (typeof type === 'string' && TYPE_TYPES.has(type)) return TYPE_TYPES.get(type)!;
  // Numeric `code`s: vLLM and other compatible servers put the HTTP status there.
  if (typeof code === 'number') return anthropicErrorTypeOfStatus(code);
  return 'api_error';
}

/**
 * Accepts the raw body text or the parsed value; never throws. Knows `{error:{...}}`, the bare
 * `{message, type, code}` of vLLM-style servers and the one-element array of Google's compatible surface.
 */
export function mapChatErrorToAnthropic(body: unknown): UpstreamErrorDetail {
  const read = readErrorBody(body);
  if ('plainText' in read) return read.plainText;
  let parsed = read.parsed;
  if (Array.isArray(parsed)) parsed = parsed[0];
  const record = asRecord(parsed);
  const error = asRecord(record?.error) ?? record;
  const message =
    typeof error?.message === 'string'
      ? error.message.slice(0, MAX_ERROR_MESSAGE_LENGTH)
      : typeof record?.error === 'string'
        ? record.error.slice(0, MAX_ERROR_MESSAGE_LENGTH)
        : 'no message';
  return { message, type: classify(error?.code, error?.type) };
}

/** The Anthropic in-stream error: `event: error` with the error body; the stream ends there. */
export function renderAnthropicStreamError(detail: UpstreamErrorDetail): SseEvent {
  return {
    event: 'error',
    data: JSON.stringify({ type: 'error', error: { type: detail.type, message: detail.message } }),
  };
}
