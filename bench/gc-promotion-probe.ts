/**
 * How much a target promotes to V8's old space under closed-loop cache-miss load (every body
 * unique): the target runs with `--trace-gc-nvp`, and the scavenges during the load are summarised
 * (median KiB promoted per scavenge, what share of the previous scavenge's survivors that is, and
 * KiB per request). A promotion rate near 100 % with a steady promoted size means objects of
 * finished requests survive every young GC until a full GC: something in old space still points
 * at them.
 *
 * `node bench/gc-promotion-probe.ts [gateway|bare]` (default gateway, memory stores, `standalone`).
 * Env: PROBE_LOAD_MS (default 4000), PROBE_CONCURRENCY (32), PROBE_NODE_ARGS (extra node flags for
 * the target, e.g. `--max-semi-space-size=64`), PROBE_SNAPSHOT=1 (a heap snapshot mid-load, via
 * `--heapsnapshot-signal=SIGUSR2`, written into the repository root), PROBE_GATEWAY_ENV
 * (`NAME=value ...` added to the gateway's environment).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BENCH_DIR, startFake, startStandalone, stopAll, type Tracked } from './harness.ts';
import { closedLoop } from './load.ts';
import { requestFor } from './miss-load.ts';

interface Target {
  url: string;
  apiKey: string;
  tracked: Tracked;
}

/** The bare forwarder, spawned here: `--trace-gc-nvp` lines come before its `{"port":N}` line. */
async function startBare(upstream: string, nodeArgs: string[]): Promise<Target> {
  const child = spawn(process.execPath, [...nodeArgs, join(BENCH_DIR, 'bare-forwarder.ts'), upstream], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  let output = '';
  const port = await new Promise<number>((done) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
      const match = /\{"port":(\d+)\}/.exec(output);
      if (match !== null) done(Number(match[1]));
    });
  });
  const tracked: Tracked = { child, name: 'bare forwarder', output: () => output, expectExit: true };
  return { url: `http://127.0.0.1:${port}`, apiKey: 'unused', tracked };
}

const bare = process.argv[2] === 'bare';
const loadMs = Number(process.env.PROBE_LOAD_MS ?? 4000);
const concurrency = Number(process.env.PROBE_CONCURRENCY ?? 32);
const nodeArgs = [
  '--trace-gc-nvp',
  '--heapsnapshot-signal=SIGUSR2',
  ...(process.env.PROBE_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
const extraEnv = Object.fromEntries(
  (process.env.PROBE_GATEWAY_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

const fake = await startFake();
const target: Target = bare
  ? await startBare(fake.url, nodeArgs)
  : await startStandalone({ upstreamUrl: fake.url, signingKey: 'k'.repeat(40), nodeArgs, extraEnv }).then(
      (gateway) => ({ url: gateway.url, apiKey: gateway.credentials.apiKey, tracked: gateway.tracked }),
    );
const request = requestFor(
  {
    url: target.url,
    apiKey: target.apiKey,
    model: bare ? 'gpt-4o-mini' : 'openai/gpt-4o-mini',
    tracked: target.tracked,
    workspaceId: bare ? '' : 'default',
    expectMiss: false,
  },
  'json',
);
const pool = new Pool(target.url, { connections: concurrency });
await closedLoop(pool, request, concurrency, 2000);

const lines: string[] = [];
const collect = (chunk: Buffer) => {
  for (const line of chunk.toString('utf8').split('\n')) if (line.includes('gc=s ')) lines.push(line);
};
target.tracked.child.stdout?.on('data', collect);
if (process.env.PROBE_SNAPSHOT === '1') setTimeout(() => target.tracked.child.kill('SIGUSR2'), loadMs / 2);
const run = await closedLoop(pool, request, concurrency, loadMs);
target.tracked.child.stdout?.off('data', collect);

const scavenges = lines.map(
  (line) =>
    Object.fromEntries([...line.matchAll(/(\w+)=([\d.]+)/g)].map((m) => [m[1], Number(m[2])])) as Record<
      string,
      number
    >,
);
const median = (key: string) => {
  const values = scavenges
    .map((fields) => fields[key])
    .filter((value): value is number => value !== undefined)
    .sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] ?? Number.NaN;
};
const latencies = [...run.totalMs].sort((a, b) => a - b);
const percentile = (q: number) =>
  Math.round((latencies[Math.floor(latencies.length * q)] ?? Number.NaN) * 10) / 10;
const requestsPerScavenge = run.ok / scavenges.length;
console.log(
  JSON.stringify({
    target: bare ? 'bare' : 'gateway',
    requests: run.ok,
    failures: run.failures,
    reqPerS: Math.round(run.ok / (loadMs / 1000)),
    latencyMs: { p50: percentile(0.5), p99: percentile(0.99) },
    scavenges: scavenges.length,
    requestsPerScavenge: Math.round(requestsPerScavenge),
    newSpaceMiB: median('new_space_capacity') / 2 ** 20,
    promotedKiBPerScavenge: Math.round(median('promoted') / 1024),
    survivedKiBPerScavenge: Math.round(median('new_space_survived') / 1024),
    promotionRatePercent: median('promotion_rate'),
    promotedKiBPerRequest: Math.round((median('promoted') / 1024 / requestsPerScavenge) * 100) / 100,
  }),
);
await pool.close();
await stopAll();
process.exit(0);
