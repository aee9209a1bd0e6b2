/**
 * Spend on a Redis Cluster that is down: a master gone without a replica to take its slots, the
 * other masters answer CLUSTERDOWN for every slot (cluster-require-full-coverage, the default)
 * until it is back. A counter with a TTL is a MULTI, which the node refuses whole (EXECABORT, each
 * queued command CLUSTERDOWN): it ran nothing, so the spend journal keeps it for later, as for a
 * plain command the cluster client gave up redirecting. Its own cluster: the suite takes one down.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { SpendJournal } from '../../../src/billing/spend-journal.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { RedisRuntimeStore } from '../../../src/stores/redis-runtime-store.ts';
import { isUnavailability } from '../../../src/stores/store-breaker.ts';
import { startRedisCluster } from '../../helpers/redis-cluster.ts';

const cluster = await startRedisCluster();
afterAll(async () => {
  await cluster?.stop();
});

const portOf = (node: string) => Number(node.split(':')[1]);

describe.runIf(cluster !== undefined)('spend on a Redis Cluster that is down', () => {
  it('journals the counter changes the cluster refused, with a TTL (a MULTI) or without', async () => {
    const nodes = cluster?.nodes ?? [];
    const runtime = new RedisRuntimeStore({ clusterNodes: nodes, keyPrefix: `gw:test:${randomUUID()}:` });
    const survivor = new Redis({
      host: '127.0.0.1',
      port: portOf(nodes[1] as string),
      maxRetriesPerRequest: 0,
    });
    survivor.on('error', () => {});
    try {
      expect(await runtime.incrementCounter('spend:token:t1', 5, 120)).toBe(5);
      const victim = new Redis({
        host: '127.0.0.1',
        port: portOf(nodes[0] as string),
        maxRetriesPerRequest: 0,
      });
      victim.on('error', () => {});
      await victim.call('SHUTDOWN', 'NOSAVE').catch(() => undefined); // the connection drops as it exits
      victim.disconnect();
      // The other masters mark it failed after cluster-node-timeout (2 s in the helper).
      await expect
        .poll(async () => String(await survivor.cluster('INFO')).includes('cluster_state:fail'), {
          timeout: 20_000,
          interval: 100,
        })
        .toBe(true);

      const refused = await runtime
        .incrementCounter('spend:token:t1', 7, 120)
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ message: expect.stringMatching(/^EXECABORT /) });
      expect(isUnavailability(refused)).toBe(true);

      const journal = new SpendJournal({ runtime, log: createLogger('silent', 'journal') });
      const changes = [
        { kind: 'counter', name: 'spend:token:t1', by: 7, ttlSeconds: 120 },
        { kind: 'counter', name: 'spend:tenant:t1', by: 11 },
      ] as const;
      for (const change of changes) expect(await journal.apply(change)).toBeUndefined();
      expect(journal.stats).toMatchObject({ entries: 2, journaled: 2, dropped: 0 });
    } finally {
      survivor.disconnect();
      await runtime.close();
    }
  }, 60_000);
});
