/**
 * Stored Responses-API responses (`POST /v1/responses` with `store`, the default): the record the
 * gateway keeps per response, its checks, and the checks both runtime stores share, so that memory
 * and Redis refuse the same inputs. The records are opaque JSON to the stores; this file is their
 * contract, versioned like every other store record.
 *
 * A record is kept per workspace (its `scope`, `<tenant>/<workspace>`): a response is never read,
 * listed, continued or deleted from another workspace. A conversation is a chain of records, each
 * naming the earlier responses of its chain (`ancestors`), so that continuing it reads the whole
 * chain in one round trip, and storing a turn keeps every earlier turn alive as long as the newest.
 */

/** The most a stored record may take, whatever the settings say (GATEWAY_RESPONSES_MAX_ENTRY_BYTES). */
export const STORED_RESPONSE_MAX_BYTES_CEILING = 64 * 1024 * 1024;

/** The most earlier responses a chain may hold (each turn of a conversation is one). */
export const STORED_RESPONSE_MAX_ANCESTORS = 10_000;

/** A response the gateway produced by translation: what GET, input_items and continuations read. */
export interface TranslatedResponseRecord {
  v: 1;
  kind: 'translated';
  /** `resp_...`. */
  id: string;
  /** Unix ms. */
  createdAtMs: number;
  /** The model string the client named (`anthropic/claude-...`): what a token's model: scopes are checked against. */
  model: string;
  /** The earlier responses of its conversation, oldest first (previous_response_id's chain, and it last). */
  ancestors: string[];
  /** This request's input items, each with an id (minted where the client sent none). */
  input: Array<Record<string, unknown>>;
  /** The response object as the client got it, output and usage included. */
  response: Record<string, unknown>;
}

/**
 * A response that OpenAI itself keeps (a pass-through to an OpenAI-style upstream that serves the
 * Responses API): only which workspace created it and where, so that its GET, DELETE and
 * continuations go to that upstream for that workspace alone.
 */
export interface UpstreamResponseRecord {
  v: 1;
  kind: 'upstream';
  id: string;
  createdAtMs: number;
  /** The model string the client named (`openai/gpt-4.1`, `@slug/gpt-4.1`): routes GET and DELETE alike. */
  model: string;
}

export type StoredResponseRecord = TranslatedResponseRecord | UpstreamResponseRecord;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A record read back; undefined for one that is not a record of this version (skipped as absent). */
export function parseStoredResponseRecord(text: string | undefined): StoredResponseRecord | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.v !== 1 || typeof value.id !== 'string') return undefined;
  if (value.kind === 'upstream')
    return typeof value.model === 'string' ? (value as unknown as UpstreamResponseRecord) : undefined;
  if (value.kind !== 'translated') return undefined;
  return typeof value.model === 'string' &&
    Array.isArray(value.ancestors) &&
    Array.isArray(value.input) &&
    isObject(value.response)
    ? (value as unknown as TranslatedResponseRecord)
    : undefined;
}

function assertNonEmpty(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
}

export function assertStoredResponseRead(scope: string, ids: readonly string[]): void {
  assertNonEmpty('scope', scope);
  if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
  for (const id of ids) assertNonEmpty('id', id);
}

export function assertStoredResponseWrite(
  scope: string,
  id: string,
  record: string,
  ttlMs: number,
  keepAlive: readonly string[],
): void {
  assertNonEmpty('scope', scope);
  assertNonEmpty('id', id);
  if (typeof record !== 'string') throw new TypeError('record must be a string');
  if (Buffer.byteLength(record, 'utf8') > STORED_RESPONSE_MAX_BYTES_CEILING)
    throw new TypeError(`record must be at most ${STORED_RESPONSE_MAX_BYTES_CEILING} bytes`);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new TypeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  if (!Array.isArray(keepAlive) || keepAlive.length > STORED_RESPONSE_MAX_ANCESTORS)
    throw new TypeError(`keepAlive must be an array of at most ${STORED_RESPONSE_MAX_ANCESTORS} ids`);
  for (const other of keepAlive) assertNonEmpty('keepAlive id', other);
}
