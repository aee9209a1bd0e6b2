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
 *   BENCH_UPSTREAM_TLS=on BENCH_STREAMS=1000 BENCH_SECONDS=5 BENCH_ROUNDS=2 npm run bench:streams
 *     # the fake over TLS offering h2 and http/1.1; sides bare,memory,memory-h2 unless told (an
 *     # `-h2` side offers HTTP/2: GATEWAY_UPSTREAM_HTTP2=on, BENCH_BARE_HTTP2=on), rounds alternate
 *
 * With BENCH_UPSTREAM_TLS=on a throwaway self-signed certificate is made at start (openssl, in a
 * temporary directory removed at exit) and every side trusts it through NODE_EXTRA_CA_CERTS.
 * The gateways' upstream gauges (`gateway_upstream_connections`, `..._requests_queued`) are read
 * from /metrics once a second during a segment: the most seen is reported.
 *
 * File descriptors: a stream holds one socket in this process, two in the side (client and
 * upstream) and one in the fake; `ulimit -n` must exceed twice the largest concurrency plus slack.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Agent, Pool, request } from 'undici';
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
  type ThrowawayCertificate,
  type Tracked,
  table,
  throwawayCertificate,
} from './harness.ts';
import { summarise } from './load.ts';
import { cpuSeconds, hostBusySeconds, memoryStatus, type ProcessUsage, SegmentWatch } from './proc-stats.ts';

const CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 20);
const INTERVAL_MS = Number(process.env.BENCH_STREAM_INTERVAL_MS ?? 100);
const STREAM_MS = (CHUNKS - 1) * INTERVAL_MS;
const CONCURRENCY = (process.env.BENCH_STREAMS ?? '1000,5000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** The fake over TLS (ALPN h2 and http/1.1) instead of plain HTTP: the `-h2` sides need it. */
const TLS = process.env.BENCH_UPSTREAM_TLS === 'on';
const SIDE_NAMES = ['bare', 'bare-h2', 'memory', 'memory-h2', 'redis', 'redis-h2'] as const;
type SideName = (typeof SIDE_NAMES)[number];
const SIDES = (process.env.BENCH_SIDES ?? (TLS ? 'bare,memory,memory-h2' : 'bare,memory,redis')).split(
  ',',
) as SideName[];
/** Each concurrency's segments, every side in turn, this many times (alternating sides). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const PROFILE_DIR = process.env.BENCH_PROFILE;
/** New connections per second at most while a segment ramps up (a burst overflows accept queues). */
const RAMP_PER_SECOND = Number(process.env.BENCH_RAMP_PER_SECOND ?? 500);
/** Upstream connections of the gateways and the bare forwarder: no queueing at any concurrency. */
const CONNECTIONS = Math.max(...CONCURRENCY) + 1000;
const DONE_TAIL = Buffer.from('data: [DONE]\n\n');
const KiB = 1024;
const MiB = 1024 * 1024;

const isHttp2 = (name: SideName) => name.endsWith('-h2');
const isGateway = (name: SideName) => !name.startsWith('bare');

function sideLabel(name: SideName): string {
  const base = name.startsWith('bare')
    ? 'bare forwarder'
    : name.startsWith('memory')
      ? 'gateway, memory stores'
      : 'gateway, Redis stores';
  return TLS ? `${base}, ${isHttp2(name) ? 'h2' : 'h1'}/TLS` : base;
}

interface Side {
  name: SideName;
  url: string;
  apiKey: string;
  model: string;
  tracked: Tracked;
}

interface Segment {
  side: SideName;
  round: number;
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
  /** The most upstream connections and queued requests the gateway's gauges showed (gateways only). */
  upstreamGauges: UpstreamGauges | undefined;
  /** Connections the fake accepted during the segment (with TLS, handshakes). */
  newConnections: number;
}

/** The fake upstream and how to ask it (its certificate trusted when it is HTTPS). */
interface Fake {
  tracked: Tracked;
  url: string;
  dispatcher: Agent;
}

/** How many connections the fake has accepted so far. */
async function acceptedConnections(fake: Fake): Promise<number> {
  const response = await request(`${fake.url}/connections`, { dispatcher: fake.dispatcher });
  return ((await response.body.json()) as { accepted: number }).accepted;
}

interface UpstreamGauges {
  connections: number;
  queued: number;
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

/**
 * Reads the gateway's upstream gauges for `origin` once a second until stopped; the most of each.
 * (A scrape is a few milliseconds of the gateway's CPU, the same for every gateway side.)
 */
function watchUpstreamGauges(side: Side, origin: string): () => Promise<UpstreamGauges> {
  const most: UpstreamGauges = { connections: 0, queued: 0 };
  const read = (text: string, name: string) => {
    const prefix = `${name}{origin="${origin}"} `;
    const line = text.split('\n').find((each) => each.startsWith(prefix));
    return line === undefined ? 0 : Number(line.slice(prefix.length));
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const text = await (await fetch(`${side.url}/metrics`)).text();
        most.connections = Math.max(most.connections, read(text, 'gateway_upstream_connections'));
        most.queued = Math.max(most.queued, read(text, 'gateway_upstream_requests_queued'));
      } catch {
        // A scrape that failed under load: the next one counts.
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return most;
  };
}

async function measure(
  side: Side,
  round: number,
  concurrency: number,
  fake: Fake,
  redis: Tracked | undefined,
): Promise<Segment> {
  const acceptedBefore = await acceptedConnections(fake);
  const pid = side.tracked.child.pid!;
  const rssBefore = memoryStatus(pid).rss;
  const pids = [pid, fake.tracked.child.pid!, ...(redis === undefined ? [] : [redis.child.pid!])];
  const gauges = isGateway(side.name) ? watchUpstreamGauges(side, fake.url) : undefined;
  const watch = new SegmentWatch(pids, 50);
  const generatorBefore = process.cpuUsage();
  const hostBefore = hostBusySeconds();
  const oursBefore = pids.reduce((sum, each) => sum + cpuSeconds(each), 0);
  const result = await drive(side, concurrency, SECONDS);
  const [usage, fakeUsage, redisUsage] = watch.stop();
  const upstreamGauges = await gauges?.();
  const newConnections = (await acceptedConnections(fake)) - acceptedBefore;
  const generator = process.cpuUsage(generatorBefore);
  const generatorCpuSeconds = (generator.user + generator.system) / 1e6;
  const ours = pids.reduce((sum, each) => sum + cpuSeconds(each), 0) - oursBefore + generatorCpuSeconds;
  const neighbours = hostBusySeconds() - hostBefore - ours;
  return {
    side: side.name,
    round,
    concurrency,
    ...result,
    usage: usage!,
    fakeUsage: fakeUsage!,
    redisUsage,
    rssBefore,
    generatorCpuSeconds,
    neighbourCores: Math.max(0, neighbours) / (result.elapsedMs / 1000),
    loadAvg: os.loadavg().map((value) => Number(value.toFixed(2))),
    upstreamGauges,
    newConnections,
  };
}

async function startSides(
  upstreamUrl: string,
  certificate: ThrowawayCertificate | undefined,
): Promise<{ sides: Side[]; redis: Tracked | undefined }> {
  const sides: Side[] = [];
  let redis: Tracked | undefined;
  const signingKey = `k1:${randomBytes(32).toString('hex')}`;
  const trust: Record<string, string> =
    certificate === undefined ? {} : { NODE_EXTRA_CA_CERTS: certificate.certFile };
  const extraEnvOf = (name: SideName) => ({
    GATEWAY_UPSTREAM_CONNECTIONS: String(CONNECTIONS),
    GATEWAY_UPSTREAM_HTTP2: isHttp2(name) ? 'on' : 'off',
    // The cache's memory is bounded apart; keep it small so that RSS tells the streams' own memory.
    GATEWAY_CACHE_MEMORY_BYTES: String(16 * MiB),
    ...trust,
  });
  const nodeArgs = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`];
  let redisShared: (Parameters<typeof startGatewayRole>[0] & { apiKey: string }) | undefined;
  for (const name of SIDES) {
    if (name.startsWith('bare')) {
      // With the gateway's node flags (the image's): the same young generation, so RSS compares.
      const bare = await startBareForwarder(
        upstreamUrl,
        [...imageNodeFlags(), ...nodeArgs],
        {
          BENCH_BARE_CONNECTIONS: String(CONNECTIONS),
          BENCH_BARE_HTTP2: isHttp2(name) ? 'on' : 'off',
          ...trust,
        },
        sideLabel(name),
      );
      sides.push({ name, url: bare.url, apiKey: 'none', model: 'gpt-4o-mini', tracked: bare.tracked });
    } else if (name.startsWith('memory')) {
      const standalone = await startStandalone(
        { upstreamUrl, signingKey, extraEnv: extraEnvOf(name), nodeArgs },
        sideLabel(name),
      );
      sides.push({
        name,
        url: standalone.url,
        apiKey: standalone.credentials.apiKey,
        model: 'openai/gpt-4o-mini',
        tracked: standalone.tracked,
      });
    } else {
      if (redisShared === undefined) {
        const server = await startRedis();
        redis = server.tracked;
        const shared = {
          upstreamUrl,
          signingKey,
          extraEnv: extraEnvOf('redis'),
          redisUrl: server.url,
          encryptionKey: randomBytes(32).toString('hex'),
        };
        // The standalone writes the config (tenant, key) to Redis and stays idle; the roles serve.
        const writer = await startStandalone(shared, 'standalone (Redis, config writer)');
        redisShared = { ...shared, apiKey: writer.credentials.apiKey };
      }
      const role = await startGatewayRole({ ...redisShared, extraEnv: extraEnvOf(name) }, sideLabel(name));
      sides.push({
        name,
        url: role.url,
        apiKey: redisShared.apiKey,
        model: 'openai/gpt-4o-mini',
        tracked: role.tracked,
      });
    }
  }
  return { sides, redis };
}

/** The side's CPU µs per relayed chunk and RSS bytes per open stream in a segment. */
function perChunkAndStream(segment: Segment): { cpuPerChunk: number; rssPerStream: number } {
  const chunks = segment.ok * CHUNKS;
  return {
    cpuPerChunk: chunks === 0 ? Number.NaN : (segment.usage.cpuSeconds * 1e6) / chunks,
    rssPerStream: (segment.usage.peakRss - segment.rssBefore) / segment.concurrency,
  };
}

function report(segments: Segment[]): string {
  // The reference: the (HTTP/1.1) bare forwarder's segment of the same round and concurrency.
  const bareOf = (segment: Segment) =>
    segments.find(
      (s) => s.side === 'bare' && s.concurrency === segment.concurrency && s.round === segment.round,
    );
  const rows = segments.map((segment) => {
    const firstByte = summarise(segment.firstByteMs);
    const { cpuPerChunk, rssPerStream } = perChunkAndStream(segment);
    const bare = bareOf(segment);
    const bareFirst = bare === undefined ? undefined : summarise(bare.firstByteMs);
    const bareFigures = bare === undefined ? undefined : perChunkAndStream(bare);
    const isBare = segment.side === 'bare';
    return [
      sideLabel(segment.side),
      String(segment.round),
      String(segment.concurrency),
      (segment.ok / (segment.elapsedMs / 1000)).toFixed(0),
      String(segment.errors),
      f3(firstByte.p50),
      f3(firstByte.p99),
      isBare || bareFirst === undefined ? '-' : f3(firstByte.p50 - bareFirst.p50),
      isBare || bareFirst === undefined ? '-' : f3(firstByte.p99 - bareFirst.p99),
      cpuPerChunk.toFixed(1),
      isBare || bareFigures === undefined ? '-' : (cpuPerChunk / bareFigures.cpuPerChunk).toFixed(2),
      (segment.usage.peakRss / MiB).toFixed(0),
      (rssPerStream / KiB).toFixed(1),
      isBare || bareFigures === undefined
        ? '-'
        : ((rssPerStream - bareFigures.rssPerStream) / KiB).toFixed(1),
      segment.upstreamGauges === undefined ? '-' : String(segment.upstreamGauges.connections),
      segment.upstreamGauges === undefined ? '-' : String(segment.upstreamGauges.queued),
      String(segment.newConnections),
      ((segment.generatorCpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      ((segment.fakeUsage.cpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      segment.redisUsage === undefined || !segment.side.startsWith('redis')
        ? '-'
        : ((segment.redisUsage.cpuSeconds * 1000) / segment.elapsedMs).toFixed(2),
      segment.neighbourCores.toFixed(2),
      segment.loadAvg[0]!.toFixed(2),
    ];
  });
  return table(
    [
      'side',
      'round',
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
      'up conns',
      'queued',
      'new conns',
      'gen cores',
      'fake cores',
      'redis cores',
      'neighbours',
      'load1',
    ],
    rows,
  );
}

/** Per side and concurrency over the rounds: the mean of the per-segment figures, errors summed. */
function summary(segments: Segment[]): string {
  const rows: string[][] = [];
  for (const concurrency of CONCURRENCY) {
    for (const side of SIDES) {
      const mine = segments.filter((s) => s.side === side && s.concurrency === concurrency);
      if (mine.length === 0) continue;
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      const figures = mine.map(perChunkAndStream);
      rows.push([
        sideLabel(side),
        String(concurrency),
        String(mine.length),
        mean(mine.map((s) => s.ok / (s.elapsedMs / 1000))).toFixed(0),
        String(mine.reduce((sum, s) => sum + s.errors, 0)),
        f3(mean(mine.map((s) => summarise(s.firstByteMs).p50))),
        f3(mean(mine.map((s) => summarise(s.firstByteMs).p99))),
        mean(figures.map((each) => each.cpuPerChunk)).toFixed(1),
        (mean(mine.map((s) => s.usage.peakRss)) / MiB).toFixed(0),
        (mean(figures.map((each) => each.rssPerStream)) / KiB).toFixed(1),
        mean(mine.map((s) => s.newConnections)).toFixed(0),
        mean(mine.map((s) => s.neighbourCores)).toFixed(2),
      ]);
    }
  }
  return table(
    [
      'side',
      'streams',
      'rounds',
      'served/s',
      'errors',
      'ttfb p50',
      'ttfb p99',
      'cpu µs/chunk',
      'peak RSS MiB',
      'KiB/stream',
      'new conns',
      'neighbours',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const unknown = SIDES.filter((name) => !SIDE_NAMES.includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_SIDES: unknown ${unknown.join(', ')} (${SIDE_NAMES.join(', ')})`);
  if (!TLS && SIDES.some(isHttp2))
    throw new Error('an -h2 side needs BENCH_UPSTREAM_TLS=on (HTTP/2 is negotiated over TLS only)');
  const machine = machineInfo();
  process.stdout.write(
    `LLM-shaped streams: ${CHUNKS} chunks ${INTERVAL_MS} ms apart, ${CONCURRENCY.join(', ')} at once, ` +
      `${SECONDS} s of starts after the ramp, ${ROUNDS} round(s); upstream ${TLS ? 'HTTPS (ALPN h2, http/1.1)' : 'plain HTTP'}; ` +
      `sides ${SIDES.join(', ')}\n` +
      `host ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.node}, load ${machine.loadAvgAtStart.join(' ')}\n`,
  );
  const certificate = TLS ? throwawayCertificate() : undefined;
  const fake: Fake = {
    ...(await startLlmUpstream(certificate)),
    dispatcher: new Agent(
      certificate === undefined ? {} : { connect: { ca: readFileSync(certificate.certFile, 'utf8') } },
    ),
  };
  const { sides, redis } = await startSides(fake.url, certificate);
  for (const side of sides) {
    // Warm-up: the code paths compiled and the pools' first connections open.
    const warm = await drive(side, 100, 1);
    if (warm.ok === 0)
      throw new Error(`${sideLabel(side.name)}: no stream served: ${warm.errorExamples.join('; ')}`);
  }
  const segments: Segment[] = [];
  for (const concurrency of CONCURRENCY) {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of sides) {
        const segment = await measure(side, round, concurrency, fake, redis);
        segments.push(segment);
        process.stdout.write(
          `  ${sideLabel(side.name)}, round ${round}, ${concurrency} streams: ${segment.ok} served, ${segment.errors} errors` +
            `${segment.errorExamples.length > 0 ? ` (${segment.errorExamples.join('; ')})` : ''}\n`,
        );
      }
    }
  }
  process.stdout.write(`\n${report(segments)}\n`);
  if (ROUNDS > 1) process.stdout.write(`\nMean over rounds:\n${summary(segments)}\n`);
  await stopAll();
}

runBench(main);
