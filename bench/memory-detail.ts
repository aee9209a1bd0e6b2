/**
 * Where a gateway's memory goes under the throughput bench's load (`node bench/memory-detail.ts`):
 * one gateway, on memory stores (standalone) or Redis stores (the gateway role, as in
 * `throughput.ts`), with `heap-probe.ts` preloaded, under closed-loop unique-body misses (JSON and
 * SSE in turns, c=32). Reports, at each stage (after start, after filling the memory store, at the
 * load's RSS peak, after full GCs): RSS (and VmHWM), the V8 heap (committed, used, per space),
 * external and array buffers; then splits the peak into the V8 heap's live part, its garbage, its
 * free committed pages, and what is outside the V8 heap. Options:
 *
 * - `--snapshot`: a heap snapshot after the load (after GC), summarised by type, constructor and
 *   string shape (cache entries and keys show as their own string shapes); deleted unless `--keep`.
 * - `--sample`: allocation sampling (collected objects included) over one JSON and one SSE segment:
 *   bytes allocated per request, by function and area.
 * - `--quick`; BENCH_STORE (`memory` | `redis`), BENCH_CONCURRENCY (32), BENCH_LOAD_MS (20000),
 *   BENCH_FILL (`0`: no fill), BENCH_GATEWAY_NODE_ARGS and BENCH_GATEWAY_ENV as in `throughput.ts`.
 *
 * Output: tables on stdout, everything in `bench/results/memory-detail-<stamp>.json`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { DEFAULT_MAX_CACHE_BYTES } from '../src/stores/memory-cache.ts';
import {
  BENCH_DIR,
  machineInfo,
  runBench,
  startFake,
  startGatewayRole,
  startRedis,
  startStandalone,
  stopAll,
  stopChild,
  type Tracked,
  table,
  tempDir,
} from './harness.ts';
import {
  type AllocationSummary,
  renderAllocationSummary,
  renderSnapshotSummary,
  type SnapshotSummary,
  summariseHeapProfile,
  summariseSnapshot,
} from './heap-summary.ts';
import { closedLoop } from './load.ts';
import {
  checkTarget,
  type FillResult,
  fillMemoryStore,
  type Kind,
  type MissTarget,
  requestFor,
} from './miss-load.ts';
import { memoryStatus, type ProcessUsage, SegmentWatch } from './proc-stats.ts';

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const SNAPSHOT = argv.has('--snapshot');
const KEEP = argv.has('--keep');
const SAMPLE = argv.has('--sample');

function gatewayEnvOverrides(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (process.env.BENCH_GATEWAY_ENV ?? '').split(',').filter((p) => p.trim() !== '')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`BENCH_GATEWAY_ENV: '${pair}' is not NAME=value`);
    env[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return env;
}

const config = {
  store: (process.env.BENCH_STORE ?? 'memory') as 'memory' | 'redis',
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 32),
  loadMs: Number(process.env.BENCH_LOAD_MS ?? (QUICK ? 4000 : 20_000)),
  /** Load alternates JSON and SSE in chunks of this length. */
  chunkMs: 2000,
  sampleMs: QUICK ? 1000 : 3000,
  fill: (process.env.BENCH_FILL ?? (QUICK ? '0' : '1')) !== '0',
  gatewayNodeArgs: (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
  gatewayEnv: gatewayEnvOverrides(),
};
if (config.store !== 'memory' && config.store !== 'redis') throw new Error('BENCH_STORE is memory or redis');

const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The probe in the gateway.

interface ProbeSample {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, { size: number; used: number }>;
  heap: Record<string, number>;
}

class Probe {
  #sequence = 0;
  readonly dir: string;
  readonly pid: number;
  constructor(dir: string, pid: number) {
    this.dir = dir;
    this.pid = pid;
  }

  async ask(
    op: string,
    extra: object = {},
    timeoutMs = 120_000,
  ): Promise<{ now: ProbeSample; peak?: ProbeSample }> {
    writeFileSync(join(this.dir, 'command.json'), JSON.stringify({ op, ...extra }));
    this.#sequence++;
    const file = join(this.dir, `answer-${this.#sequence}.json`);
    process.kill(this.pid, 'SIGUSR2');
    const deadline = Date.now() + timeoutMs;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error(`the heap probe did not answer '${op}' in ${timeoutMs} ms`);
      await sleep(20);
    }
    const answer = JSON.parse(readFileSync(file, 'utf8')) as {
      error?: string;
      now: ProbeSample;
      peak?: ProbeSample;
    };
    if (answer.error !== undefined) throw new Error(`heap probe, ${op}: ${answer.error}`);
    return answer;
  }
}

interface Stage {
  name: string;
  sample: ProbeSample;
  /** VmRSS now and the phase's VmHWM (or the process's, for point stages), bytes. */
  vmRss: number;
  vmHwm: number;
}

function stage(name: string, sample: ProbeSample, pid: number, usage?: ProcessUsage): Stage {
  const status = memoryStatus(pid);
  return { name, sample, vmRss: status.rss, vmHwm: usage?.peakRss ?? status.hwm };
}

// ---------------------------------------------------------------------------------------------

async function load(target: MissTarget, ms: number): Promise<{ requests: number; failures: number }> {
  const pool = new Pool(target.url, { connections: config.concurrency, pipelining: 1 });
  const requests = { json: requestFor(target, 'json'), sse: requestFor(target, 'sse') };
  let done = 0;
  let failures = 0;
  try {
    const started = performance.now();
    let kind: Kind = 'json';
    while (performance.now() - started < ms) {
      const samples = await closedLoop(pool, requests[kind], config.concurrency, config.chunkMs);
      done += samples.ok;
      failures += samples.failures;
      kind = kind === 'json' ? 'sse' : 'json';
    }
  } finally {
    await pool.close();
  }
  return { requests: done, failures };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const probeDir = tempDir('gateway-bench-heap-probe-');
  const envNote = Object.entries(config.gatewayEnv)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  process.stdout.write(
    `memory detail: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}; ${config.store} stores, ` +
      `c=${config.concurrency}, load ${config.loadMs} ms${config.fill && config.store === 'memory' ? ' after filling the store' : ''}` +
      `${config.gatewayNodeArgs.length > 0 ? `; node args ${config.gatewayNodeArgs.join(' ')}` : ''}` +
      `${envNote !== '' ? `; env ${envNote}` : ''}\n`,
  );

  const fake = await startFake();
  const nodeArgs = ['--expose-gc', '--import', join(BENCH_DIR, 'heap-probe.ts'), ...config.gatewayNodeArgs];
  const extraEnv = { ...config.gatewayEnv, BENCH_HEAP_PROBE_DIR: probeDir };
  const base = { upstreamUrl: fake.url, signingKey: `k1:${randomBytes(32).toString('hex')}` };
  let gateway: { url: string; tracked: Tracked };
  let apiKey: string;
  let workspaceId: string;
  if (config.store === 'memory') {
    const standalone = await startStandalone({ ...base, nodeArgs, extraEnv }, 'standalone (memory stores)');
    gateway = standalone;
    apiKey = standalone.credentials.apiKey;
    workspaceId = (standalone.credentials as { workspaceId?: string }).workspaceId ?? 'default';
  } else {
    const redis = await startRedis();
    const shared = { ...base, redisUrl: redis.url, encryptionKey: randomBytes(32).toString('hex') };
    const standalone = await startStandalone(
      { ...shared, nodeArgs: config.gatewayNodeArgs, extraEnv: config.gatewayEnv },
      'standalone (config writer)',
    );
    apiKey = standalone.credentials.apiKey;
    workspaceId = (standalone.credentials as { workspaceId?: string }).workspaceId ?? 'default';
    gateway = await startGatewayRole({ ...shared, nodeArgs, extraEnv }, 'gateway role (Redis stores)');
  }
  const pid = gateway.tracked.child.pid!;
  const target: MissTarget = {
    url: gateway.url,
    apiKey,
    model: 'openai/gpt-4o-mini',
    tracked: gateway.tracked,
    workspaceId,
    expectMiss: true,
  };
  const probe = new Probe(probeDir, pid);
  await checkTarget(target, 'gateway');
  await sleep(500);
  const stages: Stage[] = [];
  stages.push(stage('after start (idle)', (await probe.ask('peak')).now, pid));
  stages.push(stage('after start, after GC', (await probe.ask('gc')).now, pid));

  let fill: FillResult | undefined;
  if (config.store === 'memory' && config.fill) {
    process.stdout.write('  filling the memory store to its budget\n');
    await probe.ask('reset');
    fill = await fillMemoryStore(
      target,
      ['json', 'sse'],
      config.concurrency,
      Number(config.gatewayEnv.GATEWAY_CACHE_MEMORY_BYTES ?? DEFAULT_MAX_CACHE_BYTES),
    );
    const answer = await probe.ask('peak');
    stages.push(stage('fill: at its RSS peak', answer.peak!, pid, fill.usage));
    stages.push(stage('after fill, after GC', (await probe.ask('gc')).now, pid));
    process.stdout.write(
      `    ${fill.entries} entries, charged ${(fill.chargedBytes / MiB).toFixed(0)} MiB, ~${fill.entriesHeld} held\n`,
    );
  } else {
    await load(target, QUICK ? 1000 : 3000);
  }

  process.stdout.write(`  load: ${config.loadMs} ms, JSON and SSE in turns\n`);
  await probe.ask('reset');
  const watch = new SegmentWatch([pid]);
  const loadStarted = performance.now();
  const loaded = await load(target, config.loadMs);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const usage = watch.stop()[0]!;
  const peakAnswer = await probe.ask('peak');
  stages.push(stage('load: at its RSS peak', peakAnswer.peak!, pid, usage));
  stages.push(stage('load: at its end', peakAnswer.now, pid));
  stages.push(stage('after load, after GC', (await probe.ask('gc')).now, pid));
  if (loaded.failures > 0) throw new Error(`${loaded.failures} failures under load`);

  let allocations: Partial<Record<Kind, { requests: number; summary: AllocationSummary }>> | undefined;
  if (SAMPLE) {
    allocations = {};
    const pool = new Pool(gateway.url, { connections: config.concurrency, pipelining: 1 });
    try {
      for (const kind of ['json', 'sse'] as const) {
        process.stdout.write(`  allocation sampling, ${kind}, ${config.sampleMs} ms\n`);
        const request = requestFor(target, kind);
        await closedLoop(pool, request, config.concurrency, 500);
        await probe.ask('sample-start', { intervalBytes: 32_768 });
        const samples = await closedLoop(pool, request, config.concurrency, config.sampleMs);
        const file = join(probeDir, `${kind}.heapprofile`);
        await probe.ask('sample-stop', { path: file });
        allocations[kind] = {
          requests: samples.ok,
          summary: summariseHeapProfile(JSON.parse(readFileSync(file, 'utf8')), 30),
        };
        if (KEEP)
          writeFileSync(join(resultsDir, `memory-detail-${stamp}-${kind}.heapprofile`), readFileSync(file));
      }
    } finally {
      await pool.close();
    }
  }

  let snapshot: SnapshotSummary | undefined;
  let snapshotFile: string | undefined;
  if (SNAPSHOT) {
    snapshotFile = join(KEEP ? resultsDir : probeDir, `memory-detail-${stamp}.heapsnapshot`);
    process.stdout.write('  heap snapshot\n');
    await probe.ask('gc');
    await probe.ask('snapshot', { path: snapshotFile }, 600_000);
    snapshot = summariseSnapshot(snapshotFile, 40);
    if (!KEEP) rmSync(snapshotFile, { force: true });
  }

  await stopChild(gateway.tracked);
  await stopAll();

  // Report.
  const m = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / MiB).toFixed(1));
  const spaceNames = ['new_space', 'old_space', 'code_space', 'large_object_space', 'trusted_space'];
  const report = [
    '',
    `machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.totalMemGiB} GiB, ${machine.os}, node ${machine.node}`,
    `date: ${startedAt.toISOString()}; load avg at start ${machine.loadAvgAtStart.join(' ')}`,
    `load: ${loaded.requests} requests in ${loadSeconds.toFixed(1)} s (${(loaded.requests / loadSeconds).toFixed(0)} req/s), ` +
      `gateway CPU ${((usage.cpuSeconds * 1e6) / loaded.requests).toFixed(0)} µs/request`,
    '',
    'MiB; "VmHWM" is the phase\'s peak RSS (point stages: the process\'s so far); spaces: committed / used',
    table(
      [
        'stage',
        'VmRSS',
        'VmHWM',
        'rss',
        'heapTotal',
        'heapUsed',
        'external',
        'arrayBuf',
        ...spaceNames.map((name) => name.replace('_space', '')),
        'malloced',
      ],
      stages.map((s) => [
        s.name,
        m(s.vmRss),
        m(s.vmHwm),
        m(s.sample.rss),
        m(s.sample.heapTotal),
        m(s.sample.heapUsed),
        m(s.sample.external),
        m(s.sample.arrayBuffers),
        ...spaceNames.map((name) => `${m(s.sample.spaces[name]?.size)}/${m(s.sample.spaces[name]?.used)}`),
        m(s.sample.heap.malloced_memory),
      ]),
    ),
  ];
  const peak = stages.find((s) => s.name === 'load: at its RSS peak')!;
  const live = stages.find((s) => s.name === 'after load, after GC')!;
  const idle = stages.find((s) => s.name === 'after start, after GC')!;
  const breakdown = {
    peakRss: peak.sample.rss,
    v8Committed: peak.sample.heapTotal,
    newSpaceCommitted: peak.sample.spaces.new_space?.size ?? 0,
    liveHeapAfterGc: live.sample.heapUsed,
    liveHeapAtStart: idle.sample.heapUsed,
    garbageAtPeak: peak.sample.heapUsed - live.sample.heapUsed,
    freeCommittedAtPeak: peak.sample.heapTotal - peak.sample.heapUsed,
    outsideV8Heap: peak.sample.rss - peak.sample.heapTotal,
    outsideV8HeapAtStart: idle.sample.rss - idle.sample.heapTotal,
    arrayBuffersAtPeak: peak.sample.arrayBuffers,
  };
  report.push(
    '',
    `at the load's RSS peak (${m(breakdown.peakRss)} MiB by process.memoryUsage; VmHWM ${m(peak.vmHwm)} MiB):`,
    `  V8 heap committed        ${m(breakdown.v8Committed)} MiB (new space ${m(breakdown.newSpaceCommitted)} MiB of it)`,
    `    live after GC          ${m(breakdown.liveHeapAfterGc)} MiB (at start ${m(breakdown.liveHeapAtStart)} MiB)`,
    `    garbage at the peak    ${m(breakdown.garbageAtPeak)} MiB (used at peak minus live after GC)`,
    `    committed, unused      ${m(breakdown.freeCommittedAtPeak)} MiB`,
    `  outside the V8 heap      ${m(breakdown.outsideV8Heap)} MiB (at start ${m(breakdown.outsideV8HeapAtStart)} MiB: ` +
      `code, native libraries and their heaps, thread stacks; array buffers ${m(breakdown.arrayBuffersAtPeak)} MiB)`,
  );
  if (fill !== undefined) {
    report.push(
      `  memory store: ${fill.entries} entries written, ~${fill.entriesHeld} held, ` +
        `${(fill.writtenBytes / fill.entries).toFixed(0)} B of entry text each, charged ${(fill.chargedBytes / fill.entries).toFixed(0)} B each`,
    );
  }
  if (allocations !== undefined) {
    for (const kind of ['json', 'sse'] as const) {
      const a = allocations[kind];
      if (a === undefined) continue;
      report.push('', `allocations under ${kind} load:`, renderAllocationSummary(a.summary, a.requests));
    }
  }
  if (snapshot !== undefined) {
    report.push(
      '',
      `heap snapshot after the load, after GC${KEEP ? ` (${snapshotFile})` : ''}:`,
      renderSnapshotSummary(snapshot),
    );
  }

  const resultsFile = join(resultsDir, `memory-detail-${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine,
        config: { ...config, quick: QUICK, snapshot: SNAPSHOT, sample: SAMPLE },
        fill,
        load: { ...loaded, seconds: loadSeconds, usage },
        stages,
        breakdown,
        ...(allocations !== undefined ? { allocations } : {}),
        ...(snapshot !== undefined ? { snapshot } : {}),
      },
      null,
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
