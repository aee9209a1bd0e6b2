/**
 * A real three-master Redis Cluster for the store suites: three `redis-server --cluster-enabled
 * yes` on free loopback ports, joined by `redis-cli --cluster create` (no replicas, or one per
 * master with `{replicas: 1}`), ready once every node says `cluster_state:ok` (and, with replicas,
 * every replica's link to its master is up). Without redis-server or redis-cli it returns undefined (and
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
  /** `127.0.0.1:<port>` of each node: what REDIS_CLUSTER_NODES takes. */
  nodes: string[];
  /** SIGKILL of a node, as a crash. */
  crash(port: number): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);
const READY_TIMEOUT_MS = 20_000;

/**
 * Whether the node at `port` says `cluster_state:ok` and sees every slot range served by a master
 * and `replicas` replicas, its own link to its master up if it is a replica.
 */
async function nodeIsReady(port: number, replicas: number): Promise<boolean> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    if (!String(await client.cluster('INFO')).includes('cluster_state:ok')) return false;
    const info = await client.info('replication');
    if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
    const ranges = (await client.cluster('SLOTS')) as unknown[][];
    return ranges.length > 0 && ranges.every((range) => range.length - 2 === 1 + replicas);
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function startRedisCluster(
  options: { replicas?: 0 | 1 } = {},
): Promise<RedisCluster | undefined> {
  const replicas = options.replicas ?? 0;
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
    for (let index = 0; index < 3 * (1 + replicas); index += 1) {
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
    await run(
      cli,
      ['--cluster', 'create', ...nodes, '--cluster-replicas', String(replicas), '--cluster-yes'],
      {
        timeout: READY_TIMEOUT_MS,
      },
    );
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ready = await Promise.all(ports.map((port) => nodeIsReady(port, replicas)));
      if (ready.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not reach cluster_state:ok in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const crash = async (port: number) => {
      const child = children[ports.indexOf(port)];
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    };
    return { nodes, crash, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
