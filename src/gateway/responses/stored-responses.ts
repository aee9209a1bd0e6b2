/**
 * Stored responses of `/v1/responses` (reference/responses-api.md sections 5 and 8), over the
 * runtime store's records (stores/response-records.ts): what a request continues from
 * (`previous_response_id`, `item_reference`), what is kept of its answer, and what GET, DELETE and
 * `input_items` read. Everything is per workspace: the store is keyed by the workspace's scope, so
 * another workspace's id reads as unknown (a 404, or 400 `previous_response_not_found`).
 *
 * A conversation is a chain: each record names its earlier responses (`ancestors`), so continuing
 * reads the previous record, then all of its chain in one more call; storing a turn renews the
 * chain's life. A chain missing a link (deleted, expired, evicted) is refused, never continued with
 * part of its history (reference section 7.4: context silently lost is the peers' worst bug).
 */
import { cacheScopeId } from '../../cache/cache-key.ts';
import {
  GatewayError,
  InvalidRequestError,
  PreviousResponseNotFoundError,
  StoredResponsesUnavailableError,
} from '../../errors/gateway-error.ts';
import {
  parseStoredResponseRecord,
  type StoredResponseRecord,
  type TranslatedResponseRecord,
  type UpstreamResponseRecord,
} from '../../stores/response-records.ts';
import type { RuntimeStoredResponses } from '../../stores/types.ts';
import { responseIdOfItem } from '../../translate/responses-to-chat/index.ts';

type Item = Record<string, unknown>;

export interface StoredResponsesSettings {
  ttlSeconds: number;
  maxEntryBytes: number;
}

/** The scope a workspace's stored responses live under (the cache's: `<tenant>/<workspace>`). */
export const responsesScopeOf = (principal: { tenantId: string; workspaceId: string }): string =>
  cacheScopeId(principal.tenantId, principal.workspaceId);

/** What the store says of one request before it is planned. */
export interface Conversation {
  /** The items before this request's input; undefined unless a stored translated response is continued. */
  history: Item[] | undefined;
  /** The chain a record of this request names: the previous response's own chain, then it. */
  ancestors: string[];
  /** Set when the previous response is one OpenAI keeps (a pass-through): only a pass-through continues it. */
  keptUpstream: UpstreamResponseRecord | undefined;
  /** The request's input, `item_reference`s to the gateway's items replaced by those items. */
  input: unknown;
}

const isObject = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An item_reference to an item the gateway minted (other ids are OpenAI's, passed on). */
const gatewayReference = (item: unknown): string | undefined =>
  isObject(item) && item.type === 'item_reference' && typeof item.id === 'string'
    ? responseIdOfItem(item.id)
    : undefined;

const outputOf = (record: TranslatedResponseRecord): Item[] =>
  Array.isArray(record.response.output) ? (record.response.output as Item[]) : [];

/** Every item of a record: its input, then its output. */
const itemsOf = (record: TranslatedResponseRecord): Item[] => [...record.input, ...outputOf(record)];

async function readRecords(
  store: Pick<RuntimeStoredResponses, 'getStoredResponses'>,
  scope: string,
  ids: readonly string[],
): Promise<Array<StoredResponseRecord | undefined>> {
  if (ids.length === 0) return [];
  let texts: Array<string | undefined>;
  try {
    texts = await store.getStoredResponses(scope, ids);
  } catch (error) {
    // The store's own failures (a Redis outage): the request cannot be served without its history.
    if (error instanceof GatewayError || error instanceof TypeError) throw error;
    throw new StoredResponsesUnavailableError({ cause: error });
  }
  return texts.map((text, index) => {
    const record = parseStoredResponseRecord(text);
    // A record under another id (never written so) is as good as absent.
    return record?.id === ids[index] ? record : undefined;
  });
}

/**
 * The chain of a translated record, oldest first and it last; throws PreviousResponseNotFoundError
 * naming the first link gone.
 */
async function readChain(
  store: Pick<RuntimeStoredResponses, 'getStoredResponses'>,
  scope: string,
  record: TranslatedResponseRecord,
): Promise<TranslatedResponseRecord[]> {
  const earlier = await readRecords(store, scope, record.ancestors);
  return [
    ...earlier.map((link, index) => {
      if (link?.kind !== 'translated') {
        const id = record.ancestors[index] as string;
        throw new PreviousResponseNotFoundError(
          record.id,
          `Response '${id}', an earlier turn of the conversation of '${record.id}', is no longer stored: the conversation cannot be continued.`,
        );
      }
      return link;
    }),
    record,
  ];
}

/**
 * Reads what the request continues from: one store call for the previous response and the
 * responses its item_references point into, one more for the previous response's chain.
 */
export async function resolveConversation(
  store: Pick<RuntimeStoredResponses, 'getStoredResponses'>,
  scope: string,
  body: Item,
): Promise<Conversation> {
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const input = body.input;
  const referenced = Array.isArray(input) ? input.map(gatewayReference).filter((id) => id !== undefined) : [];
  const ids = [...new Set(previous === undefined ? referenced : [previous, ...referenced])];
  const conversation: Conversation = { history: undefined, ancestors: [], keptUpstream: undefined, input };
  if (ids.length === 0) return conversation;
  const records = await readRecords(store, scope, ids);
  const known = new Map<string, TranslatedResponseRecord>();
  for (const record of records) if (record?.kind === 'translated') known.set(record.id, record);
  if (previous !== undefined) {
    const record = records[0];
    if (record === undefined) throw new PreviousResponseNotFoundError(previous);
    if (record.kind === 'upstream') conversation.keptUpstream = record;
    else {
      const chain = await readChain(store, scope, record);
      conversation.history = chain.flatMap(itemsOf);
      conversation.ancestors = [...record.ancestors, record.id];
    }
  }
  if (referenced.length > 0)
    conversation.input = (input as unknown[]).map((item) => resolveReference(item, known));
  return conversation;
}

function resolveReference(item: unknown, records: ReadonlyMap<string, TranslatedResponseRecord>): unknown {
  const responseId = gatewayReference(item);
  if (responseId === undefined) return item;
  const id = (item as Item).id as string;
  const record = records.get(responseId);
  const found = record === undefined ? undefined : itemsOf(record).find((candidate) => candidate.id === id);
  if (found === undefined)
    throw new InvalidRequestError(`item_reference '${id}' names no item this workspace keeps`);
  return found;
}

/** Item id prefixes by item type, as OpenAI's own. */
const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  reasoning: 'rs',
};

/**
 * The input as stored items: a string becomes a user message, messages get a type and their text
 * as parts (as input_items lists them), and every item without an id gets one from `mintId`.
 */
export function normalizeInputItems(input: unknown, mintId: (prefix: string) => string): Item[] {
  const items: unknown[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  return items.filter(isObject).map((item) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const normalized: Item = { ...item, type };
    if (type === 'message' && typeof item.content === 'string')
      normalized.content =
        item.role === 'assistant'
          ? [{ type: 'output_text', text: item.content, annotations: [] }]
          : [{ type: 'input_text', text: item.content }];
    if (typeof item.id !== 'string' || item.id === '') normalized.id = mintId(ID_PREFIXES[type] ?? 'item');
    return { id: normalized.id, ...normalized };
  });
}

/** The record of a translated response: its chain, its input items and the response as the client got it. */
export function buildTranslatedRecord(
  response: Item,
  model: string,
  input: Item[],
  ancestors: readonly string[],
  now: number = Date.now(),
): TranslatedResponseRecord {
  return {
    v: 1,
    kind: 'translated',
    id: String(response.id),
    createdAtMs: now,
    model,
    ancestors: [...ancestors],
    input,
    response,
  };
}

/** A pointer to a response OpenAI keeps: who created it, and with which model string. */
export function buildUpstreamRecord(
  id: string,
  model: string,
  now: number = Date.now(),
): UpstreamResponseRecord {
  return { v: 1, kind: 'upstream', id, createdAtMs: now, model };
}

/**
 * Stores a record for the retention, renewing its chain. Returns false, storing nothing, when the
 * record is larger than the entry limit (the caller counts and logs it).
 */
export async function saveRecord(
  store: Pick<RuntimeStoredResponses, 'putStoredResponse'>,
  scope: string,
  record: StoredResponseRecord,
  settings: StoredResponsesSettings,
): Promise<boolean> {
  const text = JSON.stringify(record);
  if (Buffer.byteLength(text, 'utf8') > settings.maxEntryBytes) return false;
  const ancestors = record.kind === 'translated' ? record.ancestors : [];
  await store.putStoredResponse(scope, record.id, text, settings.ttlSeconds * 1000, ancestors);
  return true;
}

/** One record of the workspace, or undefined. */
export async function readRecord(
  store: Pick<RuntimeStoredResponses, 'getStoredResponses'>,
  scope: string,
  id: string,
): Promise<StoredResponseRecord | undefined> {
  return (await readRecords(store, scope, [id]))[0];
}

export interface InputItemsQuery {
  /** 1 to 100; default 20. */
  limit: number;
  order: 'asc' | 'desc';
  /** An item id: the page starts after it. */
  after: string | undefined;
}

/**
 * `GET /v1/responses/{id}/input_items` of a translated record: every item the model saw as input
 * (its chain's items, then its own input), paged by item id as OpenAI pages.
 */
export async function listInputItems(
  store: Pick<RuntimeStoredResponses, 'getStoredResponses'>,
  scope: string,
  record: TranslatedResponseRecord,
  query: InputItemsQuery,
): Promise<{
  object: 'list';
  data: Item[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}> {
  const chain = await readChain(store, scope, record);
  const items = [...chain.slice(0, -1).flatMap(itemsOf), ...record.input];
  if (query.order === 'desc') items.reverse();
  const start = query.after === undefined ? 0 : items.findIndex((item) => item.id === query.after) + 1;
  const data = start === 0 && query.after !== undefined ? [] : items.slice(start, start + query.limit);
  return {
    object: 'list',
    data,
    first_id: typeof data[0]?.id === 'string' ? data[0].id : null,
    last_id: typeof data.at(-1)?.id === 'string' ? (data.at(-1)?.id as string) : null,
    has_more: start + data.length < items.length && data.length > 0,
  };
}
