/**
 * A real three-master Redis Cluster for the store suites: three `redis-server --cluster-enabled
 * yes` on free loopback ports, joined by `redis-cli --cluster create` (no replicas), ready once
 * every node says `cluster_state:ok`. Without redis-server or redis-cli it returns undefined (and
 * says why), unless REQUIRE_REDIS=1 (CI), which makes them required.
 */

import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { findFreePort, findOnPath, killRedis, spawnRedis } from './redis-server.ts';

export interface RedisCluster {
  /** `127.0.0.1:<port>` of each master: what REDIS_CLUSTER_NODES takes. */
  nodes: string[];
  stop(): Promise<void>;
}

const run = promisify(execFile);
const READY_TIMEOUT_MS = 20_000;

async function clusterIsReady(port: number): Promise<boolean> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const info = await client.cluster('INFO');
    return String(info).includes('cluster_state:ok');
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function startRedisCluster(): Promise<RedisCluster | undefined> {
  const server = findOnPath('redis-server');
  const cli = findOnPath('redis-cli');
  if (server === undefined || cli === undefined) {
    if (process.env.REQUIRE_REDIS === '1') {
      throw new Error(
        'redis-server and redis-cli are required (REQUIRE_REDIS=1) for the Redis Cluster suites',
      );
    }
    process.stderr.write('redis-server or redis-cli is not on PATH: skipping the Redis Cluster suites\n');
    return undefined;
  }
  const directory = await mkdtemp(join(tmpdir(), 'gw-redis-cluster-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => killRedis(child)));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const port = await findFreePort();
      const nodeDirectory = join(directory, String(port));
      await mkdir(nodeDirectory);
      children.push(
        await spawnRedis(server, port, nodeDirectory, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '2000',
        ]),
      );
      ports.push(port);
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run(cli, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: READY_TIMEOUT_MS,
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ready = await Promise.all(ports.map((port) => clusterIsReady(port)));
      if (ready.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not reach cluster_state:ok in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { nodes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
