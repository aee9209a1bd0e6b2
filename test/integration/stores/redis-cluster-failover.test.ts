/**
 * Redis Cluster (README "Redis modes"): the gateway on a cluster of three masters, each with a
 * replica (REDIS_CLUSTER_NODES). Under charged load, the master holding the tenant's balance dies
 * (SIGKILL); the other masters mark it failed after cluster-node-timeout, the cluster is down
 * meanwhile (every node answers CLUSTERDOWN), and its replica takes its slots over. The gateway
 * serves throughout (degraded while the cluster is down), follows the slots to the new master,
 * applies what it journaled, and the balance there ends exactly where the charges say.
 *
 * As in redis-sentinel.test.ts, the window of asynchronous replication (a write acknowledged by
 * the master and lost with it) is taken out: just before the crash the master's writes are paused
 * (CLIENT PAUSE WRITE) and its replica has caught up with everything it executed.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import {
  chargedGatewaySettings,
  expectNothingLost,
  expectStoreRecovered,
  pauseWritesUntilReplicated,
  startChargedLoad,
  until,
} from '../../helpers/charged-load.ts';
import { type RedisCluster, startRedisCluster } from '../../helpers/redis-cluster.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const cluster: RedisCluster | undefined = await startRedisCluster({ replicas: 1 });
const STARTING_BALANCE = 100_000_000;
const BALANCE_KEY = 'gw:rt:bal:{default}';

const portOf = (node: string) => Number(node.split(':')[1]);

/** The master and the replicas serving `slot`, by port, as `node` sees them (CLUSTER SLOTS). */
async function servingSlot(node: Redis, slot: number): Promise<{ master: number; replicas: number[] }> {
  const ranges = await node.cluster('SLOTS');
  const range = ranges.find(([first, last]) => first <= slot && slot <= last);
  if (range === undefined) throw new Error(`no node serves slot ${slot}`);
  const [, , master, ...replicas] = range;
  if (master === undefined) throw new Error(`slot ${slot} has no master`);
  return { master: master[1], replicas: replicas.map((replica) => replica[1]) };
}

describe.runIf(cluster !== undefined)('a Redis Cluster failover under load', () => {
  let openai: FakeServer;
  let gateway: TestGateway;
  const nodes = cluster?.nodes ?? [];
  const logLines: string[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    gateway = await startTestGateway(
      {
        REDIS_CLUSTER_NODES: nodes.join(','),
        ...chargedGatewaySettings(openai.url, STARTING_BALANCE),
      },
      undefined,
      { logLines },
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await openai?.stop();
    await cluster?.stop();
  });

  it('serves through the loss of a master, follows its slots to the replica, and loses no charge', async () => {
    const clients = new Map(
      nodes.map((node) => [
        portOf(node),
        new Redis({ host: '127.0.0.1', port: portOf(node), maxRetriesPerRequest: 0 }),
      ]),
    );
    for (const connection of clients.values()) connection.on('error', () => {});
    const client = (port: number) => clients.get(port) as Redis;
    const load = startChargedLoad(gateway);
    /** The replica that takes the balance's slots over. */
    let promoted = Number.NaN;
    try {
      await until(() => load.asked >= 40);
      const [any] = clients.values();
      const slot = Number(await (any as Redis).cluster('KEYSLOT', BALANCE_KEY));
      const { master, replicas } = await servingSlot(any as Redis, slot);
      const [replica] = replicas;
      expect(replica).toBeDefined();
      const survivor = client(
        portOf(nodes.find((node) => ![master, replica].includes(portOf(node))) as string),
      );

      // The master stops executing writes and its replica catches up with all it executed; then it dies.
      await pauseWritesUntilReplicated(client(master), client(replica as number));
      client(master).disconnect();
      await cluster?.crash(master);
      load.flag = true;
      await expect
        .poll(async () => (await servingSlot(survivor, slot)).master, { timeout: 30_000, interval: 100 })
        .toBe(replica);
      promoted = replica as number;
      await expect
        .poll(async () => String(await survivor.cluster('INFO')).includes('cluster_state:ok'), {
          timeout: 30_000,
          interval: 100,
        })
        .toBe(true);
      const atPromotion = load.asked;
      await until(() => load.asked >= atPromotion + 60);
      load.flag = false;
    } finally {
      await load.stop();
    }
    try {
      await expectNothingLost({
        gateway,
        load,
        logLines,
        startingBalance: STARTING_BALANCE,
        balance: async () => Number(await client(promoted).get(BALANCE_KEY)),
      });
      expect(load.charged).toBeGreaterThan(0);
    } finally {
      for (const connection of clients.values()) connection.disconnect();
    }
    await expectStoreRecovered(gateway);
  }, 150_000);
});
