/**
 * Gateway overhead benchmark (`npm run bench`). Starts a fast fake OpenAI upstream and the gateway
 * (standalone) as child processes on loopback, then measures chat completions, JSON and SSE, sent
 * directly to the fake and through the gateway, side by side with the same closed-loop generator,
 * and prints latency percentiles, throughput and the gateway's added latency. See bench/README.md.
 *
 * Options (flags or env): --quick (short segments), --profile (run the gateway under --cpu-prof and
 * print its hot spots), BENCH_SEGMENT_MS, BENCH_ROUNDS, BENCH_CONCURRENCY (e.g. "1,32").
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { runBench } from './harness.ts';
import { closedLoop, concatSamples, type LoadRequest, type Summary, summarise } from './load.ts';
import { renderProfileSummary, summariseProfile } from './profile-summary.ts';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');
const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const PROFILE = argv.has('--profile') || process.env.BENCH_PROFILE === '1';

const config = {
  /** Measured time per (scenario, round); rounds alternate direct and gateway. */
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 800 : 2500)),
  /** Discarded traffic before every measured segment (fills pools, settles the loop). */
  segmentWarmupMs: QUICK ? 150 : 300,
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 3)),
  /** Discarded traffic through the gateway (both modes) before any measurement, for the JIT. */
  initialWarmupMs: QUICK ? 1000 : 3000,
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number),
  aimAddedP50Ms: 0.5,
  aimAddedP99Ms: 2,
};

// ---------------------------------------------------------------------------------------------
// Child processes: tracked, and killed on any exit path.

const children = new Set<ChildProcess>();
let stateDir: string | undefined;

function killChildren(signal: NodeJS.Signals): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

process.on('exit', () => {
  killChildren('SIGKILL');
  if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping children\n`);
    process.exit(130);
  });
}

function track(child: ChildProcess, name: string): { output: () => string } {
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (!shuttingDown) {
      process.stderr.write(
        `bench: ${name} exited unexpectedly (code ${code}, signal ${signal})\n${output}\n`,
      );
      process.exit(1);
    }
  });
  return { output: () => output };
}

let shuttingDown = false;

async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise((done) => server.close(done));
  return port;
}

async function startFake(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(BENCH_DIR, 'fake-upstream.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(child, 'fake upstream');
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
  return { child, url: `http://127.0.0.1:${port}` };
}

async function startGateway(
  upstreamUrl: string,
  profileDir: string | undefined,
): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  stateDir = mkdtempSync(join(os.tmpdir(), 'gateway-bench-'));
  const bootstrapFile = join(stateDir, 'bootstrap.json');
  const [gatewayPort, controlPort] = [await freePort(), await freePort()];
  const nodeArgs = ['--import', join(BENCH_DIR, 'child-guard.ts')];
  if (profileDir !== undefined) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'src/main/cli.ts'), 'standalone'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_PORT: String(gatewayPort),
      CONTROL_PORT: String(controlPort),
      HOST: '127.0.0.1',
      STATE_DIR: stateDir,
      BOOTSTRAP_FILE: bootstrapFile,
      LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'warn',
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: `${upstreamUrl}/v1`,
      BOOTSTRAP_BALANCE_MICROS: '1000000000000',
      SHUTDOWN_GRACE_MS: '2000',
    },
  });
  const tracked = track(child, 'gateway');
  const deadline = Date.now() + 30_000;
  while (!existsSync(bootstrapFile)) {
    if (Date.now() > deadline) throw new Error(`gateway did not start in 30 s:\n${tracked.output()}`);
    await sleep(50);
  }
  // The file is written in one call, but it may be observed before the write completes.
  let apiKey: string | undefined;
  while (apiKey === undefined) {
    try {
      apiKey = (JSON.parse(readFileSync(bootstrapFile, 'utf8')) as { apiKey: string }).apiKey;
    } catch {
      if (Date.now() > deadline) throw new Error('unreadable bootstrap file');
      await sleep(20);
    }
  }
  return { child, url: `http://127.0.0.1:${gatewayPort}`, apiKey };
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

type Mode = 'json' | 'stream';
type Via = 'direct' | 'gateway';

interface Target {
  via: Via;
  origin: string;
  apiKey: string;
}

/**
 * The gateway's response cache (on by default) would answer these identical requests from the
 * second one on: `off` sends every gateway request to the upstream, which is the path under test.
 * (The cache's own figures are `npm run bench:cache`.)
 */
const NO_CACHE = { 'x-service-cache': 'off' } as const;

function requestFor(mode: Mode, target: Target): LoadRequest {
  const model = target.via === 'gateway' ? 'openai/gpt-4o-mini' : 'gpt-4o-mini';
  const body: Record<string, unknown> = { model, messages: [{ role: 'user', content: 'hi' }] };
  if (mode === 'stream') body.stream = true;
  return {
    path: '/v1/chat/completions',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${target.apiKey}`,
      ...(target.via === 'gateway' ? NO_CACHE : {}),
    },
    body: Buffer.from(JSON.stringify(body)),
    stream: mode === 'stream',
  };
}

interface ScenarioResult {
  name: string;
  mode: Mode;
  via: Via;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  measuredMs: number;
  requestsPerSecond: number;
  latencyMs: Summary;
  /** Streams only: time to the first body chunk. */
  firstByteMs?: Summary;
}

async function measure(
  mode: Mode,
  targets: Record<Via, Target>,
  concurrency: number,
): Promise<Record<Via, ScenarioResult>> {
  const pools = {
    direct: new Pool(targets.direct.origin, { connections: concurrency, pipelining: 1 }),
    gateway: new Pool(targets.gateway.origin, { connections: concurrency, pipelining: 1 }),
  };
  const requests = { direct: requestFor(mode, targets.direct), gateway: requestFor(mode, targets.gateway) };
  const parts = {
    direct: {
      total: [] as Float64Array[],
      first: [] as Float64Array[],
      ok: 0,
      fail: 0,
      ms: 0,
      ex: [] as string[],
    },
    gateway: {
      total: [] as Float64Array[],
      first: [] as Float64Array[],
      ok: 0,
      fail: 0,
      ms: 0,
      ex: [] as string[],
    },
  };
  try {
    for (let round = 0; round < config.rounds; round++) {
      // Alternate the order so neither side always runs first (drift, thermal, neighbours).
      const order: Via[] = round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
      for (const via of order) {
        await closedLoop(pools[via], requests[via], concurrency, config.segmentWarmupMs);
        const samples = await closedLoop(pools[via], requests[via], concurrency, config.segmentMs);
        const part = parts[via];
        part.total.push(samples.totalMs);
        part.first.push(samples.firstByteMs);
        part.ok += samples.ok;
        part.fail += samples.failures;
        part.ms += samples.elapsedMs;
        part.ex.push(...samples.failureExamples);
      }
    }
  } finally {
    await Promise.all([pools.direct.close(), pools.gateway.close()]);
  }
  const result = (via: Via): ScenarioResult => {
    const part = parts[via];
    return {
      name: `${mode === 'json' ? 'chat JSON' : 'chat SSE'} ${via} c=${concurrency}`,
      mode,
      via,
      concurrency,
      ok: part.ok,
      failures: part.fail,
      failureExamples: part.ex.slice(0, 5),
      measuredMs: part.ms,
      requestsPerSecond: (part.ok * 1000) / part.ms,
      latencyMs: summarise(concatSamples(part.total)),
      ...(mode === 'stream' ? { firstByteMs: summarise(concatSamples(part.first)) } : {}),
    };
  };
  return { direct: result('direct'), gateway: result('gateway') };
}

async function warmUp(targets: Record<Via, Target>): Promise<void> {
  const pool = new Pool(targets.gateway.origin, { connections: 8 });
  const direct = new Pool(targets.direct.origin, { connections: 8 });
  try {
    for (const mode of ['json', 'stream'] as const) {
      const check = await closedLoop(pool, requestFor(mode, targets.gateway), 1, 1);
      if (check.failures > 0)
        throw new Error(`gateway ${mode} check failed: ${check.failureExamples.join('; ')}`);
      // Twice more: neither may come from the response cache (no x-service-cache header at all).
      for (let i = 0; i < 2; i++) {
        const request = requestFor(mode, targets.gateway);
        const response = await pool.request({ ...request, method: 'POST' });
        await response.body.text();
        const cache = response.headers['x-service-cache'];
        if (response.statusCode !== 200 || cache !== undefined)
          throw new Error(`gateway ${mode} check: status ${response.statusCode}, x-service-cache ${cache}`);
      }
      await closedLoop(pool, requestFor(mode, targets.gateway), 8, config.initialWarmupMs / 2);
      await closedLoop(direct, requestFor(mode, targets.direct), 8, config.initialWarmupMs / 4);
    }
  } finally {
    await Promise.all([pool.close(), direct.close()]);
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

const f3 = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(3);

function table(headers: string[], rows: string[][]): string {
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

interface Added {
  mode: Mode;
  concurrency: number;
  metric: 'total' | 'first byte';
  p50Ms: number;
  p99Ms: number;
  meetsAim?: boolean;
}

function machineInfo() {
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

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(BENCH_DIR, 'results');
  const profileDir = PROFILE ? join(resultsDir, `profile-${stamp}`) : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });

  process.stdout.write(
    `gateway bench: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, ${machine.os}\n` +
      `segments ${config.segmentMs} ms x ${config.rounds} rounds per side (alternating), ` +
      `concurrency ${config.concurrency.join(', ')}${PROFILE ? ', gateway under --cpu-prof' : ''}\n`,
  );
  const fake = await startFake();
  const gateway = await startGateway(fake.url, profileDir);
  const targets: Record<Via, Target> = {
    direct: { via: 'direct', origin: fake.url, apiKey: 'sk-bench' },
    gateway: { via: 'gateway', origin: gateway.url, apiKey: gateway.apiKey },
  };
  process.stdout.write(`fake upstream ${fake.url}, gateway ${gateway.url}; warming up\n`);
  await warmUp(targets);

  const results: ScenarioResult[] = [];
  const added: Added[] = [];
  for (const concurrency of config.concurrency) {
    for (const mode of ['json', 'stream'] as const) {
      process.stdout.write(`  measuring ${mode} c=${concurrency}\n`);
      const pair = await measure(mode, targets, concurrency);
      results.push(pair.direct, pair.gateway);
      const total: Added = {
        mode,
        concurrency,
        metric: 'total',
        p50Ms: pair.gateway.latencyMs.p50 - pair.direct.latencyMs.p50,
        p99Ms: pair.gateway.latencyMs.p99 - pair.direct.latencyMs.p99,
      };
      if (concurrency === 1)
        total.meetsAim = total.p50Ms < config.aimAddedP50Ms && total.p99Ms < config.aimAddedP99Ms;
      added.push(total);
      if (mode === 'stream') {
        added.push({
          mode,
          concurrency,
          metric: 'first byte',
          p50Ms: pair.gateway.firstByteMs!.p50 - pair.direct.firstByteMs!.p50,
          p99Ms: pair.gateway.firstByteMs!.p99 - pair.direct.firstByteMs!.p99,
        });
      }
    }
  }

  shuttingDown = true;
  await stopChild(gateway.child);
  await stopChild(fake.child);

  const report = [
    '',
    `machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.totalMemGiB} GiB, ${machine.os}, node ${machine.node}`,
    `date: ${startedAt.toISOString()}; load avg at start ${machine.loadAvgAtStart.join(' ')}`,
    '',
    table(
      ['scenario', 'ok', 'fail', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s', 'ttfb p50', 'ttfb p99'],
      results.map((result) => [
        result.name,
        String(result.ok),
        String(result.failures),
        f3(result.latencyMs.p50),
        f3(result.latencyMs.p90),
        f3(result.latencyMs.p99),
        f3(result.latencyMs.max),
        result.requestsPerSecond.toFixed(0),
        f3(result.firstByteMs?.p50),
        f3(result.firstByteMs?.p99),
      ]),
    ),
    '',
    'added by the gateway (gateway minus direct, same percentile):',
    table(
      ['scenario', 'added p50 ms', 'added p99 ms', `aim <${config.aimAddedP50Ms} / <${config.aimAddedP99Ms}`],
      added.map((row) => [
        `chat ${row.mode === 'json' ? 'JSON' : 'SSE'} c=${row.concurrency} ${row.metric}`,
        f3(row.p50Ms),
        f3(row.p99Ms),
        row.meetsAim === undefined ? '' : row.meetsAim ? 'met' : 'MISSED',
      ]),
    ),
  ];
  for (const result of results.filter((r) => r.failures > 0)) {
    report.push(`failures in ${result.name}: ${result.failureExamples.join('; ')}`);
  }

  let profileSummary: ReturnType<typeof summariseProfile> | undefined;
  if (profileDir !== undefined) {
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) report.push('', `no .cpuprofile was written to ${profileDir}`);
    else {
      profileSummary = summariseProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')), 30);
      report.push('', `gateway CPU profile ${join(profileDir, file)}`, renderProfileSummary(profileSummary));
    }
  }

  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine,
        config: { ...config, quick: QUICK, profile: PROFILE },
        scenarios: results,
        added,
        ...(profileSummary !== undefined ? { profile: profileSummary } : {}),
      },
      null,
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
