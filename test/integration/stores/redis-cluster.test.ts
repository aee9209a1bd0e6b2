/**
 * The Redis stores on a real three-master Redis Cluster (ioredis's Cluster client, as
 * REDIS_CLUSTER_NODES selects): the same contract suites as on one server, so every script,
 * transaction and pipeline is shown to keep its keys in one hash slot (a cross-slot one fails with
 * CROSSSLOT here), and the feeds to work through the cluster's pub/sub.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../../src/stores/redis-client.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import { RedisRuntimeStore } from '../../../src/stores/redis-runtime-store.ts';
import { describeConfigStoreContract } from '../../contract/config-store-contract.ts';
import { describeConfigViewContract } from '../../contract/config-view-contract.ts';
import { describeRuntimeStoreContract } from '../../contract/runtime-store-contract.ts';
import { startRedisCluster } from '../../helpers/redis-cluster.ts';

const cluster = await startRedisCluster();
afterAll(async () => {
  await cluster?.stop();
});

const freshPrefix = () => `gw:test:${randomUUID()}:`;

describe.runIf(cluster !== undefined)('Redis stores on a Redis Cluster', () => {
  const clusterNodes = cluster?.nodes ?? [];

  describeConfigStoreContract('redis cluster', () => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisConfigStore({ clusterNodes, keyPrefix }) };
  });

  describeConfigViewContract('redis cluster', () => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisConfigStore({ clusterNodes, keyPrefix }) };
  });

  it("sends a tick's commands to a node in one write", async () => {
    const client = createRedisClient({ clusterNodes }, 'write-test') as Cluster;
    try {
      const key = `{${randomUUID()}}`;
      await client.set(`${key}a`, '1');
      // The commands below go to the node that answered: count the writes on every master's socket.
      let single = 0;
      const batched: number[] = [];
      for (const node of client.nodes('master')) {
        const socket = node.stream as Socket & {
          _write: (...args: unknown[]) => void;
          _writev: (chunks: unknown[], ...rest: unknown[]) => void;
        };
        if (socket === undefined) continue;
        const write = socket._write;
        const writev = socket._writev;
        socket._write = function (this: unknown, ...args: unknown[]) {
          single += 1;
          return write.apply(this, args);
        };
        socket._writev = function (this: unknown, chunks: unknown[], ...rest: unknown[]) {
          batched.push(chunks.length);
          return writev.call(this, chunks, ...rest);
        };
      }
      const answers = await Promise.all([
        client.incrby(`${key}a`, 2),
        client.get(`${key}a`),
        client.del(`${key}a`),
      ]);
      expect(answers).toEqual([3, '3', 1]);
      expect({ single, batched }).toEqual({ single: 0, batched: [3] });
    } finally {
      await client.quit();
    }
  });

  describeRuntimeStoreContract('redis cluster', (options) => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisRuntimeStore({ clusterNodes, keyPrefix, ...options }) };
  });
});
