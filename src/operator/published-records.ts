/**
 * Which object published which config-store record, in the leader's memory. A reconcile claims
 * the records it writes and deletes only records it still owns, so an object whose spec moved it
 * to another id cleans up its old record, and a record taken over by another object (the older of
 * two conflicting ones) is never deleted by the loser. Rebuilt from the caches by every full
 * rebuild (leadership start, resync, wiped store).
 */
import { CONFIG_KINDS, type ConfigKind } from '../stores/records.ts';

export interface RecordSlot {
  kind: ConfigKind;
  id: string;
}

const slotKey = (kind: ConfigKind, id: string) => `${kind}\u0000${id}`;
const kindOrder = new Map(CONFIG_KINDS.map((kind, index) => [kind, index]));

export class PublishedRecords {
  readonly #ownerBySlot = new Map<string, string>();
  readonly #slotsByOwner = new Map<string, Map<string, RecordSlot>>();

  ownerOf(kind: ConfigKind, id: string): string | undefined {
    return this.#ownerBySlot.get(slotKey(kind, id));
  }

  /** Makes `owner` the owner of the record (taking it from any other owner). */
  claim(owner: string, kind: ConfigKind, id: string): void {
    const key = slotKey(kind, id);
    const previous = this.#ownerBySlot.get(key);
    if (previous === owner) return;
    if (previous !== undefined) this.#slotsByOwner.get(previous)?.delete(key);
    this.#ownerBySlot.set(key, owner);
    let slots = this.#slotsByOwner.get(owner);
    if (!slots) {
      slots = new Map();
      this.#slotsByOwner.set(owner, slots);
    }
    slots.set(key, { kind, id });
  }

  /** Drops the claim if `owner` holds it; true when it did (the caller then deletes the record). */
  release(owner: string, kind: ConfigKind, id: string): boolean {
    const key = slotKey(kind, id);
    if (this.#ownerBySlot.get(key) !== owner) return false;
    this.#ownerBySlot.delete(key);
    const slots = this.#slotsByOwner.get(owner);
    slots?.delete(key);
    if (slots?.size === 0) this.#slotsByOwner.delete(owner);
    return true;
  }

  /** The owner's records, dependants first and tenants last (the order to delete them in). */
  owned(owner: string): RecordSlot[] {
    const slots = [...(this.#slotsByOwner.get(owner)?.values() ?? [])];
    return slots.sort((left, right) => (kindOrder.get(right.kind) ?? 0) - (kindOrder.get(left.kind) ?? 0));
  }

  /** Owners whose key starts with the prefix (e.g. every object of one namespace). */
  ownersWithPrefix(prefix: string): string[] {
    return [...this.#slotsByOwner.keys()].filter((owner) => owner.startsWith(prefix));
  }

  replaceAll(entries: Iterable<readonly [string, ConfigKind, string]>): void {
    this.clear();
    for (const [owner, kind, id] of entries) this.claim(owner, kind, id);
  }

  clear(): void {
    this.#ownerBySlot.clear();
    this.#slotsByOwner.clear();
  }
}
