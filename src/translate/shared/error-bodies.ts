/**
 * Reading upstream error bodies, which arrive as text (an HTTP answer) or already parsed (an
 * in-stream error event), and are not always JSON (a proxy's HTML page, plain text).
 */
import type { UpstreamErrorDetail } from '../types.ts';

/** Upstream messages are cut to this length: enough to act on, never a whole HTML page. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;

/**
 * The parsed body; or, for text that is not JSON, the detail that text makes on its own (its
 * trimmed, cut text as an `api_error`). Never throws.
 */
export function readErrorBody(body: unknown): { parsed: unknown } | { plainText: UpstreamErrorDetail } {
  if (typeof body !== 'string') return { parsed: body };
  try {
    return { parsed: JSON.parse(body) };
  } catch {
    const text = body.trim();
    return {
      plainText: {
        message: text ? text.slice(0, MAX_ERROR_MESSAGE_LENGTH) : 'no message',
        type: 'api_error',
      },
    };
  }
}
