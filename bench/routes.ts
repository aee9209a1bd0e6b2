/**
 * Model-route benchmark (`npm run bench:routes`), issue #25, three parts in one run, loopback only.
 * One standalone gateway on a redis-server (so that the bench can put routes straight into its
 * config store), in front of the fast fake upstream of run.ts as `openai/`, a silent upstream as
 * `groq/` (takes the request, never answers) and a port nobody listens on as `mistral/`.
 *
 * 1. Route overhead, two ways. In this process: the route's own work per request (the route's
 *    lookup, the selection, the breaker's lease, the three headers, the first-byte timer) against
 *    a plain request's (its lookup, its headers), timed over many iterations. Through the gateway:
 *    its CPU per request through a one-target route against the same target called directly, in
 *    alternating segments, from /proc (user + system, all threads; noisy on a shared host), and
 *    the latency at concurrency 1. Aim: under 20 µs CPU per request.
 * 2. Failover on a refused connection: a route whose first target refuses connections (its breaker
 *    set never to open, so every request pays the failover) against the second target directly,
 *    latency at concurrency 1. Aim: under 5 ms added.
 * 3. Failover on a timeout: the first target silent, `firstByteTimeoutMs` 200: the added time is
 *    the timeout, and past it no more than a refused connection's failover (5 ms at p50).
 *
 * Options (flags or env): --quick, BENCH_SEGMENT_MS, BENCH_ROUNDS, BENCH_TIMEOUT_REQUESTS.
 * See bench/README.md, section "Model routes".
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { BalanceState } from '../src/billing/accountant.ts';
import { loadSettings } from '../src/config/settings.ts';
import { renderAnswerHeaders } from '../src/gateway/inference-exchange.ts';
import { RouteHealth } from '../src/gateway/routing/route-health.ts';
import { RouteSelection } from '../src/gateway/routing/target-selection.ts';
import { BOOTSTRAP_TENANT } from '../src/main/bootstrap.ts';
import { closeStores, openStores } from '../src/main/open-stores.ts';
import { PROVIDER_NAMES } from '../src/providers/registry.ts';
import type { ResolvedRoute } from '../src/providers/types.ts';
import { ConfigIndex } from '../src/stores/config-index.ts';
import { type ModelRouteRecord, modelRouteId } from '../src/stores/records.ts';
import {
  BENCH_DIR,
  f3,
  freePort,
  machineInfo,
  runBench,
  startFake,
  startRedis,
  startStandalone,
  stopAll,
  table,
  tempDir,
} from './harness.ts';
import { closedLoop, concatSamples, type LoadRequest, type Summary, summarise } from './load.ts';
import { cpuSeconds } from './proc-stats.ts';

const QUICK = process.argv.includes('--quick');

const config = {
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 600 : 1500)),
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 3 : 8)),
  warmupMs: QUICK ? 1000 : 3000,
  /** Part 1's load: enough in flight to keep the gateway busy, so its CPU is mostly requests. */
  overheadConcurrency: 8,
  timeoutRequests: Number(process.env.BENCH_TIMEOUT_REQUESTS ?? (QUICK ? 10 : 40)),
  firstByteTimeoutMs: 200,
  aimOverheadUs: 20,
  aimRefusedMs: 5,
};

const DIRECT = 'openai/gpt-4o-mini';

function route(model: string, overrides: Partial<ModelRouteRecord>): ModelRouteRecord {
  return {
    v: 1,
    tenantId: BOOTSTRAP_TENANT,
    model,
    strategy: 'weighted',
    targets: [{ model: DIRECT, weight: 1, priority: 0 }],
    retry: {
      maxAttempts: 3,
      on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
      backoffMs: 100,
      maxBackoffMs: 2000,
    },
    firstByteTimeoutMs: 30_000,
    circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
    shared: false,
    ...overrides,
  };
}

/** Every request a failover: the first target's breaker never opens. */
const NEVER_OPEN = { consecutiveFailures: 1_000_000_000, openSeconds: 1 };

const ROUTES: ModelRouteRecord[] = [
  route('bench-route', {}),
  route('bench-refused', {
    circuitBreaker: NEVER_OPEN,
    targets: [
      { model: 'mistral/mistral-small-latest', weight: 1, priority: 0 },
      { model: DIRECT, weight: 1, priority: 1 },
    ],
  }),
  route('bench-timeout', {
    circuitBreaker: NEVER_OPEN,
    firstByteTimeoutMs: config.firstByteTimeoutMs,
    targets: [
      { model: 'groq/llama-3.1-8b-instant', weight: 1, priority: 0 },
      { model: DIRECT, weight: 1, priority: 1 },
    ],
  }),
];

function requestFor(apiKey: string, model: string, attempts?: string): LoadRequest {
  return {
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hi.' }] })),
    stream: false,
    ...(attempts === undefined
      ? { expectHeader: { name: 'x-service-route', value: undefined } }
      : { expectHeader: { name: 'x-service-route-attempts', value: attempts } }),
  };
}

interface Segment {
  ok: number;
  failures: number;
  cpuUsPerRequest: number;
  samples: Float64Array;
}

async function segment(pool: Pool, request: LoadRequest, concurrency: number, pid: number): Promise<Segment> {
  const cpuBefore = cpuSeconds(pid);
  const result = await closedLoop(pool, request, concurrency, config.segmentMs);
  const cpu = cpuSeconds(pid) - cpuBefore;
  if (result.failures > 0) throw new Error(`failures: ${result.failureExamples.join('; ')}`);
  return {
    ok: result.ok,
    failures: result.failures,
    cpuUsPerRequest: (cpu * 1e6) / result.ok,
    samples: result.totalMs,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
};

/** Exposes the index's record setter (protected: the config view's). */
class BenchIndex extends ConfigIndex {
  put(record: ModelRouteRecord): void {
    this.applyRecord('modelRoute', modelRouteId(record.tenantId, undefined, record.model), record);
  }
}

/** Part 1 in process: CPU µs per request of a plain request's routing work, and a route's. */
function measureInProcess(): { plainUs: number; routedUs: number } {
  const index = new BenchIndex();
  index.put(route('bench-route', {}));
  const health = new RouteHealth();
  const balance: BalanceState = { mode: 'prepaid', remainingMicros: 1_000_000 };
  const resolved = { provider: { name: 'openai' }, byok: false } as unknown as ResolvedRoute;
  const noop = () => {};
  let sink = 0;
  const plain = () => {
    sink += index.modelRoute(BOOTSTRAP_TENANT, 'default', DIRECT) === undefined ? 1 : 0;
    sink += Object.keys(renderAnswerHeaders(resolved, balance, 10, undefined, 'application/json')).length;
  };
  const routed = () => {
    const record = index.modelRoute(BOOTSTRAP_TENANT, 'default', 'bench-route') as ModelRouteRecord;
    const selection = new RouteSelection(record, health, Math.random);
    const picked = selection.pick() as NonNullable<ReturnType<RouteSelection['pick']>>;
    const lease = health.begin(picked.key);
    clearTimeout(setTimeout(noop, record.firstByteTimeoutMs));
    const routeHeaders = { model: record.model, target: picked.target.model, attempts: 1 };
    sink += Object.keys(
      renderAnswerHeaders(resolved, balance, 10, undefined, 'application/json', routeHeaders),
    ).length;
    health.end(lease, 'healthy', record.circuitBreaker);
  };
  const time = (work: () => void) => {
    const iterations = QUICK ? 100_000 : 500_000;
    for (let index = 0; index < iterations / 5; index += 1) work();
    const started = process.cpuUsage();
    for (let index = 0; index < iterations; index += 1) work();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / iterations;
  };
  const plainUs = Math.min(time(plain), time(plain), time(plain));
  const routedUs = Math.min(time(routed), time(routed), time(routed));
  if (sink === 0) throw new Error('nothing measured');
  return { plainUs, routedUs };
}

async function main(): Promise<void> {
  const inProcess = measureInProcess();
  const fake = await startFake();
  const silent = createServer(() => {
    // Takes the request and never answers: the gateway's first-byte timeout ends it.
  });
  silent.listen(0, '127.0.0.1');
  await new Promise((resolve) => silent.once('listening', resolve));
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const refusedPort = await freePort();
  const redis = await startRedis();
  const gateway = await startStandalone({
    upstreamUrl: fake.url,
    signingKey: 'k1:bench-routes-signing-key-0123456789',
    redisUrl: redis.url,
    extraEnv: {
      GATEWAY_CACHE: 'off',
      GROQ_API_KEY: 'gsk-bench',
      GROQ_BASE_URL: `${silentUrl}/v1`,
      MISTRAL_API_KEY: 'mistral-bench',
      MISTRAL_BASE_URL: `http://127.0.0.1:${refusedPort}/v1`,
    },
  });
  const pid = gateway.tracked.child.pid as number;

  // The routes go straight into the config store the gateway watches.
  const stores = await openStores(
    loadSettings({ REDIS_URL: redis.url, STATE_DIR: tempDir('gateway-bench-routes-') }, PROVIDER_NAMES),
  );
  for (const record of ROUTES)
    await stores.config.put('modelRoute', modelRouteId(record.tenantId, undefined, record.model), record);
  await closeStores(stores);
  const apiKey = gateway.credentials.apiKey;
  for (const record of ROUTES) {
    for (;;) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: record.model, messages: [{ role: 'user', content: 'ready?' }] }),
      });
      await response.text();
      if (response.headers.get('x-service-route') === record.model) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const pool = new Pool(gateway.url, { connections: 64, pipelining: 1 });
  const direct = requestFor(apiKey, DIRECT);
  const routed = requestFor(apiKey, 'bench-route', '1');
  const refused = requestFor(apiKey, 'bench-refused', '2');
  const timedOut = requestFor(apiKey, 'bench-timeout', '2');
  await closedLoop(pool, direct, config.overheadConcurrency, config.warmupMs / 2);
  await closedLoop(pool, routed, config.overheadConcurrency, config.warmupMs / 2);
  await closedLoop(pool, refused, 1, config.warmupMs / 4);

  // Part 1: CPU per request, route against direct, alternating; latency at concurrency 1 the same way.
  const cpu = { direct: [] as number[], routed: [] as number[], differences: [] as number[] };
  const latency = {
    direct: [] as Float64Array[],
    routed: [] as Float64Array[],
    refused: [] as Float64Array[],
    refusedDirect: [] as Float64Array[],
  };
  for (let round = 0; round < config.rounds; round += 1) {
    const order = round % 2 === 0 ? (['direct', 'routed'] as const) : (['routed', 'direct'] as const);
    const measured: Record<string, number> = {};
    for (const side of order) {
      const result = await segment(
        pool,
        side === 'direct' ? direct : routed,
        config.overheadConcurrency,
        pid,
      );
      cpu[side].push(result.cpuUsPerRequest);
      measured[side] = result.cpuUsPerRequest;
    }
    cpu.differences.push((measured.routed as number) - (measured.direct as number));
    for (const side of order)
      latency[side].push((await segment(pool, side === 'direct' ? direct : routed, 1, pid)).samples);
    // Part 2 in the same rounds: the refused failover against its serving target directly.
    latency.refused.push((await segment(pool, refused, 1, pid)).samples);
    latency.refusedDirect.push((await segment(pool, direct, 1, pid)).samples);
  }

  // Part 3: each request waits out the silent target's first-byte timeout, then is served; with
  // the same load generator as the others (at concurrency 1), so that the figures compare.
  const timeoutRun = await closedLoop(
    pool,
    timedOut,
    1,
    config.timeoutRequests * (config.firstByteTimeoutMs + 5),
  );
  if (timeoutRun.failures > 0) throw new Error(`timeout failover: ${timeoutRun.failureExamples.join('; ')}`);
  await pool.close();
  silent.closeAllConnections();
  silent.close();

  const summary = (parts: Float64Array[]): Summary => summarise(concatSamples(parts));
  const directLatency = summary(latency.direct);
  const routedLatency = summary(latency.routed);
  const refusedLatency = summary(latency.refused);
  const refusedDirect = summary(latency.refusedDirect);
  const timeout = summarise(timeoutRun.totalMs);
  const overheadUs = median(cpu.differences);
  const refusedAddedMs = refusedLatency.p50 - refusedDirect.p50;
  const timeoutAddedMs = timeout.p50 - refusedDirect.p50;

  process.stdout.write(
    `\nModel routes (${QUICK ? 'quick' : 'full'}), ${config.rounds} rounds of ${config.segmentMs} ms\n\n`,
  );
  process.stdout.write(
    `${table(
      ['', 'CPU µs/req (median)', 'latency c=1 p50 ms', 'p99 ms'],
      [
        ['direct (openai/gpt-4o-mini)', f3(median(cpu.direct)), f3(directLatency.p50), f3(directLatency.p99)],
        ['one-target route', f3(median(cpu.routed)), f3(routedLatency.p50), f3(routedLatency.p99)],
      ],
    )}\n`,
  );
  process.stdout.write(
    `in process: a plain request's routing work ${f3(inProcess.plainUs)} µs, a route's ${f3(inProcess.routedUs)} µs: the route adds ${f3(inProcess.routedUs - inProcess.plainUs)} µs CPU per request (aim < ${config.aimOverheadUs})\n`,
  );
  process.stdout.write(
    `through the gateway: route overhead ${f3(overheadUs)} µs CPU per request (median of per-round differences: ${cpu.differences.map((value) => value.toFixed(1)).join(', ')}; aim < ${config.aimOverheadUs})\n\n`,
  );
  process.stdout.write(
    `${table(
      ['failover', 'p50 ms', 'p99 ms', 'max ms', 'added p50 ms'],
      [
        ['target directly', f3(refusedDirect.p50), f3(refusedDirect.p99), f3(refusedDirect.max), '-'],
        [
          'first target refuses connections',
          f3(refusedLatency.p50),
          f3(refusedLatency.p99),
          f3(refusedLatency.max),
          f3(refusedAddedMs),
        ],
        [
          `first target silent (firstByteTimeoutMs ${config.firstByteTimeoutMs})`,
          f3(timeout.p50),
          f3(timeout.p99),
          f3(timeout.max),
          f3(timeoutAddedMs),
        ],
      ],
    )}\n`,
  );
  process.stdout.write(
    `aims: refused < ${config.aimRefusedMs} ms added (${refusedAddedMs < config.aimRefusedMs ? 'met' : 'missed'}); timeout adds firstByteTimeoutMs and little more (${timeoutAddedMs - config.firstByteTimeoutMs < config.aimRefusedMs ? 'met' : 'missed'}: p50 ${f3(timeoutAddedMs - config.firstByteTimeoutMs)} ms past it, max ${f3(timeout.max)} ms in all)\n`,
  );
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `routes-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const results = {
    machine: machineInfo(),
    config,
    cpu,
    overheadUs,
    directLatency,
    routedLatency,
    refusedLatency,
    refusedDirect,
    timeout,
  };
  writeFileSync(file, JSON.stringify(results, null, 2));
  process.stdout.write(`results: ${file}\n`);
  await stopAll();
}

runBench(main);
