/**
 * Redis outage benchmark (`node bench/outage.ts`, about 55 s): the gateway role on Redis stores
 * under closed-loop load (unique bodies, c=8 by default), while Redis is up; while it is stalled
 * (SIGSTOP: its first second, then on) and after it wakes; in the first second after Redis is
 * killed, while it stays down, and after it is back; the latency added while down
 * against the same run's latency while up, failures, and how long the spend journal took to be
 * applied after Redis returned. Loopback only; stops by itself. See bench/README.md, "Outage".
 *
 * Redis comes back empty (no persistence here): the gateway keeps serving from its config view,
 * and the journaled debits apply only where a balance exists, so this measures latency and the
 * journal's replay, not balances (test/integration/stores/redis-outage.test.ts checks those).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import {
  f3,
  machineInfo,
  startFake,
  startGatewayRole,
  startRedis,
  startStandalone,
  stopAll,
  stopChild,
  table,
} from './harness.ts';
import { closedLoop, type LoadSamples, summarise } from './load.ts';
import { metric, requestFor } from './miss-load.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SEGMENT_MS = Number(process.env.BENCH_SEGMENT_MS ?? 5000);

async function main(): Promise<void> {
  const machine = machineInfo();
  const fake = await startFake();
  let redis = await startRedis();
  const port = Number(new URL(redis.url).port);
  const shared = {
    upstreamUrl: fake.url,
    signingKey: randomBytes(32).toString('hex'),
    redisUrl: redis.url,
    encryptionKey: randomBytes(32).toString('hex'),
  };
  // The standalone writes the config (and the bootstrap key) to Redis; the gateway role is measured.
  const standalone = await startStandalone(shared, 'standalone (config writer)');
  const gateway = await startGatewayRole(shared, 'gateway role');
  const pool = new Pool(gateway.url, { connections: CONCURRENCY, pipelining: 1 });
  const request = requestFor(
    {
      url: gateway.url,
      apiKey: standalone.credentials.apiKey,
      model: 'openai/gpt-4o-mini',
      tracked: gateway.tracked,
      workspaceId: 'default',
      expectMiss: false,
    },
    'json',
  );
  const run = (ms: number) => closedLoop(pool, request, CONCURRENCY, ms);
  const rows: { phase: string; samples: LoadSamples }[] = [];

  await run(2000); // warm-up
  rows.push({ phase: 'Redis up', samples: await run(SEGMENT_MS) });
  // Stalled (SIGSTOP) while the load runs: the calls in flight wait out REDIS_COMMAND_TIMEOUT_MS,
  // then the breaker opens; woken (SIGCONT), the server runs what it was sent, and the journal
  // learns which of the timed-out debits it took (awaiting) before replaying the rest.
  const stallStart = run(1000);
  await sleep(100);
  redis.tracked.child.kill('SIGSTOP');
  rows.push({ phase: 'first second of a stall', samples: await stallStart });
  rows.push({ phase: 'Redis stalled', samples: await run(SEGMENT_MS) });
  const awaitingWhileStalled = await metric(gateway.url, 'gateway_spend_journal_awaiting');
  const wokenAt = performance.now();
  redis.tracked.child.kill('SIGCONT');
  const afterStall = run(SEGMENT_MS);
  let stallSettledMs = Number.NaN;
  for (;;) {
    const settled =
      (await metric(gateway.url, 'gateway_runtime_store_up')) === 1 &&
      (await metric(gateway.url, 'gateway_spend_journal_entries')) === 0 &&
      (await metric(gateway.url, 'gateway_spend_journal_awaiting')) === 0;
    if (settled) {
      stallSettledMs = performance.now() - wokenAt;
      break;
    }
    if (performance.now() - wokenAt > 30_000) break;
    await sleep(20);
  }
  rows.push({ phase: 'Redis woken', samples: await afterStall });
  // Killed while the load runs: the requests in flight meet the drop.
  const transition = run(1000);
  await sleep(100);
  redis.tracked.expectExit = true;
  redis.tracked.child.kill('SIGKILL');
  rows.push({ phase: 'first second after the kill', samples: await transition });
  rows.push({ phase: 'Redis down', samples: await run(SEGMENT_MS) });
  const journaled = await metric(gateway.url, 'gateway_spend_journal_entries');
  const restartedAt = performance.now();
  redis = await startRedis({ port });
  const recovered = run(SEGMENT_MS);
  let replayMs = Number.NaN;
  for (;;) {
    const up = await metric(gateway.url, 'gateway_runtime_store_up');
    if (up === 1 && (await metric(gateway.url, 'gateway_spend_journal_entries')) === 0) {
      replayMs = performance.now() - restartedAt;
      break;
    }
    if (performance.now() - restartedAt > 30_000) break;
    await sleep(20);
  }
  rows.push({ phase: 'Redis back', samples: await recovered });
  const replayed = await metric(gateway.url, 'gateway_spend_journal_replayed_total');

  const samplesOf = (phase: string) =>
    summarise(rows.find((row) => row.phase === phase)?.samples.totalMs ?? new Float64Array());
  const up = samplesOf('Redis up');
  const down = samplesOf('Redis down');
  const stalled = samplesOf('Redis stalled');
  console.log(`machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.os}, node ${machine.node}`);
  console.log(`gateway role on Redis stores, closed loop c=${CONCURRENCY}, unique bodies (cache misses):\n`);
  console.log(
    table(
      ['phase', 'ok', 'fail', 'req/s', 'p50 ms', 'p99 ms', 'max ms'],
      rows.map(({ phase, samples }) => {
        const summary = summarise(samples.totalMs);
        return [
          phase,
          String(samples.ok),
          String(samples.failures),
          String(Math.round((samples.ok / samples.elapsedMs) * 1000)),
          f3(summary.p50),
          f3(summary.p99),
          f3(summary.max),
        ];
      }),
    ),
  );
  const failures = rows.flatMap(({ samples }) => samples.failureExamples);
  if (failures.length > 0) console.log(`\nfailures, first few: ${failures.slice(0, 5).join('; ')}`);
  console.log(
    `\nwhile down: p50 ${f3(down.p50 - up.p50)} ms, p99 ${f3(down.p99 - up.p99)} ms against the same run's Redis-up figures (aim: at most 5 ms added at p99)`,
  );
  console.log(
    `while stalled (after the breaker opened): p50 ${f3(stalled.p50 - up.p50)} ms, p99 ${f3(stalled.p99 - up.p99)} ms against Redis up; ${awaitingWhileStalled} spend changes awaited the sleeping server's answer; after it woke, the breaker closed and nothing was left awaiting or journaled in ${f3(stallSettledMs)} ms`,
  );
  console.log(
    `spend journal: ${journaled} balances and counters held while down; after Redis came back, the breaker closed and the journal was applied in ${f3(replayMs)} ms (${replayed} operations)`,
  );
  await pool.close();
  await stopChild(redis.tracked);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
