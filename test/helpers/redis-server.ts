/**
 * Starts a throwaway `redis-server` on a free loopback port for integration tests: no persistence,
 * its own temp directory, killed on stop. Without `redis-server` on PATH it returns undefined (and
 * says why) so suites can use `describe.runIf(redis)`, unless REQUIRE_REDIS=1 (CI), which makes a
 * missing server an error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  /**
   * Kills the server and starts it again on the same port: a fresh, empty one (a Redis "wipe"),
   * or, with `persistent`, one that reloads its data.
   */
  restart(): Promise<void>;
  /** SIGKILL, as a crash: nothing answers on the port until `start`. */
  crash(): Promise<void>;
  /** Starts the server again after `crash` (reloading its data with `persistent`). */
  start(): Promise<void>;
  /**
   * SIGSTOP, as a stall (a fork on a large data set, a long script, a host frozen): connections stay
   * open and what clients write waits in the server's socket buffers, unread, until `resume`.
   */
  pause(): void;
  /** SIGCONT after `pause`: the server reads and runs what was written meanwhile. */
  resume(): void;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** An append-only file fsynced on every write, so that a restart or crash loses nothing. */
  persistent?: boolean;
}

const READY_LINE = 'Ready to accept connections';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export function findOnPath(command: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

export async function findFreePort(): Promise<number> {
  const [port] = await findFreePorts(1);
  return port as number;
}

/**
 * `count` distinct free loopback ports. Each is held open until all are chosen: one closed and
 * asked for again at once can come back the same (the Sentinel set once got one port for both its
 * data nodes).
 */
export async function findFreePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', resolve);
          }),
      ),
    );
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('could not find a free port');
      return address.port;
    });
  } finally {
    // A server that never listened calls back with an error: closed all the same.
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** Resolves once the server logs that it accepts connections; rejects if it exits or stalls. */
export function spawnRedis(
  binary: string,
  port: number,
  directory: string,
  extraArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    binary,
    [
      '--save',
      '',
      '--appendonly',
      'no',
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      directory,
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(READY_LINE)) {
        cleanUp();
        // Keep draining the pipes so that a chatty server never blocks on a full one.
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    const onExit = (code: number | null) => fail(new Error(`redis-server exited with ${code}:\n${output}`));
    const fail = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const cleanUp = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onOutput);
      child.stderr?.off('data', onOutput);
      child.off('exit', onExit);
      child.off('error', fail);
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer | undefined> {
  // `everysec`, Redis's default for the append-only file: every write reaches the file (the OS's
  // cache, which outlives a killed process) before its reply is sent. `always` would add an fsync
  // between the two, widening the instant in which a crash leaves a command applied but unanswered.
  const extraArgs = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : [];
  const binary = findOnPath('redis-server');
  if (binary === undefined) {
    if (process.env.REQUIRE_REDIS === '1') {
      throw new Error('redis-server is required (REQUIRE_REDIS=1) but is not on PATH');
    }
    process.stderr.write('redis-server is not on PATH: skipping the Redis integration suites\n');
    return undefined;
  }
  const directory = await mkdtemp(join(tmpdir(), 'gw-redis-'));
  // Another process may take the port between the probe and the bind; try a few ports.
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; child === undefined; attempt += 1) {
    port = await findFreePort();
    try {
      child = await spawnRedis(binary, port, directory, extraArgs);
    } catch (error) {
      if (attempt >= 3) {
        await rm(directory, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let current: ChildProcess = child;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart() {
      await killRedis(current);
      current = await spawnRedis(binary, port, directory, extraArgs);
    },
    async crash() {
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      current.kill('SIGKILL');
      await exited;
    },
    async start() {
      current = await spawnRedis(binary, port, directory, extraArgs);
    },
    pause() {
      current.kill('SIGSTOP');
    },
    resume() {
      current.kill('SIGCONT');
    },
    async stop() {
      // A paused server would not heed SIGTERM.
      current.kill('SIGCONT');
      await killRedis(current);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
