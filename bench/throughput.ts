/**
 * Throughput benchmark (`node bench/throughput.ts`): the whole gateway under closed-loop load, on
 * memory stores and on Redis stores, against a bare forwarder in the same run, every request a
 * cache miss. Loopback only; stops by itself. See bench/README.md, section "Throughput".
 *
 * Sides (each a child process in front of the same fake upstream):
 * - `bare`: `bare-forwarder.ts`, plain node:http + one undici Pool, the reference;
 * - `memory`: `standalone` without REDIS_URL (memory stores), default cache budget, cache on;
 * - `redis`: the `gateway` role on a redis-server child (REDIS_URL), its config written by a
 *   standalone with the same REDIS_URL (the control plane and operator, idle while measured);
 * - `redis-standalone` (only when named in BENCH_SIDES): that standalone itself, measured;
 * - `floor` (only when named): `framework-floor.ts`, the gateway's fastify setup, body parsing and
 *   upstream client without any of its logic: what the framework alone costs.
 *
 * Kinds: chat JSON and chat SSE (`"stream": true`). Every body is unique (a counter in the message),
 * so every gateway request misses the cache, goes upstream and writes its entry; every gateway
 * answer is checked for `x-service-cache: miss`. Before measuring, the memory store is filled to
 * its budget (unique misses) so that the measured segments run with a full cache, each write
 * evicting: the steady state of a gateway that has been under this load for a while.
 *
 * Per side, kind and concurrency: req/s, latency percentiles, the child's CPU time per request
 * (user + system from /proc/<pid>/stat over the measured segment), its peak RSS over the segment
 * (VmHWM reset at the segment's start, and VmRSS sampled every 100 ms), and each gateway side's req/s
 * as a percentage of the bare forwarder's in the same round. All sides and kinds take turns in every
 * round (order rotated), so drift hits them alike.
 *
 * Options (flags or env): --quick (short segments, no fill: a smoke test), --profile (the memory
 * gateway under --cpu-prof, its hot spots printed per kind, sliced to its measured segments),
 * BENCH_SEGMENT_MS, BENCH_ROUNDS, BENCH_CONCURRENCY (e.g. `32` or `1,32`), BENCH_SIDES (e.g.
 * `bare,memory`; default `bare,memory,redis`), BENCH_KINDS (`json,sse`), BENCH_FILL (`0`: do not
 * fill the memory store first), and for experiments BENCH_GATEWAY_NODE_ARGS (node flags for every
 * gateway, e.g. `--max-semi-space-size=4`) and BENCH_GATEWAY_ENV (`NAME=value,...`, e.g.
 * `GATEWAY_SEMCACHE=off`); BENCH_TRACING=1 (every gateway exports its spans to `otlp-sink.ts`);
 * BENCH_WAIT_QUIET (seconds to wait at most for a quiet host before
 * starting: other work on the machine shows in the "neighbours" column either way).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { DEFAULT_MAX_CACHE_BYTES } from '../src/stores/memory-cache.ts';
import {
  BENCH_DIR,
  f3,
  machineInfo,
  ROOT,
  runBench,
  startBareForwarder,
  startFake,
  startFrameworkFloor,
  startGatewayRole,
  startOtlpSink,
  startRedis,
  startStandalone,
  stopAll,
  stopChild,
  type Tracked,
  table,
} from './harness.ts';
import { closedLoop, concatSamples, type LoadRequest, type Summary, summarise } from './load.ts';
import {
  CACHE_HEADER,
  checkTarget,
  type FillResult,
  fillMemoryStore,
  KINDS,
  type Kind,
  type MissTarget,
  requestFor,
} from './miss-load.ts';
import { hostBusySeconds, lifetimePeak, type ProcessUsage, SegmentWatch } from './proc-stats.ts';
import {
  type CpuProfile,
  type ProfileSummary,
  renderProfileSummary,
  sliceProfile,
  summariseProfile,
} from './profile-summary.ts';

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const PROFILE = argv.has('--profile') || process.env.BENCH_PROFILE === '1';

function envList(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function gatewayEnvOverrides(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of envList('BENCH_GATEWAY_ENV', '')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`BENCH_GATEWAY_ENV: '${pair}' is not NAME=value`);
    env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return env;
}

const config = {
  /** Measured time per (side, kind, round). */
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 800 : 3000)),
  /** Discarded traffic before every measured segment (fills pools, settles the loop). */
  segmentWarmupMs: QUICK ? 150 : 500,
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 3)),
  /** Discarded traffic per (side, kind) at the measured concurrency before any measurement (JIT). */
  initialWarmupMs: QUICK ? 500 : 2000,
  concurrency: envList('BENCH_CONCURRENCY', '32').map(Number),
  sides: envList('BENCH_SIDES', 'bare,memory,redis'),
  kinds: envList('BENCH_KINDS', 'json,sse'),
  /** Fill the memory store to its budget before measuring (misses at the first concurrency). */
  fill: (process.env.BENCH_FILL ?? (QUICK ? '0' : '1')) !== '0',
  /** The fill stops here even if the budget was not reached. */
  fillMaxMs: 180_000,
  /** Before starting, wait up to this many seconds for the host to be quiet (under 0.15 cores busy). */
  waitQuietS: Number(process.env.BENCH_WAIT_QUIET ?? 0),
  /** VmRSS sampling period of the watched processes. */
  sampleMs: 100,
  gatewayNodeArgs: (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
  gatewayEnv: gatewayEnvOverrides(),
  aims: {
    /** Gateway req/s as a share of the bare forwarder's, same run (issue). */
    memoryShare: 0.8,
    redisShare: 0.7,
    /** Peak RSS of the gateway process, MiB (issue). */
    memoryPeakRssMiB: 350,
    redisPeakRssMiB: 200,
  },
};

type SideName = 'bare' | 'floor' | 'memory' | 'redis' | 'redis-standalone';
const SIDE_NAMES: SideName[] = ['bare', 'floor', 'memory', 'redis', 'redis-standalone'];
const SIDE_LABEL: Record<SideName, string> = {
  bare: 'bare forwarder',
  floor: 'framework floor',
  memory: 'gateway, memory stores',
  redis: 'gateway, Redis stores',
  'redis-standalone': 'standalone, Redis stores',
};

const SIGNING_KEY = `k1:${randomBytes(32).toString('hex')}`;
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Requests (bench/miss-load.ts): a unique body each, so every gateway request is a cache miss.

interface Target extends MissTarget {
  side: SideName;
}

function target(side: SideName, fields: Omit<MissTarget, 'expectMiss'>): Target {
  return { side, ...fields, expectMiss: side !== 'bare' && side !== 'floor' };
}

// ---------------------------------------------------------------------------------------------
// Measurement.

interface SegmentResult {
  round: number;
  side: SideName;
  kind: Kind;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  elapsedMs: number;
  requestsPerSecond: number;
  /** The measured process (the side's child). */
  usage: ProcessUsage;
  /** redis-server over the same segment (Redis sides). */
  redisUsage?: ProcessUsage;
  /** The idle standalone that wrote the config (the `redis` side). */
  configWriterUsage?: ProcessUsage;
  fakeUsage: ProcessUsage;
  /** This process (the load generator), CPU seconds. */
  generatorCpuSeconds: number;
  /**
   * Cores used on average by everything else on the host over the segment (host busy time minus
   * all the bench's processes): noisy neighbours. Above ~0.1 the segment's figures are suspect.
   */
  neighbourCores: number;
  /** The segment's window, µs of the monotonic clock (to slice a CPU profile). */
  windowUs: [number, number];
  totalMs: Float64Array;
  firstByteMs: Float64Array;
}

interface Watched {
  /** Every child of the bench (all sides, fake, redis-server, config writer). */
  all: Tracked[];
  fake: Tracked;
  redis?: Tracked;
  configWriter?: Tracked;
}

async function measureSegment(
  target: Target,
  kind: Kind,
  pool: Pool,
  request: LoadRequest,
  concurrency: number,
  round: number,
  watched: Watched,
): Promise<SegmentResult> {
  await closedLoop(pool, request, concurrency, config.segmentWarmupMs);
  const extra: Tracked[] = [watched.fake];
  const isRedis = target.side === 'redis' || target.side === 'redis-standalone';
  if (isRedis && watched.redis !== undefined) extra.push(watched.redis);
  if (target.side === 'redis' && watched.configWriter !== undefined) extra.push(watched.configWriter);
  const rest = watched.all.filter((tracked) => tracked !== target.tracked && !extra.includes(tracked));
  const pids = [target.tracked, ...extra, ...rest].map((tracked) => tracked.child.pid!);
  const watch = new SegmentWatch(pids, config.sampleMs);
  const hostBefore = hostBusySeconds();
  const cpuBefore = process.cpuUsage();
  const from = Number(process.hrtime.bigint() / 1000n);
  const samples = await closedLoop(pool, request, concurrency, config.segmentMs);
  const to = Number(process.hrtime.bigint() / 1000n);
  const cpu = process.cpuUsage(cpuBefore);
  const hostBusy = hostBusySeconds() - hostBefore;
  const usages = watch.stop();
  const ours = usages.reduce((sum, usage) => sum + usage.cpuSeconds, 0) + (cpu.user + cpu.system) / 1e6;
  const usageOf = (tracked: Tracked | undefined) => {
    const index = tracked === undefined ? -1 : pids.indexOf(tracked.child.pid!);
    return index < 0 ? undefined : usages[index];
  };
  const redisUsage = isRedis ? usageOf(watched.redis) : undefined;
  const configWriterUsage = target.side === 'redis' ? usageOf(watched.configWriter) : undefined;
  return {
    round,
    side: target.side,
    kind,
    concurrency,
    ok: samples.ok,
    failures: samples.failures,
    failureExamples: samples.failureExamples,
    elapsedMs: samples.elapsedMs,
    requestsPerSecond: (samples.ok * 1000) / samples.elapsedMs,
    usage: usages[0]!,
    ...(redisUsage !== undefined ? { redisUsage } : {}),
    ...(configWriterUsage !== undefined ? { configWriterUsage } : {}),
    fakeUsage: usageOf(watched.fake)!,
    generatorCpuSeconds: (cpu.user + cpu.system) / 1e6,
    neighbourCores: Math.max(0, hostBusy - ours) / (samples.elapsedMs / 1000),
    windowUs: [from, to],
    totalMs: samples.totalMs,
    firstByteMs: samples.firstByteMs,
  };
}

interface SideResult {
  side: SideName;
  label: string;
  kind: Kind;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  measuredMs: number;
  requestsPerSecond: number;
  /** Pooled req/s over the bare forwarder's pooled req/s, same kind and concurrency. */
  shareOfBare?: number;
  /** The same, round by round. */
  shareOfBareByRound?: number[];
  requestsPerSecondByRound: number[];
  latencyMs: Summary;
  firstByteMs?: Summary;
  /** The side's process: CPU µs per successful request, and cores used on average. */
  cpuUsPerRequest: number;
  coresUsed: number;
  /** redis-server's CPU µs per request (Redis sides). */
  redisCpuUsPerRequest?: number;
  fakeCpuUsPerRequest: number;
  generatorCpuUsPerRequest: number;
  /** Highest peak RSS of the side's process over its measured segments, bytes; and per segment. */
  peakRss: number;
  peakRssBySegment: number[];
  redisPeakRss?: number;
  /** Other work on the host over the segments (cores): mean and highest segment. */
  neighbourCoresMean: number;
  neighbourCoresMax: number;
}

function poolSegments(segments: SegmentResult[], bare: SegmentResult[] | undefined): SideResult {
  const first = segments[0]!;
  const ok = segments.reduce((sum, s) => sum + s.ok, 0);
  const ms = segments.reduce((sum, s) => sum + s.elapsedMs, 0);
  const sum = (pick: (s: SegmentResult) => number) => segments.reduce((total, s) => total + pick(s), 0);
  const perRequest = (seconds: number) => (ok === 0 ? Number.NaN : (seconds * 1e6) / ok);
  const requestsPerSecond = (ok * 1000) / ms;
  const result: SideResult = {
    side: first.side,
    label: SIDE_LABEL[first.side],
    kind: first.kind,
    concurrency: first.concurrency,
    ok,
    failures: sum((s) => s.failures),
    failureExamples: segments.flatMap((s) => s.failureExamples).slice(0, 5),
    measuredMs: ms,
    requestsPerSecond,
    requestsPerSecondByRound: segments.map((s) => s.requestsPerSecond),
    latencyMs: summarise(concatSamples(segments.map((s) => s.totalMs))),
    ...(first.kind === 'sse'
      ? { firstByteMs: summarise(concatSamples(segments.map((s) => s.firstByteMs))) }
      : {}),
    cpuUsPerRequest: perRequest(sum((s) => s.usage.cpuSeconds)),
    coresUsed: sum((s) => s.usage.cpuSeconds) / (ms / 1000),
    fakeCpuUsPerRequest: perRequest(sum((s) => s.fakeUsage.cpuSeconds)),
    generatorCpuUsPerRequest: perRequest(sum((s) => s.generatorCpuSeconds)),
    peakRss: Math.max(...segments.map((s) => s.usage.peakRss)),
    peakRssBySegment: segments.map((s) => s.usage.peakRss),
    neighbourCoresMean: sum((s) => s.neighbourCores) / segments.length,
    neighbourCoresMax: Math.max(...segments.map((s) => s.neighbourCores)),
  };
  if (first.redisUsage !== undefined) {
    result.redisCpuUsPerRequest = perRequest(sum((s) => s.redisUsage?.cpuSeconds ?? 0));
    result.redisPeakRss = Math.max(...segments.map((s) => s.redisUsage?.peakRss ?? 0));
  }
  if (bare !== undefined && first.side !== 'bare') {
    const bareOk = bare.reduce((total, s) => total + s.ok, 0);
    const bareMs = bare.reduce((total, s) => total + s.elapsedMs, 0);
    result.shareOfBare = requestsPerSecond / ((bareOk * 1000) / bareMs);
    result.shareOfBareByRound = segments.map(
      (s) => s.requestsPerSecond / (bare.find((b) => b.round === s.round)?.requestsPerSecond ?? Number.NaN),
    );
  }
  return result;
}

async function measure(
  targets: Target[],
  kinds: Kind[],
  concurrency: number,
  watched: Watched,
): Promise<{ segments: SegmentResult[]; results: SideResult[] }> {
  const slots = targets.flatMap((target) => kinds.map((kind) => ({ target, kind })));
  const pools = targets.map((target) => new Pool(target.url, { connections: concurrency, pipelining: 1 }));
  const requests = slots.map((slot) => requestFor(slot.target, slot.kind));
  const segments: SegmentResult[] = [];
  try {
    for (let round = 0; round < config.rounds; round++) {
      // Rotate the order every round, and reverse it every other round: no slot always runs first,
      // or always after the same neighbour.
      const order = slots.map((_, step) => (step + round) % slots.length);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const slot = slots[index]!;
        const segment = await measureSegment(
          slot.target,
          slot.kind,
          pools[targets.indexOf(slot.target)]!,
          requests[index]!,
          concurrency,
          round,
          watched,
        );
        segments.push(segment);
        process.stdout.write(
          `    round ${round + 1} ${slot.target.side} ${slot.kind}: ${segment.requestsPerSecond.toFixed(0)} req/s, ` +
            `${((segment.usage.cpuSeconds * 1e6) / Math.max(segment.ok, 1)).toFixed(0)} µs CPU/req, ` +
            `peak RSS ${(segment.usage.peakRss / MiB).toFixed(0)} MiB, neighbours ${segment.neighbourCores.toFixed(2)} cores` +
            `${segment.failures > 0 ? `, ${segment.failures} failures (${segment.failureExamples[0]})` : ''}\n`,
        );
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const results: SideResult[] = [];
  for (const kind of kinds) {
    const of = (side: SideName) => segments.filter((s) => s.side === side && s.kind === kind);
    const bare = of('bare');
    for (const target of targets)
      results.push(poolSegments(of(target.side), bare.length > 0 ? bare : undefined));
  }
  return { segments, results };
}

async function warmUp(targets: Target[], kinds: Kind[], concurrency: number): Promise<void> {
  for (const target of targets) {
    const p = new Pool(target.url, { connections: concurrency, pipelining: 1 });
    try {
      for (const kind of kinds) {
        const warm = await closedLoop(p, requestFor(target, kind), concurrency, config.initialWarmupMs);
        if (warm.failures > 0)
          throw new Error(`${target.side} ${kind} warm-up: ${warm.failureExamples.join('; ')}`);
      }
    } finally {
      await p.close();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Profile: the memory gateway's, sliced to its measured segments of one kind.

function mergeSlices(profile: CpuProfile, windows: [number, number][]): CpuProfile {
  const slices = windows.map(([from, to]) => sliceProfile(profile, from, to));
  return {
    ...profile,
    startTime: windows[0]?.[0] ?? profile.startTime,
    endTime: windows.at(-1)?.[1] ?? profile.endTime,
    samples: slices.flatMap((slice) => slice.samples),
    timeDeltas: slices.flatMap((slice) => slice.timeDeltas),
  };
}

// ---------------------------------------------------------------------------------------------

function gitState(): { commit: string; dirty: string[] } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '');
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: [] };
  }
}

function selectedSides(): SideName[] {
  const sides = config.sides.filter((side): side is SideName => SIDE_NAMES.includes(side as SideName));
  const unknown = config.sides.filter((side) => !SIDE_NAMES.includes(side as SideName));
  if (unknown.length > 0 || sides.length === 0)
    throw new Error(
      `BENCH_SIDES: unknown or empty (${config.sides.join(',')}); sides are ${SIDE_NAMES.join(', ')}`,
    );
  return SIDE_NAMES.filter((side) => sides.includes(side));
}

function selectedKinds(): Kind[] {
  const kinds = KINDS.filter((kind) => config.kinds.includes(kind));
  if (kinds.length === 0 || kinds.length !== config.kinds.length)
    throw new Error(`BENCH_KINDS: '${config.kinds.join(',')}'; kinds are json, sse`);
  return kinds;
}

/** Waits (up to `maxS`) for 3 s in which the host is busy less than 0.15 cores; returns the wait. */
async function waitQuiet(maxS: number): Promise<number> {
  const started = performance.now();
  while ((performance.now() - started) / 1000 < maxS) {
    const before = hostBusySeconds();
    await sleep(3000);
    const cores = (hostBusySeconds() - before) / 3;
    if (cores < 0.15) break;
    process.stdout.write(`  waiting for a quiet host (${cores.toFixed(2)} cores busy)\n`);
  }
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  if (config.waitQuietS > 0) await waitQuiet(config.waitQuietS);
  const startedAt = new Date();
  const machine = machineInfo();
  const git = gitState();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(BENCH_DIR, 'results');
  const profileDir = PROFILE ? join(resultsDir, `throughput-profile-${stamp}`) : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const sideNames = selectedSides();
  const kinds = selectedKinds();
  const envNote = Object.entries(config.gatewayEnv)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  process.stdout.write(
    `throughput bench: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, ${machine.os}${QUICK ? ' (quick)' : ''}\n` +
      `src at ${git.commit}${git.dirty.length > 0 ? ` with ${git.dirty.length} uncommitted change(s) in src/` : ''}; ` +
      `sides ${sideNames.join(', ')}; kinds ${kinds.join(', ')}; concurrency ${config.concurrency.join(', ')}; ` +
      `segments ${config.segmentMs} ms x ${config.rounds} rounds (in turns)` +
      `${config.fill ? '; memory store filled to its budget first' : ''}` +
      `${config.gatewayNodeArgs.length > 0 ? `; gateway node args ${config.gatewayNodeArgs.join(' ')}` : ''}` +
      `${envNote !== '' ? `; gateway env ${envNote}` : ''}${PROFILE ? '; memory gateway under --cpu-prof' : ''}\n`,
  );

  const fake = await startFake();
  const watched: Watched = { all: [], fake: fake.tracked };
  const targets: Target[] = [];
  // BENCH_TRACING=1: every gateway exports its spans (all sampled) to a sink beside it.
  const tracingEnv: Record<string, string> = {};
  if (process.env.BENCH_TRACING === '1') {
    const sink = await startOtlpSink();
    tracingEnv.OTEL_EXPORTER_OTLP_ENDPOINT = sink.url;
    process.stdout.write(`tracing on: spans exported to ${sink.url}\n`);
  }
  const gatewayBase = {
    upstreamUrl: fake.url,
    signingKey: SIGNING_KEY,
    extraEnv: { ...tracingEnv, ...config.gatewayEnv },
  };
  for (const side of sideNames) {
    if (side === 'bare') {
      const bare = await startBareForwarder(fake.url);
      targets.push(
        target(side, {
          url: bare.url,
          apiKey: 'none',
          model: 'gpt-4o-mini',
          tracked: bare.tracked,
          workspaceId: '',
        }),
      );
    } else if (side === 'floor') {
      const floor = await startFrameworkFloor(fake.url, config.gatewayNodeArgs);
      targets.push(
        target(side, {
          url: floor.url,
          apiKey: 'none',
          model: 'gpt-4o-mini',
          tracked: floor.tracked,
          workspaceId: '',
        }),
      );
    } else if (side === 'memory') {
      const nodeArgs = [...config.gatewayNodeArgs];
      if (profileDir !== undefined) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
      const standalone = await startStandalone({ ...gatewayBase, nodeArgs }, 'standalone (memory stores)');
      targets.push(
        target(side, {
          url: standalone.url,
          apiKey: standalone.credentials.apiKey,
          model: 'openai/gpt-4o-mini',
          tracked: standalone.tracked,
          workspaceId: (standalone.credentials as { workspaceId?: string }).workspaceId ?? 'default',
        }),
      );
    }
  }
  if (sideNames.includes('redis') || sideNames.includes('redis-standalone')) {
    const redis = await startRedis();
    watched.redis = redis.tracked;
    const shared = {
      ...gatewayBase,
      redisUrl: redis.url,
      encryptionKey: randomBytes(32).toString('hex'),
      nodeArgs: config.gatewayNodeArgs,
    };
    const standalone = await startStandalone(shared, 'standalone (Redis stores)');
    const apiKey = standalone.credentials.apiKey;
    const workspaceId = (standalone.credentials as { workspaceId?: string }).workspaceId ?? 'default';
    if (sideNames.includes('redis')) {
      watched.configWriter = standalone.tracked;
      const role = await startGatewayRole(shared, 'gateway role (Redis stores)');
      targets.push(
        target('redis', {
          url: role.url,
          apiKey,
          model: 'openai/gpt-4o-mini',
          tracked: role.tracked,
          workspaceId,
        }),
      );
    }
    if (sideNames.includes('redis-standalone')) {
      targets.push(
        target('redis-standalone', {
          url: standalone.url,
          apiKey,
          model: 'openai/gpt-4o-mini',
          tracked: standalone.tracked,
          workspaceId,
        }),
      );
    }
  }
  targets.sort((a, b) => SIDE_NAMES.indexOf(a.side) - SIDE_NAMES.indexOf(b.side));
  watched.all = [fake.tracked, ...targets.map((target) => target.tracked)];
  for (const tracked of [watched.redis, watched.configWriter]) {
    if (tracked !== undefined && !watched.all.includes(tracked)) watched.all.push(tracked);
  }
  process.stdout.write(
    `  fake ${fake.url}; ${targets.map((t) => `${t.side} ${t.url} (pid ${t.tracked.child.pid})`).join(', ')}; checking\n`,
  );
  const sizes: Partial<Record<SideName, { json: number; sse: number }>> = {};
  for (const target of targets) sizes[target.side] = await checkTarget(target, SIDE_LABEL[target.side]);
  const afterStart = Object.fromEntries(targets.map((t) => [t.side, lifetimePeak(t.tracked.child.pid!)]));

  const memory = targets.find((target) => target.side === 'memory');
  let fill: FillResult | undefined;
  if (memory !== undefined && config.fill) {
    process.stdout.write(
      `  filling the memory store to its budget (unique misses, c=${config.concurrency[0]})\n`,
    );
    fill = await fillMemoryStore(
      memory,
      kinds,
      config.concurrency[0]!,
      Number(config.gatewayEnv.GATEWAY_CACHE_MEMORY_BYTES ?? DEFAULT_MAX_CACHE_BYTES),
      config.fillMaxMs,
    );
    process.stdout.write(
      `    ${fill.entries} entries in ${fill.seconds.toFixed(1)} s (${fill.requestsPerSecond.toFixed(0)} req/s), ` +
        `charged ${(fill.chargedBytes / MiB).toFixed(0)} MiB of ${(fill.budgetBytes / MiB).toFixed(0)} MiB ` +
        `(about ${fill.entriesHeld} entries held); peak RSS ${(fill.usage.peakRss / MiB).toFixed(0)} MiB\n`,
    );
  }

  const segments: SegmentResult[] = [];
  const results: SideResult[] = [];
  for (const concurrency of config.concurrency) {
    process.stdout.write(`  warming up at c=${concurrency}\n`);
    await warmUp(targets, kinds, concurrency);
    process.stdout.write(`  measuring at c=${concurrency}\n`);
    const measured = await measure(targets, kinds, concurrency, watched);
    segments.push(...measured.segments);
    results.push(...measured.results);
  }
  const lifetimePeakRss = Object.fromEntries(
    targets.map((t) => [t.side, lifetimePeak(t.tracked.child.pid!)]),
  );
  const redisLifetimePeakRss =
    watched.redis === undefined ? undefined : lifetimePeak(watched.redis.child.pid!);
  for (const target of targets) await stopChild(target.tracked);
  await stopAll();
  const loadAvgAtEnd = machineInfo().loadAvgAtStart;

  // Report.
  const mib = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / MiB).toFixed(0));
  const percent = (share: number | undefined) => (share === undefined ? '' : `${(share * 100).toFixed(0)}%`);
  const aimShare = (side: SideName) =>
    side === 'memory'
      ? config.aims.memoryShare
      : side === 'bare' || side === 'floor'
        ? undefined
        : config.aims.redisShare;
  const aimRss = (side: SideName) =>
    side === 'memory'
      ? config.aims.memoryPeakRssMiB
      : side === 'bare' || side === 'floor'
        ? undefined
        : config.aims.redisPeakRssMiB;
  const verdict = (result: SideResult) => {
    const share = aimShare(result.side);
    const rss = aimRss(result.side);
    if (share === undefined || rss === undefined) return '';
    const shareMet = result.shareOfBare !== undefined ? result.shareOfBare >= share : undefined;
    const rssMet = result.peakRss <= rss * MiB;
    const word = (met: boolean | undefined) => (met === undefined ? '?' : met ? 'met' : 'MISSED');
    return `${word(shareMet)} / ${word(rssMet)}`;
  };
  const report = [
    '',
    `machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.totalMemGiB} GiB, ${machine.os}, node ${machine.node}`,
    `date: ${startedAt.toISOString()}; load avg at start ${machine.loadAvgAtStart.join(' ')}, at end ${loadAvgAtEnd.join(' ')}`,
    `src at ${git.commit}${git.dirty.length > 0 ? `, uncommitted in src/: ${git.dirty.map((line) => line.slice(3)).join(', ')}` : ''}`,
    `answer bodies: JSON ${sizes.bare?.json ?? sizes.memory?.json ?? '-'} B bare / ${sizes.memory?.json ?? sizes.redis?.json ?? '-'} B gateway; ` +
      `SSE ${sizes.bare?.sse ?? '-'} B bare / ${sizes.memory?.sse ?? sizes.redis?.sse ?? '-'} B gateway`,
    '',
    `closed loop, every request a unique body (gateways: every answer checked for ${CACHE_HEADER}: miss); ` +
      `${config.rounds} x ${config.segmentMs} ms per row:`,
    table(
      [
        'side',
        'kind',
        'c',
        'ok',
        'fail',
        'req/s',
        '% of bare',
        'rounds %',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'cores',
        'peak RSS MiB',
        `aim ≥${config.aims.memoryShare * 100}|${config.aims.redisShare * 100}% / ≤${config.aims.memoryPeakRssMiB}|${config.aims.redisPeakRssMiB} MiB`,
      ],
      results.map((r) => [
        r.label,
        r.kind === 'json' ? 'JSON' : 'SSE',
        String(r.concurrency),
        String(r.ok),
        String(r.failures),
        r.requestsPerSecond.toFixed(0),
        percent(r.shareOfBare),
        r.shareOfBareByRound === undefined
          ? ''
          : r.shareOfBareByRound.map((share) => (share * 100).toFixed(0)).join(' '),
        f3(r.latencyMs.p50),
        f3(r.latencyMs.p99),
        r.cpuUsPerRequest.toFixed(0),
        r.coresUsed.toFixed(2),
        mib(r.peakRss),
        verdict(r),
      ]),
    ),
    '',
    'CPU µs per request of the other processes over the same segments (fake upstream, redis-server, this load',
    'generator), and the cores other work on the host took meanwhile (neighbours; above ~0.1 the row is suspect):',
    table(
      [
        'side',
        'kind',
        'fake',
        'redis-server',
        'generator',
        'redis-server peak RSS MiB',
        'neighbours mean / max',
      ],
      results.map((r) => [
        r.label,
        r.kind === 'json' ? 'JSON' : 'SSE',
        r.fakeCpuUsPerRequest.toFixed(0),
        r.redisCpuUsPerRequest === undefined ? '' : r.redisCpuUsPerRequest.toFixed(0),
        r.generatorCpuUsPerRequest.toFixed(0),
        mib(r.redisPeakRss),
        `${r.neighbourCoresMean.toFixed(2)} / ${r.neighbourCoresMax.toFixed(2)}`,
      ]),
    ),
    '',
    `peak RSS of each process over its whole life (MiB): ${targets
      .map(
        (t) =>
          `${t.side} ${mib(lifetimePeakRss[t.side])} (after start and checks ${mib(afterStart[t.side])})`,
      )
      .join(', ')}${redisLifetimePeakRss !== undefined ? `, redis-server ${mib(redisLifetimePeakRss)}` : ''}`,
  ];
  if (fill !== undefined) {
    report.push(
      `memory store fill: ${fill.entries} entries, ${(fill.writtenBytes / fill.entries).toFixed(0)} B of entry text each, ` +
        `charged ${(fill.chargedBytes / MiB).toFixed(0)} MiB against a ${(fill.budgetBytes / MiB).toFixed(0)} MiB budget ` +
        `(~${fill.entriesHeld} held), ${fill.requestsPerSecond.toFixed(0)} req/s, peak RSS ${mib(fill.usage.peakRss)} MiB`,
    );
  }
  for (const r of results.filter((r) => r.failures > 0)) {
    report.push(`failures, ${r.label} ${r.kind} c=${r.concurrency}: ${r.failureExamples.join('; ')}`);
  }

  let profiles: Partial<Record<Kind, ProfileSummary>> | undefined;
  if (profileDir !== undefined && memory !== undefined) {
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) report.push('', `no .cpuprofile was written to ${profileDir}`);
    else {
      const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
      profiles = {};
      for (const kind of kinds) {
        const windows = segments.filter((s) => s.side === 'memory' && s.kind === kind).map((s) => s.windowUs);
        const summary = summariseProfile(mergeSlices(profile, windows), 40);
        profiles[kind] = summary;
        report.push(
          '',
          `memory gateway CPU profile ${join(profileDir, file)}, its measured ${kind} segments only:`,
          renderProfileSummary(summary),
        );
      }
    }
  }

  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `throughput-${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine: { ...machine, loadAvgAtEnd },
        git,
        config: { ...config, quick: QUICK, profile: PROFILE },
        sizes,
        fill,
        results,
        segments: segments.map(({ totalMs: _t, firstByteMs: _f, ...rest }) => rest),
        lifetimePeakRss: {
          ...lifetimePeakRss,
          ...(redisLifetimePeakRss !== undefined ? { redisServer: redisLifetimePeakRss } : {}),
        },
        peakRssAfterStart: afterStart,
        ...(profiles !== undefined ? { profiles } : {}),
      },
      null,
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
