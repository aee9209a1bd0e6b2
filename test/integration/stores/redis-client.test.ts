/**
 * The Redis connection's writes: the commands issued in one turn of the event loop leave the socket
 * in one write (a request's step on the hot path issues two or three at once, and a busy gateway
 * handles several requests a turn), against a real redis-server. Counted on the socket's own write
 * functions: one `_writev` carries a turn's commands, where each command was a `_write` of its own
 * (one system call each) before.
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../../src/stores/redis-client.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';

const redis: RedisServer | undefined = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

/** Counts the socket's writes from now on: `_write` (one chunk) and `_writev` (several). */
function countWrites(socket: Socket): { single: number; batched: number[] } {
  const counts = { single: 0, batched: [] as number[] };
  const internals = socket as unknown as {
    _write: (...args: unknown[]) => void;
    _writev: (chunks: unknown[], ...rest: unknown[]) => void;
  };
  const write = internals._write;
  const writev = internals._writev;
  internals._write = function (this: unknown, ...args: unknown[]) {
    counts.single += 1;
    return write.apply(this, args);
  };
  internals._writev = function (this: unknown, chunks: unknown[], ...rest: unknown[]) {
    counts.batched.push(chunks.length);
    return writev.call(this, chunks, ...rest);
  };
  return counts;
}

describe.runIf(redis !== undefined)('the Redis connection', () => {
  let client: Redis;

  beforeEach(async () => {
    client = createRedisClient({ url: redis?.url ?? '' }, 'write-test') as Redis;
    await client.ping();
  });
  afterEach(async () => {
    await client.quit();
  });

  it('sends the commands of one turn in one write, and answers each of them', async () => {
    const writes = countWrites(client.stream as Socket);
    const key = `write-test:${Date.now()}`;
    const answers = await Promise.all([
      client.set(key, '1'),
      client.incrby(key, 2),
      client.get(key),
      client.del(key),
    ]);
    expect(answers).toEqual(['OK', 3, '3', 1]);
    expect(writes).toEqual({ single: 0, batched: [4] });
  });

  it('sends a later turn its own write, not held for anything', async () => {
    const writes = countWrites(client.stream as Socket);
    expect(await client.ping()).toBe('PONG');
    expect(await client.echo('second')).toBe('second');
    // One command alone in its turn: one chunk, written as such.
    expect(writes).toEqual({ single: 2, batched: [] });
  });

  it('sends the commands of callbacks run in the same turn together (two requests answered at once)', async () => {
    const writes = countWrites(client.stream as Socket);
    const key = `write-test:${Date.now()}`;
    // Two callbacks queued for one check phase run in one turn, as the I/O callbacks of two
    // requests would (two 5 ms timers did not always: created a millisecond apart on a busy host,
    // they could fall due in two turns).
    const steps = await Promise.all(
      [1, 2].map(
        (by) =>
          new Promise<number[]>((resolve, reject) => {
            setImmediate(() => {
              Promise.all([client.incrby(key, by), client.incrby(key, by)]).then(resolve, reject);
            });
          }),
      ),
    );
    expect(steps.flat().sort((left, right) => left - right)).toEqual([1, 2, 4, 6]);
    expect(writes).toEqual({ single: 0, batched: [4] });
    await client.del(key);
  });

  it('batches on the new socket after a reconnect', async () => {
    const first = client.stream;
    const reconnected = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    client.disconnect(true);
    await reconnected;
    expect(client.stream).not.toBe(first);
    const writes = countWrites(client.stream as Socket);
    expect(await Promise.all([client.ping(), client.ping(), client.ping()])).toEqual([
      'PONG',
      'PONG',
      'PONG',
    ]);
    expect(writes).toEqual({ single: 0, batched: [3] });
  });
});
