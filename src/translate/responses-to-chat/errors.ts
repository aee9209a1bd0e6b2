/**
 * Failures in the Responses shape (reference/responses-api.md section 6). Before the first byte an
 * error is the gateway's ordinary OpenAI envelope, so only failures after the stream began are
 * this module's: the upstream's in-stream error chunk read into the `{code, message}` of the
 * `error` event and of `response.failed`'s `response.error`. Classified by the structured `code`
 * and `type` fields, never the message text.
 */
import { MAX_ERROR_MESSAGE_LENGTH } from '../shared/error-bodies.ts';
import { asRecord, type JsonRecord } from '../shared/json-record.ts';

/** What a failed response reports: a Responses error code and a message. */
export interface ResponsesFailure {
  code: string;
  message: string;
}

/** Chat error types (and the gateway's own) -> the Responses API's error codes. */
const TYPE_CODES: ReadonlyMap<string, string> = new Map([
  ['rate_limit_error', 'rate_limit_exceeded'],
  ['insufficient_quota', 'insufficient_quota'],
  ['invalid_request_error', 'invalid_prompt'],
  ['timeout_error', 'server_error'],
  ['overloaded_error', 'server_error'],
  ['api_error', 'server_error'],
  ['server_error', 'server_error'],
]);

/** A failure's code from an OpenAI-style error's `code` (a string) or else its `type`. */
export function responsesCodeOf(code: unknown, type: unknown): string {
  if (typeof code === 'string' && code !== '') return code;
  return (typeof type === 'string' ? TYPE_CODES.get(type) : undefined) ?? 'server_error';
}

/** The in-stream `{"error": {...}}` chunk of a chat stream (or a bare error object). Never throws. */
export function readChatStreamError(chunk: JsonRecord): ResponsesFailure {
  const error = asRecord(chunk.error) ?? chunk;
  const message =
    typeof error.message === 'string'
      ? error.message.slice(0, MAX_ERROR_MESSAGE_LENGTH)
      : typeof chunk.error === 'string'
        ? chunk.error.slice(0, MAX_ERROR_MESSAGE_LENGTH)
        : 'the upstream stream failed';
  return { code: responsesCodeOf(error.code, error.type), message };
}
