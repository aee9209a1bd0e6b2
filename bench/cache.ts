/**
 * Response-cache benchmark (`npm run bench:cache`), one run that stops by itself, loopback only:
 *
 * 1. Hit and miss paths side by side, for the in-memory store (standalone without REDIS_URL) and
 *    for Redis (redis-server + standalone with REDIS_URL), both in front of the fake upstream, with
 *    the closed-loop generator of run.ts at c=1 (latency) and c=32 (throughput). The memory store's
 *    budget is the smallest allowed (1 MiB, a few hundred entries), so that the miss sides' writes
 *    evict and the number of entries stays constant: a hit's cost depends on it (part 2). Per store:
 *    - hit JSON: one cacheable request repeated (its entry written first), every answer checked
 *      for `x-service-cache: hit`;
 *    - hit SSE: the same with `"stream":true` (the recorded stream replayed);
 *    - miss: a unique body per request (a counter in the message), so each one hashes, misses,
 *      goes upstream and writes its entry; every answer checked for `x-service-cache: miss`;
 *    - off: `x-service-cache: off`, no cache step at all (the upstream path of `npm run bench`);
 *      checked for the absence of the header.
 *    All sides take turns within each round (order rotated), so drift hits them alike.
 * 2. Memory per entry and hits against the entries held: a fresh standalone (memory store, default
 *    budget) with `memory-probe.ts` preloaded. N requests with the cache off (control), then N
 *    distinct cacheable ones (N entries written); heap after two full GCs (the probe) and VmRSS
 *    (/proc) before and after each phase. The hit path (one entry, c=1 and c=32) is measured with
 *    no other entry, after the N, and after filling to each of BENCH_POPULATIONS.
 * 3. The memory store's LRU (`LruCache`) in this process: a hot key's `get`, and an evicting `set`,
 *    against the number of entries held.
 *
 * Options (flags or env): --quick, --profile (the part-1 memory-store gateway under --cpu-prof; its
 * hot spots printed), BENCH_SEGMENT_MS, BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_SIDES (e.g.
 * `memory:hit,redis`; default all), BENCH_MEMORY_STORE_BYTES (part 1's memory budget),
 * BENCH_ENTRIES (0: skip part 2), BENCH_POPULATIONS. See bench/README.md, section "Cache".
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { cacheEntryBytes, LruCache } from '../src/stores/memory-cache.ts';
import {
  BENCH_DIR,
  f3,
  machineInfo,
  runBench,
  startFake,
  startRedis,
  startStandalone,
  stopAll,
  stopChild,
  type Tracked,
  table,
  tempDir,
} from './harness.ts';
import { closedLoop, concatSamples, type LoadRequest, type Summary, summarise } from './load.ts';
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

const config = {
  /** Measured time per (side, round); the sides take turns in every round. */
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 400 : 1000)),
  segmentWarmupMs: QUICK ? 100 : 200,
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 3)),
  /** Discarded traffic per gateway (all its sides, c=8) before any measurement, for the JIT. */
  initialWarmupMs: QUICK ? 800 : 2000,
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number),
  sides: process.env.BENCH_SIDES,
  /** Part 1: GATEWAY_CACHE_MEMORY_BYTES of the memory-store gateway (1 MiB is the smallest allowed). */
  memoryStoreBytes: Number(process.env.BENCH_MEMORY_STORE_BYTES ?? 1024 * 1024),
  /** Part 2: distinct entries written (and as many control requests before them). */
  entries: Number(process.env.BENCH_ENTRIES ?? (QUICK ? 4000 : 20_000)),
  entriesConcurrency: 8,
  /** Part 2: the hit path is measured again once the store holds this many entries (each above N). */
  populations: (process.env.BENCH_POPULATIONS ?? (QUICK ? '10000' : '100000')).split(',').map(Number),
  /** Part 2: measured time of each hit probe, per concurrency. */
  probeMs: QUICK ? 400 : 1500,
  /** Part 3: entries held, and measured time per operation and population. */
  lruPopulations: [0, 1000, 10_000, 50_000, 100_000],
  lruMs: QUICK ? 100 : 300,
  aimHitP99Ms: 1,
  aimHitRequestsPerSecond: 10_000,
};

const MODEL = 'openai/gpt-4o-mini';
const SIGNING_KEY = `k1:${randomBytes(32).toString('hex')}`;
const CACHE_HEADER = 'x-service-cache';
const NO_CACHE = { [CACHE_HEADER]: 'off' } as const;
/** The default workspace of the bootstrap key, where every entry of this bench lives. */
const WORKSPACE = 'default';

// ---------------------------------------------------------------------------------------------
// Requests. Every body has the same length: the fixed one, and the unique ones (a run tag and a
// counter), so that hit, miss and off differ only in what the gateway does with them.

const RUN_TAG = randomBytes(3).toString('hex');
const FIXED_CONTENT = `q ${'x'.repeat(RUN_TAG.length + 9)}`;
let uniqueCounter = 0;

function chatBody(content: string, stream: boolean): Buffer {
  const body: Record<string, unknown> = { model: MODEL, messages: [{ role: 'user', content }] };
  if (stream) body.stream = true;
  return Buffer.from(JSON.stringify(body));
}

function uniqueBody(): Buffer {
  uniqueCounter++;
  return chatBody(`q ${RUN_TAG}${String(uniqueCounter).padStart(9, '0')}`, false);
}

type Store = 'memory' | 'redis';
type Kind = 'hit' | 'hit-sse' | 'miss' | 'off';
const STORES: Store[] = ['memory', 'redis'];
const KINDS: Kind[] = ['hit', 'hit-sse', 'miss', 'off'];
const KIND_LABEL: Record<Kind, string> = {
  hit: 'hit JSON',
  'hit-sse': 'hit SSE',
  miss: 'miss JSON (unique bodies)',
  off: 'off JSON (no cache step)',
};

interface Side {
  store: Store;
  kind: Kind;
  name: string;
}

function headersFor(apiKey: string, kind: Kind): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: `Bearer ${apiKey}`,
    ...(kind === 'off' ? NO_CACHE : {}),
  };
}

function requestFor(kind: Kind, apiKey: string): LoadRequest {
  const headers = headersFor(apiKey, kind);
  switch (kind) {
    case 'hit':
      return {
        path: '/v1/chat/completions',
        headers,
        body: chatBody(FIXED_CONTENT, false),
        stream: false,
        expectHeader: { name: CACHE_HEADER, value: 'hit' },
      };
    case 'hit-sse':
      return {
        path: '/v1/chat/completions',
        headers,
        body: chatBody(FIXED_CONTENT, true),
        stream: true,
        expectHeader: { name: CACHE_HEADER, value: 'hit' },
      };
    case 'miss':
      return {
        path: '/v1/chat/completions',
        headers,
        body: uniqueBody(),
        nextBody: uniqueBody,
        stream: false,
        expectHeader: { name: CACHE_HEADER, value: 'miss' },
      };
    case 'off':
      return {
        path: '/v1/chat/completions',
        headers,
        body: chatBody(FIXED_CONTENT, false),
        stream: false,
        expectHeader: { name: CACHE_HEADER, value: undefined },
      };
  }
}

interface Answer {
  status: number;
  cache: string | undefined;
  age: string | undefined;
  text: string;
}

async function send(pool: Pool, request: LoadRequest, body: Buffer = request.body): Promise<Answer> {
  const response = await pool.request({
    path: request.path,
    method: 'POST',
    headers: request.headers,
    body,
  });
  const text = await response.body.text();
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  return {
    status: response.statusCode,
    cache: header(CACHE_HEADER),
    age: header('x-service-cache-age'),
    text,
  };
}

// ---------------------------------------------------------------------------------------------
// Part 1: the sides, measured in turns.

interface Gateway {
  store: Store;
  url: string;
  apiKey: string;
  tracked: Tracked;
}

/** Checks what each kind answers, and writes the entries that the hit sides will read. */
async function checkAndWarm(gateway: Gateway): Promise<{ completionBytes: number; sseBytes: number }> {
  const pool = new Pool(gateway.url, { connections: 8 });
  const fail = (what: string, answer: Answer) => {
    throw new Error(
      `${gateway.store} gateway, ${what}: status ${answer.status}, ${CACHE_HEADER} ${answer.cache}: ${answer.text.slice(0, 200)}`,
    );
  };
  try {
    const off = requestFor('off', gateway.apiKey);
    for (let i = 0; i < 2; i++) {
      const answer = await send(pool, off);
      if (answer.status !== 200 || answer.cache !== undefined) fail('off', answer);
    }
    const miss = requestFor('miss', gateway.apiKey);
    const body = uniqueBody();
    const first = await send(pool, miss, body);
    if (first.status !== 200 || first.cache !== 'miss') fail('unique body, first', first);
    const second = await send(pool, miss, body);
    if (second.status !== 200 || second.cache !== 'hit' || second.age === undefined)
      fail('unique body, second (expected a hit with an age)', second);
    if (second.text !== first.text) throw new Error(`${gateway.store} gateway: a hit differs from its miss`);

    // The hit sides' entries: a JSON answer is written before it is sent, a stream when it ends.
    const sizes = { completionBytes: Buffer.byteLength(first.text), sseBytes: 0 };
    for (const kind of ['hit', 'hit-sse'] as const) {
      const request = requestFor(kind, gateway.apiKey);
      const deadline = Date.now() + 5000;
      for (;;) {
        const answer = await send(pool, request);
        if (answer.status !== 200) fail(kind, answer);
        if (answer.cache === 'hit') {
          if (kind === 'hit-sse') {
            if (!answer.text.endsWith('data: [DONE]\n\n')) fail('hit SSE (no [DONE] at the end)', answer);
            sizes.sseBytes = Buffer.byteLength(answer.text);
          }
          break;
        }
        if (Date.now() > deadline) fail(`${kind} (no hit within 5 s)`, answer);
        await sleep(10);
      }
    }
    for (const kind of KINDS) {
      const warm = await closedLoop(pool, requestFor(kind, gateway.apiKey), 8, config.initialWarmupMs / 4);
      if (warm.failures > 0)
        throw new Error(`${gateway.store} ${kind} warm-up: ${warm.failureExamples.join('; ')}`);
    }
    return sizes;
  } finally {
    await pool.close();
  }
}

interface SideResult {
  name: string;
  store: Store;
  kind: Kind;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  measuredMs: number;
  requestsPerSecond: number;
  latencyMs: Summary;
}

async function measureSides(
  sides: Side[],
  gateways: Record<Store, Gateway | undefined>,
  concurrency: number,
): Promise<SideResult[]> {
  const origin = (side: Side) => gateways[side.store]!;
  const pools = sides.map((side) => new Pool(origin(side).url, { connections: concurrency, pipelining: 1 }));
  const requests = sides.map((side) => requestFor(side.kind, origin(side).apiKey));
  const parts = sides.map(() => ({ total: [] as Float64Array[], ok: 0, fail: 0, ms: 0, ex: [] as string[] }));
  try {
    for (let round = 0; round < config.rounds; round++) {
      // Rotate the order so that no side always runs first or after the same neighbour.
      for (let step = 0; step < sides.length; step++) {
        const index = (step + round * 3) % sides.length;
        await closedLoop(pools[index]!, requests[index]!, concurrency, config.segmentWarmupMs);
        const samples = await closedLoop(pools[index]!, requests[index]!, concurrency, config.segmentMs);
        const part = parts[index]!;
        part.total.push(samples.totalMs);
        part.ok += samples.ok;
        part.fail += samples.failures;
        part.ms += samples.elapsedMs;
        part.ex.push(...samples.failureExamples);
      }
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return sides.map((side, index) => {
    const part = parts[index]!;
    return {
      name: side.name,
      store: side.store,
      kind: side.kind,
      concurrency,
      ok: part.ok,
      failures: part.fail,
      failureExamples: part.ex.slice(0, 5),
      measuredMs: part.ms,
      requestsPerSecond: (part.ok * 1000) / part.ms,
      latencyMs: summarise(concatSamples(part.total)),
    };
  });
}

function selectedSides(): Side[] {
  const all = STORES.flatMap((store) =>
    KINDS.map((kind) => ({ store, kind, name: `${store} ${KIND_LABEL[kind]}` })),
  );
  if (config.sides === undefined || config.sides.trim() === '') return all;
  const wanted = new Set(config.sides.split(',').map((entry) => entry.trim()));
  const sides = all.filter((side) => wanted.has(`${side.store}:${side.kind}`) || wanted.has(side.store));
  if (sides.length === 0)
    throw new Error(`BENCH_SIDES '${config.sides}' selects nothing (e.g. memory:hit,redis)`);
  return sides;
}

// ---------------------------------------------------------------------------------------------
// Part 2: memory per entry, and the hit path against the number of entries held.

interface MemorySnapshot {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** VmRSS from /proc/<pid>/status, bytes. */
  vmRss: number;
}

interface ProbeResult {
  latencyMs: Summary;
  requestsPerSecond: number;
  failures: number;
  /** The measured segment, µs of the monotonic clock (to slice the gateway's CPU profile). */
  windowUs: [number, number];
}

interface HitProbe {
  /** Entries written by this part before the probe (besides the one being hit). */
  population: number;
  c1: ProbeResult;
  c32: ProbeResult;
}

interface MemoryResult {
  entries: number;
  completionBytes: number;
  /** Average entry text (JSON of the entry, with the body inside) in characters, from the metric. */
  entryChars: number;
  keyChars: number;
  /** What the memory store charges an entry against GATEWAY_CACHE_MEMORY_BYTES. */
  chargedBytesPerEntry: number;
  before: MemorySnapshot;
  afterControl: MemorySnapshot;
  afterEntries: MemorySnapshot;
  /** Per request / entry, bytes. */
  controlPerRequest: Record<keyof MemorySnapshot, number>;
  perEntry: Record<keyof MemorySnapshot, number>;
  secondsControl: number;
  secondsEntries: number;
  hitProbes: HitProbe[];
}

function vmRss(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Asks the probe in `pid` for its memory after full GCs (each answer has a higher sequence). */
async function snapshot(
  pid: number,
  probeFile: string,
  previous: { sequence: number },
): Promise<MemorySnapshot> {
  // Let the last responses' work settle (debounced runtime.json write, pending promises).
  await sleep(300);
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (existsSync(probeFile)) {
      const probe = JSON.parse(readFileSync(probeFile, 'utf8')) as MemorySnapshot & {
        sequence: number;
        gc: boolean;
      };
      if (probe.sequence > previous.sequence) {
        if (!probe.gc) throw new Error('the memory probe has no gc() (--expose-gc missing)');
        previous.sequence = probe.sequence;
        const { rss, heapTotal, heapUsed, external, arrayBuffers } = probe;
        return { rss, heapTotal, heapUsed, external, arrayBuffers, vmRss: vmRss(pid) };
      }
    }
    if (Date.now() > deadline) throw new Error('the memory probe did not answer within 10 s');
    await sleep(20);
  }
}

/** Sends `count` requests with `concurrency` workers; every one must be a 200 with `cache` as its header. */
async function sendMany(
  pool: Pool,
  request: LoadRequest,
  count: number,
  concurrency: number,
  cache: string | undefined,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const answer = await send(pool, request, request.nextBody?.() ?? request.body);
      if (answer.status !== 200 || answer.cache !== cache)
        throw new Error(`status ${answer.status}, ${CACHE_HEADER} ${answer.cache} (expected ${cache})`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - started) / 1000;
}

/** Writes at least `count` new entries at c=32 (closed loop, each answer checked for `miss`); returns how many. */
async function fill(pool: Pool, miss: LoadRequest, count: number): Promise<number> {
  let written = 0;
  while (written < count) {
    const chunk = await closedLoop(pool, miss, 32, 500);
    if (chunk.failures > 0) throw new Error(`filling the store: ${chunk.failureExamples.join('; ')}`);
    written += chunk.ok;
  }
  return written;
}

async function probeHits(url: string, hit: LoadRequest, population: number): Promise<HitProbe> {
  const measure = async (concurrency: number): Promise<ProbeResult> => {
    const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
    try {
      await closedLoop(pool, hit, concurrency, config.segmentWarmupMs);
      const from = Number(process.hrtime.bigint() / 1000n);
      const samples = await closedLoop(pool, hit, concurrency, config.probeMs);
      return {
        latencyMs: summarise(samples.totalMs),
        requestsPerSecond: (samples.ok * 1000) / samples.elapsedMs,
        failures: samples.failures,
        windowUs: [from, Number(process.hrtime.bigint() / 1000n)],
      };
    } finally {
      await pool.close();
    }
  };
  return { population, c1: await measure(1), c32: await measure(32) };
}

async function writtenBytes(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^gateway_cache_written_bytes_total (\S+)$/m.exec(text);
  if (match === null) throw new Error('gateway_cache_written_bytes_total is not in /metrics');
  return Number(match[1]);
}

function difference(after: MemorySnapshot, before: MemorySnapshot, count: number) {
  const keys = Object.keys(after) as (keyof MemorySnapshot)[];
  return Object.fromEntries(keys.map((key) => [key, (after[key] - before[key]) / count])) as Record<
    keyof MemorySnapshot,
    number
  >;
}

async function measureMemory(upstreamUrl: string, profileDir: string | undefined): Promise<MemoryResult> {
  const probeFile = join(tempDir('gateway-bench-probe-'), 'memory.json');
  const gateway = await startStandalone(
    {
      upstreamUrl,
      signingKey: SIGNING_KEY,
      nodeArgs: [
        '--expose-gc',
        '--import',
        join(BENCH_DIR, 'memory-probe.ts'),
        ...(profileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ],
      extraEnv: { BENCH_MEMORY_PROBE_FILE: probeFile },
    },
    'standalone (memory probe)',
  );
  const pid = gateway.tracked.child.pid!;
  const { apiKey } = gateway.credentials;
  const pool = new Pool(gateway.url, { connections: 32 });
  const n = config.entries;
  const c = config.entriesConcurrency;
  const offUnique: LoadRequest = { ...requestFor('off', apiKey), body: uniqueBody(), nextBody: uniqueBody };
  // `no-store`: looked up (a miss) and sent upstream, never written; warms the miss path only.
  const noStore: LoadRequest = {
    ...offUnique,
    headers: { ...headersFor(apiKey, 'hit'), [CACHE_HEADER]: 'no-store' },
  };
  const miss = requestFor('miss', apiKey);
  const hit = requestFor('hit', apiKey);
  try {
    const completionBytes = Buffer.byteLength((await send(pool, requestFor('off', apiKey))).text);
    // Warm-up without writing anything but the one entry that the probes hit.
    await sendMany(pool, offUnique, 2000, c, undefined);
    await sendMany(pool, noStore, 2000, c, 'miss');
    if ((await send(pool, hit)).cache !== 'miss') throw new Error('the hit probe entry existed already');
    await closedLoop(pool, hit, 8, config.initialWarmupMs / 2);
    const hitProbes = [await probeHits(gateway.url, hit, 0)];

    const probe = { sequence: 0 };
    const before = await snapshot(pid, probeFile, probe);
    const secondsControl = await sendMany(pool, offUnique, n, c, undefined);
    const afterControl = await snapshot(pid, probeFile, probe);
    const writtenBefore = await writtenBytes(gateway.url);
    const secondsEntries = await sendMany(pool, miss, n, c, 'miss');
    const writtenAfter = await writtenBytes(gateway.url);
    const afterEntries = await snapshot(pid, probeFile, probe);
    hitProbes.push(await probeHits(gateway.url, hit, n));
    let population = n;
    for (const target of config.populations.filter((value) => value > n)) {
      population += await fill(pool, miss, target - population);
      hitProbes.push(await probeHits(gateway.url, hit, population));
    }

    const entryChars = (writtenAfter - writtenBefore) / n;
    // The key as the response cache builds it: workspace, namespace ('-'), generations, SHA-256 hex.
    const keyChars = `${WORKSPACE}:-:0.0:`.length + 64;
    return {
      entries: n,
      completionBytes,
      entryChars,
      keyChars,
      chargedBytesPerEntry: cacheEntryBytes('k'.repeat(keyChars), 'v'.repeat(Math.round(entryChars))),
      before,
      afterControl,
      afterEntries,
      controlPerRequest: difference(afterControl, before, n),
      perEntry: difference(afterEntries, afterControl, n),
      secondsControl,
      secondsEntries,
      hitProbes,
    };
  } finally {
    await pool.close();
    await stopChild(gateway.tracked);
  }
}

// ---------------------------------------------------------------------------------------------
// Part 3: the memory store's LRU in this process, against the number of entries it holds.

interface LruResult {
  population: number;
  /** Mean ns of `get` of one hot key, repeated (each a hit). */
  hotGetNs: number;
  /** Mean ns of `set` of a new key into a full store (each evicts the least recent entry). */
  evictingSetNs: number;
}

function measureLru(): LruResult[] {
  const value = 'v'.repeat(600);
  const key = (i: number) => `${WORKSPACE}:-:0.0:${i.toString(16).padStart(64, '0')}`;
  const perEntry = cacheEntryBytes(key(0), value);
  const timed = (op: (i: number) => void) => {
    for (let i = 0; i < 1000; i++) op(i);
    let ops = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(config.lruMs * 1e6);
    while (process.hrtime.bigint() < deadline) {
      for (let i = 0; i < 100; i++) op(ops++);
    }
    return Number(process.hrtime.bigint() - started) / ops;
  };
  return config.lruPopulations.map((population) => {
    let next = 1;
    // Hot-key reads, with room to spare (no eviction).
    const roomy = new LruCache(perEntry * (population + 10));
    for (let i = 0; i < population; i++) roomy.set(key(next++), value, 600_000);
    const hot = key(0);
    roomy.set(hot, value, 600_000);
    let sink = 0;
    const hotGetNs = timed(() => {
      sink += roomy.get(`${WORKSPACE}:-:0.0:${'0'.repeat(64)}`)?.length ?? 0;
    });
    if (sink === 0) throw new Error('the hot key was not found');
    roomy.clear();
    // New keys into a store that is full at `population` entries.
    const full = new LruCache(perEntry * Math.max(population, 1));
    for (let i = 0; i < population; i++) full.set(key(next++), value, 600_000);
    const evictingSetNs = timed(() => full.set(key(next++), value, 600_000));
    return { population, hotGetNs, evictingSetNs };
  });
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(BENCH_DIR, 'results');
  const profileDir = PROFILE ? join(resultsDir, `cache-profile-${stamp}`) : undefined;
  const profileDirs = {
    part1: profileDir === undefined ? undefined : join(profileDir, 'part1'),
    part2: profileDir === undefined ? undefined : join(profileDir, 'part2'),
  };
  for (const dir of Object.values(profileDirs)) if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const sides = selectedSides();
  const storesUsed = STORES.filter((store) => sides.some((side) => side.store === store));
  process.stdout.write(
    `cache bench: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, ${machine.os}${QUICK ? ' (quick)' : ''}\n` +
      `${sides.length} sides, segments ${config.segmentMs} ms x ${config.rounds} rounds (in turns), ` +
      `concurrency ${config.concurrency.join(', ')}, memory store budget ${config.memoryStoreBytes} B; ` +
      `part 2: ${config.entries} entries, then up to ${config.populations.join(', ')}` +
      `${PROFILE ? '; memory-store gateways under --cpu-prof' : ''}\n`,
  );

  const fake = await startFake();
  const gateways: Record<Store, Gateway | undefined> = { memory: undefined, redis: undefined };
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  if (storesUsed.includes('memory')) {
    const standalone = await startStandalone(
      {
        upstreamUrl: fake.url,
        signingKey: SIGNING_KEY,
        extraEnv: { GATEWAY_CACHE_MEMORY_BYTES: String(config.memoryStoreBytes) },
        ...(profileDirs.part1 !== undefined
          ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDirs.part1}`] }
          : {}),
      },
      'standalone (memory store)',
    );
    gateways.memory = {
      store: 'memory',
      url: standalone.url,
      apiKey: standalone.credentials.apiKey,
      tracked: standalone.tracked,
    };
  }
  if (storesUsed.includes('redis')) {
    redis = await startRedis();
    const standalone = await startStandalone(
      {
        upstreamUrl: fake.url,
        signingKey: SIGNING_KEY,
        redisUrl: redis.url,
        encryptionKey: randomBytes(32).toString('hex'),
      },
      'standalone (redis store)',
    );
    gateways.redis = {
      store: 'redis',
      url: standalone.url,
      apiKey: standalone.credentials.apiKey,
      tracked: standalone.tracked,
    };
  }
  process.stdout.write(
    `  fake ${fake.url}; ${storesUsed.map((store) => `${store} standalone ${gateways[store]!.url}`).join(', ')}` +
      `${redis !== undefined ? ` (${redis.url})` : ''}; checking and warming up\n`,
  );
  const sizes: Partial<Record<Store, { completionBytes: number; sseBytes: number }>> = {};
  for (const store of storesUsed) sizes[store] = await checkAndWarm(gateways[store]!);

  const results: SideResult[] = [];
  for (const concurrency of config.concurrency) {
    process.stdout.write(`  measuring c=${concurrency}\n`);
    results.push(...(await measureSides(sides, gateways, concurrency)));
  }
  for (const store of storesUsed) await stopChild(gateways[store]!.tracked);
  if (redis !== undefined) await stopChild(redis.tracked);

  let memory: MemoryResult | undefined;
  if (config.entries > 0) {
    process.stdout.write(
      `  memory per entry: ${config.entries} control requests, then ${config.entries} entries; ` +
        `hits at 0, ${config.entries}, ${config.populations.filter((p) => p > config.entries).join(', ')} entries\n`,
    );
    memory = await measureMemory(fake.url, profileDirs.part2);
  }
  await stopChild(fake.tracked);
  await stopAll();
  const loadAvgAtEnd = machineInfo().loadAvgAtStart;
  process.stdout.write('  LruCache in process\n');
  const lru = measureLru();

  // Judgement: the memory store's JSON hit, p99 at c=1 and throughput at c=32.
  const find = (store: Store, kind: Kind, concurrency: number) =>
    results.find((r) => r.store === store && r.kind === kind && r.concurrency === concurrency);
  const hitLatency = find('memory', 'hit', 1);
  const hitThroughput = find('memory', 'hit', 32);
  const aims = {
    p99: hitLatency === undefined ? undefined : hitLatency.latencyMs.p99 < config.aimHitP99Ms,
    throughput:
      hitThroughput === undefined
        ? undefined
        : hitThroughput.requestsPerSecond > config.aimHitRequestsPerSecond,
  };
  const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? 'met' : 'MISSED');
  const probeMeetsAims = (probe: HitProbe) =>
    probe.c1.latencyMs.p99 < config.aimHitP99Ms &&
    probe.c32.requestsPerSecond > config.aimHitRequestsPerSecond &&
    probe.c1.failures + probe.c32.failures === 0;

  const report = [
    '',
    `machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.totalMemGiB} GiB, ${machine.os}, node ${machine.node}`,
    `date: ${startedAt.toISOString()}; load avg at start ${machine.loadAvgAtStart.join(' ')}, at end ${loadAvgAtEnd.join(' ')}`,
    `completion body ${sizes.memory?.completionBytes ?? sizes.redis?.completionBytes} B (JSON), ` +
      `${sizes.memory?.sseBytes ?? sizes.redis?.sseBytes} B (SSE as replayed)`,
    '',
    '1. chat through the standalone gateway, by store and cache path (every answer checked for its x-service-cache):',
    table(
      ['side', 'c', 'ok', 'fail', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s'],
      results.map((r) => [
        r.name,
        String(r.concurrency),
        String(r.ok),
        String(r.failures),
        f3(r.latencyMs.p50),
        f3(r.latencyMs.p90),
        f3(r.latencyMs.p99),
        f3(r.latencyMs.max),
        r.requestsPerSecond.toFixed(0),
      ]),
    ),
  ];
  const versusOff = config.concurrency.flatMap((concurrency) =>
    storesUsed.flatMap((store) => {
      const off = find(store, 'off', concurrency);
      if (off === undefined) return [];
      return (['hit', 'hit-sse', 'miss'] as const).flatMap((kind) => {
        const side = find(store, kind, concurrency);
        if (side === undefined) return [];
        return [
          {
            side: side.name,
            concurrency,
            p50Ms: side.latencyMs.p50 - off.latencyMs.p50,
            p99Ms: side.latencyMs.p99 - off.latencyMs.p99,
            requestsPerSecondRatio: side.requestsPerSecond / off.requestsPerSecond,
          },
        ];
      });
    }),
  );
  if (versusOff.length > 0) {
    report.push(
      'minus the same store with the cache off (same percentile; negative: faster than the upstream path):',
      table(
        ['side', 'c', 'p50 ms', 'p99 ms', 'req/s vs off'],
        versusOff.map((row) => [
          row.side,
          String(row.concurrency),
          f3(row.p50Ms),
          f3(row.p99Ms),
          `${((row.requestsPerSecondRatio - 1) * 100).toFixed(1)}%`,
        ]),
      ),
    );
  }
  report.push(
    `aim, memory store JSON hit (part 1, small store): p99 under ${config.aimHitP99Ms} ms at c=1 (${f3(hitLatency?.latencyMs.p99)} ms): ` +
      `${verdict(aims.p99)}; over ${config.aimHitRequestsPerSecond} req/s at c=32 ` +
      `(${hitThroughput?.requestsPerSecond.toFixed(0) ?? '-'}): ${verdict(aims.throughput)}`,
  );
  for (const r of results.filter((r) => r.failures > 0)) {
    report.push(`failures, ${r.name} c=${r.concurrency}: ${r.failureExamples.join('; ')}`);
  }

  if (memory !== undefined) {
    const kib = (bytes: number) => (bytes / 1024).toFixed(0);
    const rows: [string, keyof MemorySnapshot][] = [
      ['heap used (after full GC)', 'heapUsed'],
      ['heap total', 'heapTotal'],
      ['external', 'external'],
      ['RSS (process.memoryUsage)', 'rss'],
      ['VmRSS (/proc)', 'vmRss'],
    ];
    report.push(
      '',
      `2. memory per entry, memory store: ${memory.entries} distinct entries of a ${memory.completionBytes} B completion ` +
        `(entry text ${memory.entryChars.toFixed(0)} chars, key ${memory.keyChars} chars), written through the gateway at c=${config.entriesConcurrency}:`,
      table(
        ['', 'before KiB', 'after control KiB', 'after entries KiB', 'control B/request', 'B/entry'],
        rows.map(([label, key]) => [
          label,
          kib(memory.before[key]),
          kib(memory.afterControl[key]),
          kib(memory.afterEntries[key]),
          memory.controlPerRequest[key].toFixed(0),
          memory.perEntry[key].toFixed(0),
        ]),
      ),
      `charged against GATEWAY_CACHE_MEMORY_BYTES per entry: ${memory.chargedBytesPerEntry} B ` +
        `(key + entry bytes + 128); heap used per entry / charged: ${(memory.perEntry.heapUsed / memory.chargedBytesPerEntry).toFixed(2)}`,
      `write rate: control ${(memory.entries / memory.secondsControl).toFixed(0)} req/s, ` +
        `entries ${(memory.entries / memory.secondsEntries).toFixed(0)} req/s`,
      '',
      'hit JSON (one entry, repeated) on that gateway, by entries held (default budget):',
      table(
        [
          'entries held',
          'c=1 p50 ms',
          'c=1 p99 ms',
          'c=32 p50 ms',
          'c=32 p99 ms',
          'c=32 req/s',
          'fail',
          'aim',
        ],
        memory.hitProbes.map((probe) => [
          String(probe.population),
          f3(probe.c1.latencyMs.p50),
          f3(probe.c1.latencyMs.p99),
          f3(probe.c32.latencyMs.p50),
          f3(probe.c32.latencyMs.p99),
          probe.c32.requestsPerSecond.toFixed(0),
          String(probe.c1.failures + probe.c32.failures),
          probeMeetsAims(probe) ? 'met' : 'MISSED',
        ]),
      ),
    );
  }
  report.push(
    '',
    '3. LruCache (src/stores/memory-cache.ts) in this process, by entries held (600-char values):',
    table(
      ['entries held', 'hot-key get ns', 'evicting set ns'],
      lru.map((row) => [String(row.population), row.hotGetNs.toFixed(0), row.evictingSetNs.toFixed(0)]),
    ),
  );

  const profiles: { part1?: ProfileSummary; part2?: { population: number; summary: ProfileSummary }[] } = {};
  const readProfile = (dir: string): [string, CpuProfile] | undefined => {
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) {
      report.push('', `no .cpuprofile was written to ${dir}`);
      return undefined;
    }
    return [join(dir, file), JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile];
  };
  if (profileDirs.part1 !== undefined && storesUsed.includes('memory')) {
    const read = readProfile(profileDirs.part1);
    if (read !== undefined) {
      profiles.part1 = summariseProfile(read[1], 30);
      const kinds = sides.filter((side) => side.store === 'memory').map((side) => side.kind);
      report.push(
        '',
        `part 1 memory-store gateway CPU profile ${read[0]} (all its traffic: ${kinds.join(', ')})`,
        renderProfileSummary(profiles.part1),
      );
    }
  }
  if (profileDirs.part2 !== undefined && memory !== undefined) {
    const read = readProfile(profileDirs.part2);
    if (read !== undefined) {
      profiles.part2 = memory.hitProbes.map((probe) => ({
        population: probe.population,
        summary: summariseProfile(sliceProfile(read[1], ...probe.c32.windowUs), 15),
      }));
      report.push('', `part 2 gateway CPU profile ${read[0]}, sliced to each hit probe's c=32 segment:`);
      for (const { population, summary } of profiles.part2) {
        report.push('', `hit JSON c=32 with ${population} entries held:`, renderProfileSummary(summary));
      }
    }
  }

  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `cache-${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine: { ...machine, loadAvgAtEnd },
        config: { ...config, quick: QUICK, profile: PROFILE },
        sizes,
        scenarios: results,
        versusOff,
        aims: { ...aims, hitP99Ms: config.aimHitP99Ms, hitRequestsPerSecond: config.aimHitRequestsPerSecond },
        ...(memory !== undefined ? { memory } : {}),
        lru,
        ...(PROFILE ? { profiles } : {}),
      },
      null,
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
