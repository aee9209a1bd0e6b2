/**
 * A master crash while one sentinel stalls (Redis Sentinel, README "Redis modes"). The gateway
 * reconnects after the crash by asking the sentinels where the master is, one after another; the
 * stalled one (SIGSTOP: it accepts the connection and answers nothing) holds that question while
 * the two others promote the replica and announce it (`+switch-master`). ioredis then gave up on
 * the connection for good (status `end`): the announcement closed the connector in the middle of
 * its question, and the answer, once the sentinel woke, failed the whole connect. The gateway
 * served degraded from then on, its journal never replayed (CI saw a balance 175,340 micros high
 * in redis-sentinel.test.ts, the same way). Now an end it did not ask for is followed by a new
 * connect (redis-client.ts).
 *
 * The order is by construction, not by timing: the sentinel is stalled before the crash, the
 * reconnect reaches it within its first round of the three sentinels (milliseconds), and the
 * sentinels take at least `down-after-milliseconds` (1 s) to promote the replica.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeRedisClient, createRedisClient } from '../../../src/stores/redis-client.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import {
  chargedGatewaySettings,
  expectBalanceSettles,
  expectStoreRecovered,
  pauseWritesUntilReplicated,
  startChargedLoad,
  until,
} from '../../helpers/charged-load.ts';
import { type RedisSentinelSet, startRedisSentinelSet } from '../../helpers/redis-sentinel.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const set: RedisSentinelSet | undefined = await startRedisSentinelSet();
const STARTING_BALANCE = 100_000_000;
/** Not the first sentinel: `masterPort()` asks that one. */
const STALLED = 2;

describe.runIf(set !== undefined)('a master crash while a sentinel stalls', () => {
  let openai: FakeServer;
  let gateway: TestGateway;
  const sentinels = set as RedisSentinelSet;
  const logLines: string[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    gateway = await startTestGateway(
      {
        REDIS_SENTINELS: sentinels.sentinels.join(','),
        REDIS_SENTINEL_MASTER: sentinels.masterName,
        ...chargedGatewaySettings(openai.url, STARTING_BALANCE),
      },
      undefined,
      { logLines },
    );
  });
  afterAll(async () => {
    sentinels?.resumeSentinel(STALLED);
    await gateway?.stop();
    await openai?.stop();
    await set?.stop();
  });

  it('reaches the promoted replica once the stalled sentinel answers: served throughout, nothing lost', async () => {
    const [first, second] = sentinels.dataPorts;
    expect(await sentinels.masterPort()).toBe(first);
    const master = new Redis({ host: '127.0.0.1', port: first, maxRetriesPerRequest: 0 });
    const replica = new Redis({ host: '127.0.0.1', port: second, maxRetriesPerRequest: 0 });
    for (const connection of [master, replica]) connection.on('error', () => {});
    const load = startChargedLoad(gateway);
    try {
      await until(() => load.asked >= 40);
      // What the crash could lose to asynchronous replication is taken out (as in redis-sentinel.test.ts).
      await pauseWritesUntilReplicated(master, replica);
      master.disconnect();
      sentinels.stallSentinel(STALLED);
      await sentinels.crash(first);
      load.flag = true;
      await expect.poll(() => sentinels.masterPort(), { timeout: 30_000, interval: 100 }).toBe(second);
      sentinels.resumeSentinel(STALLED);
      // Served degraded until the gateway reaches the new master, and after.
      const atResume = load.asked;
      await until(() => load.asked >= atResume + 60);
      await expectStoreRecovered(gateway);
      load.flag = false;
      const atRecovery = load.asked;
      await until(() => load.asked >= atRecovery + 40);
    } finally {
      sentinels.resumeSentinel(STALLED);
      await load.stop();
    }
    try {
      expect(load.failures).toEqual([]);
      expect(load.flagged).toBeGreaterThan(60);
      await expectBalanceSettles({
        gateway,
        load,
        logLines,
        startingBalance: STARTING_BALANCE,
        balance: async () => Number(await replica.get('gw:rt:bal:{default}')),
      });
    } finally {
      replica.disconnect();
    }
  }, 150_000);

  it('does not connect again a client closed on purpose', async () => {
    const client = createRedisClient(
      { sentinel: { nodes: sentinels.sentinels, masterName: sentinels.masterName } },
      'gw-test-closed',
    ) as Redis;
    try {
      expect(await client.ping()).toBe('PONG');
      const ended = once(client, 'end');
      // The reconnect after an unasked end waits on a timer: every timer set from here is run.
      vi.useFakeTimers({ toFake: ['setTimeout'] });
      try {
        await closeRedisClient(client);
        await ended;
        vi.runAllTimers();
      } finally {
        vi.useRealTimers();
      }
      // A connect would have left `end` at once (status `connecting`).
      expect(client.status).toBe('end');
    } finally {
      client.disconnect();
    }
  });
});
