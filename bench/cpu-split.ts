/**
 * Where a gateway's CPU goes under the throughput bench's load, as the operating system counts it
 * (`node bench/cpu-split.ts`): one standalone gateway on memory stores (BENCH_STORE=redis: the
 * gateway role on a redis-server child) under closed-loop unique-body misses (c=32), then, per
 * request, its user and system CPU and each thread's share (the main thread, V8's helper threads,
 * libuv's pool), next to the bare forwarder's. `--perf` also records the gateway with Linux `perf`
 * (node's `--perf-basic-prof` names the JIT's functions) into bench/results/perf-<stamp>.data and
 * prints its hottest symbols: unlike `--cpu-prof`, which samples the main thread by wall time and
 * so charges a syscall the time it waits, this counts CPU cycles in every thread and the kernel.
 *
 * BENCH_TRACING=1 (memory stores) measures what tracing costs by the same count: a second gateway
 * exports every request's spans to an OTLP sink (`otlp-sink.ts`, another process, so its CPU is not
 * counted), and the two gateways are measured in the order untraced, traced, traced, untraced.
 *
 * Settings: BENCH_KIND (`json` | `sse`), BENCH_LOAD_MS (5000), BENCH_WARM_MS (10000), BENCH_GATEWAY_NODE_ARGS
 * (node flags for the measured gateway, e.g. `--cpu-prof`), BENCH_GATEWAY_ENV
 * (`NAME=value,...`, given to the traced gateway only, e.g. `OTEL_TRACES_SAMPLER=always_on`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  BENCH_DIR,
  machineInfo,
  runBench,
  startBareForwarder,
  startFake,
  startGatewayRole,
  startOtlpSink,
  startRedis,
  startStandalone,
  stopAll,
} from './harness.ts';
import { closedLoop } from './load.ts';
import { type Kind, type MissTarget, requestFor } from './miss-load.ts';

const PERF = process.argv.includes('--perf');
const KIND = (process.env.BENCH_KIND ?? 'json') as Kind;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 5000);
const WARM_MS = Number(process.env.BENCH_WARM_MS ?? 10_000);
const STORE = process.env.BENCH_STORE === 'redis' ? 'redis' : 'memory';
const TRACING = process.env.BENCH_TRACING === '1';

/** BENCH_GATEWAY_ENV as variables. */
function gatewayEnvOverrides(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (process.env.BENCH_GATEWAY_ENV ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`BENCH_GATEWAY_ENV: '${pair}' is not NAME=value`);
    env[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return env;
}

/** Clock ticks (user, system) per thread, the main thread under its own name. */
function threadTicks(pid: number): Map<string, { user: number; system: number }> {
  const threads = new Map<string, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    const sum = threads.get(name) ?? { user: 0, system: 0 };
    sum.user += Number(fields[11]);
    sum.system += Number(fields[12]);
    threads.set(name, sum);
  }
  return threads;
}

/** CPU µs per request of each thread of `pid` over `requests`: ticks are 10 ms. */
function perRequest(
  before: Map<string, { user: number; system: number }>,
  after: Map<string, { user: number; system: number }>,
  requests: number,
) {
  const rows: { thread: string; user: number; system: number }[] = [];
  for (const [thread, ticks] of after) {
    const start = before.get(thread) ?? { user: 0, system: 0 };
    rows.push({
      thread,
      user: ((ticks.user - start.user) * 10_000) / requests,
      system: ((ticks.system - start.system) * 10_000) / requests,
    });
  }
  return rows.filter((row) => row.user + row.system >= 0.5).sort((a, b) => b.user - a.user);
}

async function measure(name: string, target: MissTarget, perfFile?: string): Promise<number> {
  const pid = target.tracked.child.pid as number;
  const pool = new Pool(target.url, { connections: 32 });
  const request = requestFor(target, KIND);
  await closedLoop(pool, request, 32, WARM_MS);
  const perf =
    perfFile === undefined
      ? undefined
      : spawn('perf', ['record', '-F', '999', '-p', String(pid), '-o', perfFile], { stdio: 'ignore' });
  const before = threadTicks(pid);
  const result = await closedLoop(pool, request, 32, LOAD_MS);
  const after = threadTicks(pid);
  if (perf !== undefined) {
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
  }
  await pool.close();
  const rows = perRequest(before, after, result.ok);
  const total = rows.reduce((sum, row) => sum + row.user + row.system, 0);
  process.stdout.write(`\n${name}: ${result.ok} requests, ${result.failures} failed; CPU µs per request:\n`);
  for (const row of rows)
    process.stdout.write(
      `  ${row.thread.padEnd(16)} user ${row.user.toFixed(0).padStart(4)}  system ${row.system.toFixed(0).padStart(4)}\n`,
    );
  process.stdout.write(`  ${'all threads'.padEnd(16)} ${total.toFixed(0)}\n`);
  return total;
}

runBench(async () => {
  const machine = machineInfo();
  process.stdout.write(
    `cpu split: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, load ${machine.loadAvgAtStart.join(' ')}; ${STORE} stores, ${KIND}, c=32\n`,
  );
  const fake = await startFake();
  const gatewayBase = { upstreamUrl: fake.url, signingKey: randomBytes(32).toString('hex') };
  const nodeArgs = [
    ...(PERF ? ['--perf-basic-prof'] : []),
    ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  ];
  let gateway: MissTarget;
  if (STORE === 'redis') {
    const redis = await startRedis();
    const shared = { ...gatewayBase, redisUrl: redis.url, encryptionKey: randomBytes(32).toString('hex') };
    const standalone = await startStandalone(shared, 'standalone (config writer)');
    const role = await startGatewayRole({ ...shared, nodeArgs }, 'gateway role');
    gateway = {
      url: role.url,
      apiKey: standalone.credentials.apiKey,
      model: 'openai/gpt-4o-mini',
      tracked: role.tracked,
      workspaceId: 'default',
      expectMiss: true,
    };
  } else {
    if (TRACING && PERF) throw new Error('BENCH_TRACING=1 and --perf: one at a time');
    const standalone = await startStandalone({ ...gatewayBase, nodeArgs });
    gateway = {
      url: standalone.url,
      apiKey: standalone.credentials.apiKey,
      model: 'openai/gpt-4o-mini',
      tracked: standalone.tracked,
      workspaceId: 'default',
      expectMiss: true,
    };
  }
  const bare = await startBareForwarder(fake.url);
  const bareTarget: MissTarget = {
    url: bare.url,
    apiKey: 'unused',
    model: 'gpt-4o-mini',
    tracked: bare.tracked,
    workspaceId: '',
    expectMiss: false,
  };
  let perfFile: string | undefined;
  if (PERF) {
    mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
    perfFile = join(BENCH_DIR, 'results', `perf-${new Date().toISOString().replace(/[:.]/g, '-')}.data`);
  }
  if (TRACING) {
    if (STORE !== 'memory') throw new Error('BENCH_TRACING=1 measures the memory stores');
    const sink = await startOtlpSink();
    const traced = await startStandalone(
      {
        ...gatewayBase,
        nodeArgs: (process.env.BENCH_TRACED_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
        extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...gatewayEnvOverrides() },
      },
      'traced standalone',
    );
    const tracedTarget: MissTarget = {
      ...gateway,
      url: traced.url,
      apiKey: traced.credentials.apiKey,
      tracked: traced.tracked,
    };
    const untracedCpu = [await measure('gateway, untraced', gateway)];
    const tracedCpu = [await measure('gateway, traced', tracedTarget)];
    tracedCpu.push(await measure('gateway, traced', tracedTarget));
    untracedCpu.push(await measure('gateway, untraced', gateway));
    const bareCpu = await measure('bare forwarder', bareTarget);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    process.stdout.write(
      `\ntracing: untraced ${untracedCpu.map((v) => v.toFixed(0)).join(', ')} µs, traced ${tracedCpu.map((v) => v.toFixed(0)).join(', ')} µs a request (bare ${bareCpu.toFixed(0)}); tracing adds ${((mean(tracedCpu) / mean(untracedCpu) - 1) * 100).toFixed(0)}%\n`,
    );
  } else {
    await measure(`gateway (${STORE} stores)`, gateway, perfFile);
    await measure('bare forwarder', bareTarget);
  }
  await stopAll();
  if (perfFile !== undefined) {
    const report = execFileSync('perf', ['report', '-i', perfFile, '--sort', 'symbol', '--stdio'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = report.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    process.stdout.write(`\nthe gateway's hottest symbols (perf, all threads; ${perfFile}):\n`);
    for (const line of lines.slice(0, 40)) process.stdout.write(`${line.slice(0, 150)}\n`);
  }
});
