/**
 * The in-memory config store (standalone mode, tests). Records are deep-copied on the way in and
 * out, so neither the writer nor any reader can change the store's state behind its back; watch
 * listeners are called asynchronously, as they would be over a real change feed.
 */
import { CONFIG_KINDS, CONFIG_RECORD_VERSION, type ConfigKind, type ConfigRecordMap } from './records.ts';
import type { ConfigChange, ConfigSnapshot, ConfigStore, Unsubscribe } from './types.ts';

export interface MemoryConfigStoreOptions {
  /** Told about a watch listener that threw; the other listeners are still called. */
  onError?: (error: unknown) => void;
}

/**
 * Rejects what no reader could use: a non-object, or a record of another schema version. Shared by
 * both config stores so that they refuse the same writes.
 */
export function assertConfigRecord(kind: ConfigKind, id: string, record: unknown): void {
  assertConfigKey(kind, id);
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new TypeError(`${kind} '${id}' must be an object`);
  }
  if ((record as { v?: unknown }).v !== CONFIG_RECORD_VERSION) {
    throw new TypeError(`${kind} '${id}' must have v: ${CONFIG_RECORD_VERSION}`);
  }
}

export function assertConfigKey(kind: ConfigKind, id: string): void {
  if (!CONFIG_KINDS.includes(kind)) throw new TypeError(`unknown config kind '${String(kind)}'`);
  if (typeof id !== 'string' || id === '') throw new TypeError(`a ${kind} record needs a non-empty id`);
}

export function createEmptySnapshot(): ConfigSnapshot {
  return {
    tenant: new Map(),
    apiKey: new Map(),
    pat: new Map(),
    provisioningKey: new Map(),
    cachePolicy: new Map(),
    connection: new Map(),
    modelRoute: new Map(),
  };
}

export class MemoryConfigStore implements ConfigStore {
  readonly #records: ConfigSnapshot = createEmptySnapshot();
  readonly #listeners = new Set<(change: ConfigChange) => void>();
  readonly #onError: (error: unknown) => void;
  #epoch: string | undefined;

  constructor(options: MemoryConfigStoreOptions = {}) {
    this.#onError = options.onError ?? (() => {});
  }

  async get<K extends ConfigKind>(kind: K, id: string): Promise<ConfigRecordMap[K] | undefined> {
    const record = this.#recordsOf(kind).get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  async list<K extends ConfigKind>(kind: K): Promise<ConfigRecordMap[K][]> {
    return Array.from(this.#recordsOf(kind).values(), (record) => structuredClone(record));
  }

  async snapshot(): Promise<ConfigSnapshot> {
    return structuredClone(this.#records);
  }

  async put<K extends ConfigKind>(kind: K, id: string, record: ConfigRecordMap[K]): Promise<void> {
    assertConfigRecord(kind, id, record);
    this.#recordsOf(kind).set(id, structuredClone(record));
    this.#announce({ op: 'put', kind, id });
  }

  async delete(kind: ConfigKind, id: string): Promise<void> {
    assertConfigKey(kind, id);
    this.#recordsOf(kind).delete(id);
    this.#announce({ op: 'delete', kind, id });
  }

  async getEpoch(): Promise<string | undefined> {
    return this.#epoch;
  }

  async setEpoch(epoch: string): Promise<void> {
    this.#epoch = epoch;
  }

  async watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe> {
    // A wrapper per subscription, so that the same function can be subscribed twice and each
    // unsubscribe removes only its own.
    const subscription = (change: ConfigChange) => listener(change);
    this.#listeners.add(subscription);
    return async () => {
      this.#listeners.delete(subscription);
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }

  #recordsOf<K extends ConfigKind>(kind: K): Map<string, ConfigRecordMap[K]> {
    const records = this.#records[kind];
    if (records === undefined) throw new TypeError(`unknown config kind '${String(kind)}'`);
    return records;
  }

  #announce(change: ConfigChange): void {
    for (const listener of this.#listeners) {
      queueMicrotask(() => {
        // Unsubscribed between the change and the delivery: a closed watcher hears nothing more.
        if (!this.#listeners.has(listener)) return;
        try {
          listener(change);
        } catch (error) {
          this.#onError(error);
        }
      });
    }
  }
}
