/**
 * A real Redis Sentinel set for the store suites: a master and a replica (`redis-server` with a
 * config file each, since Sentinel rewrites their configuration on a failover) and three sentinels
 * (`redis-server <file> --sentinel`, quorum 2, the master deemed down after 1 s), all on free
 * loopback ports. Three, not one with quorum 1: a failover needs a majority of the sentinels to
 * elect a leader, which a lone sentinel never exercises. Ready once the replica is in sync and every
 * sentinel knows the replica and the two other sentinels. Without redis-server it returns undefined
 * (and says why), unless REQUIRE_REDIS=1 (CI), which makes it required.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePorts, findOnPath, killRedis } from './redis-server.ts';

export interface RedisSentinelSet {
  /** The name the sentinels monitor the master under: what REDIS_SENTINEL_MASTER takes. */
  masterName: string;
  /** `127.0.0.1:<port>` of each sentinel: what REDIS_SENTINELS takes. */
  sentinels: string[];
  /** The first master's port, then the replica's. */
  dataPorts: [number, number];
  /** The master's port, as the sentinels answer it now. */
  masterPort(): Promise<number>;
  /** SIGKILL of a data node, as a crash. */
  crash(port: number): Promise<void>;
  /**
   * SIGSTOP of a sentinel (`index` into `sentinels`): it still accepts connections (the kernel
   * does) and answers nothing, as a stalled or overloaded sentinel. `resumeSentinel` (SIGCONT).
   */
  stallSentinel(index: number): void;
  resumeSentinel(index: number): void;
  stop(): Promise<void>;
}

const MASTER_NAME = 'mymaster';
const READY_TIMEOUT_MS = 30_000;

/** Starts `args` and resolves once its output contains `readyText`. */
function spawnUntil(binary: string, args: readonly string[], readyText: string): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start:\n${output}`));
    }, READY_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes(readyText)) return;
      clearTimeout(timer);
      child.stdout?.off('data', onOutput);
      child.stderr?.off('data', onOutput);
      child.off('exit', onExit);
      // Keep draining the pipes so that a chatty process never blocks on a full one.
      child.stdout?.resume();
      child.stderr?.resume();
      resolve(child);
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('exit', onExit);
  });
}

/** Polls `probe` (with a short-lived client of `port`) until it holds. */
async function waitFor(
  port: number,
  what: string,
  probe: (client: Redis) => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => {});
  try {
    await client.connect();
    while (!(await probe(client).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.disconnect();
  }
}

/** `SENTINEL MASTER` as a field map. */
function fieldsOf(reply: unknown): Record<string, string> {
  const list = reply as string[];
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < list.length; index += 2)
    fields[list[index] as string] = list[index + 1] as string;
  return fields;
}

export async function startRedisSentinelSet(): Promise<RedisSentinelSet | undefined> {
  const binary = findOnPath('redis-server');
  if (binary === undefined) {
    if (process.env.REQUIRE_REDIS === '1')
      throw new Error('redis-server is required (REQUIRE_REDIS=1) for the Redis Sentinel suites');
    process.stderr.write('redis-server is not on PATH: skipping the Redis Sentinel suites\n');
    return undefined;
  }
  const directory = await mkdtemp(join(tmpdir(), 'gw-redis-sentinel-'));
  const children = new Map<number, ChildProcess>();
  const stop = async () => {
    await Promise.all([...children.values()].map((child) => killRedis(child)));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const [masterPort, replicaPort, ...sentinelPorts] = (await findFreePorts(5)) as [
      number,
      number,
      ...number[],
    ];
    for (const port of [masterPort, replicaPort]) {
      const dir = join(directory, `node-${port}`);
      await mkdir(dir);
      const config = [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        'save ""',
        'appendonly no',
        ...(port === replicaPort ? [`replicaof 127.0.0.1 ${masterPort}`] : []),
      ];
      await writeFile(join(dir, 'redis.conf'), `${config.join('\n')}\n`);
      children.set(port, await spawnUntil(binary, [join(dir, 'redis.conf')], 'Ready to accept connections'));
    }
    await waitFor(replicaPort, 'the replica to sync', async (client) =>
      (await client.info('replication')).includes('master_link_status:up'),
    );
    for (const port of sentinelPorts) {
      const dir = join(directory, `sentinel-${port}`);
      await mkdir(dir);
      const config = [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 10000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
      ];
      await writeFile(join(dir, 'sentinel.conf'), `${config.join('\n')}\n`);
      children.set(
        port,
        await spawnUntil(binary, [join(dir, 'sentinel.conf'), '--sentinel'], '+monitor master'),
      );
    }
    // The sentinels learn of the replica from the master, and of each other from their hello
    // messages (every 2 s).
    for (const port of sentinelPorts) {
      await waitFor(port, `sentinel ${port} to know the replica and the other sentinels`, async (client) => {
        const master = fieldsOf(await client.call('SENTINEL', 'MASTER', MASTER_NAME));
        return master['num-slaves'] === '1' && master['num-other-sentinels'] === '2';
      });
    }
    return {
      masterName: MASTER_NAME,
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`),
      dataPorts: [masterPort, replicaPort],
      async masterPort() {
        const client = new Redis({ host: '127.0.0.1', port: sentinelPorts[0], maxRetriesPerRequest: 0 });
        client.on('error', () => {});
        try {
          const [, port] = (await client.call(
            'SENTINEL',
            'GET-MASTER-ADDR-BY-NAME',
            MASTER_NAME,
          )) as string[];
          return Number(port);
        } finally {
          client.disconnect();
        }
      },
      async crash(port) {
        const child = children.get(port);
        if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      },
      stallSentinel(index) {
        children.get(sentinelPorts[index] as number)?.kill('SIGSTOP');
      },
      resumeSentinel(index) {
        children.get(sentinelPorts[index] as number)?.kill('SIGCONT');
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
