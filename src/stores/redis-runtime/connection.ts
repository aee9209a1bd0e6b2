/**
 * What the Redis runtime store's domain modules share: the one connection they all use (client,
 * key layout, error sink), the readers of raw replies, and the shape of their event feeds.
 */
import type { RedisClient } from '../redis-client.ts';
import { RedisFeed } from '../redis-feed.ts';
import type { RedisKeyLayout } from '../redis-keys.ts';

export interface RedisRuntimeConnection {
  readonly client: RedisClient;
  readonly keys: RedisKeyLayout;
  /** Told about malformed values skipped on read, and about feed connections and listeners. */
  readonly onError: (error: unknown) => void;
}

/** An integer string as a number; undefined for a missing key; an error for anything else. */
export function parseInteger(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`runtime store holds a non-integer value '${raw}'`);
  return value;
}

/** The replies of a MULTI or pipeline, throwing the first command's error. */
export function checkTransaction(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('runtime store transaction was aborted');
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

type FeedSignal = { type: 'reset' } | { type: 'down' };

/**
 * A feed of `{type}` events on `channel`, with `down` and `reset` as its own signals; a message
 * `parse` refuses is skipped and reported as a malformed `<name> feed message`.
 */
export function createEventFeed<E extends { type: string }>(
  connection: RedisRuntimeConnection,
  options: {
    connectionName: string;
    channel: string;
    name: string;
    parse: (message: string) => E | undefined;
  },
): RedisFeed<E | FeedSignal> {
  const { onError } = connection;
  return new RedisFeed<E | FeedSignal>(connection.client, {
    connectionName: options.connectionName,
    channel: options.channel,
    parse: (message) => {
      const event = options.parse(message);
      if (event === undefined) onError(new Error(`skipped a malformed ${options.name} feed message`));
      return event;
    },
    reset: { type: 'reset' },
    down: { type: 'down' },
    onError,
  });
}
