/**
 * Settings of the stored Responses-API responses (GATEWAY_RESPONSES_*). Part of Settings
 * (settings.ts).
 */

/** The largest GATEWAY_RESPONSES_MAX_ENTRY_BYTES allowed (the stores refuse larger records). */
export const RESPONSES_MAX_ENTRY_BYTES_CEILING = 64 * 1024 * 1024;

/** OpenAI keeps stored responses 30 days; so does the gateway by default. */
export const DEFAULT_RESPONSES_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface ResponsesSettings {
  /**
   * How long a stored response is kept after the last turn of its conversation
   * (GATEWAY_RESPONSES_TTL_SECONDS, default 30 days).
   */
  ttlSeconds: number;
  /**
   * The most one stored response may take: its input items and its response object
   * (GATEWAY_RESPONSES_MAX_ENTRY_BYTES, default 4 MiB). A request whose input alone is larger is
   * refused unless it says `store: false`.
   */
  maxEntryBytes: number;
  /** Memory store only: total bytes of stored responses kept, least recently used dropped beyond (GATEWAY_RESPONSES_MEMORY_BYTES, default 64 MiB). */
  memoryBytes: number;
}

export function readResponsesSettings(
  readInt: (name: string, fallback: number, min: number, max: number) => number,
): ResponsesSettings {
  return Object.freeze({
    ttlSeconds: readInt(
      'GATEWAY_RESPONSES_TTL_SECONDS',
      DEFAULT_RESPONSES_TTL_SECONDS,
      60,
      366 * 24 * 60 * 60,
    ),
    maxEntryBytes: readInt(
      'GATEWAY_RESPONSES_MAX_ENTRY_BYTES',
      4 * 1024 * 1024,
      1024,
      RESPONSES_MAX_ENTRY_BYTES_CEILING,
    ),
    memoryBytes: readInt(
      'GATEWAY_RESPONSES_MEMORY_BYTES',
      64 * 1024 * 1024,
      1024 * 1024,
      64 * 1024 * 1024 * 1024,
    ),
  });
}
