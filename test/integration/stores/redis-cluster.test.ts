/**
 * The Redis stores on a real three-master Redis Cluster (ioredis's Cluster client, as
 * REDIS_CLUSTER_NODES selects): the same contract suites as on one server, so every script,
 * transaction and pipeline is shown to keep its keys in one hash slot (a cross-slot one fails with
 * CROSSSLOT here), and the feeds to work through the cluster's pub/sub.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe } from 'vitest';
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

  describeRuntimeStoreContract('redis cluster', (options) => {
    const keyPrefix = freshPrefix();
    return { open: async () => new RedisRuntimeStore({ clusterNodes, keyPrefix, ...options }) };
  });
});
