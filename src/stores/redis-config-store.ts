/**
 * The config store on Redis: one hash per kind, a pub/sub change feed and an epoch marker (layout
 * in redis-keys.ts). Reads parse defensively: a record that is not valid JSON or has another schema
 * version is skipped and counted, so one bad write never takes the gateway's view down.
 */
import type { ChainableCommander } from 'ioredis';
import { assertConfigKey, assertConfigRecord, createEmptySnapshot } from './memory-config-store.ts';
import { CONFIG_KINDS, CONFIG_RECORD_VERSION, type ConfigKind, type ConfigRecordMap } from './records.ts';
import {
  closeRedisClient,
  createRedisClient,
  type RedisClient,
  type RedisStoreOptions,
} from './redis-client.ts';
import { RedisFeed } from './redis-feed.ts';
import { createRedisKeyLayout, type RedisKeyLayout } from './redis-keys.ts';
import type { ConfigChange, ConfigSnapshot, ConfigStore, Unsubscribe } from './types.ts';

// The connection helpers moved to redis-client.ts; re-exported for existing importers.
export { closeRedisClient, createRedisClient, type RedisStoreOptions } from './redis-client.ts';

export interface ConfigStoreHealth {
  /** Stored records skipped because they were not valid JSON objects of the current version. */
  malformedRecords: number;
  /** Feed messages skipped because they were not a valid `{op, kind, id}`. */
  malformedFeedMessages: number;
}

const FEED_OPS = new Set(['put', 'delete']);

export class RedisConfigStore implements ConfigStore {
  readonly #keys: RedisKeyLayout;
  readonly #client: RedisClient;
  readonly #onError: (error: unknown) => void;
  readonly #feed: RedisFeed<ConfigChange>;
  readonly #health: ConfigStoreHealth = { malformedRecords: 0, malformedFeedMessages: 0 };

  constructor(options: RedisStoreOptions) {
    this.#keys = createRedisKeyLayout(options.keyPrefix);
    this.#onError = options.onError ?? (() => {});
    this.#client = createRedisClient(options, 'gw-config');
    this.#feed = new RedisFeed<ConfigChange>(this.#client, {
      connectionName: 'gw-config-feed',
      channel: this.#keys.configFeed,
      parse: (message) => this.#parseFeedMessage(message),
      reset: { op: 'reset' },
      onError: this.#onError,
    });
  }

  /** Counts of skipped records and feed messages since the store was created. */
  get health(): Readonly<ConfigStoreHealth> {
    return { ...this.#health };
  }

  async get<K extends ConfigKind>(kind: K, id: string): Promise<ConfigRecordMap[K] | undefined> {
    const raw = await this.#client.hget(this.#keys.configRecords(kind), id);
    return raw === null ? undefined : this.#parseRecord(kind, raw);
  }

  async list<K extends ConfigKind>(kind: K): Promise<ConfigRecordMap[K][]> {
    const values = await this.#client.hvals(this.#keys.configRecords(kind));
    const records: ConfigRecordMap[K][] = [];
    for (const raw of values) {
      const record = this.#parseRecord(kind, raw);
      if (record !== undefined) records.push(record);
    }
    return records;
  }

  async snapshot(): Promise<ConfigSnapshot> {
    const pipeline = this.#client.pipeline();
    for (const kind of CONFIG_KINDS) pipeline.hgetall(this.#keys.configRecords(kind));
    const results = (await pipeline.exec()) ?? [];
    const snapshot = createEmptySnapshot();
    for (const [index, kind] of CONFIG_KINDS.entries()) {
      const [error, hash] = results[index] ?? [new Error('missing pipeline reply')];
      if (error) throw error;
      const records = snapshot[kind] as Map<string, unknown>;
      for (const [id, raw] of Object.entries(hash as Record<string, string>)) {
        const record = this.#parseRecord(kind, raw);
        if (record !== undefined) records.set(id, record);
      }
    }
    return snapshot;
  }

  async put<K extends ConfigKind>(kind: K, id: string, record: ConfigRecordMap[K]): Promise<void> {
    assertConfigRecord(kind, id, record);
    await this.#writeAndAnnounce(
      this.#client.multi().hset(this.#keys.configRecords(kind), id, JSON.stringify(record)),
      { op: 'put', kind, id },
    );
  }

  async delete(kind: ConfigKind, id: string): Promise<void> {
    assertConfigKey(kind, id);
    await this.#writeAndAnnounce(this.#client.multi().hdel(this.#keys.configRecords(kind), id), {
      op: 'delete',
      kind,
      id,
    });
  }

  async getEpoch(): Promise<string | undefined> {
    return (await this.#client.get(this.#keys.configEpoch)) ?? undefined;
  }

  async setEpoch(epoch: string): Promise<void> {
    await this.#client.set(this.#keys.configEpoch, epoch);
  }

  /** The feed announces `reset` when it is subscribed again after a drop (not on the first connect). */
  watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  async close(): Promise<void> {
    await Promise.all([this.#feed.close(), closeRedisClient(this.#client)]);
  }

  async #writeAndAnnounce(
    transaction: ChainableCommander,
    change: { op: 'put' | 'delete'; kind: ConfigKind; id: string },
  ): Promise<void> {
    const results = await transaction.publish(this.#keys.configFeed, JSON.stringify(change)).exec();
    if (results === null) throw new Error('config store transaction was aborted');
    for (const [error] of results) if (error) throw error;
  }

  #parseRecord<K extends ConfigKind>(kind: K, raw: string): ConfigRecordMap[K] | undefined {
    try {
      const record: unknown = JSON.parse(raw);
      if (
        typeof record === 'object' &&
        record !== null &&
        !Array.isArray(record) &&
        (record as { v?: unknown }).v === CONFIG_RECORD_VERSION
      ) {
        return record as ConfigRecordMap[K];
      }
    } catch {
      // Counted below.
    }
    this.#health.malformedRecords += 1;
    this.#onError(new Error(`skipped a malformed ${kind} record in the config store`));
    return undefined;
  }

  #parseFeedMessage(message: string): ConfigChange | undefined {
    try {
      const change: unknown = JSON.parse(message);
      if (typeof change === 'object' && change !== null) {
        const { op, kind, id } = change as Record<string, unknown>;
        if (
          typeof op === 'string' &&
          FEED_OPS.has(op) &&
          CONFIG_KINDS.includes(kind as ConfigKind) &&
          typeof id === 'string'
        ) {
          return { op: op as 'put' | 'delete', kind: kind as ConfigKind, id };
        }
      }
    } catch {
      // Counted below.
    }
    this.#health.malformedFeedMessages += 1;
    return undefined;
  }
}
