/**
 * The Redis connection shared by the Redis stores: one server (`url`), a Redis Cluster
 * (`clusterNodes`, ioredis's Cluster client) or a Sentinel-managed master (`sentinel`, ioredis's
 * Sentinel support), with options that make a Redis outage fail fast and visibly, and a polite close.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { waitAtMost } from './wait-at-most.ts';

/** A connection to one server or to a cluster: the stores use what both offer. */
export type RedisClient = Redis | Cluster;

export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. With `clusterNodes`, only its
   * credentials and TLS are used; with `sentinel`, its credentials, TLS and database.
   */
  url?: string;
  /**
   * A master that Redis Sentinel watches: the sentinels to ask where it is (`host:port`), the name
   * they know it by, and their own password if they have one. Every connection (subscribers too)
   * asks them again when it reconnects, and a failover they announce moves it to the new master.
   */
  sentinel?: { nodes: readonly string[]; masterName: string; password?: string | undefined };
  /** The data nodes' password and ACL user, in place of the url's. */
  password?: string | undefined;
  username?: string | undefined;
  /** TLS to the data nodes (and to the sentinels), with a private CA's bundle if given; `rediss://` implies it. */
  tls?: { ca?: string | undefined } | undefined;
  /**
   * A Redis Cluster's seed nodes (`host:port` or `redis://host:port`): the stores then use the
   * Cluster client, and every script and transaction keeps its keys in one hash slot.
   */
  clusterNodes?: readonly string[];
  /** Prepended to every key and channel; default `gw:`. */
  keyPrefix?: string;
  /**
   * Told about connection errors (ioredis emits one per failed reconnect attempt) and about
   * watch listeners that threw. Default: ignored; the failing calls reject on their own.
   */
  onError?: (error: unknown) => void;
  /**
   * Bound on one command's round trip, connected or not; default 5000 ms. 0: no bound per command,
   * for a client whose caller bounds its calls itself and must learn a late command's fate (the
   * runtime store: its breaker gives up on a call, and the spend journal follows the command on).
   */
  commandTimeoutMs?: number;
  /**
   * Once connected, a call made while the connection is down fails at once instead of waiting in
   * the offline queue (one server; the cluster client keeps its queue). The runtime store's: a
   * queued INCRBY whose caller gave up (the command timeout, journaling the change) would otherwise
   * still be sent when Redis came back, and be applied twice.
   */
  failFastWhenDown?: boolean;
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
 *   during a reconnect that succeeds, are sent once the connection is ready; with
 *   `failFastWhenDown`, only before the first connect.
 * - `commandTimeout`: bounds a command against a server that accepted the connection but does not
 *   answer (a paused or overloaded Redis). Not for the runtime store (`commandTimeoutMs: 0`): a
 *   command that timed out is still in the stalled server's socket buffer and runs when it wakes,
 *   so a debit given up for lost and journaled would be applied twice. Its breaker bounds each call
 *   instead, and the journal waits for the command's real outcome (store-breaker.ts).
 * - `connectTimeout: 5000`: a silent (firewalled) address fails in 5 s, not the default 10 s.
 * - No `enableAutoPipelining`: the commands one request issues together (the hot path's step
 *   before the upstream call, and the one after) are sent back to back without waiting for a
 *   reply, so each step is still one round trip (test/integration/stores/redis-round-trips.test.ts
 *   holds the count), and they leave in one write with those of other requests
 *   (`coalesceWrites`). Auto-pipelining kept every command of a busy gateway alive until a full
 *   garbage collection: a loop of three commands at a time on one client promoted 97% of what
 *   survived a young collection with it (3.7 MB a scavenge) and 18% without (29 KB), and the
 *   gateway role's peak RSS under the throughput load was 25 to 50 MiB higher (bench/README.md,
 *   Throughput).
 * - The default `retryStrategy` (50 ms growing to 2 s, forever) keeps reconnecting in the
 *   background; the process never gives up on Redis and never crashes because of it.
 */
export function createRedisClient(options: RedisStoreOptions, connectionName: string): RedisClient {
  const redisOptions: RedisOptions = {
    connectionName,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: true,
    connectTimeout: 5000,
    enableAutoPipelining: false,
    // A server that says it is a replica is no longer the master (a failover, with the client still
    // on the old one): reconnect, so that the sentinels (or the DNS name of a managed Redis) give
    // the new master. The command itself fails (READONLY counts as unavailability) and is never
    // resent (1, not 2), like any command in flight when a connection drops.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
  };
  const commandTimeoutMs = options.commandTimeoutMs ?? 5000;
  if (commandTimeoutMs > 0) redisOptions.commandTimeout = commandTimeoutMs;
  let client: RedisClient;
  if (options.clusterNodes !== undefined && options.clusterNodes.length > 0) {
    const auth = {
      ...(options.url === undefined ? {} : credentialsOf(options.url)),
      ...overridesOf(options),
    };
    const cluster = new Cluster(
      options.clusterNodes.map((node) => parseNode(node)),
      {
        enableAutoPipelining: false,
        enableOfflineQueue: true,
        scaleReads: 'master',
        slotsRefreshTimeout: 2000,
        redisOptions: { ...redisOptions, ...auth },
      },
    );
    cluster.on('+node', (node: Redis) => coalesceWrites(node));
    client = cluster;
  } else {
    let server: Redis;
    if (options.sentinel !== undefined) {
      server = new Redis(sentinelOptionsOf(options, options.sentinel, redisOptions));
      reconnectAfterSentinelGaveUp(server);
    } else {
      if (options.url === undefined)
        throw new TypeError('a Redis store needs a url, clusterNodes or sentinel');
      const overrides = overridesOf(options);
      // ioredis lets the url's credentials win over the options': drop them when overridden.
      const url =
        overrides.password !== undefined || overrides.username !== undefined
          ? withoutCredentials(options.url)
          : options.url;
      server = new Redis(url, { ...redisOptions, ...overrides });
    }
    // ioredis reads the option at each call: queue until the first connect, fail fast after.
    if (options.failFastWhenDown === true)
      server.once('ready', () => {
        server.options.enableOfflineQueue = false;
      });
    coalesceWrites(server);
    client = server;
  }
  // Without a listener ioredis prints every connection error; with one, errors surface through the
  // rejected calls (and onError), and a Redis outage never becomes an uncaught exception.
  const onError = options.onError ?? (() => {});
  client.on('error', onError);
  return client;
}

/** The password, user and TLS given apart from the url (REDIS_PASSWORD, REDIS_USERNAME, REDIS_TLS). */
function overridesOf(options: RedisStoreOptions): Partial<RedisOptions> {
  return {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    ...(options.tls === undefined ? {} : { tls: options.tls.ca === undefined ? {} : { ca: options.tls.ca } }),
  };
}

function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

/**
 * How long a connection waits for a sentinel to say where the master is before it asks the next
 * one. ioredis sets no bound by default: a sentinel that accepts the connection and answers nothing
 * (stalled, or its host frozen) held every reconnect until it answered. A healthy sentinel answers
 * in milliseconds; 3 s leaves room for a loaded one.
 */
const SENTINEL_QUESTION_TIMEOUT_MS = 3000;

/**
 * ioredis's Sentinel options: the sentinels, the master's name, the data nodes' credentials and
 * database (from the url, then the overrides), TLS to both. `failoverDetector`: the client also
 * listens to the sentinels' `+switch-master`, so a failover that leaves the old master reachable
 * (demoted, answering READONLY) still moves every connection to the new one.
 * `sentinelCommandTimeout`: a sentinel that does not answer is passed over for the next.
 */
export function sentinelOptionsOf(
  options: RedisStoreOptions,
  sentinel: NonNullable<RedisStoreOptions['sentinel']>,
  base: RedisOptions,
): RedisOptions {
  const auth = { ...(options.url === undefined ? {} : credentialsOf(options.url)), ...overridesOf(options) };
  const db = options.url === undefined ? undefined : Number(new URL(options.url).pathname.slice(1) || 0);
  return {
    ...base,
    ...auth,
    ...(db === undefined || Number.isNaN(db) ? {} : { db }),
    sentinels: sentinel.nodes.map((node) => parseNode(node)),
    name: sentinel.masterName,
    ...(sentinel.password === undefined ? {} : { sentinelPassword: sentinel.password }),
    ...(auth.tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: auth.tls }),
    failoverDetector: true,
    sentinelCommandTimeout: SENTINEL_QUESTION_TIMEOUT_MS,
  };
}

/** `host:port` or a `redis://` URL, as a cluster seed. */
function parseNode(node: string): { host: string; port: number } {
  const url = new URL(node.includes('://') ? node : `redis://${node}`);
  return { host: url.hostname, port: Number(url.port || 6379) };
}

/** The user, password and TLS of a `redis://` / `rediss://` URL, for the cluster's connections. */
function credentialsOf(url: string): Partial<RedisOptions> {
  const parsed = new URL(url);
  return {
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** A second connection like `client` (one server or the cluster) for a subscriber, under its own name. */
export function duplicateRedisClient(client: RedisClient, connectionName: string): RedisClient {
  if (client instanceof Cluster) {
    return client.duplicate(undefined, {
      redisOptions: { ...client.options.redisOptions, connectionName },
    });
  }
  // A subscriber queues its SUBSCRIBE until it connects, whatever the first connection does.
  const subscriber = client.duplicate({ connectionName, autoResubscribe: false, enableOfflineQueue: true });
  if (client.options.sentinels !== undefined) reconnectAfterSentinelGaveUp(subscriber);
  return subscriber;
}

/** Clients closed on purpose (closeRedisClient, dropRedisClient): their end is final. */
const closedOnPurpose = new WeakSet<RedisClient>();

/** How long a Sentinel client waits before connecting again after ioredis gave up (see below). */
const SENTINEL_RECONNECT_MS = 200;

/**
 * ioredis gives up on a Sentinel-managed connection for good (status `end`, every call failing
 * with "Connection is closed." from then on) when a failover is announced while it is
 * reconnecting: the `+switch-master` listener of the connection that dropped marks the connector
 * closed while it asks a sentinel where the master is, and the question's end (an answer, or no
 * answer within SENTINEL_QUESTION_TIMEOUT_MS) then fails the whole connect. A master that crashes
 * is exactly when both happen: the client reconnects while the sentinels promote a replica. So
 * an end nobody asked for is followed by a new connect, which asks the sentinels again
 * (test/integration/stores/redis-sentinel-stall.test.ts).
 */
function reconnectAfterSentinelGaveUp(server: Redis): void {
  server.on('end', () => {
    if (closedOnPurpose.has(server)) return;
    setTimeout(() => {
      if (closedOnPurpose.has(server) || server.status !== 'end') return;
      // A failed connect ends the same way, and comes back here.
      server.connect().catch(() => {});
    }, SENTINEL_RECONNECT_MS).unref();
  });
}

/**
 * Closes politely when connected (QUIT waits for replies in flight, `politeMs` at most: a stalled
 * server never answers it), at once otherwise.
 */
export async function closeRedisClient(client: RedisClient, politeMs = 2000): Promise<void> {
  closedOnPurpose.add(client);
  if (client.status === 'ready') {
    const quit = client.quit().then(
      () => true,
      () => false, // a hard disconnect, then
    );
    if (await waitAtMost(quit, politeMs, false)) return;
  }
  client.disconnect();
}

/** Closes at once, dropping what is in flight. */
export function dropRedisClient(client: RedisClient): void {
  closedOnPurpose.add(client);
  client.disconnect();
}

/**
 * The commands issued in one turn of the event loop leave in one write. ioredis writes each command
 * to its socket as it is called, one system call each (five per request on the hot path, and on
 * loopback the sender's call also runs the receiver's side of TCP), and redis-server reads and
 * answers each batch it finds. Corked from the first write of a turn until the turn's check phase
 * (`setImmediate`, after the I/O callbacks the turn runs), they leave together with the commands of
 * every other request handled in that turn. Nothing waits beyond the turn; with one request in
 * flight the turn is that request's. ioredis keeps its commands as it did (unlike
 * `enableAutoPipelining`, see above).
 */
function coalesceWrites(server: Redis): void {
  server.on('connect', () => {
    const socket = server.stream;
    const write = socket.write;
    let corked = false;
    const uncork = () => {
      corked = false;
      socket.uncork();
    };
    socket.write = function (this: typeof socket, ...args: Parameters<typeof write>) {
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(uncork);
      }
      return write.apply(this, args);
    } as typeof write;
  });
}
