/**
 * Loose reading of upstream JSON: proxies validate loosely at their edge (STYLE rule 3), so
 * translators read fields off plain records and check each one's type where they use it.
 */

export type JsonRecord = Record<string, unknown>;

/** The value as a record if it is a non-null object (arrays included), else undefined. */
export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null ? (value as JsonRecord) : undefined;
}

/** An event's or body's JSON text as a record; undefined when it does not parse or is not an object. */
export function parseJsonRecord(text: string): JsonRecord | undefined {
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}
