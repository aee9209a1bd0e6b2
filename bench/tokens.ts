/**
 * Ephemeral-token benchmark (`npm run bench:tokens`), three parts in one run, loopback only:
 *
 * 1. Verification cost in this process: `verifyToken` (HMAC, shape, expiry) and `TokenVerifier.verify`
 *    (plus the parent-key lookup in a ConfigView and the denylist check against a RevocationMirror
 *    holding 10k revocations), next to a workspace key's lookup through the same Authenticator.
 * 2. What a token adds to a request through the gateway: standalone (embedded stores, signing key
 *    set) in front of the fake upstream, JSON chat with the closed-loop generator of run.ts, for a
 *    workspace key, a token with scopes only, and a token with budget and rate limits, in turns.
 * 3. Revocation across processes: redis-server, a standalone on it (control plane) and a second
 *    process in the gateway role. For each of N tokens: mint, check it works on the second gateway,
 *    then revoke it through GraphQL while a tight loop of requests runs against the second gateway,
 *    and time the first refusal against the arrival of the mutation's answer.
 *
 * Options (flags or env): --quick, BENCH_SEGMENT_MS, BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_TOKENS,
 * BENCH_VERIFY_MS. See bench/README.md, section "Tokens".
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { Authenticator } from '../src/auth/authenticate.ts';
import { hashCredential } from '../src/auth/credential-hash.ts';
import { encodeToken, newJti, type TokenClaims, verifyToken } from '../src/auth/ephemeral-token.ts';
import { RevocationMirror, TokenVerifier } from '../src/auth/token-verifier.ts';
import { ConfigView } from '../src/stores/config-view.ts';
import { MemoryConfigStore } from '../src/stores/memory-config-store.ts';
import { MemoryRuntimeStore } from '../src/stores/memory-runtime-store.ts';
import {
  BENCH_DIR,
  f3,
  machineInfo,
  runBench,
  startFake,
  startGatewayRole,
  startRedis,
  startStandalone,
  stopAll,
  stopChild,
  table,
} from './harness.ts';
import { closedLoop, concatSamples, type LoadRequest, type Summary, summarise } from './load.ts';

const QUICK = process.argv.includes('--quick');

const config = {
  /** Part 1: measured time per operation (after a quarter of it as warm-up), in batches. */
  verifyMs: Number(process.env.BENCH_VERIFY_MS ?? (QUICK ? 600 : 2000)),
  verifyBatch: 1000,
  /** Revocations other than the measured token's in the mirror, so its lookups are not trivial. */
  mirrorRevocations: 10_000,
  /** Part 2, as in run.ts: measured time per (side, round), sides take turns. */
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 600 : 1100)),
  segmentWarmupMs: QUICK ? 150 : 200,
  /** Short segments, many rounds: bursts of other load hit every side alike. */
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 3 : 6)),
  initialWarmupMs: QUICK ? 1000 : 3000,
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number),
  /** Part 3: tokens minted and revoked one after the other (after a few discarded ones). */
  revocations: Number(process.env.BENCH_TOKENS ?? (QUICK ? 40 : 300)),
  revocationWarmup: QUICK ? 5 : 20,
  /** Requests sent to the second gateway after the answer (at least), to catch late accepts. */
  checksAfterAnswer: 5,
  /** Give up on one token when the second gateway still accepts it this long after the answer. */
  propagationTimeoutMs: 5000,
  aimVerifyUs: 20,
  aimPropagationMs: 100,
};

const SIGNING_KEY = `k1:${randomBytes(32).toString('hex')}`;
const MODEL = 'openai/gpt-4o-mini';

// ---------------------------------------------------------------------------------------------
// Part 1: verification in process.

interface OpResult {
  name: string;
  ops: number;
  opsPerSecond: number;
  meanUs: number;
  /** Per-batch µs per operation. */
  batchUs: Summary;
}

function opResult(name: string, ops: number, totalNs: number, perBatchNs: number[]): OpResult {
  return {
    name,
    ops,
    opsPerSecond: (ops * 1e9) / totalNs,
    meanUs: totalNs / ops / 1000,
    batchUs: summarise(Float64Array.from(perBatchNs, (ns) => ns / 1000)),
  };
}

/** Runs `op` in batches for `durationMs` (after a discarded quarter); `op` returns a number to keep. */
function measureSync(name: string, op: () => number): OpResult {
  let sink = 0;
  const run = (durationMs: number) => {
    const perBatch: number[] = [];
    let totalNs = 0;
    const deadline = process.hrtime.bigint() + BigInt(durationMs * 1e6);
    while (process.hrtime.bigint() < deadline) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < config.verifyBatch; i++) sink += op();
      const ns = Number(process.hrtime.bigint() - start);
      totalNs += ns;
      perBatch.push(ns / config.verifyBatch);
    }
    return { perBatch, totalNs };
  };
  run(config.verifyMs / 4);
  const { perBatch, totalNs } = run(config.verifyMs);
  if (sink === -1) process.stdout.write('');
  return opResult(name, perBatch.length * config.verifyBatch, totalNs, perBatch);
}

async function measureAsync(name: string, op: () => Promise<number>): Promise<OpResult> {
  let sink = 0;
  const run = async (durationMs: number) => {
    const perBatch: number[] = [];
    let totalNs = 0;
    const deadline = process.hrtime.bigint() + BigInt(durationMs * 1e6);
    while (process.hrtime.bigint() < deadline) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < config.verifyBatch; i++) sink += await op();
      const ns = Number(process.hrtime.bigint() - start);
      totalNs += ns;
      perBatch.push(ns / config.verifyBatch);
    }
    return { perBatch, totalNs };
  };
  await run(config.verifyMs / 4);
  const { perBatch, totalNs } = await run(config.verifyMs);
  if (sink === -1) process.stdout.write('');
  return opResult(name, perBatch.length * config.verifyBatch, totalNs, perBatch);
}

async function measureVerification(): Promise<{ tokenLength: number; results: OpResult[] }> {
  const [keyId, secret] = SIGNING_KEY.split(':') as [string, string];
  const keys = new Map([[keyId, secret]]);
  const apiKey = `tt_sk_${randomBytes(32).toString('base64url')}`;
  const parentId = `key_${randomBytes(9).toString('base64url')}`;

  const store = new MemoryConfigStore();
  await store.put('tenant', 'default', {
    v: 1,
    id: 'default',
    displayName: 'Default tenant',
    billingMode: 'delegated',
    strictByok: false,
    workspaces: [{ id: 'default', name: 'Default workspace' }],
  });
  await store.put('apiKey', parentId, {
    v: 1,
    id: parentId,
    hash: hashCredential(apiKey),
    tenantId: 'default',
    workspaceId: 'default',
    grants: ['chat:write', 'embed'],
    createdAt: new Date().toISOString(),
  });
  // A built store: the view serves only a store whose epoch the reconciler set.
  await store.setEpoch('built');
  const view = await ConfigView.start(store);
  const runtime = new MemoryRuntimeStore();
  const later = Date.now() + 3_600_000;
  for (let i = 0; i < config.mirrorRevocations; i++) await runtime.revokeToken(newJti(), later);
  for (let i = 0; i < 100; i++) await runtime.revokeTokensForKey(`key_other${i}`, Date.now());
  const mirror = new RevocationMirror(runtime);
  await mirror.start();
  if (!mirror.trusted) throw new Error('the revocation mirror did not load');
  const verifier = new TokenVerifier([{ id: keyId, secret }], view, mirror);
  const authenticator = new Authenticator(view, verifier);

  const iat = Date.now();
  const claims: TokenClaims = {
    v: 1,
    jti: newJti(),
    pk: parentId,
    tenant: 'default',
    workspace: 'default',
    scopes: ['chat', `model:${MODEL}`],
    iat,
    exp: iat + 900_000,
    budget: 50_000,
    limits: { requestsPerMinute: 20, tokensPerMinute: 20_000 },
  };
  const token = encodeToken(claims, { id: keyId, secret });
  // Sanity: each path accepts this token and key.
  verifyToken(token, keys);
  await verifier.verify(token);
  await authenticator.authenticate(apiKey);

  const results: OpResult[] = [];
  results.push(measureSync('verifyToken (HMAC, claims, expiry)', () => verifyToken(token, keys).exp));
  results.push(
    await measureAsync(
      'TokenVerifier.verify (+ parent key, denylist mirror)',
      async () => (await verifier.verify(token)).token!.expiresAtMs,
    ),
  );
  results.push(
    await measureAsync(
      'Authenticator.authenticate, token',
      async () => (await authenticator.authenticate(token)).keyId.length,
    ),
  );
  results.push(
    await measureAsync(
      'Authenticator.authenticate, workspace key',
      async () => (await authenticator.authenticate(apiKey)).keyId.length,
    ),
  );
  await mirror.close();
  await view.close();
  await runtime.close();
  await store.close();
  return { tokenLength: token.length, results };
}

// ---------------------------------------------------------------------------------------------
// GraphQL on the control plane.

const MINT = `mutation Mint($input: MintEphemeralTokenInput!) {
  mintEphemeralToken(input: $input) { token jti expiresAt scopes }
}`;
const REVOKE = 'mutation Revoke($jti: String!) { revokeEphemeralToken(jti: $jti) }';

async function graphql<T>(
  pool: Pool,
  pat: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  const response = await pool.request({
    path: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${pat}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.body.json()) as { data?: T | null; errors?: unknown[] };
  if (response.statusCode !== 200 || body.errors !== undefined || body.data == null) {
    throw new Error(`GraphQL ${response.statusCode}: ${JSON.stringify(body.errors ?? body)}`);
  }
  return body.data;
}

interface MintOptions {
  budgetMicros?: number;
  rateLimits?: { requestsPerMinute?: number; tokensPerMinute?: number };
  ttlSeconds?: number;
}

async function mint(
  pool: Pool,
  credentials: { pat: string; apiKeyId: string },
  options: MintOptions,
): Promise<{ token: string; jti: string }> {
  const data = await graphql<{ mintEphemeralToken: { token: string; jti: string } }>(
    pool,
    credentials.pat,
    MINT,
    {
      input: {
        parentKeyId: credentials.apiKeyId,
        scopes: ['chat', `model:${MODEL}`],
        ttlSeconds: options.ttlSeconds ?? 3600,
        ...options,
      },
    },
  );
  return data.mintEphemeralToken;
}

// ---------------------------------------------------------------------------------------------
// Part 2: a request through the gateway, key versus token.

type Side = 'key' | 'token' | 'token+limits';
const SIDES: Side[] = ['key', 'token', 'token+limits'];
const SIDE_LABEL: Record<Side, string> = {
  key: 'workspace key',
  token: 'token (scopes)',
  'token+limits': 'token (scopes, budget, limits)',
};

/**
 * The gateway's response cache would answer these identical requests after the first: `off` sends
 * every request to the upstream, which is the path under test.
 */
const NO_CACHE = { 'x-service-cache': 'off' } as const;

function chatRequest(credential: string): LoadRequest {
  return {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}`, ...NO_CACHE },
    body: Buffer.from(JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })),
    stream: false,
  };
}

interface SideResult {
  side: Side;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  measuredMs: number;
  requestsPerSecond: number;
  latencyMs: Summary;
}

async function measureSides(
  origin: string,
  credentials: Record<Side, string>,
  concurrency: number,
): Promise<Record<Side, SideResult>> {
  const pools = Object.fromEntries(
    SIDES.map((side) => [side, new Pool(origin, { connections: concurrency, pipelining: 1 })]),
  ) as Record<Side, Pool>;
  const requests = Object.fromEntries(SIDES.map((side) => [side, chatRequest(credentials[side])])) as Record<
    Side,
    LoadRequest
  >;
  const parts = Object.fromEntries(
    SIDES.map((side) => [side, { total: [] as Float64Array[], ok: 0, fail: 0, ms: 0, ex: [] as string[] }]),
  ) as Record<Side, { total: Float64Array[]; ok: number; fail: number; ms: number; ex: string[] }>;
  try {
    for (let round = 0; round < config.rounds; round++) {
      // Rotate the order so that no side always runs first (drift, thermal, neighbours).
      const order = SIDES.map((_, index) => SIDES[(index + round) % SIDES.length]!);
      for (const side of order) {
        await closedLoop(pools[side], requests[side], concurrency, config.segmentWarmupMs);
        const samples = await closedLoop(pools[side], requests[side], concurrency, config.segmentMs);
        const part = parts[side];
        part.total.push(samples.totalMs);
        part.ok += samples.ok;
        part.fail += samples.failures;
        part.ms += samples.elapsedMs;
        part.ex.push(...samples.failureExamples);
      }
    }
  } finally {
    await Promise.all(SIDES.map((side) => pools[side].close()));
  }
  return Object.fromEntries(
    SIDES.map((side) => {
      const part = parts[side];
      const result: SideResult = {
        side,
        concurrency,
        ok: part.ok,
        failures: part.fail,
        failureExamples: part.ex.slice(0, 5),
        measuredMs: part.ms,
        requestsPerSecond: (part.ok * 1000) / part.ms,
        latencyMs: summarise(concatSamples(part.total)),
      };
      return [side, result];
    }),
  ) as Record<Side, SideResult>;
}

async function measureGatewayLatency(): Promise<SideResult[]> {
  const fake = await startFake();
  const standalone = await startStandalone({ upstreamUrl: fake.url, signingKey: SIGNING_KEY });
  const control = new Pool(standalone.controlUrl, { connections: 1 });
  const credentials: Record<Side, string> = {
    key: standalone.credentials.apiKey,
    token: (await mint(control, standalone.credentials, {})).token,
    'token+limits': (
      await mint(control, standalone.credentials, {
        budgetMicros: 1_000_000_000_000,
        rateLimits: { requestsPerMinute: 1_000_000_000, tokensPerMinute: 2_000_000_000 },
      })
    ).token,
  };
  await control.close();
  process.stdout.write(`  standalone ${standalone.url}, fake upstream ${fake.url}; warming up\n`);
  const warm = new Pool(standalone.url, { connections: 8 });
  try {
    for (const side of SIDES) {
      // Twice: the second must not come from the response cache either.
      for (let i = 0; i < 2; i++) {
        const request = chatRequest(credentials[side]);
        const response = await warm.request({ ...request, method: 'POST' });
        await response.body.text();
        if (response.statusCode !== 200 || response.headers['x-service-cache'] !== undefined) {
          throw new Error(
            `${side} check: status ${response.statusCode}, x-service-cache ${response.headers['x-service-cache']}`,
          );
        }
      }
    }
    for (const side of SIDES) {
      await closedLoop(warm, chatRequest(credentials[side]), 8, config.initialWarmupMs / SIDES.length);
    }
  } finally {
    await warm.close();
  }
  const results: SideResult[] = [];
  for (const concurrency of config.concurrency) {
    process.stdout.write(`  measuring c=${concurrency}\n`);
    const bySide = await measureSides(standalone.url, credentials, concurrency);
    results.push(...SIDES.map((side) => bySide[side]));
  }
  await stopChild(standalone.tracked);
  await stopChild(fake.tracked);
  return results;
}

// ---------------------------------------------------------------------------------------------
// Part 3: revocation across two processes.

interface Attempt {
  sentAt: bigint;
  doneAt: bigint;
  status: number;
  code?: string;
}

interface RevocationSample {
  /** Mutation round trip (request sent to answer read), ms. */
  mutationMs: number;
  /** First refusal's arrival minus the answer's arrival, ms; negative: refused before the answer came. */
  refusedAfterMs: number;
  /** When the first refused request was sent, minus the answer's arrival, ms (signed). */
  refusedSentAfterMs: number;
  /** Requests sent after the answer had arrived that were still served (should be 0). */
  staleAccepts: number;
  /** Requests sent while the mutation was under way that were still served (not stale). */
  acceptedDuringMutation: number;
  /** Requests in the loop for this token. */
  attempts: number;
}

async function chatOnce(pool: Pool, body: Buffer, authorization: string): Promise<Attempt> {
  const sentAt = process.hrtime.bigint();
  const response = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, ...NO_CACHE },
    body,
  });
  const text = await response.body.text();
  const doneAt = process.hrtime.bigint();
  const attempt: Attempt = { sentAt, doneAt, status: response.statusCode };
  if (response.statusCode !== 200) {
    try {
      attempt.code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    } catch {
      attempt.code = text.slice(0, 80);
    }
  }
  return attempt;
}

const ms = (ns: bigint) => Number(ns) / 1e6;

/** One token: mint, check on gateway 2, revoke with a request loop on gateway 2 running throughout. */
async function revokeOne(
  control: Pool,
  second: Pool,
  credentials: { pat: string; apiKeyId: string },
): Promise<RevocationSample> {
  const { token, jti } = await mint(control, credentials, {
    ttlSeconds: 600,
    budgetMicros: 1_000_000_000,
    rateLimits: { requestsPerMinute: 1_000_000, tokensPerMinute: 100_000_000 },
  });
  const body = chatRequest(token).body;
  const authorization = `Bearer ${token}`;
  const check = await chatOnce(second, body, authorization);
  if (check.status !== 200)
    throw new Error(`a fresh token was refused by the second gateway: ${check.status} ${check.code}`);

  const attempts: Attempt[] = [];
  let mutationSentAt = 0n;
  let mutationDoneAt = 0n;
  let mutationFailed: unknown;
  let loopError: unknown;
  const loop = (async () => {
    for (;;) {
      const attempt = await chatOnce(second, body, authorization);
      attempts.push(attempt);
      if (attempt.status !== 200 && !(attempt.status === 401 && attempt.code === 'service.revoked_key')) {
        throw new Error(`unexpected answer from the second gateway: ${attempt.status} ${attempt.code}`);
      }
      if (mutationFailed !== undefined) return;
      if (mutationDoneAt === 0n) continue;
      const refused = attempts.some((a) => a.status === 401);
      const after = attempts.filter((a) => a.sentAt > mutationDoneAt).length;
      if (refused && after >= config.checksAfterAnswer) return;
      if (!refused && ms(attempt.doneAt - mutationDoneAt) > config.propagationTimeoutMs) return;
    }
  })().catch((error: unknown) => {
    loopError = error;
  });
  // Let the loop get going, so the mutation lands on a gateway that is serving the token.
  while (attempts.length < 1 && loopError === undefined) await new Promise((done) => setImmediate(done));
  mutationSentAt = process.hrtime.bigint();
  try {
    const data = await graphql<{ revokeEphemeralToken: boolean }>(control, credentials.pat, REVOKE, { jti });
    mutationDoneAt = process.hrtime.bigint();
    if (data.revokeEphemeralToken !== true) throw new Error('revokeEphemeralToken did not return true');
  } catch (error) {
    mutationFailed = error;
  }
  await loop;
  if (mutationFailed !== undefined) throw mutationFailed;
  if (loopError !== undefined) throw loopError;

  const firstRefusal = attempts.find((a) => a.status === 401);
  return {
    mutationMs: ms(mutationDoneAt - mutationSentAt),
    refusedAfterMs:
      firstRefusal === undefined ? Number.POSITIVE_INFINITY : ms(firstRefusal.doneAt - mutationDoneAt),
    refusedSentAfterMs:
      firstRefusal === undefined ? Number.POSITIVE_INFINITY : ms(firstRefusal.sentAt - mutationDoneAt),
    staleAccepts: attempts.filter((a) => a.status === 200 && a.sentAt > mutationDoneAt).length,
    acceptedDuringMutation: attempts.filter(
      (a) => a.status === 200 && a.sentAt > mutationSentAt && a.sentAt <= mutationDoneAt,
    ).length,
    attempts: attempts.length,
  };
}

interface RevocationResult {
  tokens: number;
  neverRefused: number;
  refusedBeforeAnswer: number;
  staleAccepts: number;
  tokensWithStaleAccepts: number;
  acceptedDuringMutation: number;
  /** Signed: first refusal's arrival minus the answer's arrival, ms. */
  refusedAfterMs: Summary;
  /** The same, negative values counted as 0 (already refused when the answer arrived). */
  propagationMs: Summary;
  refusedSentAfterMs: Summary;
  mutationMs: Summary;
  attemptsPerToken: Summary;
  /** Lowest of each (negative first-401 values: refused before the answer arrived). */
  min: { refusedAfterMs: number; refusedSentAfterMs: number; mutationMs: number; attemptsPerToken: number };
  samples: RevocationSample[];
}

async function measureRevocation(): Promise<RevocationResult> {
  const redis = await startRedis();
  const fake = await startFake();
  const encryptionKey = randomBytes(32).toString('hex');
  const shared = { upstreamUrl: fake.url, signingKey: SIGNING_KEY, redisUrl: redis.url, encryptionKey };
  const standalone = await startStandalone(shared, 'standalone (redis)');
  const second = await startGatewayRole(shared, 'second gateway');
  process.stdout.write(
    `  ${redis.url}; standalone ${standalone.url} (control ${standalone.controlUrl}); second gateway ${second.url}\n`,
  );
  const control = new Pool(standalone.controlUrl, { connections: 1 });
  const secondPool = new Pool(second.url, { connections: 1 });
  const samples: RevocationSample[] = [];
  try {
    // The bootstrap key reaches the second process through the Redis config store: wait for it.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { token } = await mint(control, standalone.credentials, { ttlSeconds: 60 });
      const attempt = await chatOnce(secondPool, chatRequest(token).body, `Bearer ${token}`);
      if (attempt.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`the second gateway refuses tokens: ${attempt.status} ${attempt.code}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    for (let i = 0; i < config.revocationWarmup; i++)
      await revokeOne(control, secondPool, standalone.credentials);
    for (let i = 0; i < config.revocations; i++) {
      samples.push(await revokeOne(control, secondPool, standalone.credentials));
    }
  } finally {
    await Promise.all([control.close(), secondPool.close()]);
  }
  await stopChild(second.tracked);
  await stopChild(standalone.tracked);
  await stopChild(fake.tracked);
  await stopChild(redis.tracked);

  const refused = samples.filter((s) => Number.isFinite(s.refusedAfterMs));
  return {
    tokens: samples.length,
    neverRefused: samples.length - refused.length,
    refusedBeforeAnswer: refused.filter((s) => s.refusedAfterMs < 0).length,
    staleAccepts: samples.reduce((sum, s) => sum + s.staleAccepts, 0),
    tokensWithStaleAccepts: samples.filter((s) => s.staleAccepts > 0).length,
    acceptedDuringMutation: samples.reduce((sum, s) => sum + s.acceptedDuringMutation, 0),
    refusedAfterMs: summarise(Float64Array.from(samples, (s) => s.refusedAfterMs)),
    propagationMs: summarise(Float64Array.from(samples, (s) => Math.max(0, s.refusedAfterMs))),
    refusedSentAfterMs: summarise(Float64Array.from(samples, (s) => s.refusedSentAfterMs)),
    mutationMs: summarise(Float64Array.from(samples, (s) => s.mutationMs)),
    attemptsPerToken: summarise(Float64Array.from(samples, (s) => s.attempts)),
    min: {
      refusedAfterMs: Math.min(...samples.map((s) => s.refusedAfterMs)),
      refusedSentAfterMs: Math.min(...samples.map((s) => s.refusedSentAfterMs)),
      mutationMs: Math.min(...samples.map((s) => s.mutationMs)),
      attemptsPerToken: Math.min(...samples.map((s) => s.attempts)),
    },
    samples,
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  process.stdout.write(
    `token bench: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, ${machine.os}${QUICK ? ' (quick)' : ''}\n`,
  );

  process.stdout.write('1/3 verification in process\n');
  const verification = await measureVerification();
  process.stdout.write('2/3 gateway latency, key vs token\n');
  const latency = await measureGatewayLatency();
  process.stdout.write(`3/3 revocation across two processes (${config.revocations} tokens)\n`);
  const revocation = await measureRevocation();
  await stopAll();
  const loadAvgAtEnd = machineInfo().loadAvgAtStart;

  const verifyOp = verification.results[1]!;
  const verifyMet = verifyOp.batchUs.p50 < config.aimVerifyUs && verifyOp.batchUs.p99 < config.aimVerifyUs;
  const propagationMet =
    revocation.neverRefused === 0 &&
    revocation.staleAccepts === 0 &&
    revocation.propagationMs.p99 < config.aimPropagationMs;

  const added = config.concurrency.flatMap((concurrency) => {
    const key = latency.find((r) => r.side === 'key' && r.concurrency === concurrency)!;
    return latency
      .filter((r) => r.side !== 'key' && r.concurrency === concurrency)
      .map((r) => ({
        side: r.side,
        concurrency,
        p50Ms: r.latencyMs.p50 - key.latencyMs.p50,
        p99Ms: r.latencyMs.p99 - key.latencyMs.p99,
        requestsPerSecondRatio: r.requestsPerSecond / key.requestsPerSecond,
      }));
  });

  const us = (value: number) => value.toFixed(2);
  const report = [
    '',
    `machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, ${machine.totalMemGiB} GiB, ${machine.os}, node ${machine.node}`,
    `date: ${startedAt.toISOString()}; load avg at start ${machine.loadAvgAtStart.join(' ')}, at end ${loadAvgAtEnd.join(' ')}`,
    '',
    `1. verification in process (token ${verification.tokenLength} chars; batches of ${config.verifyBatch}, µs/op per batch):`,
    table(
      ['operation', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs', 'max µs'],
      verification.results.map((r) => [
        r.name,
        r.opsPerSecond.toFixed(0),
        us(r.meanUs),
        us(r.batchUs.p50),
        us(r.batchUs.p99),
        us(r.batchUs.max),
      ]),
    ),
    `aim: TokenVerifier.verify under ${config.aimVerifyUs} µs (p50 and p99): ${verifyMet ? 'met' : 'MISSED'}`,
    '',
    '2. JSON chat through the standalone gateway (embedded stores), ms:',
    table(
      ['credential', 'c', 'ok', 'fail', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s'],
      latency.map((r) => [
        SIDE_LABEL[r.side],
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
    'token minus workspace key (same percentile):',
    table(
      ['credential', 'c', 'p50 ms', 'p99 ms', 'req/s vs key'],
      added.map((a) => [
        SIDE_LABEL[a.side],
        String(a.concurrency),
        f3(a.p50Ms),
        f3(a.p99Ms),
        `${((a.requestsPerSecondRatio - 1) * 100).toFixed(1)}%`,
      ]),
    ),
    '',
    `3. revocation: standalone on Redis revokes, second gateway process refuses (${revocation.tokens} tokens):`,
    table(
      ['', 'min', 'p50', 'p90', 'p99', 'max'],
      (
        [
          ['propagation ms (first 401 after the answer, ≥0)', revocation.propagationMs, undefined],
          ['first 401 minus answer ms (signed)', revocation.refusedAfterMs, revocation.min.refusedAfterMs],
          [
            'first refused request sent, ms after the answer',
            revocation.refusedSentAfterMs,
            revocation.min.refusedSentAfterMs,
          ],
          ['revoke mutation round trip ms', revocation.mutationMs, revocation.min.mutationMs],
          ['requests to gateway 2 per token', revocation.attemptsPerToken, revocation.min.attemptsPerToken],
        ] as const
      ).map(([label, summary, min]) => [
        label,
        min === undefined ? '' : f3(min),
        f3(summary.p50),
        f3(summary.p90),
        f3(summary.p99),
        f3(summary.max),
      ]),
    ),
    `refused before the answer arrived: ${revocation.refusedBeforeAnswer}/${revocation.tokens}; ` +
      `never refused (>${config.propagationTimeoutMs} ms): ${revocation.neverRefused}`,
    `stale accepts (sent after the answer, still 200): ${revocation.staleAccepts} ` +
      `(${revocation.tokensWithStaleAccepts} tokens); accepted while the mutation ran: ${revocation.acceptedDuringMutation}`,
    `aim: propagation p99 under ${config.aimPropagationMs} ms and no stale accepts: ${propagationMet ? 'met' : 'MISSED'}`,
  ];
  for (const r of latency.filter((r) => r.failures > 0)) {
    report.push(`failures, ${SIDE_LABEL[r.side]} c=${r.concurrency}: ${r.failureExamples.join('; ')}`);
  }

  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `tokens-${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine: { ...machine, loadAvgAtEnd },
        config: { ...config, quick: QUICK },
        verification: { ...verification, aimMet: verifyMet },
        gatewayLatency: { scenarios: latency, tokenMinusKey: added },
        revocation: { ...revocation, aimMet: propagationMet },
      },
      (_key, value) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value),
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
