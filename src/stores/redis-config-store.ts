/**
 * The config store on Redis: one hash per kind, a pub/sub change feed and an epoch marker (layout
 * in redis-keys.ts). Reads parse defensively: a record that is not valid JSON or has another schema
 * version is skipped and counted, so one bad write never takes the gateway's view down.
 */
import { type ChainableCommander, Redis, type RedisOptions } from 'ioredis';
import { assertConfigKey, assertConfigRecord, createEmptySnapshot } from './memory-config-store.ts';
import { CONFIG_KINDS, CONFIG_RECORD_VERSION, type ConfigKind, type ConfigRecordMap } from './records.ts';
import { createRedisKeyLayout, type RedisKeyLayout } from './redis-keys.ts';
import type { ConfigChange, ConfigSnapshot, ConfigStore, Unsubscribe } from './types.ts';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  url: string;
  /** Prepended to every key and channel; default `gw:`. */
  keyPrefix?: string;
  /**
   * Told about connection errors (ioredis emits one per failed reconnect attempt) and about
   * watch listeners that threw. Default: ignored; the failing calls reject on their own.
   */
  onError?: (error: unknown) => void;
  /** Bound on one command's round trip, connected or not; default 5000 ms. */
  commandTimeoutMs?: number;
}

/**
 * Connection options shared by the Redis stores. The aim: a request that touches Redis fails fast
 * and visibly while Redis is away, rather than hanging or being applied twice.
 *
 * - `maxRetriesPerRequest: 0`: commands in flight when a connection drops, and commands queued
 *   while reconnecting, are rejected at the next failed connection attempt instead of waiting for
 *   many. A store pointed at a closed port rejects its first call within milliseconds.
 * - `autoResendUnfulfilledCommands: false`: INCRBY and PUBLISH are not idempotent; a command whose
 *   reply was lost may have been applied, so it is never sent a second time.
 * - `enableOfflineQueue: true` (the default, stated): calls made before the first connect, or
 *   during a reconnect that succeeds, are sent once the connection is ready.
 * - `commandTimeout`: bounds a command against a server that accepted the connection but does not
 *   answer (a paused or overloaded Redis).
 * - `connectTimeout: 5000`: a silent (firewalled) address fails in 5 s, not the default 10 s.
 * - The default `retryStrategy` (50 ms growing to 2 s, forever) keeps reconnecting in the
 *   background; the process never gives up on Redis and never crashes because of it.
 */
export function createRedisClient(options: RedisStoreOptions, connectionName: string): Redis {
  const redisOptions: RedisOptions = {
    connectionName,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: true,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    connectTimeout: 5000,
  };
  const client = new Redis(options.url, redisOptions);
  // Without a listener ioredis prints every connection error; with one, errors surface through the
  // rejected calls (and onError), and a Redis outage never becomes an uncaught exception.
  const onError = options.onError ?? (() => {});
  client.on('error', onError);
  return client;
}

/** Closes politely when connected (QUIT waits for replies in flight), at once otherwise. */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Fall through to a hard disconnect.
    }
  }
  client.disconnect();
}

export interface ConfigStoreHealth {
  /** Stored records skipped because they were not valid JSON objects of the current version. */
  malformedRecords: number;
  /** Feed messages skipped because they were not a valid `{op, kind, id}`. */
  malformedFeedMessages: number;
}

const FEED_OPS = new Set(['put', 'delete']);

export class RedisConfigStore implements ConfigStore {
  readonly #keys: RedisKeyLayout;
  readonly #client: Redis;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<(change: ConfigChange) => void>();
  #subscriber: Redis | undefined;
  #subscribing: Promise<void> | undefined;
  readonly #health: ConfigStoreHealth = { malformedRecords: 0, malformedFeedMessages: 0 };

  constructor(options: RedisStoreOptions) {
    this.#keys = createRedisKeyLayout(options.keyPrefix);
    this.#onError = options.onError ?? (() => {});
    this.#client = createRedisClient(options, 'gw-config');
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

  async watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe> {
    const subscription = (change: ConfigChange) => listener(change);
    this.#listeners.add(subscription);
    try {
      await this.#ensureSubscribed();
    } catch (error) {
      this.#listeners.delete(subscription);
      await this.#dropSubscriberIfUnused();
      throw error;
    }
    return async () => {
      this.#listeners.delete(subscription);
      await this.#dropSubscriberIfUnused();
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#dropSubscriberIfUnused();
    await closeRedisClient(this.#client);
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

  #deliver(change: ConfigChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  /**
   * One subscriber connection per store, shared by its watchers. ioredis's own resubscription is
   * off: on every reconnect after the first connect we subscribe again ourselves and only then
   * announce `reset`, so a watcher that reloads on `reset` cannot miss a change published between
   * its reload and the new subscription.
   */
  #ensureSubscribed(): Promise<void> {
    if (this.#subscribing !== undefined) return this.#subscribing;
    const subscriber = this.#client.duplicate({ connectionName: 'gw-config-feed', autoResubscribe: false });
    this.#subscriber = subscriber;
    subscriber.on('error', this.#onError);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#keys.configFeed) return;
      const change = this.#parseFeedMessage(message);
      if (change !== undefined) this.#deliver(change);
    });
    let subscribed = false;
    subscriber.on('ready', () => {
      if (!subscribed) return;
      subscriber.subscribe(this.#keys.configFeed).then(
        () => {
          if (this.#subscriber === subscriber) this.#deliver({ op: 'reset' });
        },
        // The connection dropped again; the next 'ready' retries.
        (error: unknown) => this.#onError(error),
      );
    });
    this.#subscribing = subscriber.subscribe(this.#keys.configFeed).then(
      () => {
        subscribed = true;
      },
      (error: unknown) => {
        this.#subscribing = undefined;
        this.#subscriber = undefined;
        subscriber.disconnect();
        throw error;
      },
    );
    return this.#subscribing;
  }

  async #dropSubscriberIfUnused(): Promise<void> {
    const subscriber = this.#subscriber;
    if (this.#listeners.size > 0 || subscriber === undefined) return;
    this.#subscriber = undefined;
    this.#subscribing = undefined;
    await closeRedisClient(subscriber);
  }
}
