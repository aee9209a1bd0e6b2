/**
 * The ids of translated responses and their items (reference/responses-api.md section 1): OpenAI's
 * prefixes (`resp_`, `msg_`, `fc_`, `call_`) and 48 hex digits, never an upstream's `chatcmpl-`
 * (section 7.4). An item's id carries its response's digits and a 4-digit counter, so that an
 * `item_reference` (which the Vercel AI SDK sends for earlier output, section 7.5) leads back to the
 * stored response holding the item without an index of every item.
 */
import { randomBytes } from 'node:crypto';

const RESPONSE_DIGITS = 48;
const ITEM_ID = /^[a-z]+_([0-9a-f]{48})[0-9a-f]{4}$/;

/** A new `resp_...` id. */
export function mintResponseId(): string {
  return `resp_${randomBytes(RESPONSE_DIGITS / 2).toString('hex')}`;
}

/** Mints the ids of one response's items, `<prefix>_<the response's digits><counter>`, in order. */
export function createItemIdMinter(responseId: string): (prefix: string) => string {
  const digits = responseId.slice('resp_'.length);
  if (!/^[0-9a-f]{48}$/.test(digits))
    throw new TypeError(`'${responseId}' is not a response id the gateway minted`);
  let next = 0;
  return (prefix) => `${prefix}_${digits}${(next++ & 0xffff).toString(16).padStart(4, '0')}`;
}

/** The response an item id minted by createItemIdMinter belongs to; undefined for any other id. */
export function responseIdOfItem(itemId: string): string | undefined {
  const match = ITEM_ID.exec(itemId);
  return match === null ? undefined : `resp_${match[1]}`;
}
