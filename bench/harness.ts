/**
 * Child processes and report helpers for `bench/tokens.ts` and `bench/cache.ts`: the fake
 * upstream, redis-server, the gateway in standalone and gateway roles, all on loopback, all tracked
 * and stopped on every exit path. Node children get `child-guard.ts` preloaded (they stop when the
 * bench's stdin pipe to them closes, even if the bench was SIGKILLed); redis-server runs under
 * `setpriv --pdeathsig KILL`, which the kernel applies when the bench dies.
 *
 * (The same mechanics as `run.ts`, which keeps its own copy so that its figures stay comparable.)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createThrowawayCertificate } from '../test/helpers/throwaway-tls.ts';

export const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = resolve(BENCH_DIR, '..');

// ---------------------------------------------------------------------------------------------
// Tracking: every child is killed when the bench exits, however it exits.

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let shuttingDown = false;

function killChildren(signal: NodeJS.Signals): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

process.on('exit', () => {
  killChildren('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping children\n`);
    process.exit(130);
  });
}

/** A temporary directory removed when the bench exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export interface Tracked {
  child: ChildProcess;
  name: string;
  output: () => string;
  /** Set before stopping a child on purpose, so its exit does not abort the bench. */
  expectExit: boolean;
}

function track(child: ChildProcess, name: string): Tracked {
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const tracked: Tracked = { child, name, output: () => output, expectExit: false };
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (!shuttingDown && !tracked.expectExit) {
      process.stderr.write(
        `bench: ${name} exited unexpectedly (code ${code}, signal ${signal})\n${output}\n`,
      );
      process.exit(1);
    }
  });
  return tracked;
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the child has exited. */
export async function stopChild(tracked: Tracked, timeoutMs = 10_000): Promise<void> {
  tracked.expectExit = true;
  const { child } = tracked;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Stops every child still running (the end of a bench). */
export async function stopAll(): Promise<void> {
  shuttingDown = true;
  await Promise.all(
    [...children].map((child) => stopChild({ child, name: '', output: () => '', expectExit: true })),
  );
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise((done) => server.close(done));
  return port;
}

function findOnPath(command: string): string | undefined {
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

/** Resolves once `child`'s stdout or stderr contains `text`; rejects after `timeoutMs`. */
function waitForOutput(tracked: Tracked, text: string, timeoutMs: number): Promise<void> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      cleanUp();
      fail(new Error(`${tracked.name} did not print '${text}' within ${timeoutMs} ms:\n${tracked.output()}`));
    }, timeoutMs);
    const check = () => {
      if (!tracked.output().includes(text)) return;
      cleanUp();
      done();
    };
    const cleanUp = () => {
      clearTimeout(timer);
      tracked.child.stdout?.off('data', check);
      tracked.child.stderr?.off('data', check);
    };
    tracked.child.stdout?.on('data', check);
    tracked.child.stderr?.on('data', check);
    check();
  });
}

// ---------------------------------------------------------------------------------------------
// The children.

/**
 * A node child that prints `{"port":N}` on its first stdout line once it listens on 127.0.0.1
 * (`https://` when `tls`), with this process's environment and `env` over it.
 */
async function startPortChild(
  script: string,
  args: string[],
  name: string,
  nodeArgs: string[] = [],
  options: { env?: Record<string, string>; tls?: boolean } = {},
): Promise<{ tracked: Tracked; url: string }> {
  const child = spawn(process.execPath, [...nodeArgs, join(BENCH_DIR, script), ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const tracked = track(child, name);
  const port = await new Promise<number>((done, fail) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout!.off('data', onData);
      try {
        done((JSON.parse(buffered.slice(0, newline)) as { port: number }).port);
      } catch (error) {
        fail(error);
      }
    };
    child.stdout!.on('data', onData);
  });
  return { tracked, url: `${options.tls === true ? 'https' : 'http'}://127.0.0.1:${port}` };
}

export function startFake(): Promise<{ tracked: Tracked; url: string }> {
  return startPortChild('fake-upstream.ts', [], 'fake upstream');
}

/**
 * `llm-upstream.ts`: streams of timed chunks, like a model's tokens (`llm-streams.ts`); over TLS
 * with `certificate` (ALPN h2 and http/1.1), plain HTTP without.
 */
export function startLlmUpstream(
  certificate?: ThrowawayCertificate,
): Promise<{ tracked: Tracked; url: string }> {
  const args = certificate === undefined ? [] : ['0', certificate.keyFile, certificate.certFile];
  return startPortChild('llm-upstream.ts', args, 'LLM-shaped upstream', [], {
    tls: certificate !== undefined,
  });
}

/** A self-signed certificate's files: the key and the certificate, its own CA. */
export interface ThrowawayCertificate {
  keyFile: string;
  certFile: string;
}

/**
 * A self-signed certificate for 127.0.0.1 (openssl, P-256), its key in a temporary directory
 * removed when the bench exits; the sides trust it through NODE_EXTRA_CA_CERTS=`certFile`.
 */
export function throwawayCertificate(): ThrowawayCertificate {
  const dir = tempDir('gateway-bench-tls-');
  const { key, cert } = createThrowawayCertificate();
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  writeFileSync(keyFile, key, { mode: 0o600 });
  writeFileSync(certFile, cert);
  return { keyFile, certFile };
}

/** `otlp-sink.ts`: where a traced gateway exports its spans (OTEL_EXPORTER_OTLP_ENDPOINT). */
export function startOtlpSink(): Promise<{ tracked: Tracked; url: string }> {
  return startPortChild('otlp-sink.ts', [], 'OTLP sink');
}

/**
 * `bare-forwarder.ts` in front of `upstreamUrl` (the reference of `throughput.ts`); `env` for its
 * settings (BENCH_BARE_CONNECTIONS, BENCH_BARE_HTTP2, NODE_EXTRA_CA_CERTS).
 */
export function startBareForwarder(
  upstreamUrl: string,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
  name = 'bare forwarder',
): Promise<{ tracked: Tracked; url: string }> {
  return startPortChild('bare-forwarder.ts', [upstreamUrl], name, nodeArgs, { env });
}

/** `framework-floor.ts` in front of `upstreamUrl`: the gateway's HTTP layers without its logic. */
export function startFrameworkFloor(
  upstreamUrl: string,
  nodeArgs: string[] = [],
): Promise<{ tracked: Tracked; url: string }> {
  return startPortChild('framework-floor.ts', [upstreamUrl], 'framework floor', nodeArgs);
}

/** redis-server on a free loopback port, no persistence; killed by the kernel if the bench dies. */
export async function startRedis(
  options: { port?: number } = {},
): Promise<{ tracked: Tracked; url: string }> {
  const binary = findOnPath('redis-server');
  if (binary === undefined) throw new Error('redis-server is not on PATH (needed for the revocation part)');
  const setpriv = findOnPath('setpriv');
  const dir = tempDir('gateway-bench-redis-');
  const port = options.port ?? (await freePort());
  const args = [
    '--save',
    '',
    '--appendonly',
    'no',
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
  ];
  const child =
    setpriv === undefined
      ? spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(setpriv, ['--pdeathsig', 'KILL', '--', binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const tracked = track(child, 'redis-server');
  await waitForOutput(tracked, 'Ready to accept connections', 10_000);
  return { tracked, url: `redis://127.0.0.1:${port}` };
}

export interface BootstrapCredentials {
  apiKey: string;
  apiKeyId: string;
  pat: string;
}

export interface GatewayEnv {
  upstreamUrl: string;
  signingKey: string;
  redisUrl?: string;
  encryptionKey?: string;
  /** More node flags before the script (e.g. `--cpu-prof`, `--expose-gc`, another `--import`). */
  nodeArgs?: string[];
  /** More environment variables: gateway settings (GATEWAY_CACHE_MEMORY_BYTES) or the bench's own. */
  extraEnv?: Record<string, string>;
}

function gatewayEnv(options: GatewayEnv): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'warn',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: `${options.upstreamUrl}/v1`,
    SERVICE_TOKEN_SIGNING_KEY: options.signingKey,
    SHUTDOWN_GRACE_MS: '2000',
  };
  if (options.redisUrl !== undefined) env.REDIS_URL = options.redisUrl;
  if (options.encryptionKey !== undefined) env.SERVICE_ENCRYPTION_KEY = options.encryptionKey;
  return { ...env, ...options.extraEnv };
}

/** The node flags the container image runs the service with (the Dockerfile's NODE_OPTIONS). */
export function imageNodeFlags(): string[] {
  const line = /^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  return line === null ? [] : (line[1] as string).trim().split(/\s+/);
}

/**
 * The image runs with Node's compile cache filled at build time (the Dockerfile), so its pods never
 * load the type stripper; the bench's gateways do the same, with a cache of their own filled once
 * per bench process (this preload included). Entries are checked against the files' contents.
 */
const COMPILE_CACHE = join(os.tmpdir(), 'gateway-bench-compile-cache');
let compileCacheWarm = false;

function warmCompileCache(): void {
  if (compileCacheWarm) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'scripts/warm-compile-cache.mjs'), join(BENCH_DIR, 'child-guard.ts')],
    {
      env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE },
      stdio: 'ignore',
    },
  );
  compileCacheWarm = true;
}

/** A gateway child, run as the image runs it (its node flags first; `nodeArgs` after, which win). */
function spawnGateway(
  role: 'standalone' | 'gateway',
  env: Record<string, string>,
  name: string,
  nodeArgs: string[] = [],
): Tracked {
  warmCompileCache();
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(BENCH_DIR, 'child-guard.ts'),
      ...imageNodeFlags(),
      ...nodeArgs,
      join(ROOT, 'src/main/cli.ts'),
      role,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { NODE_COMPILE_CACHE: COMPILE_CACHE, ...env } },
  );
  return track(child, name);
}

/** `standalone` (gateway + control plane), embedded stores unless `redisUrl` is given. */
export async function startStandalone(
  options: GatewayEnv,
  name = 'standalone',
): Promise<{ tracked: Tracked; url: string; controlUrl: string; credentials: BootstrapCredentials }> {
  const stateDir = tempDir('gateway-bench-state-');
  const bootstrapFile = join(stateDir, 'bootstrap.json');
  const [gatewayPort, controlPort] = [await freePort(), await freePort()];
  const tracked = spawnGateway(
    'standalone',
    {
      ...gatewayEnv(options),
      GATEWAY_PORT: String(gatewayPort),
      CONTROL_PORT: String(controlPort),
      STATE_DIR: stateDir,
      BOOTSTRAP_FILE: bootstrapFile,
      BOOTSTRAP_BALANCE_MICROS: '1000000000000',
    },
    name,
    options.nodeArgs,
  );
  const deadline = Date.now() + 30_000;
  while (!existsSync(bootstrapFile)) {
    if (Date.now() > deadline) throw new Error(`${name} did not start in 30 s:\n${tracked.output()}`);
    await sleep(50);
  }
  // The file is written in one call, but it may be observed before the write completes.
  let credentials: BootstrapCredentials | undefined;
  while (credentials === undefined) {
    try {
      credentials = JSON.parse(readFileSync(bootstrapFile, 'utf8')) as BootstrapCredentials;
    } catch {
      if (Date.now() > deadline) throw new Error('unreadable bootstrap file');
      await sleep(20);
    }
  }
  return {
    tracked,
    url: `http://127.0.0.1:${gatewayPort}`,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    credentials,
  };
}

/** A second process in the `gateway` role (needs Redis and the shared encryption key). */
export async function startGatewayRole(
  options: GatewayEnv & { redisUrl: string; encryptionKey: string },
  name = 'gateway',
): Promise<{ tracked: Tracked; url: string }> {
  const port = await freePort();
  const tracked = spawnGateway(
    'gateway',
    { ...gatewayEnv(options), GATEWAY_PORT: String(port) },
    name,
    options.nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${name} was not ready in 30 s:\n${tracked.output()}`);
    await sleep(50);
  }
  return { tracked, url };
}

// ---------------------------------------------------------------------------------------------
// Report helpers.

export const f3 = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(3);

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) =>
      column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
    );
  return [
    line(headers).join('  '),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map((row) => line(row).join('  ')),
  ].join('\n');
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpuCount: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAvgAtStart: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
}

/** Runs a bench's main and exits: 0 when it finished, 1 with the error printed when it failed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
      );
      process.exit(1);
    },
  );
}
