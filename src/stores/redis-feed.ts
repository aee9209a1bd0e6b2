/**
 * A pub/sub feed on one Redis channel, shared by a store's watchers over one dedicated subscriber
 * connection (opened by the first watcher, closed with the last). Used by the config store's
 * change feed and the runtime store's revocation feed.
 */

import { closeRedisClient, dropRedisClient, duplicateRedisClient, type RedisClient } from './redis-client.ts';
import type { Unsubscribe } from './types.ts';

export interface RedisFeedOptions<E> {
  /** The CLIENT SETNAME of the subscriber connection. */
  connectionName: string;
  channel: string;
  /** Turns a message into an event; undefined skips it (the parser counts or reports it). */
  parse: (message: string) => E | undefined;
  /** Delivered once the feed is subscribed again after a drop (never on the first connect). */
  reset: E;
  /** Delivered when the subscribed connection drops (once per drop); absent: not announced. */
  down?: E;
  /** Told about connection errors and about listeners that threw. */
  onError: (error: unknown) => void;
}

export class RedisFeed<E> {
  readonly #client: RedisClient;
  readonly #options: RedisFeedOptions<E>;
  readonly #listeners = new Set<(event: E) => void>();
  #subscriber: RedisClient | undefined;
  #subscribing: Promise<void> | undefined;

  /** `client` is duplicated (same server and options) for the subscriber connection. */
  constructor(client: RedisClient, options: RedisFeedOptions<E>) {
    this.#client = client;
    this.#options = options;
  }

  /** Resolves once the feed is subscribed; rejects (and forgets the listener) if it cannot be. */
  async watch(listener: (event: E) => void): Promise<Unsubscribe> {
    // Wrapped, so that the same function can watch twice and unsubscribe each independently.
    const subscription = (event: E) => listener(event);
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

  /** Forgets every listener and closes the subscriber connection. */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#dropSubscriberIfUnused();
  }

  #deliver(event: E): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#options.onError(error);
      }
    }
  }

  /**
   * ioredis's own resubscription is off: on every reconnect after the first connect we subscribe
   * again ourselves and only then announce `reset`, so a watcher that reloads on `reset` cannot
   * miss an event published between its reload and the new subscription. `down` is announced on
   * the first sign of a drop ('close', 'end' or 'reconnecting'), once until the next `reset`.
   */
  #ensureSubscribed(): Promise<void> {
    if (this.#subscribing !== undefined) return this.#subscribing;
    const { channel, connectionName, onError } = this.#options;
    const subscriber = duplicateRedisClient(this.#client, connectionName);
    this.#subscriber = subscriber;
    const current = () => this.#subscriber === subscriber;
    subscriber.on('error', onError);
    subscriber.on('message', (from: string, message: string) => {
      if (from !== channel || !current()) return;
      const event = this.#options.parse(message);
      if (event !== undefined) this.#deliver(event);
    });
    let subscribed = false;
    let up = false;
    const onDrop = () => {
      if (!up || !current()) return;
      up = false;
      if (this.#options.down !== undefined) this.#deliver(this.#options.down);
    };
    subscriber.on('close', onDrop);
    subscriber.on('end', onDrop);
    subscriber.on('reconnecting', onDrop);
    subscriber.on('ready', () => {
      if (!subscribed) return;
      subscriber.subscribe(channel).then(
        () => {
          if (!current() || subscriber.status !== 'ready') return;
          up = true;
          this.#deliver(this.#options.reset);
        },
        // The connection dropped again; the next 'ready' retries.
        (error: unknown) => onError(error),
      );
    });
    this.#subscribing = subscriber.subscribe(channel).then(
      () => {
        subscribed = true;
        up = true;
      },
      (error: unknown) => {
        if (current()) {
          this.#subscribing = undefined;
          this.#subscriber = undefined;
        }
        dropRedisClient(subscriber);
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
