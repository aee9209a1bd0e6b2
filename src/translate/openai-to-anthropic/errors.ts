/**
 * Anthropic error bodies (`{type:"error", error:{type, message}, request_id}`, of any status and as
 * the in-stream `error` event) -> message and type for the OpenAI envelope. The status mapping
 * (reference/providers.md section 7) is the gateway's, in upstream/error-mapping.ts.
 */
import type { SseEvent } from '../../sse/sse-events.ts';
import { MAX_ERROR_MESSAGE_LENGTH, readErrorBody } from '../shared/error-bodies.ts';
import { asRecord } from '../shared/json-record.ts';
import type { UpstreamErrorDetail } from '../types.ts';

/**
 * Anthropic error type -> the gateway's error type on chat completions (reference section 2,
 * "Errors"). Most types are shared; the rest fold into the nearest one.
 */
const ERROR_TYPES: ReadonlyMap<string, string> = new Map([
  ['invalid_request_error', 'invalid_request_error'],
  ['request_too_large', 'invalid_request_error'],
  ['authentication_error', 'authentication_error'],
  ['permission_error', 'permission_error'],
  ['not_found_error', 'not_found_error'],
  ['rate_limit_error', 'rate_limit_error'],
  ['billing_error', 'insufficient_quota'],
  ['timeout_error', 'timeout_error'],
  ['api_error', 'api_error'],
  ['overloaded_error', 'overloaded_error'],
]);

/** The code in-stream error chunks carry, the same as the gateway's UpstreamError. */
const STREAM_ERROR_CODE = 'service.upstream_error';

/** Accepts the raw body text or the parsed value; never throws. */
export function mapAnthropicErrorToChat(body: unknown): UpstreamErrorDetail {
  const read = readErrorBody(body);
  if ('plainText' in read) return read.plainText;
  const error = asRecord(asRecord(read.parsed)?.error);
  const message =
    typeof error?.message === 'string' ? error.message.slice(0, MAX_ERROR_MESSAGE_LENGTH) : 'no message';
  const type = typeof error?.type === 'string' ? (ERROR_TYPES.get(error.type) ?? 'api_error') : 'api_error';
  return { message, type };
}

/** The de-facto OpenAI in-stream error: `data: {"error":{...}}`, after which the stream closes without [DONE]. */
export function renderChatStreamError(detail: UpstreamErrorDetail): SseEvent {
  return {
    data: JSON.stringify({ error: { code: STREAM_ERROR_CODE, message: detail.message, type: detail.type } }),
  };
}
