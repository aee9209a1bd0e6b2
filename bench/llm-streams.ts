/**
 * LLM-shaped load (issue 24): many long streams at once, each CHUNKS chunks INTERVAL_MS apart from a
 * loopback fake (`llm-upstream.ts`), through the bare forwarder, the standalone gateway on memory
 * stores and the gateway role on Redis stores, all in one run, each concurrency against each side in
 * turn. Per segment: streams served per second, errors, time to first byte (and what the gateway
 * adds to the bare forwarder's, p50 and p99), CPU µs per relayed chunk (the side's process, all
 * threads, from /proc), peak RSS and RSS per open stream ((peak - RSS before) / concurrency).
 *
 * The load generator is this process: one undici Pool per segment with a connection per stream,
 * workers started evenly over one stream's length (longer past BENCH_RAMP_PER_SECOND new
 * connections a second) so that chunks arrive at a steady rate; each
 * worker sends a unique body (every gateway request a cache miss whose answer is captured and
 * written), waits for the whole stream and sends the next until BENCH_SECONDS have passed; the
 * segment ends when the last stream has. Stops by itself; every child dies with it.
 *
 *   npm run bench:streams
 *   BENCH_STREAMS=1000,5000 BENCH_SECONDS=10 BENCH_SIDES=bare,memory,redis npm run bench:streams
 *   BENCH_PROFILE=/tmp/prof npm run bench:streams   # --cpu-prof of every side
 *   BENCH_STREAM_CHUNKS=80 ...                       # longer streams: per-chunk cost apart from per-stream
 *
 * File descriptors: a stream holds one socket in this process, two in the side (client and
 * upstream) and one in the fake; `ulimit -n` must exceed twice the largest concurrency plus slack.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Pool } from 'undici';
import {
  f3,
  imageNodeFlags,
  machineInfo,
  runBench,
  startBareForwarder,
  startGatewayRole,
  startLlmUpstream,
  startRedis,
  startStandalone,
  stopAll,
  type Tracked,
  table,
} from './harness.ts';
import { summarise } from './load.ts';
import { cpuSeconds, hostBusySeconds, memoryStatus, type ProcessUsage, SegmentWatch } from './proc-stats.ts';

const CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 20);
const INTERVAL_MS = Number(process.env.BENCH_STREAM_INTERVAL_MS ?? 100);
const STREAM_MS = (CHUNKS - 1) * INTERVAL_MS;
const CONCURRENCY = (process.env.BENCH_STREAMS ?? '1000,5000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SIDES = (process.env.BENCH_SIDES ?? 'bare,memory,redis').split(',') as SideName[];
const PROFILE_DIR = process.env.BENCH_PROFILE;
/** New connections per second at most while a segment ramps up (a burst overflows accept queues). */
const RAMP_PER_SECOND = Number(process.env.BENCH_RAMP_PER_SECOND ?? 500);
/** Upstream connections of the gateways and the bare forwarder: no queueing at any concurrency. */
const CONNECTIONS = Math.max(...CONCURRENCY) + 1000;
const DONE_TAIL = Buffer.from('data: [DONE]\n\n');
const KiB = 1024;
const MiB = 1024 * 1024;

type SideName = 'bare' | 'memory' | 'redis';
const SIDE_LABEL: Record<SideName, string> = {
  bare: 'bare forwarder',
  memory: 'gateway, memory stores',
  redis: 'gateway, Redis stores',
};

interface Side {
  name: SideName;
  url: string;
  apiKey: string;
  model: string;
  tracked: Tracked;
}

interface Segment {
  side: SideName;
  concurrency: number;
  ok: number;
  errors: number;
  errorExamples: string[];
  elapsedMs: number;
  firstByteMs: Float64Array;
  usage: ProcessUsage;
  fakeUsage: ProcessUsage;
  redisUsage: ProcessUsage | undefined;
  rssBefore: number;
  generatorCpuSeconds: number;
  neighbourCores: number;
  loadAvg: number[];
}

let counter = 0;
const RUN_TAG = randomBytes(4).toString('hex');

function body(model: string): Buffer {
  return Buffer.from(
    `{"model":"${model}","messages":[{"role":"user","content":"tell me a story ${RUN_TAG} ${++counter}"}],` +
      '"stream":true,"stream_options":{"include_usage":true}}',
  );
}

/** `concurrency` workers, each sending streams one after another until `seconds` have passed. */
function drive(side: Side, concurrency: number, seconds: number) {
  const pool = new Pool(side.url, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const firstByte: number[] = [];
  const errorExamples: string[] = [];
  let ok = 0;
  let errors = 0;
  const started = performance.now();
  // Starts spread over one stream's length (a steady rate of chunks, not waves), or longer where
  // that would open connections faster than RAMP_PER_SECOND; streams start for `seconds` after.
  const rampMs = Math.max(STREAM_MS + INTERVAL_MS, (concurrency / RAMP_PER_SECOND) * 1000);
  const deadline = started + rampMs + seconds * 1000;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${side.apiKey}` };
  const fail = (reason: string) => {
    errors++;
    if (errorExamples.length < 5) errorExamples.push(reason);
  };
  return new Promise<{
    ok: number;
    errors: number;
    errorExamples: string[];
    elapsedMs: number;
    firstByteMs: Float64Array;
  }>((resolve) => {
    let running = concurrency;
    const finish = () => {
      if (--running > 0) return;
      void pool.close();
      resolve({
        ok,
        errors,
        errorExamples,
        elapsedMs: performance.now() - started,
        firstByteMs: Float64Array.from(firstByte),
      });
    };
    const fire = () => {
      const sentAt = performance.now();
      if (sentAt >= deadline) {
        finish();
        return;
      }
      let status = 0;
      let firstAt = 0;
      let tail: Buffer = Buffer.alloc(0);
      pool.dispatch(
        { path: '/v1/chat/completions', method: 'POST', headers, body: body(side.model) },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            if (firstAt === 0) firstAt = performance.now();
            tail =
              chunk.length >= DONE_TAIL.length
                ? chunk.subarray(chunk.length - DONE_TAIL.length)
                : Buffer.concat([tail, chunk]).subarray(-DONE_TAIL.length);
          },
          onResponseEnd() {
            if (status !== 200) fail(`status ${status}`);
            else if (!tail.equals(DONE_TAIL)) fail('stream did not end with [DONE]');
            else {
              ok++;
              firstByte.push(firstAt - sentAt);
            }
            setImmediate(fire);
          },
          onResponseError(_controller, error) {
            fail(error.message);
            setImmediate(fire);
          },
        },
      );
    };
    for (let worker = 0; worker < concurrency; worker++) setTimeout(fire, (worker * rampMs) / concurrency);
  });
}

async function measure(
  side: Side,
  concurrency: number,
  fake: Tracked,
  redis: Tracked | undefined,
): Promise<Segment> {
  const pid = side.tracked.child.pid!;
  const rssBefore = memoryStatus(pid).rss;
  const pids = [pid, fake.child.pid!, ...(redis === undefined ? [] : [redis.child.pid!])];
  const watch = new SegmentWatch(pids, 50);
  const generatorBefore = process.cpuUsage();
  const hostBefore = hostBusySeconds();
  const oursBefore = pids.reduce((sum, each) => sum + cpuSeconds(each), 0);
  const result = await drive(side, concurrency, SECONDS);
  const [usage, fakeUsage, redisUsage] = watch.stop();
  const generator = process.cpuUsage(generatorBefore);
  const generatorCpuSeconds = (generator.user + generator.system) / 1e6;
  const ours = pids.reduce((sum, each) => sum + cpuSeconds(each), 0) - oursBefore + generatorCpuSeconds;
  const neighbours = hostBusySeconds() - hostBefore - ours;
  return {
    side: side.name,
    concurrency,
    ...result,
    usage: usage!,
    fakeUsage: fakeUsage!,
    redisUsage,
    rssBefore,
    generatorCpuSeconds,
    neighbourCores: Math.max(0, neighbours) / (result.elapsedMs / 1000),
    loadAvg: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
}

async function startSides(upstreamUrl: string): Promise<{ sides: Side[]; redis: Tracked | undefined }> {
  const sides: Side[] = [];
  let redis: Tracked | undefined;
  const signingKey = `k1:${randomBytes(32).toString('hex')}`;
  const extraEnv = {
    GATEWAY_UPSTREAM_CONNECTIONS: String(CONNECTIONS),
    // The cache's memory is bounded apart; keep it small so that RSS tells the streams' own memory.
    GATEWAY_CACHE_MEMORY_BYTES: String(16 * MiB),
  };
  const nodeArgs = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`];
  if (SIDES.includes('bare')) {
    process.env.BENCH_BARE_CONNECTIONS = String(CONNECTIONS);
    // With the gateway's node flags (the image's): the same young generation, so RSS compares.
    const bare = await startBareForwarder(upstreamUrl, [...imageNodeFlags(), ...nodeArgs]);
    sides.push({ name: 'bare', url: bare.url, apiKey: 'none', model: 'gpt-4o-mini', tracked: bare.tracked });
  }
  if (SIDES.includes('memory')) {
    const standalone = await startStandalone(
      { upstreamUrl, signingKey, extraEnv, nodeArgs },
      'standalone (memory)',
    );
    sides.push({
      name: 'memory',
      url: standalone.url,
      apiKey: standalone.credentials.apiKey,
      model: 'openai/gpt-4o-mini',
      tracked: standalone.tracked,
    });
  }
  if (SIDES.includes('redis')) {
    const server = await startRedis();
    redis = server.tracked;
    const shared = {
      upstreamUrl,
      signingKey,
      extraEnv,
      redisUrl: server.url,
      encryptionKey: randomBytes(32).toString('hex'),
    };
    // The standalone writes the config (tenant, key) to Redis and stays idle; the role serves.
    const writer = await startStandalone(shared, 'standalone (Redis, config writer)');
    const role = await startGatewayRole(shared, 'gateway role (Redis)');
    sides.push({
      name: 'redis',
      url: role.url,
      apiKey: writer.credentials.apiKey,
      model: 'openai/gpt-4o-mini',
      tracked: role.tracked,
    });
  }
  return { sides, redis };
}

function report(segments: Segment[]): string {
  const bareOf = (concurrency: number) =>
    segments.find((s) => s.side === 'bare' && s.concurrency === concurrency);
  const rows = segments.map((segment) => {
    const firstByte = summarise(segment.firstByteMs);
    const chunks = segment.ok * CHUNKS;
    const cpuPerChunk = chunks === 0 ? Number.NaN : (segment.usage.cpuSeconds * 1e6) / chunks;
    const rssPerStream = (segment.usage.peakRss - segment.rssBefore) / segment.concurrency;
    const bare = bareOf(segment.concurrency);
    const bareFirst = bare === undefined ? undefined : summarise(bare.firstByteMs);
    const bareCpu = bare === undefined ? Number.NaN : (bare.usage.cpuSeconds * 1e6) / (bare.ok * CHUNKS);
    const bareRss =
      bare === undefined ? Number.NaN : (bare.usage.peakRss - bare.rssBefore) / bare.concurrency;
    const isBare = segment.side === 'bare';
    return [
      SIDE_LABEL[segment.side],
      String(segment.concurrency),
      (segment.ok / (segment.elapsedMs / 1000)).toFixed(0),
      String(segment.errors),
      f3(firstByte.p50),
      f3(firstByte.p99),
      isBare || bareFirst === undefined ? '-' : f3(firstByte.p50 - bareFirst.p50),
      isBare || bareFirst === undefined ? '-' : f3(firstByte.p99 - bareFirst.p99),
      cpuPerChunk.toFixed(1),
      isBare ? '-' : (cpuPerChunk / bareCpu).toFixed(2),
      (segment.usage.peakRss / MiB).toFixed(0),
      (rssPerStream / KiB).toFixed(1),
      isBare ? '-' : ((rssPerStream - bareRss) / KiB).toFixed(1),
      ((segment.generatorCpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      ((segment.fakeUsage.cpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      segment.redisUsage === undefined || segment.side !== 'redis'
        ? '-'
        : ((segment.redisUsage.cpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      segment.neighbourCores.toFixed(2),
      segment.loadAvg[0]!.toFixed(2),
    ];
  });
  return table(
    [
      'side',
      'streams',
      'served/s',
      'errors',
      'ttfb p50',
      'ttfb p99',
      '+p50',
      '+p99',
      'cpu µs/chunk',
      'x bare',
      'peak RSS MiB',
      'KiB/stream',
      '+KiB',
      'gen cores',
      'fake cores',
      'redis cores',
      'neighbours',
      'load1',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const machine = machineInfo();
  process.stdout.write(
    `LLM-shaped streams: ${CHUNKS} chunks ${INTERVAL_MS} ms apart, ${CONCURRENCY.join(', ')} at once, ` +
      `${SECONDS} s of starts after the ramp; sides ${SIDES.join(', ')}\n` +
      `host ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.node}, load ${machine.loadAvgAtStart.join(' ')}\n`,
  );
  const fake = await startLlmUpstream();
  const { sides, redis } = await startSides(fake.url);
  for (const side of sides) {
    // Warm-up: the code paths compiled and the pools' first connections open.
    const warm = await drive(side, 100, 1);
    if (warm.ok === 0)
      throw new Error(`${SIDE_LABEL[side.name]}: no stream served: ${warm.errorExamples.join('; ')}`);
  }
  const segments: Segment[] = [];
  for (const concurrency of CONCURRENCY) {
    for (const side of sides) {
      const segment = await measure(side, concurrency, fake.tracked, redis);
      segments.push(segment);
      process.stdout.write(
        `  ${SIDE_LABEL[side.name]}, ${concurrency} streams: ${segment.ok} served, ${segment.errors} errors` +
          `${segment.errorExamples.length > 0 ? ` (${segment.errorExamples.join('; ')})` : ''}\n`,
      );
    }
  }
  process.stdout.write(`\n${report(segments)}\n`);
  await stopAll();
}

runBench(main);
